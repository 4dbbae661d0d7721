// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diff/diff.h"

#include "core/codec/json.h"
#include "core/tensor/kernels/kernels.h"

#include <algorithm>
#include <cfloat>
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

std::string_view matchKindName(MatchKind m)
{
    switch (m) {
    case MatchKind::None: return "";
    case MatchKind::PathAndId: return "path_and_id";
    case MatchKind::Path: return "path";
    case MatchKind::ParamId: return "param_id";
    case MatchKind::Framework: return "framework";
    }
    return "";
}

std::string_view stateSectionName(StateSection s)
{
    switch (s) {
    case StateSection::Metadata: return "metadata";
    case StateSection::Module: return "module";
    case StateSection::Optimizer: return "optimizer";
    case StateSection::Scheduler: return "scheduler";
    case StateSection::Gradients: return "gradients";
    case StateSection::CallerState: return "caller_state";
    case StateSection::Other: return "other";
    }
    return "other";
}

namespace {

/// Index of \a d in a flat [negative bins, zero, positive bins] array, without a branch on the sign.
size_t deltaBin(double d)
{
    // The binary exponent straight from the bits (ilogb is a library call per element); subnormals
    // land in the first bin, infinity in the last.
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    const int e = int((bits >> 52) & 0x7ff) - 1023;
    const size_t k = size_t(std::clamp(e, DeltaHistogram::minExp, DeltaHistogram::maxExp) - DeltaHistogram::minExp);
    const size_t sign = size_t(bits >> 63);
    const size_t nonZero = d != 0;
    return DeltaHistogram::bins + nonZero * (1 + k - sign * (2 * k + 2));
}

/// The flat counts of deltaBin, folded into a DeltaHistogram at the end of a pass (the vector
/// kernel's lanes count the same bins).
using FlatHistogram = kernels::DeltaBins::Flat;
static_assert(kernels::DeltaBins::minExp == DeltaHistogram::minExp && kernels::DeltaBins::maxExp == DeltaHistogram::maxExp);

DeltaHistogram unflatten(const FlatHistogram& flat)
{
    DeltaHistogram h;
    h.zero = flat[DeltaHistogram::bins];
    for (size_t k = 0; k < DeltaHistogram::bins; ++k) {
        h.positive[k] = flat[DeltaHistogram::bins + 1 + k];
        h.negative[k] = flat[DeltaHistogram::bins - 1 - k];
    }
    return h;
}

} // namespace

void DeltaHistogram::add(double d)
{
    const size_t i = deltaBin(d);
    if (i == bins)
        ++zero;
    else if (i > bins)
        ++positive[i - bins - 1];
    else
        ++negative[bins - 1 - i];
}

uint64_t DeltaHistogram::total() const
{
    uint64_t n = zero;
    for (size_t k = 0; k < bins; ++k)
        n += negative[k] + positive[k];
    return n;
}

double DeltaHistogram::binLow(size_t k)
{
    return k == 0 ? 0.0 : std::ldexp(1.0, minExp + int(k));
}

double DeltaHistogram::binHigh(size_t k)
{
    return k + 1 >= bins ? INFINITY : std::ldexp(1.0, minExp + int(k) + 1);
}

