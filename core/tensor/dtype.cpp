// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor/dtype.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <span>

namespace ckpt {

namespace {
constexpr std::array<std::string_view, 15> kNames = {"F64", "F32", "Flex32", "F16", "BF16", "I64", "I32", "I16", "I8",
    "U64", "U32", "U16", "U8", "Bool", "QFloat"};

using D = DType;
constexpr std::array<D, 13> kTable014 = {D::F64, D::F32, D::F16, D::BF16, D::I64, D::I32, D::I16, D::I8, D::U64, D::U32, D::U8, D::Bool, D::QFloat};
constexpr std::array<D, 14> kTable016 = {D::F64, D::F32, D::F16, D::BF16, D::I64, D::I32, D::I16, D::I8, D::U64, D::U32, D::U16, D::U8, D::Bool, D::QFloat};
constexpr std::array<D, 15> kTable017 = {D::F64, D::F32, D::Flex32, D::F16, D::BF16, D::I64, D::I32, D::I16, D::I8, D::U64, D::U32, D::U16, D::U8, D::Bool, D::QFloat};

std::span<const D> table(DTypeTable t)
{
    switch (t) {
    case DTypeTable::Burn014: return kTable014;
    case DTypeTable::Burn016: return kTable016;
    case DTypeTable::Burn017:
    case DTypeTable::Burn021: return kTable017;
    }
    return kTable017;
}
} // namespace

std::string_view dtypeName(DType d) { return kNames[static_cast<size_t>(d)]; }

std::optional<DType> dtypeFromName(std::string_view name)
{
    for (size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name)
            return static_cast<DType>(i);
    return std::nullopt;
}

namespace {
constexpr std::array<std::string_view, 3> kBoolStores = {"Native", "U8", "U32"};
}

std::string_view boolStoreName(BoolStore s)
{
    return kBoolStores[static_cast<size_t>(s)];
}

std::optional<BoolStore> boolStoreFromName(std::string_view name)
{
    for (size_t i = 0; i < kBoolStores.size(); ++i)
        if (kBoolStores[i] == name)
            return static_cast<BoolStore>(i);
    return std::nullopt;
}

std::string storedDTypeName(DType d, BoolStore store)
{
    if (d == D::Bool && store != BoolStore::Native)
        return "Bool(" + std::string(boolStoreName(store)) + ")";
    return std::string(dtypeName(d));
}

DType elementDType(DType d, BoolStore store)
{
    return d == D::Bool && store == BoolStore::U32 ? D::U32 : d;
}

uint32_t dtypeSize(DType d, BoolStore store)
{
    switch (d) {
    case D::F64: case D::I64: case D::U64: return 8;
    case D::F32: case D::Flex32: case D::I32: case D::U32: return 4;
    case D::F16: case D::BF16: case D::I16: case D::U16: return 2;
    case D::I8: case D::U8: return 1;
    case D::Bool: return store == BoolStore::U32 ? 4 : 1;
    case D::QFloat: return 0;
    }
    return 0;
}

bool isFloat(DType d)
{
    return d == D::F64 || d == D::F32 || d == D::Flex32 || d == D::F16 || d == D::BF16 || d == D::QFloat;
}

DTypeTable dtypeTableForVersion(std::string_view v)
{
    int major = 0, minor = 0, patch = 0;
    const char* p = v.data();
    const char* e = v.data() + v.size();
    auto r = std::from_chars(p, e, major);
    if (r.ptr < e && *r.ptr == '.')
        r = std::from_chars(r.ptr + 1, e, minor);
    if (r.ptr < e && *r.ptr == '.')
        r = std::from_chars(r.ptr + 1, e, patch);
    if (major > 0 || minor >= 22)
        return DTypeTable::Burn021;
    if (minor >= 21) {
        // 0.21.0-pre.1/.2 still had the bare Bool; everything later has Bool(BoolStore).
        if (patch == 0 && (v.find("-pre.1") != std::string_view::npos || v.find("-pre.2") != std::string_view::npos))
            return DTypeTable::Burn017;
        return DTypeTable::Burn021;
    }
    if (minor >= 17)
        return DTypeTable::Burn017;
    if (minor == 16)
        return DTypeTable::Burn016;
    return DTypeTable::Burn014;
}

std::optional<DType> dtypeFromIndex(DTypeTable t, uint32_t index)
{
    auto tab = table(t);
    if (index >= tab.size())
        return std::nullopt;
    return tab[index];
}

std::optional<uint32_t> dtypeIndex(DTypeTable t, DType d)
{
    auto tab = table(t);
    for (uint32_t i = 0; i < tab.size(); ++i)
        if (tab[i] == d)
            return i;
    return std::nullopt;
}

float halfToFloat(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {
            // Subnormal half: normalise into a float (exact).
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while ((mant & 0x400) == 0);
            mant &= 0x3ff;
            bits = sign | (uint32_t(127 - 15 - e) << 23) | (mant << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(bits);
}

float bf16ToFloat(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

uint16_t floatToHalf(float value)
{
    // Mirrors half-rs f32_to_f16_fallback: round to nearest, ties to even, NaN keeps a quiet bit.
    const uint32_t x = std::bit_cast<uint32_t>(value);
    const uint32_t sign = x & 0x80000000u;
    const uint32_t exp = x & 0x7f800000u;
    const uint32_t man = x & 0x007fffffu;
    if (exp == 0x7f800000u) {
        const uint32_t nanBit = man == 0 ? 0 : 0x0200u;
        return static_cast<uint16_t>((sign >> 16) | 0x7c00u | nanBit | (man >> 13));
    }
    const uint32_t halfSign = sign >> 16;
    const int32_t unbiasedExp = int32_t(exp >> 23) - 127;
    const int32_t halfExp = unbiasedExp + 15;
    if (halfExp >= 0x1f)
        return static_cast<uint16_t>(halfSign | 0x7c00u);
    if (halfExp <= 0) {
        if (14 - halfExp > 24)
            return static_cast<uint16_t>(halfSign);
        const uint32_t m = man | 0x00800000u;
        uint32_t halfMan = m >> (14 - halfExp);
        const uint32_t roundBit = 1u << (13 - halfExp);
        if ((m & roundBit) != 0 && (m & (3 * roundBit - 1)) != 0)
            ++halfMan;
        return static_cast<uint16_t>(halfSign | halfMan);
    }
    const uint32_t halfExpBits = uint32_t(halfExp) << 10;
    const uint32_t halfMan = man >> 13;
    const uint32_t roundBit = 0x00001000u;
    if ((man & roundBit) != 0 && (man & (3 * roundBit - 1)) != 0)
        return static_cast<uint16_t>((halfSign | halfExpBits | halfMan) + 1);
    return static_cast<uint16_t>(halfSign | halfExpBits | halfMan);
}

uint16_t floatToBf16(float value)
{
    const uint32_t x = std::bit_cast<uint32_t>(value);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<uint16_t>((x >> 16) | 0x0040u);
    const uint32_t roundBit = 0x00008000u;
    if ((x & roundBit) != 0 && (x & (3 * roundBit - 1)) != 0)
        return static_cast<uint16_t>((x >> 16) + 1);
    return static_cast<uint16_t>(x >> 16);
}

std::optional<uint16_t> floatToHalfExact(float f)
{
    if (std::isnan(f))
        return std::nullopt;
    const uint16_t h = floatToHalf(f);
    if (std::bit_cast<uint32_t>(halfToFloat(h)) != std::bit_cast<uint32_t>(f))
        return std::nullopt;
    return h;
}

uint16_t doubleToHalf(double d)
{
    // half's f16::from_f64 rounds directly from f64; going through f32 can double-round. Do it directly.
    const uint64_t x = std::bit_cast<uint64_t>(d);
    const uint32_t sign = uint32_t((x >> 48) & 0x8000u);
    const uint64_t exp = (x >> 52) & 0x7ff;
    const uint64_t man = x & 0x000fffffffffffffull;
    if (exp == 0x7ff) {
        const uint32_t nanBit = man == 0 ? 0 : 0x0200u;
        return static_cast<uint16_t>(sign | 0x7c00u | nanBit | uint32_t(man >> 42));
    }
    const int64_t halfExp = int64_t(exp) - 1023 + 15;
    if (halfExp >= 0x1f)
        return static_cast<uint16_t>(sign | 0x7c00u);
    if (halfExp <= 0) {
        if (10 - halfExp > 21 + 32)
            return static_cast<uint16_t>(sign);
        const uint64_t m = man | 0x0010000000000000ull;
        const int shift = int(43 - halfExp);
        if (shift >= 64)
            return static_cast<uint16_t>(sign);
        uint64_t halfMan = m >> shift;
        const uint64_t roundBit = 1ull << (shift - 1);
        if ((m & roundBit) != 0 && (m & (3 * roundBit - 1)) != 0)
            ++halfMan;
        return static_cast<uint16_t>(sign | uint32_t(halfMan));
    }
    const uint32_t halfExpBits = uint32_t(halfExp) << 10;
    const uint32_t halfMan = uint32_t(man >> 42);
    const uint64_t roundBit = 1ull << 41;
    if ((man & roundBit) != 0 && (man & (3 * roundBit - 1)) != 0)
        return static_cast<uint16_t>((sign | halfExpBits | halfMan) + 1);
    return static_cast<uint16_t>(sign | halfExpBits | halfMan);
}

} // namespace ckpt
