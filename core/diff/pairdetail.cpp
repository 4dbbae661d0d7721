// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diff/pairdetail.h"

#include "core/graph/car.h"
#include "core/record/record.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ckpt {

PairValues readRecordPair(const Record& a, size_t ia, const Record& b, size_t ib, bool transposeB)
{
    PairValues v;
    if (ia < a.tensors.size()) {
        const auto& t = a.tensors[ia];
        v.a = a.values(t, 0, std::min(t.numel, kMaxPairValues));
        v.shape = t.shape;
    }
    if (ib < b.tensors.size()) {
        const auto& t = b.tensors[ib];
        if (!transposeB || t.shape.size() != 2) {
            v.b = b.values(t, 0, std::min(t.numel, kMaxPairValues));
        } else if (t.numel <= 4 * kMaxPairValues) { // B's [r, c] in A's order [c, r]: all of B, then the first elements
            const auto all = b.values(t, 0, t.numel);
            const uint64_t rows = t.shape[0], cols = t.shape[1], n = std::min(all.size(), size_t(kMaxPairValues));
            v.b.resize(all.size() == rows * cols ? n : 0);
            for (uint64_t k = 0; k < v.b.size(); ++k)
                v.b[k] = all[(k % rows) * cols + k / rows];
        }
        if (ia >= a.tensors.size())
            v.shape = t.shape;
    }
    return v;
}

namespace {

std::vector<double> f32Values(std::span<const uint8_t> bytes)
{
    const size_t n = std::min<size_t>(bytes.size() / 4, kMaxPairValues);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        v[i] = f;
    }
    return v;
}

} // namespace

PairValues readCarPair(const CarStore& carA, const std::string& cidA, const CarStore& carB, const std::string& cidB)
{
    PairValues v;
    if (auto x = carA.resolve(cidA))
        v.a = f32Values(*x);
    if (auto y = carB.resolve(cidB))
        v.b = f32Values(*y);
    v.shape = {v.a.size()};
    return v;
}

SharedHistograms sharedRangeHistograms(const PairValues& v, uint32_t bins)
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto* side : {&v.a, &v.b})
        for (double x : *side)
            if (std::isfinite(x)) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
    auto histogram = [&](const std::vector<double>& values) {
        TensorStats s;
        s.count = values.size();
        if (!(lo <= hi) || bins == 0)
            return s;
        const double width = hi > lo ? (hi - lo) / bins : 1.0;
        s.histLo = lo;
        s.histHi = hi > lo ? hi : lo + 1.0;
        s.histogram.assign(bins, 0);
        for (double x : values)
            if (std::isfinite(x))
                ++s.histogram[std::min<size_t>(bins - 1, size_t((x - lo) / width))];
        return s;
    };
    return {histogram(v.a), histogram(v.b)};
}

DeltaImage deltaImage(const PairValues& v, int maxSide)
{
    DeltaImage image;
    const size_t n = std::min(v.a.size(), v.b.size());
    if (n == 0 || v.a.size() != v.b.size() || maxSide <= 0)
        return image;
    uint64_t cols = v.shape.size() >= 2 ? std::max<uint64_t>(1, v.shape.back()) : 0;
    if (cols < 4 || n / cols < 4) // a vector or a sliver ([32, 1]) reads better wrapped into a square
        cols = uint64_t(std::ceil(std::sqrt(double(n))));
    const uint64_t rows = (n + cols - 1) / cols;
    const uint64_t side = uint64_t(maxSide);
    const uint64_t fold = std::max<uint64_t>(1, (std::max(rows, cols) + side - 1) / side);
    image.rows = rows;
    image.cols = cols;
    image.fold = fold;
    image.width = int((cols + fold - 1) / fold);
    image.height = int((rows + fold - 1) / fold);
    image.cells.assign(size_t(image.width) * size_t(image.height), 0.0);
    for (size_t i = 0; i < n; ++i) {
        const double d = v.b[i] - v.a[i];
        if (!std::isfinite(d))
            continue;
        double& cell = image.cells[size_t((i / cols) / fold) * size_t(image.width) + size_t((i % cols) / fold)];
        if (std::fabs(d) > std::fabs(cell))
            cell = d;
        image.maxAbs = std::max(image.maxAbs, std::fabs(d));
    }
    return image;
}

} // namespace ckpt