namespace {

template<class T>
T ld(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// \a x as the narrower dtype \a to would store it (Burn rounds f64 -> f16 through f32 or directly; both are accepted by the caller).
double roundTo(DType to, double x)
{
    switch (to) {
    case DType::F16: return halfToFloat(doubleToHalf(x));
    case DType::BF16: return bf16ToFloat(floatToBf16(float(x)));
    case DType::F32:
    case DType::Flex32: return double(float(x));
    default: return x; // integers: a narrowing is exact or it is a change
    }
}

bool sameValue(double x, double y)
{
    return x == y || (std::isnan(x) && std::isnan(y));
}

/// Everything one pass over a pair of payloads accumulates.
struct PairAccumulator {
    double tol = 0;
    double maxAbs = 0, sumAbs = 0, dot = 0, na = 0, nb = 0, nd = 0;
    uint64_t finitePairs = 0, differing = 0;
    FlatHistogram histogram{};

    void step(double x, double y)
    {
        if (x != x || y != y) [[unlikely]] { // NaN
            differing += !(x != x && y != y);
            return;
        }
        const double diff = x == y ? 0.0 : y - x;
        const double ad = std::fabs(diff);
        if (ad > tol)
            ++differing;
        ++histogram[deltaBin(diff)];
        if (std::fabs(x) <= DBL_MAX && std::fabs(y) <= DBL_MAX) [[likely]] {
            maxAbs = std::max(maxAbs, ad);
            sumAbs += ad;
            ++finitePairs;
            dot += x * y;
            na += x * x;
            nb += y * y;
            nd += diff * diff;
        } else if (ad > 0) {
            maxAbs = INFINITY;
        }
    }

    void finish(TensorDiff& d) const
    {
        d.maxAbs = maxAbs;
        d.meanAbs = finitePairs ? sumAbs / double(finitePairs) : 0.0;
        const double l2a = std::sqrt(na);
        d.relL2 = l2a > 0 ? std::sqrt(nd) / l2a : std::sqrt(nd);
        if (na > 0 && nb > 0)
            d.cosine = dot / (std::sqrt(na) * std::sqrt(nb));
        d.differing = differing;
        d.histogram = unflatten(histogram);
    }
};

/// The wider and narrower dtype of a precision change, when the pair can be one.
std::optional<DType> narrowerFloatOrInt(DType a, DType b)
{
    if (a == b || a == DType::Bool || b == DType::Bool || a == DType::QFloat || b == DType::QFloat || isFloat(a) != isFloat(b))
        return std::nullopt;
    const uint32_t sa = dtypeSize(a), sb = dtypeSize(b);
    if (sa == sb)
        return std::nullopt; // f16 vs bf16: neither is a rounding of the other
    return sa < sb ? a : b;
}

/**
 * f32 pairs, the common case, at memory speed: blocks of finite values take the vector kernel
 * kernels::Table::diffF32Block (four independent lanes of sums, maxima, counts and histograms, so
 * that no element waits for the previous one's additions or bin increment); a block holding a NaN or
 * an infinity (or a tail that is not a multiple of four) takes PairAccumulator::step, which sorts
 * those out. For finite values the numbers are step's: d = y - x in double, the same bins; only the
 * order of the additions differs.
 */
void accumulateF32(const uint8_t* pa, const uint8_t* pb, uint64_t first, uint64_t count, PairAccumulator& acc)
{
    constexpr size_t Block = 1024;
    const auto finiteBlock = kernels::active().diffF32Block;
    kernels::DiffLanes lanes;
    uint64_t fast = 0;
    for (uint64_t i0 = first; i0 < first + count; i0 += Block) {
        const size_t m = size_t(std::min<uint64_t>(Block, first + count - i0));
        const uint8_t* qa = pa + 4 * i0;
        const uint8_t* qb = pb + 4 * i0;
        uint32_t special = 0; // an all-ones exponent: NaN or infinity
        for (size_t j = 0; j < m; ++j)
            special |= uint32_t((ld<uint32_t>(qa + 4 * j) & 0x7f800000u) == 0x7f800000u) | uint32_t((ld<uint32_t>(qb + 4 * j) & 0x7f800000u) == 0x7f800000u);
        if (special || m % 4) {
            for (size_t j = 0; j < m; ++j)
                acc.step(ld<float>(qa + 4 * j), ld<float>(qb + 4 * j));
            continue;
        }
        finiteBlock(qa, qb, m, acc.tol, lanes);
        fast += m;
    }
    for (int l = 0; l < 4; ++l) {
        acc.maxAbs = std::max(acc.maxAbs, lanes.maxAbs[l]);
        acc.sumAbs += lanes.sumAbs[l];
        acc.dot += lanes.dot[l];
        acc.na += lanes.na[l];
        acc.nb += lanes.nb[l];
        acc.nd += lanes.nd[l];
        acc.differing += uint64_t(lanes.differing[l]);
        for (size_t k = 0; k < acc.histogram.size(); ++k)
            acc.histogram[k] += lanes.hist[size_t(l)][k];
    }
    acc.finitePairs += fast;
}

/// One pass's partial numbers: an accumulator and the count of elements a dtype change did not round to.
struct PairPartial {
    PairAccumulator acc;
    uint64_t notRounding = 0;

    /** Folds \a o in (partials are merged in chunk order, so the result does not depend on the threads). */
    void merge(const PairPartial& o)
    {
        acc.maxAbs = std::max(acc.maxAbs, o.acc.maxAbs);
        acc.sumAbs += o.acc.sumAbs;
        acc.dot += o.acc.dot;
        acc.na += o.acc.na;
        acc.nb += o.acc.nb;
        acc.nd += o.acc.nd;
        acc.finitePairs += o.acc.finitePairs;
        acc.differing += o.acc.differing;
        for (size_t k = 0; k < acc.histogram.size(); ++k)
            acc.histogram[k] += o.acc.histogram[k];
        notRounding += o.notRounding;
    }
};

/** Elements [first, first + count) of a pair of payloads into \a out; a changed dtype also checks whether it is exact rounding. */
void accumulateRange(DType da, std::span<const uint8_t> pa, DType db, std::span<const uint8_t> pb, uint64_t first, uint64_t count,
    PairPartial& out)
{
    PairAccumulator& acc = out.acc;
    if (da == DType::F32 && db == DType::F32) {
        accumulateF32(pa.data(), pb.data(), first, count, acc); // the common case, without dtype dispatch
        return;
    }
    const auto narrow = narrowerFloatOrInt(da, db);
    for (uint64_t i = first; i < first + count; ++i) {
        const double x = elementAt(da, pa, i), y = elementAt(db, pb, i);
        acc.step(x, y);
        if (narrow) {
            const double wide = *narrow == da ? y : x, stored = *narrow == da ? x : y;
            out.notRounding += !sameValue(roundTo(*narrow, wide), stored) && !sameValue(roundTo(*narrow, double(float(wide))), stored);
        }
    }
}

void finishPair(DType da, DType db, const PairPartial& p, TensorDiff& d)
{
    p.acc.finish(d);
    if (da != db)
        d.precisionChange = narrowerFloatOrInt(da, db) && p.notRounding == 0;
}

/** One tensor's pair of payloads in one pass on the caller's thread. */
void comparePayloads(DType da, std::span<const uint8_t> pa, DType db, std::span<const uint8_t> pb, uint64_t numel, double tol, TensorDiff& d)
{
    PairPartial p;
    p.acc.tol = tol;
    accumulateRange(da, pa, db, pb, 0, numel, p);
    finishPair(da, db, p, d);
}

/// Keys a tensor can be found by on the other side.
struct TensorKeys {
    std::string byId;   ///< parameter id + role + optimizer state name; "" without an id
    std::string byPath; ///< the path; for optimizer states and gradients the owning parameter's module path
};

TensorKeys keysOf(const Record& r, const TensorEntry& t)
{
    TensorKeys k;
    const std::string roleTag = std::string(tensorRoleName(t.role)) + "|" + (t.role == TensorRole::Optimizer ? t.stateName : "");
    if (!t.paramId.empty())
        k.byId = t.paramId + "|" + roleTag;
    k.byPath = t.path;
    if ((t.role == TensorRole::Optimizer || t.role == TensorRole::Gradient) && !t.paramId.empty())
        if (auto p = r.findParam(t.paramId))
            k.byPath = "owner:" + r.params[*p].modulePath + "|" + roleTag;
    return k;
}

/// Status of a compared pair from its numbers (or its dtype change).
void settleStatus(const TensorEntry& ta, const TensorEntry& tb, TensorDiff& e)
{
    if (ta.dtypeLabel() != tb.dtypeLabel()) // a Bool's store too: Bool(U8) -> Bool(U32) is a change of dtype
        e.status = DiffStatus::DTypeChanged;
    else
        e.status = e.differing > 0 ? DiffStatus::Changed : DiffStatus::Unchanged;
}

/// A pair whose payloads are byte-identical: unchanged, without decoding a value.
void setByteEqual(const TensorEntry& ta, TensorDiff& e)
{
    e.byteEqual = true;
    e.maxAbs = e.meanAbs = e.relL2 = 0.0;
    e.histogram.zero = ta.numel;
    e.status = DiffStatus::Unchanged;
}

/// A Linear weight across frameworks: B's [r, c] read as A's [c, r], element by element (one transposed copy of B's payload).
void compareTransposed(const Record& ra, const TensorEntry& ta, const Record& rb, const TensorEntry& tb, double tol, TensorDiff& e)
{
    const uint64_t rows = tb.shape[0], cols = tb.shape[1];
    const auto pa = ra.payload(ta), pb = rb.payload(tb);
    const size_t sa = dtypeSize(ta.elementType()), sb = dtypeSize(tb.elementType());
    if (ta.legacy || tb.legacy || pa.size() / sa < ta.numel || pb.size() / sb < tb.numel) {
        // values through Record::values (legacy numbers, a short payload clamped), transposed as doubles
        const auto va = ra.values(ta, 0, ta.numel), vb = rb.values(tb, 0, tb.numel);
        std::vector<uint8_t> ba(va.size() * 8), bb(vb.size() * 8);
        std::memcpy(ba.data(), va.data(), ba.size());
        std::memcpy(bb.data(), vb.data(), bb.size());
        const auto t = vb.size() == rows * cols ? transposedMatrix(bb, rows, cols, 8) : bb;
        comparePayloads(DType::F64, ba, DType::F64, t, std::min(va.size(), vb.size()), tol, e);
    } else {
        const auto t = transposedMatrix(pb.first(tb.numel * sb), rows, cols, sb);
        comparePayloads(ta.elementType(), pa, tb.elementType(), t, ta.numel, tol, e);
    }
    settleStatus(ta, tb, e);
}

/// Pairs the chunked driver does not split: quantized payloads (bytes only), legacy {value, shape}
/// payloads (decoded whole) and transposed pairs.
void compareWhole(const Record& ra, const TensorEntry& ta, const Record& rb, const TensorEntry& tb, double tol, TensorDiff& e)
{
    if (e.layout == CrossLayout::Transposed && ta.dtype != DType::QFloat && tb.dtype != DType::QFloat) {
        compareTransposed(ra, ta, rb, tb, tol, e);
        return;
    }
    if (ta.dtype == DType::QFloat || tb.dtype == DType::QFloat) {
        // Quantized payloads have no element view here: only their bytes can be compared.
        const auto pa = ra.payload(ta), pb = rb.payload(tb);
        e.byteEqual = ta.dtype == tb.dtype && std::equal(pa.begin(), pa.end(), pb.begin(), pb.end());
        e.status = ta.dtype != tb.dtype ? DiffStatus::DTypeChanged : e.byteEqual ? DiffStatus::Unchanged : DiffStatus::Changed;
        return;
    }
    const auto va = ra.values(ta, 0, ta.numel), vb = rb.values(tb, 0, tb.numel);
    std::vector<uint8_t> ba(va.size() * 8), bb(vb.size() * 8);
    std::memcpy(ba.data(), va.data(), ba.size());
    std::memcpy(bb.data(), vb.data(), bb.size());
    comparePayloads(DType::F64, ba, DType::F64, bb, std::min(va.size(), vb.size()), tol, e);
    settleStatus(ta, tb, e);
}

/**
 * The tensor pairs' numbers, parallel over chunks of StatsChunkElements through \a parallel and
 * streaming through the payloads in batches of about \a batchLimit bytes (progress and cancellation per batch).
 * A chunk whose bytes are equal on both sides is not decoded; a pair whose chunks all are equal is
 * unchanged without a value read. Only the equal chunks of a pair that changed elsewhere are read
 * again, for its norms and cosine.
 */
bool comparePairs(const Record& a, const Record& b, std::vector<TensorDiff>& entries, double tol, uint64_t batchLimit,
    const Progress& progress, const ParallelFor& parallel)
{
    struct Chunk {
        size_t entry;
        uint64_t first, count;
        bool equal = false;   ///< the chunk's bytes are the same on both sides (same dtype)
        PairPartial partial;
    };
    const auto run = [&](size_t n, const std::function<void(size_t)>& body) {
        if (!parallel || n <= 1)
            for (size_t i = 0; i < n; ++i)
                body(i);
        else
            parallel(n, body);
    };
    std::vector<size_t> pairs; // entries with both sides and the same shape
    uint64_t totalBytes = 0, doneBytes = 0;
    for (size_t k = 0; k < entries.size(); ++k) {
        TensorDiff& e = entries[k];
        if (!e.a || !e.b)
            continue;
        const TensorEntry &ta = a.tensors[*e.a], &tb = b.tensors[*e.b];
        const bool transposed = e.layout == CrossLayout::Transposed;
        if (transposed ? std::vector<uint64_t>(tb.shape.rbegin(), tb.shape.rend()) != ta.shape : ta.shape != tb.shape) {
            e.status = DiffStatus::ShapeChanged;
            continue;
        }
        pairs.push_back(k);
        totalBytes += ta.bytes + tb.bytes;
    }
    for (size_t first = 0; first < pairs.size();) {
        if (progress.cancelled())
            return false;
        size_t last = first;
        uint64_t batchBytes = 0;
        while (last < pairs.size()) {
            const TensorDiff& e = entries[pairs[last]];
            const uint64_t bytes = a.tensors[*e.a].bytes + b.tensors[*e.b].bytes;
            if (last > first && batchBytes + bytes > batchLimit)
                break;
            batchBytes += bytes;
            ++last;
        }
        // tasks: a chunk of a splittable pair, or a whole pair of the other kinds
        std::vector<Chunk> chunks;
        std::vector<size_t> whole;
        for (size_t p = first; p < last; ++p) {
            const size_t k = pairs[p];
            const TensorEntry &ta = a.tensors[*entries[k].a], &tb = b.tensors[*entries[k].b];
            // a payload shorter than its shape says (a damaged record opened leniently) is read through
            // Record::values, which clamps to the bytes there are
            const auto shortPayload = [](const Record& r, const TensorEntry& t) {
                return r.payload(t).size() / dtypeSize(t.dtype, t.boolStore) < t.numel;
            };
            if (ta.legacy || tb.legacy || ta.dtype == DType::QFloat || tb.dtype == DType::QFloat || shortPayload(a, ta) || shortPayload(b, tb)
                || entries[k].layout == CrossLayout::Transposed) {
                whole.push_back(k);
                continue;
            }
            const uint64_t n = std::max<uint64_t>(ta.numel, 1); // an empty tensor is one empty chunk
            for (uint64_t c = 0; c < n; c += StatsChunkElements)
                chunks.push_back({k, c, std::min<uint64_t>(StatsChunkElements, ta.numel - std::min(c, ta.numel)), false, {}});
        }
        const auto accumulate = [&](Chunk& c) {
            const TensorDiff& e = entries[c.entry];
            const TensorEntry &ta = a.tensors[*e.a], &tb = b.tensors[*e.b];
            c.partial.acc.tol = tol;
            accumulateRange(ta.elementType(), a.payload(ta), tb.elementType(), b.payload(tb), c.first, c.count, c.partial);
        };
        run(chunks.size() + whole.size(), [&](size_t j) {
            if (j >= chunks.size()) {
                TensorDiff& e = entries[whole[j - chunks.size()]];
                compareWhole(a, a.tensors[*e.a], b, b.tensors[*e.b], tol, e);
                return;
            }
            Chunk& c = chunks[j];
            const TensorDiff& e = entries[c.entry];
            const TensorEntry &ta = a.tensors[*e.a], &tb = b.tensors[*e.b];
            if (ta.elementType() == tb.elementType() && ta.bytes == tb.bytes) {
                const size_t size = dtypeSize(ta.elementType());
                const auto pa = a.payload(ta).subspan(c.first * size, c.count * size), pb = b.payload(tb).subspan(c.first * size, c.count * size);
                if (std::memcmp(pa.data(), pb.data(), pa.size()) == 0) {
                    c.equal = true;
                    return;
                }
            }
            accumulate(c);
        });
        // a pair changed in some chunk needs its equal chunks' values too (norms, cosine)
        std::unordered_map<size_t, bool> allEqual;
        for (const Chunk& c : chunks) {
            auto [it, inserted] = allEqual.try_emplace(c.entry, true);
            it->second = it->second && c.equal;
        }
        std::vector<size_t> again;
        for (size_t j = 0; j < chunks.size(); ++j)
            if (chunks[j].equal && !allEqual[chunks[j].entry])
                again.push_back(j);
        run(again.size(), [&](size_t j) { accumulate(chunks[again[j]]); });
        // merge in chunk order: the same numbers whatever the number of threads
        std::unordered_map<size_t, PairPartial> merged;
        for (const Chunk& c : chunks) {
            if (allEqual[c.entry])
                continue;
            auto [it, inserted] = merged.try_emplace(c.entry);
            if (inserted)
                it->second = c.partial;
            else
                it->second.merge(c.partial);
        }
        for (const auto& [k, equal] : allEqual) {
            TensorDiff& e = entries[k];
            const TensorEntry &ta = a.tensors[*e.a], &tb = b.tensors[*e.b];
            if (equal) {
                setByteEqual(ta, e);
                continue;
            }
            finishPair(ta.elementType(), tb.elementType(), merged.at(k), e);
            settleStatus(ta, tb, e);
        }
        doneBytes += batchBytes;
        if (totalBytes)
            progress.report(double(doneBytes) / double(totalBytes));
        first = last;
    }
    return true;
}

struct Leaf {
    std::string path;
    uint32_t node = 0;
    StateSection section = StateSection::Other;
};

StateSection sectionOf(const Record& r, uint32_t node, StateSection inherited)
{
    const std::pair<const std::optional<uint32_t>*, StateSection> parts[] = {{&r.moduleNode, StateSection::Module},
        {&r.optimizerNode, StateSection::Optimizer}, {&r.schedulerNode, StateSection::Scheduler},
        {&r.gradientsNode, StateSection::Gradients}, {&r.stateNode, StateSection::CallerState}};
    for (auto [n, s] : parts)
        if (*n && **n == node)
            return s;
    return inherited;
}

/// Every non-tensor leaf of the envelope, by path, with the record part it belongs to.
void collectLeaves(const Record& r, uint32_t node, const std::string& path, StateSection section,
    const std::unordered_set<uint32_t>& tensorNodes, std::vector<Leaf>& out)
{
    const Tape& t = r.tape;
    if (tensorNodes.contains(node))
        return;
    section = path == "metadata" ? StateSection::Metadata : sectionOf(r, node, section);
    const Node& n = t[node];
    if (n.kind == Kind::Map) {
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) { collectLeaves(r, v, appendKeyToPath(path, t.keyText(k)), section, tensorNodes, out); });
    } else if (n.kind == Kind::Array && n.count > 0) {
        uint64_t i = 0;
        t.forEachChild(node, [&](uint32_t c) { collectLeaves(r, c, appendIndexToPath(path, i++), section, tensorNodes, out); });
    } else {
        out.push_back({path, node, section});
    }
}

