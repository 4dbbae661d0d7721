// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The statistics' block loops, written once: kernels.cpp inlines them into one function per
// instruction set (always_inline, so that each variant is compiled whole for its instruction set).
// Only kernels.cpp includes this file.

#include "core/tensor/kernels/kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ckpt::kernels::detail {

inline constexpr double Inf = std::numeric_limits<double>::infinity();
inline constexpr double MaxFinite = std::numeric_limits<double>::max();

/**
 * One block of finite values, the common case, vectorised: \a n is a multiple of W. One sweep of
 * shifted sums S1 = Σ(x - shift), S2 = Σ(x - shift)² beside the census and extrema; the block's M2 is
 * S2 - S1²/n. That difference cancels when the block's mean lies far from the shift relative to its
 * spread: its relative error is about κ·n·ε with κ = S2 / M2, so when κ exceeds ConditionLimit the
 * block takes a second sweep over its (L1-resident) values for the deviations from its mean, the
 * corrected two-pass algorithm of stats.cpp's carefulBlock. Weights, moments and gradients almost
 * never need it (the shift is a value of the same chunk). Any NaN or ±Inf makes the sums non-finite,
 * and then the block is left to carefulBlock (returns false). Eight vector operations per W elements.
 */
template<class R>
[[gnu::always_inline]] inline bool finiteMomentsBody(const uint8_t* p, size_t n, double shift, StatsMoments& out)
{
    using S = typename R::S;
    // κ·n·ε stays below 1e-10 for blocks of StatsBlockElements values (tst_stats checks 1e-9 on std)
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

/**
 * The histogram of one chunk, added into \a out (bins counters). Bin indices of a block are computed
 * first (a vectorisable loop; non-finite values go to an extra bin that is dropped), then counted
 * into four interleaved sub-histograms so that runs of equal bins do not serialise on one counter.
 */
template<class R>
[[gnu::always_inline]] inline void histogramBody(const uint8_t* p, size_t n, const BinRange& r, bool allFinite, uint64_t* out)
{
    using S = typename R::S;
    const uint32_t bins = r.bins, dropped = bins;
    const double last = double(bins - 1);
    std::vector<uint32_t> counts(4 * size_t(bins + 1), 0);
    const size_t stride = size_t(bins) + 1;
    uint32_t* c[4] = {counts.data(), counts.data() + stride, counts.data() + 2 * stride, counts.data() + 3 * stride};
    uint32_t idx[StatsBlockElements];
    for (size_t i = 0; i < n; i += StatsBlockElements) {
        const size_t m = std::min(StatsBlockElements, n - i);
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
                // as the vector loops do it: a NaN position (an infinite x - lo times a zero scale, when
                // the range is wider than a double) goes to the last bin, where std::min would keep it
                // NaN and the conversion to an index would be undefined
                const double scaled = (x - r.lo) * r.scale;
                const double position = scaled < last ? scaled : last;
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

} // namespace ckpt::kernels::detail
