// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/dtype.h"

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace ckpt {

/**
 * Statistics of a tensor's values as stored (f16/bf16 widened exactly; integers and bools as
 * numbers), read from memory once: count, NaN/±Inf/zero census, min, max, sum, l2, mean and std.
 * NaN and ±Inf are counted and excluded from everything else; `sum` and `l2` cover the finite values
 * only. An empty (or all non-finite) tensor has NaN for min/max/mean/std and no histogram.
 *
 * Accuracy (checked against a long-double reference by tests/core/tst_stats.cpp): counts, min, max
 * exact; sum and mean within 1e-12 of Σ|x| (mean |x|); l2 within 1e-12 relative; std within 1e-9
 * relative, computed stably (per cache-resident block of 2048 values, sums shifted by a value of
 * the chunk, with the corrected two-pass mean/deviation where those sums would cancel; blocks merged
 * with Chan's pairwise update), so a large offset does not cancel it away. Sums are in
 * double: squares beyond ~1e154 overflow l2 to +Inf. Chunk boundaries depend on the tensor only, so
 * the result is bit-identical however many threads computed it.
 */
struct TensorStats {
    uint64_t count = 0;   ///< elements
    uint64_t finite = 0;  ///< elements that are neither NaN nor ±Inf
    uint64_t nan = 0;
    uint64_t inf = 0;
    uint64_t zeros = 0;   ///< +0 and -0
    double sum = 0;
    double l2 = 0;        ///< sqrt(sum of squares)
    double min = 0;
    double max = 0;
    double mean = 0;
    double std = 0;       ///< population standard deviation
    /**
     * Histogram of the finite values over [histLo, histHi] = [min, max] (equal bins, bin =
     * floor((x - min) * bins / (max - min)), the maximum in the last bin; a constant tensor fills bin
     * 0); empty when no finite value. Its range is the tensor's min/max, which are known only after
     * all values were read, so asking for a histogram costs a second sweep. computeStatsMany makes
     * it over still-cached data: right after its moments for a tensor of one chunk
     * (StatsChunkElements), after a window of about 8 MiB of whole tensors for larger ones; only a
     * tensor larger than the caches is read from memory twice.
     */
    std::vector<uint64_t> histogram;
    double histLo = 0;
    double histHi = 0;
};

struct StatsOptions {
    uint32_t histogramBins = 256;   ///< 0: no histogram (one read of the tensor instead of two)
    bool logHistogram = false;      ///< bins over log10(|x|) of the non-zero finite values
};

/**
 * Runs body(i) for every i in [0, n), in any order and possibly concurrently, and returns when all
 * have finished. The core starts no threads: ui/ passes its pool's (ui/async/executor.h), app/cli one on
 * std::thread (app/workers/parallelfor.h). An empty function runs the bodies in order on the caller.
 */
using ParallelFor = std::function<void(size_t n, const std::function<void(size_t)>& body)>;

/**
 * Elements per chunk, the unit of parallel work inside one tensor (2^18: 1 MiB of f32, a few hundred
 * microseconds of work, a fraction of L2). Tensors are split into chunks of exactly this many
 * elements (the last shorter), independently of any thread count.
 */
inline constexpr size_t StatsChunkElements = size_t(1) << 18;

/**
 * The mergeable state of the statistics of a run of elements: one chunk of StatsChunkElements, or
 * consecutive chunks folded in order with mergeMoments. computeStats (without a log histogram, whose
 * smallest |x| takes the scalar path) is exactly this fold over a tensor's chunks, from a
 * default-constructed StatsMoments, followed by statsFromMoments; so the
 * chunks of one tensor may be computed in different processes (the timeline's shares, core/run) and
 * folded later, with a result bit-identical to computeStats.
 */
struct StatsMoments {
    uint64_t count = 0, finite = 0, nan = 0, zeros = 0;
    double sum = 0, sumSq = 0;   ///< of the finite values
    double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
    double minAbs = std::numeric_limits<double>::infinity(); ///< smallest non-zero |x| (only when a log histogram is asked for)
    /// Of the finite values: the mean as shift + mean, and M2 = Σ(x - shift - mean)². The shift is a value
    /// of the chunk, so that means of values far from zero (1e15 ± 1000 in int64) keep the resolution
    /// of their spread rather than the ulp of their offset.
    double shift = 0, mean = 0, m2 = 0;
};

/** Folds \a next (the elements right after those of \a into) into \a into: sums, census, extrema, and
    mean and M2 by Chan, Golub & LeVeque's parallel-variance update. */
void mergeMoments(StatsMoments& into, const StatsMoments& next);

/** The statistics the moments of a whole tensor give (no histogram). */
TensorStats statsFromMoments(const StatsMoments& m);

/**
 * The moments of chunks [firstChunk, firstChunk + chunks) of the tensor in \a bytes (chunks of
 * StatsChunkElements elements, clamped to the tensor), one per chunk: the pieces computeStats folds.
 * Empty for an opaque dtype (QFloat). \a parallel may spread the chunks.
 */
std::vector<StatsMoments> computeChunkMoments(DType dtype, std::span<const uint8_t> bytes, size_t firstChunk, size_t chunks,
    const ParallelFor& parallel = {});

/** Chunks of StatsChunkElements in a tensor of \a elements (the last may be shorter). */
inline size_t statsChunkCount(uint64_t elements)
{
    return size_t((elements + StatsChunkElements - 1) / StatsChunkElements);
}

/** One tensor's bytes: contiguous little-endian elements of \a dtype. */
struct StatsInput {
    DType dtype = DType::F32;
    std::span<const uint8_t> bytes;
};

/**
 * Statistics of \a bytes holding contiguous little-endian elements of \a dtype. QFloat payloads
 * (opaque) give count 0. \a bytes.size() must be a multiple of the element size (checked by callers
 * through validation; a remainder is ignored). \a parallel may spread the chunks of a large tensor.
 */
TensorStats computeStats(DType dtype, std::span<const uint8_t> bytes, const StatsOptions& options = {},
    const ParallelFor& parallel = {});

/** Statistics of values already widened to double (legacy {value, shape} payloads, blobs). */
TensorStats computeStats(std::span<const double> values, const StatsOptions& options = {});

/**
 * Statistics of many tensors at once: every chunk of every tensor is one task for \a parallel (so
 * small tensors spread over threads as well as the chunks of a large one). Results in input order,
 * each equal to computeStats() of that tensor alone.
 */
std::vector<TensorStats> computeStatsMany(std::span<const StatsInput> tensors, const StatsOptions& options = {},
    const ParallelFor& parallel = {});

/** Element \a i of \a bytes as a double (exact widening). */
double elementAt(DType dtype, std::span<const uint8_t> bytes, uint64_t i);

/** Elements [first, first+count) widened to double (clamped to the tensor). */
std::vector<double> elementsAsDouble(DType dtype, std::span<const uint8_t> bytes, uint64_t first, uint64_t count);

} // namespace ckpt