std::vector<Leaf> leavesOf(const Record& r)
{
    std::unordered_set<uint32_t> tensorNodes;
    for (const auto& t : r.tensors)
        tensorNodes.insert(t.node);
    std::vector<Leaf> out;
    collectLeaves(r, 0, "", StateSection::Other, tensorNodes, out);
    return out;
}

/**
 * Optimizer entries are keyed by parameter id, so a re-initialised parameter's step counters live
 * under another path in B: A's entry path prefix -> B's, for every matched pair whose ids differ.
 */
std::vector<std::pair<std::string, std::string>> optimizerPathRewrites(const Record& a, const Record& b, const std::vector<TensorDiff>& entries)
{
    std::vector<std::pair<std::string, std::string>> rewrites;
    std::unordered_set<std::string> done;
    for (const auto& e : entries) {
        if (!e.a || !e.b || e.paramId.empty() || e.paramIdB.empty() || e.paramId == e.paramIdB || !done.insert(e.paramId).second)
            continue;
        for (const auto& oa : a.optimizer) {
            if (oa.paramId != e.paramId)
                continue;
            for (const auto& ob : b.optimizer)
                if (ob.paramId == e.paramIdB)
                    rewrites.emplace_back(oa.path, ob.path);
        }
    }
    return rewrites;
}

