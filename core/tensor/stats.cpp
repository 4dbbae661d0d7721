// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace ckpt {

namespace {

template<class T>
T load(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

constexpr double Inf = std::numeric_limits<double>::infinity();
constexpr double MaxFinite = std::numeric_limits<double>::max();

/// Lanes of the vector loops: eight doubles, one AVX-512 register, two AVX2 ones, four SSE2 ones.
constexpr size_t W = 8;
/// W lanes of T in one GCC/Clang vector.
template<class T> struct VecOf;
#define CKPT_VEC(T)                                                                                                \
    template<> struct VecOf<T> { typedef T type __attribute__((vector_size(W * sizeof(T)))); }
CKPT_VEC(double); CKPT_VEC(float); CKPT_VEC(int64_t); CKPT_VEC(uint64_t); CKPT_VEC(int32_t); CKPT_VEC(uint32_t);
CKPT_VEC(int16_t); CKPT_VEC(uint16_t); CKPT_VEC(int8_t); CKPT_VEC(uint8_t);
#undef CKPT_VEC
template<class T>
using Vec = typename VecOf<T>::type;

// The vector loops are compiled three times, for AVX-512 (x86-64-v4: one register per Vec<double>),
// AVX2 (two) and the x86-64 baseline (four), and the loader picks one at run time (ifunc). All run
// the same operations in the same order, so their results are bit-identical. AVX-512 doubles the
// lanes per instruction of AVX2 on cores that execute it at full width (Zen 4/5, recent Xeons: this
// project's CI machine); every x86-64 machine since 2013 has AVX2, the baseline is much slower.
// The loader's pick can't be steered, so the tests build this file twice more with one clone alone
// (core/CMakeLists.txt: ckpt_stats_avx2, ckpt_stats_baseline) and run tst_stats against each.
#if defined(CKPT_STATS_ONLY_AVX2)
#define CKPT_VECTOR_CLONES __attribute__((target("avx2")))
#elif defined(CKPT_STATS_ONLY_BASELINE)
#define CKPT_VECTOR_CLONES
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CKPT_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CKPT_VECTOR_CLONES
#endif
// Vec<double> values never cross a non-inlined call, so the ABI note about AVX arguments is moot.
#pragma GCC diagnostic ignored "-Wpsabi"
using V = Vec<double>;
using VMask = Vec<int64_t>;

template<class T>
[[gnu::always_inline]] inline Vec<T> loadW(const uint8_t* p)
{
    Vec<T> v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// Element readers: raw storage → double, exactly and without branches, one at a time (get) or W
/// at a time (getW, the vectorised loops).
struct F32R {
    using S = float;
    static double get(S v) { return v; }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return __builtin_convertvector(loadW<float>(p), V); }
};
struct F64R {
    using S = double;
    static double get(S v) { return v; }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return loadW<double>(p); }
};
struct F16R {
    using S = uint16_t;
    // Exact: one multiplication by 2^112 rebases the exponent (and normalises subnormals); Inf/NaN
    // get the all-ones exponent back. Same values as halfToFloat, branch-free.
    static double get(S h)
    {
        const float magnitude = std::bit_cast<float>(uint32_t(h & 0x7fffu) << 13) * 0x1p112f;
        const uint32_t special = (h & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0u;
        return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | special | (uint32_t(h & 0x8000u) << 16));
    }
    [[gnu::always_inline]] static V getW(const uint8_t* p)
    {
        using U = Vec<uint32_t>;
        using F = Vec<float>;
        const U h = __builtin_convertvector(loadW<uint16_t>(p), U);
        const F magnitude = reinterpret_cast<F>((h & 0x7fffu) << 13) * 0x1p112f;
        const U special = reinterpret_cast<U>((h & 0x7c00u) == 0x7c00u) & 0x7f800000u;
        return __builtin_convertvector(reinterpret_cast<F>(reinterpret_cast<U>(magnitude) | special | ((h & 0x8000u) << 16)), V);
    }
};
struct BF16R {
    using S = uint16_t;
    static double get(S v) { return std::bit_cast<float>(uint32_t(v) << 16); }
    [[gnu::always_inline]] static V getW(const uint8_t* p)
    {
        using U = Vec<uint32_t>;
        return __builtin_convertvector(reinterpret_cast<Vec<float>>(__builtin_convertvector(loadW<uint16_t>(p), U) << 16), V);
    }
};
template<class T>
struct IntR {
    using S = T;
    static double get(S v) { return static_cast<double>(v); }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return __builtin_convertvector(loadW<T>(p), V); }
};

