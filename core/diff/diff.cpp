// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diff/diff.h"

#include "core/codec/json.h"

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

std::string_view diffStatusName(DiffStatus s)
{
    switch (s) {
    case DiffStatus::Added: return "added";
    case DiffStatus::Removed: return "removed";
    case DiffStatus::Changed: return "changed";
    case DiffStatus::Unchanged: return "unchanged";
    case DiffStatus::ShapeChanged: return "shape_changed";
    case DiffStatus::DTypeChanged: return "dtype_changed";
    }
    return "changed";
}

std::string valueToJson(const Tape& t, uint32_t node, bool pretty)
{
    Sink s;
    writeJson(t, node, pretty ? JsonStyle::Pretty : JsonStyle::Compact, s);
    return std::string(s.buffer().begin(), s.buffer().end());
}

namespace {

template<class T>
T ld(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// One pass over both payloads. Same-dtype f32 (the common case) gets a loop without dispatch.
void compareValues(const Record& ra, const TensorEntry& ta, const Record& rb, const TensorEntry& tb, double tol, TensorDiff& d)
{
    double maxAbs = 0, dot = 0, na = 0, nb = 0, nd = 0;
    uint64_t differing = 0;
    auto step = [&](double x, double y) {
        if (std::isnan(x) || std::isnan(y)) {
            differing += !(std::isnan(x) && std::isnan(y));
            return;
        }
        const double diff = x - y;
        const double ad = std::isfinite(diff) ? std::fabs(diff) : (x == y ? 0.0 : INFINITY);
        if (ad > tol)
            ++differing;
        if (std::isfinite(x) && std::isfinite(y)) {
            maxAbs = std::max(maxAbs, ad);
            dot += x * y;
            na += x * x;
            nb += y * y;
            nd += diff * diff;
        } else if (ad > 0) {
            maxAbs = INFINITY;
        }
    };
    if (!ta.legacy && !tb.legacy && ta.dtype == DType::F32 && tb.dtype == DType::F32) {
        const uint8_t* pa = ra.payload(ta).data();
        const uint8_t* pb = rb.payload(tb).data();
        for (uint64_t i = 0; i < ta.numel; ++i)
            step(ld<float>(pa + 4 * i), ld<float>(pb + 4 * i));
    } else if (!ta.legacy && !tb.legacy) {
        auto pa = ra.payload(ta);
        auto pb = rb.payload(tb);
        for (uint64_t i = 0; i < ta.numel; ++i)
            step(elementAt(ta.dtype, pa, i), elementAt(tb.dtype, pb, i));
    } else {
        auto va = ra.values(ta, 0, ta.numel);
        auto vb = rb.values(tb, 0, tb.numel);
        for (size_t i = 0; i < va.size() && i < vb.size(); ++i)
            step(va[i], vb[i]);
    }
    d.maxAbs = maxAbs;
    const double l2a = std::sqrt(na);
    d.relL2 = l2a > 0 ? std::sqrt(nd) / l2a : std::sqrt(nd);
    if (na > 0 && nb > 0)
        d.cosine = dot / (std::sqrt(na) * std::sqrt(nb));
    d.differing = differing;
}

/// Every non-tensor leaf of the envelope, by path.
void collectLeaves(const Record& r, uint32_t node, const std::string& path, const std::unordered_set<uint32_t>& tensorNodes,
    std::vector<std::pair<std::string, uint32_t>>& out)
{
    const Tape& t = r.tape;
    if (tensorNodes.contains(node))
        return;
    const Node& n = t[node];
    if (n.kind == Kind::Map) {
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) { collectLeaves(r, v, appendKeyToPath(path, t.keyText(k)), tensorNodes, out); });
    } else if (n.kind == Kind::Array && n.count > 0) {
        uint64_t i = 0;
        t.forEachChild(node, [&](uint32_t c) { collectLeaves(r, c, appendIndexToPath(path, i++), tensorNodes, out); });
    } else {
        out.emplace_back(path, node);
    }
}

} // namespace

Result<RecordDiff> diffRecords(const Record& a, const Record& b, const DiffOptions& o, const Progress& progress)
{
    RecordDiff d;
    d.a = a.file;
    d.b = b.file;
    std::unordered_map<std::string, size_t> inB;
    for (size_t i = 0; i < b.tensors.size(); ++i)
        inB.emplace(b.tensors[i].path, i);
    std::unordered_set<std::string> matched;
    uint64_t totalBytes = 0, doneBytes = 0;
    for (const auto& t : a.tensors)
        totalBytes += t.bytes;
    for (size_t i = 0; i < a.tensors.size(); ++i) {
        if (progress.cancelled())
            return fail(ErrorCode::Cancelled, "diff cancelled");
        const auto& ta = a.tensors[i];
        TensorDiff e;
        e.path = ta.path;
        e.a = i;
        auto it = inB.find(ta.path);
        if (it == inB.end()) {
            e.status = DiffStatus::Removed;
            ++d.removed;
        } else {
            matched.insert(ta.path);
            const auto& tb = b.tensors[it->second];
            e.b = it->second;
            if (ta.shape != tb.shape) {
                e.status = DiffStatus::ShapeChanged;
                ++d.changed;
            } else {
                if (ta.dtype != DType::QFloat && tb.dtype != DType::QFloat)
                    compareValues(a, ta, b, tb, o.tolerance, e);
                if (ta.dtype != tb.dtype) {
                    e.status = DiffStatus::DTypeChanged;
                    ++d.changed;
                } else if (e.differing > 0 || (ta.dtype == DType::QFloat && !std::equal(a.payload(ta).begin(), a.payload(ta).end(), b.payload(tb).begin(), b.payload(tb).end()))) {
                    e.status = DiffStatus::Changed;
                    ++d.changed;
                } else {
                    e.status = DiffStatus::Unchanged;
                    ++d.unchanged;
                }
            }
        }
        doneBytes += ta.bytes;
        if (totalBytes)
            progress.report(double(doneBytes) / double(totalBytes));
        d.entries.push_back(std::move(e));
    }
    for (size_t i = 0; i < b.tensors.size(); ++i) {
        if (matched.contains(b.tensors[i].path))
            continue;
        TensorDiff e;
        e.path = b.tensors[i].path;
        e.b = i;
        e.status = DiffStatus::Added;
        ++d.added;
        d.entries.push_back(std::move(e));
    }

    std::unordered_set<uint32_t> tnA, tnB;
    for (const auto& t : a.tensors)
        tnA.insert(t.node);
    for (const auto& t : b.tensors)
        tnB.insert(t.node);
    std::vector<std::pair<std::string, uint32_t>> la, lb;
    collectLeaves(a, 0, "", tnA, la);
    collectLeaves(b, 0, "", tnB, lb);
    std::unordered_map<std::string, uint32_t> mb(lb.begin(), lb.end());
    std::unordered_set<std::string> seen;
    for (const auto& [path, na] : la) {
        seen.insert(path);
        auto it = mb.find(path);
        if (it == mb.end()) {
            d.state.push_back({path, valueToJson(a.tape, na), std::nullopt});
            continue;
        }
        // `_b` is [] in MessagePack and null in JSON: the same unit struct.
        if (path == "_b")
            continue;
        const std::string ja = valueToJson(a.tape, na), jb = valueToJson(b.tape, it->second);
        if (ja != jb)
            d.state.push_back({path, ja, jb});
    }
    for (const auto& [path, nb] : lb)
        if (!seen.contains(path) && path != "_b")
            d.state.push_back({path, std::nullopt, valueToJson(b.tape, nb)});
    return d;
}

} // namespace ckpt