std::string rewritePath(const std::string& path, const std::vector<std::pair<std::string, std::string>>& rewrites)
{
    for (const auto& [from, to] : rewrites)
        if (path.starts_with(from) && (path.size() == from.size() || path[from.size()] == '.' || path[from.size()] == '['))
            return to + path.substr(from.size());
    return path;
}

/// Who is whose partner, and which tensors have no counterpart by rule (not reported as added or removed).
struct Partners {
    std::vector<std::pair<std::optional<size_t>, MatchKind>> ofA;
    std::vector<std::optional<CrossLayout>> layoutOfA;
    std::vector<bool> skipA, skipB;
};

/// Across frameworks: the PyTorch side matched to the Burn side by the rules, whichever side each is.
Result<Partners> crossPartners(const Record& a, const Record& b, const DiffOptions& o, RecordDiff& d)
{
    const bool torchIsA = followsPyTorchConventions(a);
    const Record &torchSide = torchIsA ? a : b, &burnSide = torchIsA ? b : a;
    auto m = matchAcrossFrameworks(torchSide, burnSide, o.rewrites);
    if (!m)
        return std::unexpected(std::move(m.error()));
    Partners p;
    p.ofA.assign(a.tensors.size(), {std::nullopt, MatchKind::None});
    p.layoutOfA.assign(a.tensors.size(), std::nullopt);
    p.skipA.assign(a.tensors.size(), false);
    p.skipB.assign(b.tensors.size(), false);
    (torchIsA ? p.skipA : p.skipB) = m->noCounterpart;
    uint64_t transposed = 0;
    for (size_t i = 0; i < torchSide.tensors.size(); ++i) {
        if (!m->burnOf[i])
            continue;
        const auto [j, layout] = *m->burnOf[i];
        const size_t inA = torchIsA ? i : j;
        p.ofA[inA] = {torchIsA ? j : i, MatchKind::Framework};
        p.layoutOfA[inA] = layout;
        transposed += layout == CrossLayout::Transposed;
    }
    uint64_t steps = 0, counters = 0;
    for (size_t i = 0; i < torchSide.tensors.size(); ++i)
        if (m->noCounterpart[i])
            ++(torchSide.tensors[i].role == TensorRole::Optimizer ? steps : counters);
    d.acrossFrameworks = true;
    d.notes.push_back("matched across frameworks by Burn's PyTorch rules" + std::string(o.rewrites.empty() ? "" : " and --map") + "; "
        + std::to_string(transposed) + " pairs (Linear weights and their moments) compared after transposing");
    if (steps)
        d.notes.push_back(std::to_string(steps) + " optimizer step tensors of the PyTorch side are compared with Burn's time as state, not as tensors");
    if (counters)
        d.notes.push_back(std::to_string(counters) + " num_batches_tracked buffers have no Burn counterpart and are not compared");
    d.notes.emplace_back("metadata and continuation state are not compared across frameworks");
    return p;
}

