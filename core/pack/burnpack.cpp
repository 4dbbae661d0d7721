// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The burnpack container's types (../shared/docs/format-burnpack.md): dtypes, tensors, a file's
// lookups and its content for the writer. The reader is burnpackreader.cpp, the writer
// burnpackwriter.cpp.
#include "core/pack/burnpack.h"

#include <algorithm>

namespace ckpt::pack {

namespace {

/// The unit variants of Burn's DType, as burnpack's metadata spells them.
const std::pair<const char*, BurnpackDType::Kind> kUnitDTypes[] = {
    {"F64", BurnpackDType::Kind::F64},
    {"F32", BurnpackDType::Kind::F32},
    {"Flex32", BurnpackDType::Kind::Flex32},
    {"F16", BurnpackDType::Kind::F16},
    {"BF16", BurnpackDType::Kind::BF16},
    {"I64", BurnpackDType::Kind::I64},
    {"I32", BurnpackDType::Kind::I32},
    {"I16", BurnpackDType::Kind::I16},
    {"I8", BurnpackDType::Kind::I8},
    {"U64", BurnpackDType::Kind::U64},
    {"U32", BurnpackDType::Kind::U32},
    {"U16", BurnpackDType::Kind::U16},
    {"U8", BurnpackDType::Kind::U8},
};

} // namespace

std::optional<BurnpackDType::Kind> BurnpackDType::unitKind(std::string_view name)
{
    for (const auto& [n, k] : kUnitDTypes)
        if (name == n)
            return k;
    return std::nullopt;
}

uint64_t BurnpackDType::elementSize() const
{
    return dtypeSize(dtype(), store());
}

std::string BurnpackDType::name() const
{
    switch (kind) {
    case Kind::Bool: return legacyBool ? "Bool" : "Bool(" + std::string(boolStoreName(boolStore)) + ")";
    case Kind::QFloat: return "QFloat";
    default:
        for (const auto& [n, k] : kUnitDTypes)
            if (k == kind)
                return n;
    }
    return "?";
}

namespace {
/// The two enums name the same element types: one table between them.
constexpr std::pair<BurnpackDType::Kind, DType> kKindDTypes[] = {{BurnpackDType::Kind::F64, DType::F64},
    {BurnpackDType::Kind::F32, DType::F32}, {BurnpackDType::Kind::Flex32, DType::Flex32}, {BurnpackDType::Kind::F16, DType::F16},
    {BurnpackDType::Kind::BF16, DType::BF16}, {BurnpackDType::Kind::I64, DType::I64}, {BurnpackDType::Kind::I32, DType::I32},
    {BurnpackDType::Kind::I16, DType::I16}, {BurnpackDType::Kind::I8, DType::I8}, {BurnpackDType::Kind::U64, DType::U64},
    {BurnpackDType::Kind::U32, DType::U32}, {BurnpackDType::Kind::U16, DType::U16}, {BurnpackDType::Kind::U8, DType::U8},
    {BurnpackDType::Kind::Bool, DType::Bool}, {BurnpackDType::Kind::QFloat, DType::QFloat}};
} // namespace

DType BurnpackDType::dtype() const
{
    for (const auto& [k, d] : kKindDTypes)
        if (k == kind)
            return d;
    return DType::QFloat;
}

std::optional<BurnpackDType> BurnpackDType::of(DType d)
{
    if (d == DType::QFloat)
        return std::nullopt; // the scheme's encoding changed with every cubecl release (§10.4)
    BurnpackDType out;
    for (const auto& [k, dt] : kKindDTypes)
        if (dt == d)
            out.kind = k;
    return out;
}

std::optional<uint64_t> BurnpackTensor::expectedByteLength() const
{
    const uint64_t size = dtype.elementSize();
    if (size == 0)
        return std::nullopt;
    uint64_t n = size;
    for (uint64_t d : shape)
        if (__builtin_mul_overflow(n, d, &n))
            return std::nullopt;
    return n;
}

const BurnpackTensor* BurnpackFile::find(std::string_view name) const
{
    auto it = std::lower_bound(tensors.begin(), tensors.end(), name, [](const BurnpackTensor& t, std::string_view n) { return t.name < n; });
    return it != tensors.end() && it->name == name ? &*it : nullptr;
}

std::vector<size_t> BurnpackFile::physicalOrder() const
{
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::pair(tensors[a].start, tensors[a].end) < std::pair(tensors[b].start, tensors[b].end);
    });
    return order;
}

BurnpackContent contentOf(const BurnpackFile& file)
{
    BurnpackContent c;
    c.layout = file.layout;
    c.keepAlive = file.source;
    for (size_t i : file.physicalOrder()) {
        const auto& t = file.tensors[i];
        c.tensors.push_back({t.name, t.dtype, t.shape, t.paramId, t.data});
    }
    c.metadata = file.metadata;
    c.scalars = file.scalars;
    return c;
}

} // namespace ckpt::pack
