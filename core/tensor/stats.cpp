// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor/stats.h"

#include "core/tensor/kernels/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace ckpt {

namespace {

using kernels::BinRange;
using kernels::load;
using kernels::W;
using kernels::BF16R, kernels::F16R, kernels::F32R, kernels::F64R, kernels::I16R, kernels::I32R, kernels::I64R, kernels::I8R,
    kernels::U16R, kernels::U32R, kernels::U64R, kernels::U8R;
constexpr double Inf = std::numeric_limits<double>::infinity();
constexpr double MaxFinite = std::numeric_limits<double>::max();

} // namespace

// Chan, Golub & LeVeque's pairwise update: exact in exact arithmetic, stable in floating point.
void mergeMoments(StatsMoments& a, const StatsMoments& b)
{
    if (b.finite) {
        if (!a.finite) {
            a.shift = b.shift;
            a.mean = b.mean;
            a.m2 = b.m2;
        } else {
            const double n = double(a.finite + b.finite);
            // the shifts are values of the tensor: their difference is exact when they are close
            const double delta = (b.shift - a.shift) + (b.mean - a.mean);
            a.mean += delta * (double(b.finite) / n);
            a.m2 += b.m2 + delta * delta * (double(a.finite) * double(b.finite) / n);
        }
    }
    a.count += b.count;
    a.finite += b.finite;
    a.nan += b.nan;
    a.zeros += b.zeros;
    a.sum += b.sum;
    a.sumSq += b.sumSq;
    a.min = std::min(a.min, b.min);
    a.max = std::max(a.max, b.max);
    a.minAbs = std::min(a.minAbs, b.minAbs);
}

namespace {

/// Independent accumulators of the careful (scalar) path: several additions in flight.
constexpr size_t Lanes = 8;
/// Values per block (the vector kernels' unit too): the block's second sweep reads from L1.
constexpr size_t BlockElements = kernels::StatsBlockElements;

template<size_t N>
double laneSum(const double (&v)[N])
{
    double r[N];
    std::copy(v, v + N, r);
    for (size_t w = N / 2; w > 0; w /= 2)
        for (size_t k = 0; k < w; ++k)
            r[k] += r[k + w];
    return r[0];
}

/**
 * One block, the general case (NaN/±Inf present, a log histogram's smallest |x| wanted, the last few
 * elements; the common case takes the vector kernel, kernels::Table::finiteMoments): a first sweep
 * for the census, sums and extrema, a second over the same (now L1-resident) values for the
 * deviations from the block's mean (the corrected two-pass algorithm). Non-finite values are masked
 * by selects; counts are kept as doubles (exact below 2^53).
 */
template<class R, bool TrackMinAbs>
StatsMoments carefulBlock(const uint8_t* p, size_t n, double shift)
{
    using S = typename R::S;
    double sum[Lanes] = {}, sq[Lanes] = {}, fin[Lanes] = {}, nan[Lanes] = {}, zer[Lanes] = {};
    double lo[Lanes], hi[Lanes], amin[Lanes];
    std::fill(lo, lo + Lanes, Inf);
    std::fill(hi, hi + Lanes, -Inf);
    std::fill(amin, amin + Lanes, Inf);
    const auto one = [&](size_t k, double x) {
        const bool finite = std::fabs(x) <= MaxFinite; // false for NaN and ±Inf
        const double xf = finite ? x : 0.0;
        sum[k] += xf;
        sq[k] += xf * xf;
        fin[k] += finite ? 1.0 : 0.0;
        nan[k] += x != x ? 1.0 : 0.0;
        zer[k] += x == 0.0 ? 1.0 : 0.0;
        const double forMin = finite ? x : Inf, forMax = finite ? x : -Inf;
        lo[k] = forMin < lo[k] ? forMin : lo[k];
        hi[k] = forMax > hi[k] ? forMax : hi[k];
        if constexpr (TrackMinAbs) {
            const double a = std::fabs(xf);
            const double candidate = a > 0.0 ? a : Inf;
            amin[k] = candidate < amin[k] ? candidate : amin[k];
        }
    };
    size_t i = 0;
    for (; i + Lanes <= n; i += Lanes)
        for (size_t k = 0; k < Lanes; ++k)
            one(k, R::get(load<S>(p + (i + k) * sizeof(S))));
    for (size_t k = 0; i < n; ++i, ++k)
        one(k, R::get(load<S>(p + i * sizeof(S))));

    StatsMoments out;
    out.count = n;
    out.finite = uint64_t(laneSum(fin));
    out.nan = uint64_t(laneSum(nan));
    out.zeros = uint64_t(laneSum(zer));
    out.sum = laneSum(sum);
    out.sumSq = laneSum(sq);
    for (size_t k = 0; k < Lanes; ++k) {
        out.min = std::min(out.min, lo[k]);
        out.max = std::max(out.max, hi[k]);
        out.minAbs = std::min(out.minAbs, amin[k]);
    }
    if (!out.finite)
        return out;
    const double m = out.sum / double(out.finite) - shift;
    double dev[Lanes] = {}, dev2[Lanes] = {};
    const auto deviation = [&](size_t k, double x) {
        const double d = std::fabs(x) <= MaxFinite ? (x - shift) - m : 0.0;
        dev[k] += d;
        dev2[k] += d * d;
    };
    i = 0;
    for (; i + Lanes <= n; i += Lanes)
        for (size_t k = 0; k < Lanes; ++k)
            deviation(k, R::get(load<S>(p + (i + k) * sizeof(S))));
    for (size_t k = 0; i < n; ++i, ++k)
        deviation(k, R::get(load<S>(p + i * sizeof(S))));
    const double d = laneSum(dev);
    // Σd is the rounding error of m times n; folding it back makes the mean and M2 exact to first order
    out.shift = shift;
    out.mean = m + d / double(out.finite);
    out.m2 = std::max(0.0, laneSum(dev2) - d * d / double(out.finite));
    return out;
}

template<class R>
StatsMoments chunkMoments(const uint8_t* p, size_t n, bool trackMinAbs)
{
    using S = typename R::S;
    double shift = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = R::get(load<S>(p + i * sizeof(S)));
        if (std::isfinite(x)) {
            shift = x;
            break;
        }
    }
    const auto finiteBlock = kernels::active().finiteMoments[size_t(R::elem)];
    StatsMoments acc;
    for (size_t i = 0; i < n; i += BlockElements) {
        const size_t m = std::min(BlockElements, n - i);
        const uint8_t* q = p + i * sizeof(S);
        const size_t vectorPart = trackMinAbs ? 0 : m / W * W;
        StatsMoments part;
        if (vectorPart && finiteBlock(q, vectorPart, shift, part)) {
            mergeMoments(acc, part);
            if (vectorPart < m)
                mergeMoments(acc, carefulBlock<R, false>(q + vectorPart * sizeof(S), m - vectorPart, shift));
        } else {
            mergeMoments(acc, trackMinAbs ? carefulBlock<R, true>(q, m, shift) : carefulBlock<R, false>(q, m, shift));
        }
    }
    return acc;
}