[[gnu::always_inline]] inline double laneSum(V v)
{
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

[[gnu::always_inline]] inline V splat(double x) { return V{} + x; }

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
/// Values per block: 16 KiB of f64 at most, so the block's second sweep reads from L1.
constexpr size_t BlockElements = 2048;

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
 * elements): a first sweep for the census, sums and extrema, a second over the same (now
 * L1-resident) values for the deviations from the block's mean (the corrected two-pass algorithm).
 * Non-finite values are masked by selects; counts are kept as doubles (exact below 2^53).
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

/**
 * One block of finite values, the common case, vectorised: \a n is a multiple of W. One sweep of
 * shifted sums S1 = Σ(x - shift), S2 = Σ(x - shift)² beside the census and extrema; the block's M2 is
 * S2 - S1²/n. That difference cancels when the block's mean lies far from the shift relative to its
 * spread: its relative error is about κ·n·ε with κ = S2 / M2, so when κ exceeds ConditionLimit the
 * block takes a second sweep over its (L1-resident) values for the deviations from its mean, the
 * corrected two-pass algorithm of carefulBlock. Weights, moments and gradients almost never need it
 * (the shift is a value of the same chunk). Any NaN or ±Inf makes the sums non-finite, and then the
 * block is left to carefulBlock (returns false). Eight vector operations per W elements.
 */
template<class R>
CKPT_VECTOR_CLONES bool finiteBlock(const uint8_t* p, size_t n, double shift, StatsMoments& out)
{
    using S = typename R::S;
    // κ·n·ε stays below 1e-10 for blocks of BlockElements values (tst_stats checks 1e-9 on std)
    constexpr double ConditionLimit = 256;
    const V one = splat(1.0), zero = {};
    // two independent sets of accumulators: the adds' latency, not the loads, bounds a single set
    V sum[2] = {}, sq[2] = {}, zer[2] = {}, lo[2] = {splat(Inf), splat(Inf)}, hi[2] = {splat(-Inf), splat(-Inf)};
    const auto step = [&](int k, size_t i) {
        const V x = R::getW(p + i * sizeof(S));
        const V d = x - shift;
        sum[k] += d;
        sq[k] += d * d;
        zer[k] += reinterpret_cast<V>(reinterpret_cast<VMask>(one) & (x == zero));
        lo[k] = x < lo[k] ? x : lo[k];
        hi[k] = x > hi[k] ? x : hi[k];
    };
    size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        step(0, i);
        step(1, i + W);
    }
    if (i < n)
        step(0, i);
    const double s1 = laneSum(sum[0] + sum[1]), s2 = laneSum(sq[0] + sq[1]);
    if (!std::isfinite(s1) || !std::isfinite(s2))
        return false; // a NaN or ±Inf (or sums beyond the double range): the careful path decides
    out.count = out.finite = n;
    out.nan = 0;
    out.zeros = uint64_t(laneSum(zer[0] + zer[1]));
    const V l = lo[0] < lo[1] ? lo[0] : lo[1], h = hi[0] > hi[1] ? hi[0] : hi[1];
    out.min = l[0];
    out.max = h[0];
    for (size_t k = 1; k < W; ++k) {
        out.min = std::min(out.min, l[k]);
        out.max = std::max(out.max, h[k]);
    }
    out.shift = shift;
    // the plain sums of x (reported as sum and l2) from the shifted ones: Σx = S1 + n·shift,
    // Σx² = S2 + 2·shift·S1 + n·shift²
    const double dn = double(n);
    out.sum = s1 + dn * shift;
    out.sumSq = s2 + shift * (2.0 * s1 + dn * shift);
    const double m = s1 / dn;
    const double m2 = s2 - s1 * m;
    if (m2 * ConditionLimit >= s2) {
        out.mean = m;
        out.m2 = std::max(0.0, m2);
        return true;
    }
    V dev[2] = {}, dev2[2] = {};
    const auto deviation = [&](int k, size_t i) {
        const V d = (R::getW(p + i * sizeof(S)) - shift) - m;
        dev[k] += d;
        dev2[k] += d * d;
    };
    for (i = 0; i + 2 * W <= n; i += 2 * W) {
        deviation(0, i);
        deviation(1, i + W);
    }
    if (i < n)
        deviation(0, i);
    const double d = laneSum(dev[0] + dev[1]);
    // Σd is the rounding error of m times n; folding it back makes the mean and M2 exact to first order
    out.mean = m + d / dn;
    out.m2 = std::max(0.0, laneSum(dev2[0] + dev2[1]) - d * d / dn);
    return true;
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
    StatsMoments acc;
    for (size_t i = 0; i < n; i += BlockElements) {
        const size_t m = std::min(BlockElements, n - i);
        const uint8_t* q = p + i * sizeof(S);
        const size_t vectorPart = trackMinAbs ? 0 : m / W * W;
        StatsMoments part;
        if (vectorPart && finiteBlock<R>(q, vectorPart, shift, part)) {
            mergeMoments(acc, part);
            if (vectorPart < m)
                mergeMoments(acc, carefulBlock<R, false>(q + vectorPart * sizeof(S), m - vectorPart, shift));
        } else {
            mergeMoments(acc, trackMinAbs ? carefulBlock<R, true>(q, m, shift) : carefulBlock<R, false>(q, m, shift));
        }
    }
    return acc;
}

