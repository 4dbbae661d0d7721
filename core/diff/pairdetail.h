// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The detail of one diff row, as the Diff panel draws it: both sides' values (a bounded prefix),
// their histograms over one shared range, and the delta b − a folded into an image of bounded size.
// Plain data work, kept here so the panel only shows it and a test can check it without a window.

#include "core/tensor/stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

class CarStore;
class Record;

/** Both sides' values of one row (either may be empty: absent on that side or unreadable). */
struct PairValues {
    std::vector<double> a, b;
    std::vector<uint64_t> shape; ///< the tensor's shape (A's when present), or {n} for a CAR block
};

/** Elements read per side: the detail is a picture, not a second diff. */
inline constexpr uint64_t kMaxPairValues = uint64_t(1) << 22;

/**
 * The first kMaxPairValues elements of tensor \a ia of \a a and \a ib of \a b (npos: absent on that
 * side); \a transposeB reads a 2-D B in A's layout (a Linear weight across frameworks; B at most 4 x
 * kMaxPairValues elements, else B reads as unreadable).
 */
PairValues readRecordPair(const Record& a, size_t ia, const Record& b, size_t ib, bool transposeB = false);
/** The f32 blocks \a cidA of \a carA and \a cidB of \a carB (a block not in its CAR reads as absent). */
PairValues readCarPair(const CarStore& carA, const std::string& cidA, const CarStore& carB, const std::string& cidB);

/** Histograms of both sides over one range (the finite values of both), so a shift or a widening shows. */
struct SharedHistograms {
    TensorStats a, b; ///< count, histogram, histLo, histHi; no histogram when neither side has a finite value
};
SharedHistograms sharedRangeHistograms(const PairValues& v, uint32_t bins);

/**
 * b − a as an image: the last dimension across (a vector or a sliver such as [32, 1] wrapped into a
 * square), the rest down, blocks of fold × fold cells kept as their largest change (a mean would hide
 * a single moved weight) so that no side exceeds \a maxSide cells. Non-finite deltas leave 0.
 */
struct DeltaImage {
    uint64_t rows = 0, cols = 0;    ///< the delta's own extent
    uint64_t fold = 1;              ///< cells per image cell along each side
    int width = 0, height = 0;      ///< the image's extent, in cells
    std::vector<double> cells;      ///< row-major, width × height
    double maxAbs = 0;              ///< the largest finite |b − a|
};
/** Empty (width 0) when a side is empty or the element counts differ. */
DeltaImage deltaImage(const PairValues& v, int maxSide);

} // namespace ckpt