Partners samePartners(const Record& a, const Record& b)
{
    Partners p;
    p.ofA = matchTensors(a, b);
    p.layoutOfA.assign(a.tensors.size(), std::nullopt);
    p.skipA.assign(a.tensors.size(), false);
    p.skipB.assign(b.tensors.size(), false);
    return p;
}

/// Where an optimizer entry's step count lives: PyTorch's `step` of the state, Burn's `time` beside the moments.
std::string stepPathOf(const Record& r, const OptimizerEntry& oe)
{
    if (followsPyTorchConventions(r) || oe.tensors.empty() || oe.tensors.front() >= r.tensors.size())
        return oe.path + ".step";
    const std::string& moment = r.tensors[oe.tensors.front()].path;
    return moment.substr(0, moment.rfind('.') + 1) + "time";
}

/// Across frameworks, the only state compared: each matched parameter's step count (PyTorch's step, Burn's time).
void crossStepDiffs(const Record& a, const Record& b, RecordDiff& d)
{
    std::unordered_set<std::string> done;
    const auto entryOf = [](const Record& r, const std::string& id) -> const OptimizerEntry* {
        for (const auto& oe : r.optimizer)
            if (oe.paramId == id)
                return &oe;
        return nullptr;
    };
    for (const auto& e : d.entries) {
        if (!e.a || !e.b || e.role != TensorRole::Param || !done.insert(e.paramId).second)
            continue;
        const OptimizerEntry *oa = entryOf(a, e.paramId), *ob = entryOf(b, e.paramIdB);
        if (!oa || !ob || oa->time == ob->time)
            continue;
        const auto text = [](const std::optional<uint64_t>& t) {
            return t ? std::optional(std::to_string(*t)) : std::nullopt;
        };
        d.state.push_back({stepPathOf(a, *oa), text(oa->time), text(ob->time), StateSection::Optimizer, stepPathOf(b, *ob)});
    }
}

} // namespace

