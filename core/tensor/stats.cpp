// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace ckpt {

namespace {

template<class T>
T load(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// Element readers: raw storage → double, exactly.
struct F32R { using S = float; static double get(S v) { return v; } };
struct F64R { using S = double; static double get(S v) { return v; } };
struct F16R { using S = uint16_t; static double get(S v) { return halfToFloat(v); } };
struct BF16R { using S = uint16_t; static double get(S v) { return bf16ToFloat(v); } };
template<class T> struct IntR { using S = T; static double get(S v) { return static_cast<double>(v); } };

/**
 * First pass: counts, sums and extrema. Four independent accumulator lanes let the compiler keep
 * several additions in flight (and vectorise the float case); the order of additions is fixed, so the
 * result is deterministic for a given tensor.
 */
template<class R>
void firstPass(std::span<const uint8_t> bytes, TensorStats& s)
{
    using S = typename R::S;
    const size_t n = bytes.size() / sizeof(S);
    const uint8_t* p = bytes.data();
    double sum[4] = {0, 0, 0, 0}, sq[4] = {0, 0, 0, 0};
    double lo[4], hi[4];
    for (int k = 0; k < 4; ++k) {
        lo[k] = std::numeric_limits<double>::infinity();
        hi[k] = -std::numeric_limits<double>::infinity();
    }
    uint64_t zeros[4] = {0, 0, 0, 0}, nonFinite[4] = {0, 0, 0, 0}, nans = 0;
    size_t i = 0;
    auto one = [&](int k, double x) {
        if (!std::isfinite(x)) {
            ++nonFinite[k];
            nans += std::isnan(x);
            return;
        }
        sum[k] += x;
        sq[k] += x * x;
        lo[k] = std::min(lo[k], x);
        hi[k] = std::max(hi[k], x);
        zeros[k] += (x == 0.0);
    };
    for (; i + 4 <= n; i += 4) {
        for (int k = 0; k < 4; ++k)
            one(k, R::get(load<S>(p + (i + k) * sizeof(S))));
    }
    for (; i < n; ++i)
        one(0, R::get(load<S>(p + i * sizeof(S))));
    s.count = n;
    s.nan = nans;
    s.inf = nonFinite[0] + nonFinite[1] + nonFinite[2] + nonFinite[3] - nans;
    s.finite = n - nonFinite[0] - nonFinite[1] - nonFinite[2] - nonFinite[3];
    s.zeros = zeros[0] + zeros[1] + zeros[2] + zeros[3];
    s.sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    const double ssq = (sq[0] + sq[1]) + (sq[2] + sq[3]);
    s.l2 = std::sqrt(ssq);
    s.min = std::min(std::min(lo[0], lo[1]), std::min(lo[2], lo[3]));
    s.max = std::max(std::max(hi[0], hi[1]), std::max(hi[2], hi[3]));
    if (s.finite) {
        s.mean = s.sum / double(s.finite);
        const double var = std::max(0.0, ssq / double(s.finite) - s.mean * s.mean);
        s.std = std::sqrt(var);
    }
}

template<class R>
void histogramPass(std::span<const uint8_t> bytes, TensorStats& s, uint32_t bins, bool logScale)
{
    using S = typename R::S;
    const size_t n = bytes.size() / sizeof(S);
    const uint8_t* p = bytes.data();
    s.histogram.assign(bins, 0);
    double lo = s.min, hi = s.max;
    if (logScale) {
        lo = std::numeric_limits<double>::infinity();
        hi = -lo;
        for (size_t i = 0; i < n; ++i) {
            const double x = std::fabs(R::get(load<S>(p + i * sizeof(S))));
            if (std::isfinite(x) && x > 0) {
                const double l = std::log10(x);
                lo = std::min(lo, l);
                hi = std::max(hi, l);
            }
        }
        if (!(lo <= hi)) {
            s.histogram.clear();
            return;
        }
    }
    s.histLo = lo;
    s.histHi = hi;
    const double width = hi - lo;
    const double scale = width > 0 ? double(bins) / width : 0.0;
    uint64_t* h = s.histogram.data();
    const uint32_t last = bins - 1;
    for (size_t i = 0; i < n; ++i) {
        double x = R::get(load<S>(p + i * sizeof(S)));
        if (logScale) {
            x = std::fabs(x);
            if (!(x > 0) || !std::isfinite(x))
                continue;
            x = std::log10(x);
        } else if (!std::isfinite(x)) {
            continue;
        }
        const auto b = static_cast<uint32_t>((x - lo) * scale);
        ++h[std::min(b, last)];
    }
}

template<class R>
void compute(std::span<const uint8_t> bytes, TensorStats& s, const StatsOptions& o)
{
    firstPass<R>(bytes, s);
    if (o.histogramBins && s.finite)
        histogramPass<R>(bytes, s, o.histogramBins, o.logHistogram);
}

} // namespace

TensorStats computeStats(DType dtype, std::span<const uint8_t> bytes, const StatsOptions& o)
{
    TensorStats s;
    s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    switch (dtype) {
    case DType::F32: case DType::Flex32: compute<F32R>(bytes, s, o); break;
    case DType::F64: compute<F64R>(bytes, s, o); break;
    case DType::F16: compute<F16R>(bytes, s, o); break;
    case DType::BF16: compute<BF16R>(bytes, s, o); break;
    case DType::I64: compute<IntR<int64_t>>(bytes, s, o); break;
    case DType::I32: compute<IntR<int32_t>>(bytes, s, o); break;
    case DType::I16: compute<IntR<int16_t>>(bytes, s, o); break;
    case DType::I8: compute<IntR<int8_t>>(bytes, s, o); break;
    case DType::U64: compute<IntR<uint64_t>>(bytes, s, o); break;
    case DType::U32: compute<IntR<uint32_t>>(bytes, s, o); break;
    case DType::U16: compute<IntR<uint16_t>>(bytes, s, o); break;
    case DType::U8: case DType::Bool: compute<IntR<uint8_t>>(bytes, s, o); break;
    case DType::QFloat: break;
    }
    if (s.finite == 0) {
        s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    }
    return s;
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