struct Kernel {
    uint32_t elementSize = 0;
    kernels::Elem elem = kernels::Elem::F32; ///< the index of the vector kernels (kernels::Table)
    StatsMoments (*moments)(const uint8_t*, size_t, bool) = nullptr;
};

template<class R>
constexpr Kernel kernel()
{
    return {uint32_t(sizeof(typename R::S)), R::elem, &chunkMoments<R>};
}

const Kernel* kernelFor(DType d)
{
    static constexpr Kernel f32 = kernel<F32R>(), f64 = kernel<F64R>(), f16 = kernel<F16R>(), bf16 = kernel<BF16R>(),
                            i64 = kernel<I64R>(), i32 = kernel<I32R>(), i16 = kernel<I16R>(), i8 = kernel<I8R>(),
                            u64 = kernel<U64R>(), u32 = kernel<U32R>(), u16 = kernel<U16R>(), u8 = kernel<U8R>();
    switch (d) {
    case DType::F32: case DType::Flex32: return &f32;
    case DType::F64: return &f64;
    case DType::F16: return &f16;
    case DType::BF16: return &bf16;
    case DType::I64: return &i64;
    case DType::I32: return &i32;
    case DType::I16: return &i16;
    case DType::I8: return &i8;
    case DType::U64: return &u64;
    case DType::U32: return &u32;
    case DType::U16: return &u16;
    case DType::U8: case DType::Bool: return &u8;
    case DType::QFloat: return nullptr;
    }
    return nullptr;
}

void runAll(const ParallelFor& parallel, size_t n, const std::function<void(size_t)>& body)
{
    if (!parallel || n <= 1) {
        for (size_t i = 0; i < n; ++i)
            body(i);
        return;
    }
    parallel(n, body);
}