std::vector<std::pair<std::optional<size_t>, MatchKind>> matchTensors(const Record& a, const Record& b)
{
    std::vector<std::pair<std::optional<size_t>, MatchKind>> partner(a.tensors.size(), {std::nullopt, MatchKind::None});
    std::vector<bool> taken(b.tensors.size(), false);
    std::vector<TensorKeys> ka, kb;
    for (const auto& t : a.tensors)
        ka.push_back(keysOf(a, t));
    for (const auto& t : b.tensors)
        kb.push_back(keysOf(b, t));
    auto pass = [&](MatchKind kind, auto keyA, auto keyB, auto accept) {
        std::unordered_multimap<std::string, size_t> index;
        for (size_t j = 0; j < b.tensors.size(); ++j)
            if (!taken[j] && !keyB(j).empty())
                index.emplace(keyB(j), j);
        for (size_t i = 0; i < a.tensors.size(); ++i) {
            if (partner[i].first || keyA(i).empty())
                continue;
            auto [lo, hi] = index.equal_range(keyA(i));
            for (auto it = lo; it != hi; ++it) {
                const size_t j = it->second;
                if (taken[j] || !accept(i, j))
                    continue;
                taken[j] = true;
                const bool bothIdless = a.tensors[i].paramId.empty() && b.tensors[j].paramId.empty();
                partner[i] = {j, kind == MatchKind::PathAndId && bothIdless ? MatchKind::Path : kind};
                break;
            }
        }
    };
    const auto pathA = [&](size_t i) -> const std::string& { return a.tensors[i].path; };
    const auto pathB = [&](size_t j) -> const std::string& { return b.tensors[j].path; };
    pass(MatchKind::PathAndId, pathA, pathB, [&](size_t i, size_t j) { return a.tensors[i].paramId == b.tensors[j].paramId; });
    pass(MatchKind::ParamId, [&](size_t i) -> const std::string& { return ka[i].byId; }, [&](size_t j) -> const std::string& { return kb[j].byId; },
        [](size_t, size_t) { return true; });
    pass(MatchKind::Path, [&](size_t i) -> const std::string& { return ka[i].byPath; }, [&](size_t j) -> const std::string& { return kb[j].byPath; },
        [&](size_t i, size_t j) { return a.tensors[i].role == b.tensors[j].role; });
    return partner;
}

