// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/kernels/lanes.h"
#include "core/tensor/stats.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

/**
 * The core's SIMD kernels, every one of them: the statistics' block loops (core/tensor/stats.cpp),
 * the sum of squared steps of the update norms (core/run/loadedcheckpoint.cpp) and the diff's f32
 * pair loop (core/diff/diff.cpp). Each is written once and compiled once per instruction set into a
 * named variant; a Table holds one variant's kernels, and active() is the table of the widest
 * instruction set the CPU runs, chosen once. All variants run the same operations in the same order
 * (no fused multiply-add: core builds with -ffp-contract=off), so their results are bit-identical;
 * tests/core/tst_kernels.cpp runs every variant the machine can run against the baseline one.
 */
namespace ckpt::kernels {

/// Instruction sets a variant is compiled for, narrowest first.
enum class Isa : uint8_t {
    Baseline, ///< x86-64 (SSE2) or whatever the compiler targets: runs everywhere
    Avx2,     ///< every x86-64 machine since 2013
    X86V4,    ///< x86-64-v4 (AVX-512): one register per eight doubles, full width on Zen 4/5 and recent Xeons
};
inline constexpr std::array<Isa, 3> AllIsas = {Isa::Baseline, Isa::Avx2, Isa::X86V4};

std::string_view isaName(Isa isa);
/// Whether this build holds the variant (the x86-64 ones only from GCC on x86-64; Baseline always).
bool isaCompiled(Isa isa);
/// Whether the variant is compiled and this CPU executes it.
bool cpuRuns(Isa isa);

/// Values per block of the statistics: 16 KiB of f64 at most, so that a block's second sweep reads from L1.
inline constexpr size_t StatsBlockElements = 2048;

/** The bins of one histogram: bin = floor((v - lo) * scale) clamped to the last, v = x or log10|x|. */
struct BinRange {
    double lo = 0;
    double hi = 0;
    double scale = 0;   ///< bins / (hi - lo); 0 for a constant tensor (everything in bin 0)
    uint32_t bins = 0;
    bool logScale = false;
};

/// The diff's bins of |b - a| by binary exponent (DeltaHistogram of core/diff/diff.h, which checks that it agrees).
struct DeltaBins {
    static constexpr int minExp = -40;
    static constexpr int maxExp = 8;
    static constexpr size_t bins = maxExp - minExp + 1;
    /// [negative bins, zero, positive bins], as core/diff/diff.cpp's deltaBin indexes them
    using Flat = std::array<uint64_t, 2 * bins + 1>;
};

/// Four lanes of everything a block of finite f32 pairs adds up (lanes merged by the caller in a fixed order).
struct DiffLanes {
    V4 sumAbs = {}, dot = {}, na = {}, nb = {}, nd = {}, maxAbs = {};
    I4 differing = {};
    std::array<DeltaBins::Flat, 4> hist{};
};

/// One instruction set's kernels.
struct Table {
    Isa isa = Isa::Baseline;
    /**
     * Statistics of \a n (a multiple of W, at most StatsBlockElements) values of one element type, all finite: census, extrema,
     * shifted sums and M2 into \a out; false (and \a out unspecified) when a NaN or ±Inf is among them.
     */
    std::array<bool (*)(const uint8_t* p, size_t n, double shift, StatsMoments& out), ElemCount> finiteMoments{};
    /// The histogram of \a n values added into \a out (r.bins counters); \a allFinite skips the NaN/±Inf masks.
    std::array<void (*)(const uint8_t* p, size_t n, const BinRange& r, bool allFinite, uint64_t* out), ElemCount> histogram{};
    /// Σ(b - a)² over the pairs whose difference is finite (f32 pairs widened to double), lanes in a fixed order.
    double (*sumSquaredF32)(const uint8_t* a, const uint8_t* b, uint64_t count) = nullptr;
    double (*sumSquaredF64)(const uint8_t* a, const uint8_t* b, uint64_t count) = nullptr;
    /// \a count (a multiple of 4) finite f32 pairs: d = b - a in double four at a time, added into \a lanes.
    void (*diffF32Block)(const uint8_t* a, const uint8_t* b, size_t count, double tol, DiffLanes& lanes) = nullptr;
};

/// The variant's table, or nullptr when this build does not hold it.
const Table* variant(Isa isa);
/// The table of the widest variant this CPU runs, chosen at the first call.
const Table& active();

} // namespace ckpt::kernels