/** The histogram's bins for a tensor, or nothing when it has no value to bin. */
std::optional<BinRange> binRange(const StatsMoments& p, const StatsOptions& o)
{
    if (!o.histogramBins || !p.finite)
        return std::nullopt;
    BinRange r;
    r.bins = o.histogramBins;
    r.logScale = o.logHistogram;
    double lo = p.min, hi = p.max;
    if (o.logHistogram) {
        if (!(p.minAbs <= MaxFinite))
            return std::nullopt; // only zeros
        // log10 is monotonic, so the range of log10|x| is the log of the range of |x|
        lo = std::log10(p.minAbs);
        hi = std::log10(std::max(std::fabs(p.min), std::fabs(p.max)));
    }
    r.lo = lo;
    r.hi = hi;
    r.scale = hi > lo ? double(r.bins) / (hi - lo) : 0.0;
    return r;
}

} // namespace

TensorStats statsFromMoments(const StatsMoments& p)
{
    TensorStats s;
    s.count = p.count;
    s.finite = p.finite;
    s.nan = p.nan;
    s.inf = p.count - p.finite - p.nan;
    s.zeros = p.zeros;
    s.sum = p.sum;
    s.l2 = std::sqrt(p.sumSq);
    if (p.finite) {
        s.min = p.min;
        s.max = p.max;
        s.mean = p.shift + p.mean;
        s.std = std::sqrt(p.m2 / double(p.finite));
    } else {
        s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    }
    return s;
}

std::vector<StatsMoments> computeChunkMoments(DType dtype, std::span<const uint8_t> bytes, size_t firstChunk, size_t chunks,
    const ParallelFor& parallel)
{
    const Kernel* k = kernelFor(dtype);
    if (!k)
        return {};
    const size_t n = bytes.size() / k->elementSize;
    const size_t all = statsChunkCount(n);
    firstChunk = std::min(firstChunk, all);
    chunks = std::min(chunks, all - firstChunk);
    std::vector<StatsMoments> out(chunks);
    runAll(parallel, chunks, [&](size_t c) {
        const size_t first = (firstChunk + c) * StatsChunkElements;
        out[c] = k->moments(bytes.data() + first * k->elementSize, std::min(StatsChunkElements, n - first), false);
    });
    return out;
}