/** The bins of one histogram: bin = floor((v - lo) * scale) clamped to the last, v = x or log10|x|. */
struct BinRange {
    double lo = 0;
    double hi = 0;
    double scale = 0;   ///< bins / (hi - lo); 0 for a constant tensor (everything in bin 0)
    uint32_t bins = 0;
    bool logScale = false;
};

/**
 * The histogram of one chunk, added into \a out (bins counters). Bin indices of a block are computed
 * first (a vectorisable loop; non-finite values go to an extra bin that is dropped), then counted
 * into four interleaved sub-histograms so that runs of equal bins do not serialise on one counter.
 */
template<class R>
CKPT_VECTOR_CLONES void chunkHistogram(const uint8_t* p, size_t n, const BinRange& r, bool allFinite, uint64_t* out)
{
    using S = typename R::S;
    const uint32_t bins = r.bins, dropped = bins;
    const double last = double(bins - 1);
    std::vector<uint32_t> counts(4 * size_t(bins + 1), 0);
    const size_t stride = size_t(bins) + 1;
    uint32_t* c[4] = {counts.data(), counts.data() + stride, counts.data() + 2 * stride, counts.data() + 3 * stride};
    uint32_t idx[BlockElements];
    for (size_t i = 0; i < n; i += BlockElements) {
        const size_t m = std::min(BlockElements, n - i);
        const uint8_t* q = p + i * sizeof(S);
        if (!r.logScale) {
            using I = Vec<int32_t>;
            const V lastV = splat(last);
            const I droppedV = I{} + int32_t(dropped);
            size_t j = 0;
            if (allFinite) {
                // the chunk's moments saw no NaN or ±Inf: no mask (a third of the block's vector work)
                for (; j + W <= m; j += W) {
                    const V position = (R::getW(q + j * sizeof(S)) - r.lo) * r.scale;
                    const I bin = __builtin_convertvector(position < lastV ? position : lastV, I);
                    std::memcpy(idx + j, &bin, sizeof bin);
                }
            }
            for (; j + W <= m; j += W) {
                const V x = R::getW(q + j * sizeof(S));
                const V position = (x - r.lo) * r.scale;
                const I bin = __builtin_convertvector(position < lastV ? position : lastV, I);
                const I finite = __builtin_convertvector((x - x) == V{}, I); // x - x is NaN for NaN and ±Inf
                const I chosen = (bin & finite) | (droppedV & ~finite);
                std::memcpy(idx + j, &chosen, sizeof chosen);
            }
            for (; j < m; ++j) {
                const double x = R::get(load<S>(q + j * sizeof(S)));
                const double position = std::min((x - r.lo) * r.scale, last);
                idx[j] = std::fabs(x) <= MaxFinite ? uint32_t(int32_t(position)) : dropped;
            }
        } else {
            for (size_t j = 0; j < m; ++j) {
                const double a = std::fabs(R::get(load<S>(q + j * sizeof(S))));
                if (a > 0 && a <= MaxFinite) {
                    const double position = std::clamp((std::log10(a) - r.lo) * r.scale, 0.0, last);
                    idx[j] = uint32_t(int32_t(position));
                } else {
                    idx[j] = dropped;
                }
            }
        }
        size_t j = 0;
        for (; j + 4 <= m; j += 4) {
            ++c[0][idx[j]];
            ++c[1][idx[j + 1]];
            ++c[2][idx[j + 2]];
            ++c[3][idx[j + 3]];
        }
        for (; j < m; ++j)
            ++c[0][idx[j]];
    }
    for (uint32_t b = 0; b < bins; ++b)
        out[b] += uint64_t(c[0][b]) + c[1][b] + c[2][b] + c[3][b];
}

