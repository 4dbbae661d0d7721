// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/dtype.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace ckpt {

/**
 * One-pass statistics of a tensor's values as stored (f16/bf16 widened exactly; integers and bools
 * as numbers). Sums are accumulated in double. NaN and ±Inf are counted and excluded from min, max,
 * mean, std and the histogram; `sum` and `l2` then cover the finite values only. An empty tensor has
 * count 0 and NaN for min/max/mean/std.
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
    /** Histogram of the finite values over [histLo, histHi] (equal bins; empty when no finite value). */
    std::vector<uint64_t> histogram;
    double histLo = 0;
    double histHi = 0;
};

struct StatsOptions {
    uint32_t histogramBins = 256;   ///< 0: no histogram (one pass instead of two)
    bool logHistogram = false;      ///< bins over log10(|x|) of the non-zero finite values
};

/**
 * Statistics of \a bytes holding contiguous little-endian elements of \a dtype. QFloat payloads
 * (opaque) give count 0. \a bytes.size() must be a multiple of the element size (checked by callers
 * through validation; a remainder is ignored).
 */
TensorStats computeStats(DType dtype, std::span<const uint8_t> bytes, const StatsOptions& options = {});

/** Statistics of values already widened to double (legacy {value, shape} payloads, blobs). */
TensorStats computeStats(std::span<const double> values, const StatsOptions& options = {});

/** Element \a i of \a bytes as a double (exact widening). */
double elementAt(DType dtype, std::span<const uint8_t> bytes, uint64_t i);

/** Elements [first, first+count) widened to double (clamped to the tensor). */
std::vector<double> elementsAsDouble(DType dtype, std::span<const uint8_t> bytes, uint64_t first, uint64_t count);

} // namespace ckpt