std::vector<TensorStats> computeStatsMany(std::span<const StatsInput> tensors, const StatsOptions& o, const ParallelFor& parallel)
{
    struct Task {
        size_t tensor;
        size_t first;
        size_t count;
    };
    std::vector<Task> tasks;
    std::vector<const Kernel*> kernelOf(tensors.size());
    std::vector<size_t> chunksOf(tensors.size(), 0);
    for (size_t t = 0; t < tensors.size(); ++t) {
        kernelOf[t] = kernelFor(tensors[t].dtype);
        if (!kernelOf[t])
            continue;
        const size_t n = tensors[t].bytes.size() / kernelOf[t]->elementSize;
        for (size_t first = 0; first < n; first += StatsChunkElements)
            tasks.push_back({t, first, std::min(StatsChunkElements, n - first)});
        chunksOf[t] = statsChunkCount(n);
    }
    const auto chunkBytes = [&](const Task& task) {
        return tensors[task.tensor].bytes.data() + task.first * kernelOf[task.tensor]->elementSize;
    };

    const kernels::Table& simd = kernels::active();
    std::vector<StatsMoments> partials(tasks.size());
    std::vector<std::vector<uint64_t>> chunkHist(tasks.size());
    std::vector<StatsMoments> merged(tensors.size());
    std::vector<TensorStats> out(tensors.size());
    std::vector<std::optional<BinRange>> ranges(tensors.size());
    const auto binChunk = [&](size_t j, const BinRange& r) {
        chunkHist[j].assign(r.bins, 0);
        const bool allFinite = partials[j].finite == partials[j].count;
        simd.histogram[size_t(kernelOf[tasks[j].tensor]->elem)](chunkBytes(tasks[j]), tasks[j].count, r, allFinite, chunkHist[j].data());
    };

    // The histogram's range is the tensor's min/max, known only once every chunk of it was read, so
    // binning is a second sweep. It reads from cache, not from memory, when it follows the first at
    // once: the tasks go in windows of whole tensors, about WindowBytes each, and a window's chunks
    // of larger tensors are binned right after the window's moments (a tensor of one chunk right
    // after its own). A tensor larger than the caches makes a window of its own and is read twice.
    // Windows change only when work starts, not how it is split, so results stay bit-identical.
    constexpr size_t WindowBytes = size_t(8) << 20;
    std::vector<size_t> binLater; // the window's tasks of multi-chunk tensors
    for (size_t begin = 0; begin < tasks.size();) {
        size_t end = begin, bytes = 0;
        while (end < tasks.size() && bytes < WindowBytes) {
            const size_t t = tasks[end].tensor;
            for (; end < tasks.size() && tasks[end].tensor == t; ++end)
                bytes += tasks[end].count * kernelOf[t]->elementSize;
        }
        runAll(parallel, end - begin, [&](size_t i) {
            const size_t j = begin + i;
            const Task& task = tasks[j];
            partials[j] = kernelOf[task.tensor]->moments(chunkBytes(task), task.count, o.histogramBins && o.logHistogram);
            if (chunksOf[task.tensor] == 1)
                if (const auto r = binRange(partials[j], o))
                    binChunk(j, *r);
        });
        binLater.clear();
        for (size_t j = begin; j < end; ++j) {
            const size_t t = tasks[j].tensor;
            mergeMoments(merged[t], partials[j]);
            if (j + 1 < end && tasks[j + 1].tensor == t)
                continue; // the tensor's last chunk comes later
            out[t] = statsFromMoments(merged[t]);
            ranges[t] = binRange(merged[t], o);
            if (ranges[t] && chunksOf[t] > 1)
                for (size_t k = j + 1 - chunksOf[t]; k <= j; ++k)
                    binLater.push_back(k);
        }
        runAll(parallel, binLater.size(), [&](size_t i) {
            binChunk(binLater[i], *ranges[tasks[binLater[i]].tensor]);
        });
        begin = end;
    }
    // tensors without a chunk: empty or opaque (QFloat)
    for (size_t t = 0; t < tensors.size(); ++t)
        if (!chunksOf[t])
            out[t] = statsFromMoments(merged[t]);
    if (!o.histogramBins)
        return out;

    for (size_t t = 0; t < tensors.size(); ++t)
        if (const auto& r = ranges[t]) {
            out[t].histogram.assign(r->bins, 0);
            out[t].histLo = r->lo;
            out[t].histHi = r->hi;
        }
    for (size_t j = 0; j < tasks.size(); ++j) {
        auto& h = out[tasks[j].tensor].histogram;
        for (size_t b = 0; b < chunkHist[j].size(); ++b)
            h[b] += chunkHist[j][b];
    }
    return out;
}

TensorStats computeStats(DType dtype, std::span<const uint8_t> bytes, const StatsOptions& o, const ParallelFor& parallel)
{
    const StatsInput input{dtype, bytes};
    return std::move(computeStatsMany(std::span<const StatsInput>(&input, 1), o, parallel).front());
}

TensorStats computeStats(std::span<const double> values, const StatsOptions& o)
{
    return computeStats(DType::F64, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 8), o);
}

double elementAt(DType d, std::span<const uint8_t> b, uint64_t i)
{
    const uint8_t* p = b.data();
    switch (d) {
    case DType::F32: case DType::Flex32: return load<float>(p + i * 4);
    case DType::F64: return load<double>(p + i * 8);
    case DType::F16: return halfToFloat(load<uint16_t>(p + i * 2));
    case DType::BF16: return bf16ToFloat(load<uint16_t>(p + i * 2));
    case DType::I64: return double(load<int64_t>(p + i * 8));
    case DType::I32: return load<int32_t>(p + i * 4);
    case DType::I16: return load<int16_t>(p + i * 2);
    case DType::I8: return load<int8_t>(p + i);
    case DType::U64: return double(load<uint64_t>(p + i * 8));
    case DType::U32: return load<uint32_t>(p + i * 4);
    case DType::U16: return load<uint16_t>(p + i * 2);
    case DType::U8: case DType::Bool: return p[i];
    case DType::QFloat: return std::numeric_limits<double>::quiet_NaN();
    }
    return 0;
}

std::vector<double> elementsAsDouble(DType d, std::span<const uint8_t> b, uint64_t first, uint64_t count)
{
    const uint32_t size = dtypeSize(d);
    std::vector<double> out;
    if (size == 0)
        return out;
    const uint64_t n = b.size() / size;
    if (first >= n)
        return out;
    count = std::min(count, n - first);
    out.reserve(count);
    for (uint64_t i = first; i < first + count; ++i)
        out.push_back(elementAt(d, b, i));
    return out;
}

} // namespace ckpt
