// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A CBOR encoder of the tests' own, not core's writer: the generators follow RFC 8949 and the format
// specs, so a file they make checks our reader rather than agreeing with our writer. Shortest heads
// and the narrowest exact float, as ciborium writes; head8() and raw() spell what it never would.

#include <QByteArray>

#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace ckpt::testing {

struct CborBuilder {
    std::vector<uint8_t> b;

    CborBuilder& raw(std::initializer_list<int> bytes)
    {
        for (int x : bytes)
            b.push_back(static_cast<uint8_t>(x));
        return *this;
    }
    CborBuilder& rawHex(const char* h)
    {
        const QByteArray r = QByteArray::fromHex(h);
        b.insert(b.end(), r.begin(), r.end());
        return *this;
    }
    CborBuilder& repeat(std::initializer_list<int> bytes, size_t times)
    {
        for (size_t i = 0; i < times; ++i)
            raw(bytes);
        return *this;
    }
    /** An item's head with the shortest argument. */
    CborBuilder& head(int major, uint64_t v)
    {
        const int bytes = v < 24 ? 0 : v < 0x100 ? 1 : v < 0x10000 ? 2 : v < 0x100000000ull ? 4 : 8;
        const int info = bytes == 0 ? static_cast<int>(v) : bytes == 1 ? 24 : bytes == 2 ? 25 : bytes == 4 ? 26 : 27;
        b.push_back(static_cast<uint8_t>(major << 5 | info));
        for (int i = bytes - 1; i >= 0; --i)
            b.push_back(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
    /** A head with an 8-byte argument whatever its value (the widest a bomb can claim). */
    CborBuilder& head8(int major, uint64_t v)
    {
        b.push_back(static_cast<uint8_t>(major << 5 | 27));
        for (int i = 7; i >= 0; --i)
            b.push_back(static_cast<uint8_t>(v >> (8 * i)));
        return *this;
    }
    CborBuilder& u(uint64_t v) { return head(0, v); }
    CborBuilder& i(int64_t v) { return v >= 0 ? head(0, static_cast<uint64_t>(v)) : head(1, static_cast<uint64_t>(-(v + 1))); }
    CborBuilder& t(std::string_view s)
    {
        head(3, s.size());
        b.insert(b.end(), s.begin(), s.end());
        return *this;
    }
    CborBuilder& arr(uint64_t n) { return head(4, n); }
    CborBuilder& map(uint64_t n) { return head(5, n); }
    /** A float in the narrowest width that holds it exactly (binary16, 32 or 64); NaN as f9 7e00. */
    CborBuilder& f(double v)
    {
        if (std::isnan(v))
            return raw({0xf9, 0x7e, 0x00});
        const float fl = static_cast<float>(v);
        if (std::bit_cast<uint64_t>(static_cast<double>(fl)) == std::bit_cast<uint64_t>(v)) {
            const _Float16 h = static_cast<_Float16>(fl);
            if (std::bit_cast<uint32_t>(static_cast<float>(h)) == std::bit_cast<uint32_t>(fl)) {
                const uint16_t hb = std::bit_cast<uint16_t>(h);
                return raw({0xf9, hb >> 8, hb & 0xff});
            }
            const uint32_t x = std::bit_cast<uint32_t>(fl);
            return raw({0xfa, static_cast<int>(x >> 24), static_cast<int>((x >> 16) & 0xff), static_cast<int>((x >> 8) & 0xff), static_cast<int>(x & 0xff)});
        }
        const uint64_t x = std::bit_cast<uint64_t>(v);
        b.push_back(0xfb);
        for (int s = 56; s >= 0; s -= 8)
            b.push_back(static_cast<uint8_t>(x >> s));
        return *this;
    }
    CborBuilder& add(const CborBuilder& o)
    {
        b.insert(b.end(), o.b.begin(), o.b.end());
        return *this;
    }
};

} // namespace ckpt::testing