struct Kernel {
    uint32_t elementSize = 0;
    StatsMoments (*moments)(const uint8_t*, size_t, bool) = nullptr;
    void (*histogram)(const uint8_t*, size_t, const BinRange&, bool allFinite, uint64_t*) = nullptr;
};

template<class R>
constexpr Kernel kernel()
{
    return {uint32_t(sizeof(typename R::S)), &chunkMoments<R>, &chunkHistogram<R>};
}

const Kernel* kernelFor(DType d)
{
    static constexpr Kernel f32 = kernel<F32R>(), f64 = kernel<F64R>(), f16 = kernel<F16R>(), bf16 = kernel<BF16R>(),
                            i64 = kernel<IntR<int64_t>>(), i32 = kernel<IntR<int32_t>>(), i16 = kernel<IntR<int16_t>>(),
                            i8 = kernel<IntR<int8_t>>(), u64 = kernel<IntR<uint64_t>>(), u32 = kernel<IntR<uint32_t>>(),
                            u16 = kernel<IntR<uint16_t>>(), u8 = kernel<IntR<uint8_t>>();
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
    std::vector<const Kernel*> kernels(tensors.size());
    std::vector<size_t> chunksOf(tensors.size(), 0);
    for (size_t t = 0; t < tensors.size(); ++t) {
        kernels[t] = kernelFor(tensors[t].dtype);
        if (!kernels[t])
            continue;
        const size_t n = tensors[t].bytes.size() / kernels[t]->elementSize;
        for (size_t first = 0; first < n; first += StatsChunkElements)
            tasks.push_back({t, first, std::min(StatsChunkElements, n - first)});
        chunksOf[t] = statsChunkCount(n);
    }
    const auto chunkBytes = [&](const Task& task) {
        return tensors[task.tensor].bytes.data() + task.first * kernels[task.tensor]->elementSize;
    };

    std::vector<StatsMoments> partials(tasks.size());
    std::vector<std::vector<uint64_t>> chunkHist(tasks.size());
    std::vector<StatsMoments> merged(tensors.size());
    std::vector<TensorStats> out(tensors.size());
    std::vector<std::optional<BinRange>> ranges(tensors.size());
    const auto binChunk = [&](size_t j, const BinRange& r) {
        chunkHist[j].assign(r.bins, 0);
        kernels[tasks[j].tensor]->histogram(chunkBytes(tasks[j]), tasks[j].count, r, partials[j].finite == partials[j].count, chunkHist[j].data());
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
                bytes += tasks[end].count * kernels[t]->elementSize;
        }
        runAll(parallel, end - begin, [&](size_t i) {
            const size_t j = begin + i;
            const Task& task = tasks[j];
            partials[j] = kernels[task.tensor]->moments(chunkBytes(task), task.count, o.histogramBins && o.logHistogram);
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