void compareTensorValues(DType dtypeA, std::span<const uint8_t> a, DType dtypeB, std::span<const uint8_t> b, uint64_t numel,
    double tolerance, TensorDiff& out)
{
    comparePayloads(dtypeA, a, dtypeB, b, numel, tolerance, out);
}

Result<RecordDiff> diffRecords(const Record& a, const Record& b, const DiffOptions& o, const Progress& progress, const ParallelFor& parallel)
{
    RecordDiff d;
    d.a = a.file;
    d.b = b.file;
    auto partners = acrossFrameworks(a, b) ? crossPartners(a, b, o, d) : samePartners(a, b);
    if (!partners)
        return std::unexpected(std::move(partners.error()));
    const auto& partner = partners->ofA;
    std::vector<bool> matchedB = partners->skipB;
    for (size_t i = 0; i < a.tensors.size(); ++i) {
        if (partners->skipA[i])
            continue;
        const auto& ta = a.tensors[i];
        TensorDiff e;
        e.path = ta.path;
        e.role = ta.role;
        e.paramId = ta.paramId;
        e.stateName = ta.stateName;
        e.a = i;
        if (const auto j = partner[i].first) {
            const auto& tb = b.tensors[*j];
            matchedB[*j] = true;
            e.b = j;
            e.match = partner[i].second;
            e.layout = partners->layoutOfA[i];
            e.paramIdB = tb.paramId;
            if (tb.path != ta.path)
                e.pathB = tb.path;
        } else {
            e.status = DiffStatus::Removed;
            ++d.removed;
        }
        d.entries.push_back(std::move(e));
    }
    if (!comparePairs(a, b, d.entries, o.tolerance, o.batchBytes, progress, parallel))
        return fail(ErrorCode::Cancelled, "diff cancelled");
    for (const auto& e : d.entries)
        if (e.a && e.b) {
            ++(e.status == DiffStatus::Unchanged ? d.unchanged : d.changed);
            d.renamed += e.renamed();
        }
    for (size_t j = 0; j < b.tensors.size(); ++j) {
        if (matchedB[j])
            continue;
        const auto& tb = b.tensors[j];
        TensorDiff e;
        e.path = tb.path;
        e.role = tb.role;
        e.paramIdB = tb.paramId;
        e.stateName = tb.stateName;
        e.b = j;
        e.status = DiffStatus::Added;
        ++d.added;
        d.entries.push_back(std::move(e));
    }

    bool anyDTypeChange = false, allRounding = true;
    for (const auto& e : d.entries) {
        anyDTypeChange |= e.status == DiffStatus::DTypeChanged;
        allRounding &= e.status == DiffStatus::Unchanged || (e.status == DiffStatus::DTypeChanged && e.precisionChange);
    }
    if (anyDTypeChange || a.precision != b.precision)
        d.precision = PrecisionChange{a.precision, b.precision, anyDTypeChange && allRounding};

    if (d.acrossFrameworks) {
        crossStepDiffs(a, b, d);
        return d;
    }
    const auto rewrites = optimizerPathRewrites(a, b, d.entries);
    const auto la = leavesOf(a), lb = leavesOf(b);
    std::unordered_map<std::string, const Leaf*> mb;
    for (const auto& l : lb)
        mb.emplace(l.path, &l);
    std::unordered_set<std::string> seen;
    for (const auto& l : la) {
        // `_b` is [] in MessagePack and null in JSON: the same unit struct.
        if (l.path == "_b")
            continue;
        const std::string inB = rewritePath(l.path, rewrites);
        seen.insert(inB);
        auto it = mb.find(inB);
        if (it == mb.end()) {
            d.state.push_back({l.path, jsonText(a.tape, l.node, JsonStyle::Compact), std::nullopt, l.section, {}});
            continue;
        }
        const std::string ja = jsonText(a.tape, l.node, JsonStyle::Compact), jb = jsonText(b.tape, it->second->node, JsonStyle::Compact);
        if (ja != jb)
            d.state.push_back({l.path, ja, jb, l.section, inB == l.path ? std::string() : inB});
    }
    for (const auto& l : lb)
        if (!seen.contains(l.path) && l.path != "_b")
            d.state.push_back({l.path, std::nullopt, jsonText(b.tape, l.node, JsonStyle::Compact), l.section, {}});
    return d;
}

} // namespace ckpt
