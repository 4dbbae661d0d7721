// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The burnpack writer (../shared/docs/format-burnpack.md §7): what burn-pack's writer writes, byte
// for byte. The metadata is ciborium 0.2.2's serialisation of burn-pack's Metadata struct (serde's
// struct and enum shapes over core/codec/cbor's ciborium-exact heads and floats); offsets are planned
// in list order, the gaps are zeros, nothing follows the last tensor.
#include "core/pack/burnpack.h"

#include "core/codec/cbor.h"

#include <algorithm>
#include <functional>

namespace ckpt::pack {

namespace {

void appendDType(std::vector<uint8_t>& out, const BurnpackDType& t)
{
    using K = BurnpackDType::Kind;
    switch (t.kind) {
    case K::Bool:
        if (t.legacyBool) {
            cbor::appendText(out, "Bool");
        } else {
            cbor::appendHead(out, 5, 1);
            cbor::appendText(out, "Bool");
            cbor::appendText(out, boolStoreName(t.boolStore));
        }
        return;
    case K::QFloat:
        cbor::appendHead(out, 5, 1);
        cbor::appendText(out, "QFloat");
        out.insert(out.end(), t.qfloatScheme.begin(), t.qfloatScheme.end());
        return;
    default: cbor::appendText(out, t.name()); // a unit variant: its name
    }
}

void appendScalar(std::vector<uint8_t>& out, const BurnpackScalar& v)
{
    cbor::appendHead(out, 5, 1);
    switch (v.kind) {
    case BurnpackScalar::Kind::Int:
        cbor::appendText(out, "Int");
        cbor::appendInt(out, v.i);
        break;
    case BurnpackScalar::Kind::UInt:
        cbor::appendText(out, "UInt");
        cbor::appendUnsigned(out, v.u);
        break;
    case BurnpackScalar::Kind::Float:
        cbor::appendText(out, "Float");
        cbor::appendFloat(out, v.f);
        break;
    case BurnpackScalar::Kind::Bool:
        cbor::appendText(out, "Bool");
        cbor::appendBool(out, v.b);
        break;
    }
}

using Entries = std::vector<std::pair<std::string, std::string>>;
using Scalars = std::vector<std::pair<std::string, BurnpackScalar>>;

/** Where each tensor goes, and what the metadata says about it (the metadata's CBOR, the file's size). */
struct Plan {
    std::vector<uint8_t> metadata;
    std::vector<uint64_t> starts; // per tensor in list order
    std::vector<uint64_t> ends;
    std::vector<size_t> byName;   // tensor indices in name order (the BTreeMap's)
    uint64_t dataEnd = 0;         // relative to the data section
    uint64_t dataStart = 0;
    uint64_t total = 0;
};

/** The offsets in list order (aligned or back to back) and the tensors' name order; a repeated name is refused. */
Result<void> planOffsets(const BurnpackContent& c, Plan& p)
{
    const bool aligned = c.layout == BurnpackLayout::Aligned256;
    uint64_t cur = 0;
    for (const auto& t : c.tensors) {
        const uint64_t start = aligned ? burnpackAlign(cur) : cur;
        if (start < cur || start + t.data.size() < start)
            return fail(ErrorCode::Limit, "tensor '" + t.name + "': data offsets overflow 64 bits");
        p.starts.push_back(start);
        cur = start + t.data.size();
        p.ends.push_back(cur);
    }
    p.dataEnd = cur;
    p.byName.resize(c.tensors.size());
    for (size_t i = 0; i < p.byName.size(); ++i)
        p.byName[i] = i;
    std::sort(p.byName.begin(), p.byName.end(), [&](size_t a, size_t b) { return c.tensors[a].name < c.tensors[b].name; });
    for (size_t i = 1; i < p.byName.size(); ++i)
        if (c.tensors[p.byName[i]].name == c.tensors[p.byName[i - 1]].name)
            return fail(ErrorCode::Invalid, "Duplicate tensor name '" + c.tensors[p.byName[i]].name + "' (burn-pack's writer refuses it)");
    return {};
}

/** \a entries sorted by key (stable); a repeated key is refused. */
template<class E>
Result<E> sortedUnique(E entries, const char* what)
{
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 1; i < entries.size(); ++i)
        if (entries[i].first == entries[i - 1].first)
            return fail(ErrorCode::Invalid, std::string("repeated ") + what + " key '" + entries[i].first + "'");
    return entries;
}

/** Metadata {tensors, metadata?, scalars?} as ciborium writes it: maps in name order, empty maps left out. */
void encodeMetadata(const BurnpackContent& c, const Plan& p, const Entries& md, const Scalars& sc, std::vector<uint8_t>& out)
{
    cbor::appendHead(out, 5, 1 + (md.empty() ? 0 : 1) + (sc.empty() ? 0 : 1));
    cbor::appendText(out, "tensors");
    cbor::appendHead(out, 5, c.tensors.size());
    for (size_t i : p.byName) {
        const auto& t = c.tensors[i];
        cbor::appendText(out, t.name);
        cbor::appendHead(out, 5, t.paramId ? 4 : 3);
        cbor::appendText(out, "dtype");
        appendDType(out, t.dtype);
        cbor::appendText(out, "shape");
        cbor::appendHead(out, 4, t.shape.size());
        for (uint64_t s : t.shape)
            cbor::appendUnsigned(out, s);
        cbor::appendText(out, "data_offsets");
        cbor::appendHead(out, 4, 2);
        cbor::appendUnsigned(out, p.starts[i]);
        cbor::appendUnsigned(out, p.ends[i]);
        if (t.paramId) {
            cbor::appendText(out, "param_id");
            cbor::appendUnsigned(out, *t.paramId);
        }
    }
    if (!md.empty()) {
        cbor::appendText(out, "metadata");
        cbor::appendHead(out, 5, md.size());
        for (const auto& [k, v] : md) {
            cbor::appendText(out, k);
            cbor::appendText(out, v);
        }
    }
    if (!sc.empty()) {
        cbor::appendText(out, "scalars");
        cbor::appendHead(out, 5, sc.size());
        for (const auto& [k, v] : sc) {
            cbor::appendText(out, k);
            appendScalar(out, v);
        }
    }
}

Result<Plan> plan(const BurnpackContent& c)
{
    Plan p;
    if (auto r = planOffsets(c, p); !r)
        return std::unexpected(r.error());
    auto md = sortedUnique(c.metadata, "metadata");
    if (!md)
        return std::unexpected(md.error());
    auto sc = sortedUnique(c.scalars, "scalar");
    if (!sc)
        return std::unexpected(sc.error());
    encodeMetadata(c, p, *md, *sc, p.metadata);
    if (p.metadata.size() >= (uint64_t{1} << 32))
        return fail(ErrorCode::Limit, "the metadata is " + std::to_string(p.metadata.size()) + " bytes; burnpack's header holds at most 4 GiB - 1");
    const uint64_t mend = kBurnpackHeaderSize + p.metadata.size();
    p.dataStart = c.layout == BurnpackLayout::Aligned256 ? burnpackAlign(mend) : mend;
    p.total = p.dataStart + p.dataEnd;
    return p;
}

Result<void> emit(const BurnpackContent& c, const Plan& p, const std::function<Result<void>(std::span<const uint8_t>)>& sink)
{
    static const std::vector<uint8_t> zeros(kBurnpackAlignment, 0);
    uint8_t header[10] = {0x4e, 0x52, 0x55, 0x42, 0x01, 0x00};
    const uint32_t m = static_cast<uint32_t>(p.metadata.size());
    for (int i = 0; i < 4; ++i)
        header[6 + i] = static_cast<uint8_t>(m >> (8 * i));
    uint64_t at = 0;
    auto put = [&](std::span<const uint8_t> s) -> Result<void> {
        at += s.size();
        return s.empty() ? Result<void>() : sink(s);
    };
    auto padTo = [&](uint64_t target) -> Result<void> {
        while (at < target) {
            const uint64_t n = std::min<uint64_t>(target - at, zeros.size());
            if (auto r = put(std::span(zeros.data(), static_cast<size_t>(n))); !r)
                return r;
        }
        return {};
    };
    if (auto r = put(header); !r)
        return r;
    if (auto r = put(p.metadata); !r)
        return r;
    if (auto r = padTo(p.dataStart); !r)
        return r;
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        if (auto r = padTo(p.dataStart + p.starts[i]); !r)
            return r;
        if (auto r = put(c.tensors[i].data); !r)
            return r;
    }
    return {};
}

} // namespace

Result<std::vector<uint8_t>> encodeBurnpackMetadata(const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(p.error());
        return std::move(p->metadata);
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

Result<std::vector<uint8_t>> encodeBurnpack(const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(p.error());
        std::vector<uint8_t> out;
        out.reserve(static_cast<size_t>(p->total));
        auto r = emit(content, *p, [&](std::span<const uint8_t> s) -> Result<void> {
            out.insert(out.end(), s.begin(), s.end());
            return {};
        });
        if (!r)
            return std::unexpected(r.error());
        return out;
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

Result<void> writeBurnpack(const std::string& path, const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(std::move(p.error()).withFile(path));
        auto r = writeFileAtomic(path, [&](const std::function<Result<void>(std::span<const uint8_t>)>& sink) { return emit(content, *p, sink); });
        if (!r)
            return std::unexpected(std::move(r.error()).withFile(path));
        return {};
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

} // namespace ckpt::pack
