// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// core/tensor/stats against an independent long-double reference: every dtype, random and
// adversarial tensors (large offset, NaN/±Inf, ±0, subnormals, extremes, constant, empty, single,
// all-NaN, tensors spanning many chunks), every field of TensorStats including both histograms.
//
// The reference decodes the bytes itself (f16/bf16 through ldexp on the bit fields, not dtype.cpp),
// sums in long double and takes the variance in two passes (exact mean first, then squared
// deviations), so it does not share a formula with the code under test.
//
// Tolerances (the documented contract of computeStats):
//   count, finite, nan, inf, zeros, min, max, histLo/histHi (linear): exact;
//   sum, mean: within 1e-12 of the sum (mean) of |x|; l2: 1e-12 relative; std: 1e-9 relative
//   (a constant tensor has std exactly 0);
//   histogram: exact for every value that is not within 1e-9 + 8 ulp of a bin edge (in bin units);
//   a value that close may fall on either side (checked as bounds on every prefix of the bins). Counts sum to the finite values (linear)
//   or the finite non-zero values (log10|x|).
#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <atomic>

using namespace ckpt;

namespace {

using LD = long double;

// ---- independent element decoding --------------------------------------------------------------

LD refHalf(uint16_t h)
{
    const int sign = (h & 0x8000) ? -1 : 1;
    const int exp = (h >> 10) & 0x1f;
    const int mant = h & 0x3ff;
    if (exp == 0x1f)
        return mant ? std::numeric_limits<LD>::quiet_NaN() : sign * std::numeric_limits<LD>::infinity();
    if (exp == 0)
        return sign * std::ldexp(LD(mant), -24);
    return sign * std::ldexp(LD(mant + 1024), exp - 25);
}

LD refBf16(uint16_t h)
{
    const int sign = (h & 0x8000) ? -1 : 1;
    const int exp = (h >> 7) & 0xff;
    const int mant = h & 0x7f;
    if (exp == 0xff)
        return mant ? std::numeric_limits<LD>::quiet_NaN() : sign * std::numeric_limits<LD>::infinity();
    if (exp == 0)
        return sign * std::ldexp(LD(mant), -133);
    return sign * std::ldexp(LD(mant + 128), exp - 134);
}

template<class T>
T loadAt(const std::vector<uint8_t>& b, size_t i)
{
    T v;
    std::memcpy(&v, b.data() + i * sizeof(T), sizeof v);
    return v;
}

LD refElement(DType d, const std::vector<uint8_t>& b, size_t i)
{
    switch (d) {
    case DType::F32: case DType::Flex32: return loadAt<float>(b, i);
    case DType::F64: return loadAt<double>(b, i);
    case DType::F16: return refHalf(loadAt<uint16_t>(b, i));
    case DType::BF16: return refBf16(loadAt<uint16_t>(b, i));
    // the documented widening: a 64-bit integer beyond 2^53 becomes its nearest double
    case DType::I64: return LD(double(loadAt<int64_t>(b, i)));
    case DType::I32: return loadAt<int32_t>(b, i);
    case DType::I16: return loadAt<int16_t>(b, i);
    case DType::I8: return loadAt<int8_t>(b, i);
    case DType::U64: return LD(double(loadAt<uint64_t>(b, i)));
    case DType::U32: return loadAt<uint32_t>(b, i);
    case DType::U16: return loadAt<uint16_t>(b, i);
    case DType::U8: case DType::Bool: return b[i];
    case DType::QFloat: break;
    }
    return 0;
}

// ---- encoding test values (rounded to the dtype; the reference reads the rounded bytes back) --

template<class T>
void put(std::vector<uint8_t>& b, T v)
{
    const size_t at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
}

template<class T>
T clampInt(double v)
{
    if (std::isnan(v))
        return 0;
    const double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
    if (v <= lo)
        return std::numeric_limits<T>::min();
    if (v >= hi)
        return std::numeric_limits<T>::max();
    return T(v);
}

std::vector<uint8_t> encode(DType d, const std::vector<double>& values)
{
    std::vector<uint8_t> b;
    for (double v : values) {
        switch (d) {
        case DType::F32: case DType::Flex32: put(b, float(v)); break;
        case DType::F64: put(b, v); break;
        case DType::F16: put(b, doubleToHalf(v)); break;
        case DType::BF16: put(b, floatToBf16(float(v))); break;
        case DType::I64: put(b, clampInt<int64_t>(v)); break;
        case DType::I32: put(b, clampInt<int32_t>(v)); break;
        case DType::I16: put(b, clampInt<int16_t>(v)); break;
        case DType::I8: put(b, clampInt<int8_t>(v)); break;
        case DType::U64: put(b, clampInt<uint64_t>(v)); break;
        case DType::U32: put(b, clampInt<uint32_t>(v)); break;
        case DType::U16: put(b, clampInt<uint16_t>(v)); break;
        case DType::U8: put(b, clampInt<uint8_t>(v)); break;
        case DType::Bool: put(b, uint8_t(v != 0 && !std::isnan(v))); break;
        case DType::QFloat: break;
        }
    }
    return b;
}

// ---- the reference -----------------------------------------------------------------------------

struct Reference {
    uint64_t count = 0, finite = 0, nan = 0, inf = 0, zeros = 0, nonZeroFinite = 0;
    LD sum = 0, sumAbs = 0, sumSq = 0, min = 0, max = 0, mean = 0, std = 0, minAbs = 0, maxAbs = 0;
    std::vector<LD> values; ///< the finite ones
};

Reference reference(DType d, const std::vector<uint8_t>& bytes)
{
    Reference r;
    r.count = bytes.size() / dtypeSize(d);
    r.min = std::numeric_limits<LD>::infinity();
    r.max = -r.min;
    r.minAbs = r.min;
    for (size_t i = 0; i < r.count; ++i) {
        const LD x = refElement(d, bytes, i);
        if (std::isnan(x)) {
            ++r.nan;
            continue;
        }
        if (std::isinf(x)) {
            ++r.inf;
            continue;
        }
        ++r.finite;
        r.values.push_back(x);
        r.sum += x;
        r.sumAbs += std::fabs(x);
        r.sumSq += x * x;
        r.min = std::min(r.min, x);
        r.max = std::max(r.max, x);
        if (x == 0) {
            ++r.zeros;
        } else {
            ++r.nonZeroFinite;
            r.minAbs = std::min(r.minAbs, std::fabs(x));
            r.maxAbs = std::max(r.maxAbs, std::fabs(x));
        }
    }
    if (r.finite) {
        // Corrected two-pass: even long double sums of 1e16-sized values round (ulp 4 at 4e19), so
        // the deviations' own sum folds the first mean's error back in.
        const LD first = r.sum / LD(r.finite);
        LD d = 0, d2 = 0;
        for (LD x : r.values) {
            d += x - first;
            d2 += (x - first) * (x - first);
        }
        r.mean = first + d / LD(r.finite);
        r.std = std::sqrt(std::max(LD(0), d2 - d * d / LD(r.finite)) / LD(r.finite));
    }
    return r;
}

#define CHECK(cond, msg) QVERIFY2(cond, QByteArray(msg).constData())

/**
 * Checks \a hist against the values binned in long double over [lo, hi]; \a map turns a finite
 * value into its binned coordinate (x or log10|x|) or NaN when it is not binned. Binning is monotone,
 * so a value whose position is uncertain by ±margin lies in [bin(p - margin), bin(p + margin)], and
 * for every k the first k+1 bins must hold at least the values sure to be there (upper bin ≤ k) and at
 * most those that may be (lower bin ≤ k); for values away from edges that is an exact count.
 */
void checkHistogram(const std::vector<uint64_t>& hist, LD lo, LD hi, const std::vector<LD>& values,
    const std::function<LD(LD)>& map, uint64_t expectedTotal, const QByteArray& what)
{
    const size_t bins = hist.size();
    std::vector<uint64_t> byUpper(bins, 0), byLower(bins, 0);
    const LD scale = hi > lo ? LD(bins) / (hi - lo) : 0;
    // the code under test bins in double: its coordinate (x, or log10|x| from libm) carries a few
    // ulps of its magnitude, which is what a position so close to an edge may move by
    const LD margin = 1e-9L + 8 * LD(std::numeric_limits<double>::epsilon()) * std::max(std::fabs(lo), std::fabs(hi)) * scale;
    const auto binOf = [&](LD p) { return std::min(size_t(std::max(p, LD(0))), bins - 1); };
    for (LD v : values) {
        const LD x = map(v);
        if (std::isnan(x))
            continue;
        const LD p = (x - lo) * scale;
        ++byLower[binOf(p - margin)];
        ++byUpper[binOf(p + margin)];
    }
    uint64_t total = 0, sure = 0, possible = 0;
    for (size_t k = 0; k < bins; ++k) {
        total += hist[k];
        sure += byUpper[k];
        possible += byLower[k];
        if (total < sure || total > possible)
            QFAIL(qPrintable(QStringLiteral("%1: bins 0..%2 hold %3, the reference %4..%5")
                                 .arg(QString::fromUtf8(what)).arg(k).arg(total).arg(sure).arg(possible)));
    }
    CHECK(total == expectedTotal, what + ": histogram total " + QByteArray::number(qulonglong(total)) + " != "
            + QByteArray::number(qulonglong(expectedTotal)));
}

bool near(LD got, LD want, LD tolerance)
{
    if (std::isnan(want))
        return std::isnan(got);
    return std::fabs(got - want) <= tolerance;
}

#define CHECK_NEAR(got, want, tol, name)                                                                           \
    CHECK(near(LD(got), (want), (tol)),                                                                         \
        what + ": " name " " + QByteArray::number(double(got), 'g', 17) + " vs reference "                       \
            + QByteArray::number(double(want), 'g', 17) + " (tolerance " + QByteArray::number(double(tol), 'g', 3) + ")")

void checkAgainstReference(DType d, const std::vector<uint8_t>& bytes, const QByteArray& what)
{
    const Reference r = reference(d, bytes);
    constexpr uint32_t bins = 64;
    const TensorStats s = computeStats(d, bytes, StatsOptions{bins, false});
    QCOMPARE(s.count, r.count);
    QCOMPARE(s.finite, r.finite);
    QCOMPARE(s.nan, r.nan);
    QCOMPARE(s.inf, r.inf);
    QCOMPARE(s.zeros, r.zeros);
    if (r.finite == 0) {
        CHECK(std::isnan(s.min) && std::isnan(s.max) && std::isnan(s.mean) && std::isnan(s.std), what);
        CHECK(s.histogram.empty(), what);
        QCOMPARE(s.sum, 0.0);
        return;
    }
    // extrema are values of the tensor: exact (as doubles; int64 beyond 2^53 rounds like any widening)
    QCOMPARE(s.min, double(r.min));
    QCOMPARE(s.max, double(r.max));
    CHECK_NEAR(s.sum, r.sum, 1e-12L * r.sumAbs, "sum");
    CHECK_NEAR(s.mean, r.mean, 1e-12L * r.sumAbs / LD(r.finite), "mean");
    CHECK_NEAR(s.l2, std::sqrt(r.sumSq), 1e-12L * std::sqrt(r.sumSq), "l2");
    CHECK_NEAR(s.std, r.std, 1e-9L * r.std, "std");
    CHECK(s.std >= 0, what);

    QCOMPARE(s.histogram.size(), size_t(bins));
    QCOMPARE(s.histLo, s.min);
    QCOMPARE(s.histHi, s.max);
    checkHistogram(s.histogram, LD(s.histLo), LD(s.histHi), r.values, [](LD x) { return x; }, r.finite, what + " linear");

    const TensorStats g = computeStats(d, bytes, StatsOptions{bins, true});
    QCOMPARE(g.count, r.count);
    QCOMPARE(g.finite, r.finite);
    if (r.nonZeroFinite == 0) {
        CHECK(g.histogram.empty(), what + " log histogram of zeros");
        return;
    }
    QCOMPARE(g.histogram.size(), size_t(bins));
    CHECK_NEAR(g.histLo, std::log10(r.minAbs), 1e-13L * (1 + std::fabs(std::log10(r.minAbs))), "log histLo");
    CHECK_NEAR(g.histHi, std::log10(r.maxAbs), 1e-13L * (1 + std::fabs(std::log10(r.maxAbs))), "log histHi");
    checkHistogram(g.histogram, LD(g.histLo), LD(g.histHi), r.values,
        [](LD x) { return x == 0 ? std::numeric_limits<LD>::quiet_NaN() : std::log10(std::fabs(x)); },
        r.nonZeroFinite, what + " log10");
}

// ---- generators --------------------------------------------------------------------------------

const std::vector<DType>& allDTypes()
{
    static const std::vector<DType> all = {DType::F32, DType::Flex32, DType::F64, DType::F16, DType::BF16,
        DType::I64, DType::I32, DType::I16, DType::I8, DType::U64, DType::U32, DType::U16, DType::U8, DType::Bool};
    return all;
}

bool isIntLike(DType d) { return !isFloat(d) && d != DType::Flex32; }

/** A representative range of the dtype: where random values are drawn. */
std::pair<double, double> range(DType d)
{
    switch (d) {
    case DType::I8: return {-128, 127};
    case DType::U8: return {0, 255};
    case DType::Bool: return {0, 1};
    case DType::I16: return {-32768, 32767};
    case DType::U16: return {0, 65535};
    case DType::I32: return {-2e9, 2e9};
    case DType::U32: return {0, 4e9};
    case DType::I64: return {-9e18, 9e18};
    case DType::U64: return {0, 1.8e19};
    default: return {-3, 5};
    }
}

/** A value far from zero with a spread the dtype can still resolve: naive Σx²/n − mean² fails here. */
std::pair<double, double> offsetAndSpread(DType d)
{
    switch (d) {
    case DType::F64: return {1e9, 1};
    case DType::F32: case DType::Flex32: return {1e4, 1};
    case DType::F16: return {1000, 16};
    case DType::BF16: return {1e4, 500};
    case DType::I64: return {1e15, 1000};
    case DType::U64: return {1e16, 1000};
    case DType::I32: return {2e9, 1000};
    case DType::U32: return {4e9, 1000};
    case DType::I16: return {32000, 100};
    case DType::U16: return {65000, 100};
    case DType::I8: return {120, 4};
    case DType::U8: return {250, 4};
    default: return {1, 0};
    }
}

std::vector<double> uniform(size_t n, double lo, double hi, uint32_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (double& x : v)
        x = u(rng);
    return v;
}

/** Random values with NaN, ±Inf, ±0, subnormals and the dtype's extremes mixed in at random places. */
std::vector<double> adversarial(DType d, size_t n, uint32_t seed)
{
    auto [lo, hi] = range(d);
    std::vector<double> v = uniform(n, lo, hi, seed);
    std::mt19937_64 rng(seed + 1);
    std::vector<double> specials = {0.0, -0.0, lo, hi};
    if (!isIntLike(d)) {
        const double inf = std::numeric_limits<double>::infinity();
        specials.insert(specials.end(), {std::nan(""), -std::nan(""), inf, -inf});
        switch (d) {
        case DType::F64:
            // squares of ±1e150 still fit a double; larger extremes would overflow l2 (documented)
            specials.insert(specials.end(), {4.9e-324, -2.2e-308, 1e-310, 1e150, -1e150});
            break;
        case DType::F32: case DType::Flex32:
            specials.insert(specials.end(), {1.4e-45, -1.1754942e-38, 3e-40, 3.4028234e38, -3.4028234e38});
            break;
        case DType::F16:
            specials.insert(specials.end(), {5.960464477539063e-08, -6.097555160522461e-05, 65504, -65504});
            break;
        case DType::BF16:
            specials.insert(specials.end(), {9.18355e-41, -1.1754944e-38, 3.3895314e38, -3.3895314e38});
            break;
        default: break;
        }
    }
    std::uniform_int_distribution<size_t> where(0, n - 1);
    for (size_t k = 0; k < n / 50; ++k)
        v[where(rng)] = specials[k % specials.size()];
    return v;
}

} // namespace

class TestStats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void randomTensors()
    {
        for (DType d : allDTypes()) {
            auto [lo, hi] = range(d);
            for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(1000), size_t(100'003)}) {
                const QByteArray what = QByteArray(dtypeName(d).data()) + " random n=" + QByteArray::number(qulonglong(n));
                checkAgainstReference(d, encode(d, uniform(n, lo, hi, uint32_t(n) * 7 + uint32_t(d))), what);
                if (QTest::currentTestFailed())
                    return;
            }
        }
    }

    void largeOffset()
    {
        for (DType d : allDTypes()) {
            if (d == DType::Bool)
                continue;
            auto [offset, spread] = offsetAndSpread(d);
            const QByteArray what = QByteArray(dtypeName(d).data()) + " offset " + QByteArray::number(offset);
            checkAgainstReference(d, encode(d, uniform(200'000, offset - spread, offset + spread, 11 + uint32_t(d))), what);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The one-sweep block moments (S2 - S1²/n around the chunk's first value) fall back to two
    // sweeps when that difference would cancel. A first value 300 spreads away from the rest makes
    // every block of its chunk ill-conditioned (κ ~ 3e5) while hardly moving the tensor's std: the
    // two-sweep blocks stay within 1e-14 of the long-double std, the one-sweep ones drift to ~5e-13
    // (checked: with the fallback disabled this test fails). Means that drift along the tensor, and
    // the documented 1e-9 of checkAgainstReference for every other field, too.
    void shiftFarFromTheBlocksMean()
    {
        for (DType d : {DType::F32, DType::F64}) {
            auto [offset, spread] = offsetAndSpread(d);
            std::vector<double> outlierFirst = uniform(300'000, offset - spread, offset + spread, 21 + uint32_t(d));
            outlierFirst[0] = offset + 300 * spread;
            outlierFirst[StatsChunkElements] = outlierFirst[0]; // the second chunk's shift too
            std::vector<double> drift(300'000);
            for (size_t i = 0; i < drift.size(); ++i)
                drift[i] = offset + spread * (1000.0 * double(i) / double(drift.size()) + std::sin(double(i)));
            const QByteArray name(dtypeName(d).data());
            for (const auto& [values, what] : {std::pair{outlierFirst, name + " outlier first"}, std::pair{drift, name + " drifting mean"}}) {
                const std::vector<uint8_t> bytes = encode(d, values);
                checkAgainstReference(d, bytes, what);
                const Reference r = reference(d, bytes);
                const TensorStats s = computeStats(d, bytes, StatsOptions{0, false});
                CHECK_NEAR(s.std, r.std, 1e-14L * r.std, "std to 1e-14");
                if (QTest::currentTestFailed())
                    return;
            }
        }
    }

    void nonFiniteZerosSubnormalsExtremes()
    {
        for (DType d : allDTypes()) {
            const QByteArray what = QByteArray(dtypeName(d).data()) + " adversarial";
            checkAgainstReference(d, encode(d, adversarial(d, 50'000, 3 + uint32_t(d))), what);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void degenerateTensors()
    {
        const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
        const std::vector<std::pair<const char*, std::vector<double>>> cases = {
            {"empty", {}},
            {"all NaN", {nan, nan, nan}},
            {"only infinities", {inf, -inf}},
            {"constant", std::vector<double>(10'000, 100.0)},
            {"zeros", std::vector<double>(1000, 0.0)},
            {"one finite among NaN", {nan, 2.0, nan}},
        };
        for (DType d : allDTypes())
            for (const auto& [name, values] : cases) {
                const QByteArray what = QByteArray(dtypeName(d).data()) + " " + name;
                const auto bytes = encode(d, values);
                checkAgainstReference(d, bytes, what);
                if (QTest::currentTestFailed())
                    return;
                if (std::string_view(name) == "constant") {
                    const TensorStats s = computeStats(d, bytes, StatsOptions{16, false});
                    CHECK(s.std == 0.0, what + ": std of a constant tensor is exactly 0");
                    CHECK(s.histogram.size() == 16 && s.histogram[0] == s.finite, what + ": a constant tensor fills bin 0");
                }
            }
    }

    // A range wider than a double (-DBL_MAX .. +DBL_MAX) makes the bin scale 0 and x - lo infinite:
    // every value, in the vector loop and in the scalar tail alike, lands in a bin (the last one for
    // the NaN position), never outside the counters.
    void histogramOfTheWidestRange()
    {
        const double big = std::numeric_limits<double>::max();
        for (size_t n = 2; n <= 19; ++n) {
            std::vector<double> values(n, 1.0);
            values.front() = -big;
            values.back() = big;
            const auto bytes = encode(DType::F64, values);
            const TensorStats s = computeStats(DType::F64, bytes, StatsOptions{16, false});
            uint64_t counted = 0;
            for (uint64_t c : s.histogram)
                counted += c;
            const QByteArray what = "f64 of " + QByteArray::number(qulonglong(n)) + " values from -DBL_MAX to DBL_MAX";
            CHECK(s.histogram.size() == 16 && counted == n, what + ": every value is counted in one of the 16 bins");
        }
    }

    void tensorsSpanningManyChunks()
    {
        // Larger than any chunk the implementation may split a tensor into, with a drift so that
        // per-chunk means differ and their merge is exercised.
        const size_t n = 1'200'017;
        std::vector<double> v = uniform(n, -1, 1, 99);
        for (size_t i = 0; i < n; ++i)
            v[i] += 1e3 + 1e-3 * double(i % 500'000);
        v[n / 3] = std::nan("");
        v[n - 1] = -std::numeric_limits<double>::infinity();
        for (DType d : {DType::F32, DType::F64, DType::BF16, DType::I32})
            checkAgainstReference(d, encode(d, v), QByteArray(dtypeName(d).data()) + " 1.2M elements");
    }

    void widenedDoubles()
    {
        // computeStats(span<double>) is the path of legacy {value, shape} tensors
        const std::vector<double> v = adversarial(DType::F64, 20'000, 5);
        const auto bytes = encode(DType::F64, v);
        const TensorStats a = computeStats(std::span<const double>(v), StatsOptions{32, false});
        const TensorStats b = computeStats(DType::F64, bytes, StatsOptions{32, false});
        QCOMPARE(a.count, b.count);
        QCOMPARE(a.nan, b.nan);
        QCOMPARE(a.sum, b.sum);
        QCOMPARE(a.std, b.std);
        QCOMPARE(a.histogram, b.histogram);
    }

    void sameBitsForAnyThreadCountAndBatch()
    {
        // a ParallelFor that really runs concurrently and out of order (reverse start per thread)
        const auto threads = [](unsigned count) -> ParallelFor {
            return [count](size_t n, const std::function<void(size_t)>& body) {
                std::atomic<size_t> next{0};
                const auto work = [&] {
                    for (size_t i; (i = next.fetch_add(1)) < n;)
                        body(n - 1 - i);
                };
                std::vector<std::thread> pool;
                for (unsigned k = 1; k < count; ++k)
                    pool.emplace_back(work);
                work();
                for (auto& t : pool)
                    t.join();
            };
        };
        std::vector<std::vector<uint8_t>> buffers;
        std::vector<StatsInput> inputs;
        // More than one window of computeStatsMany (about 8 MiB of tensors each, a larger tensor alone),
        // with tensors of one chunk and of many on both sides of a window's end.
        const std::vector<std::pair<DType, size_t>> shapes = {{DType::F32, 600'001}, {DType::F16, 5}, {DType::F64, 0},
            {DType::BF16, 270'000}, {DType::I64, 100'000}, {DType::QFloat, 0}, {DType::U8, 300'000},
            {DType::F32, 2'500'003}, {DType::I16, 70'000}, {DType::F64, 1'100'000}, {DType::F32, 800'000}, {DType::F16, 3}};
        for (const auto& [d, n] : shapes) {
            buffers.push_back(d == DType::QFloat ? std::vector<uint8_t>(64, 1) : encode(d, adversarial(d, std::max<size_t>(n, 1), uint32_t(n)) ));
            if (n == 0 && d != DType::QFloat)
                buffers.back().clear();
        }
        for (size_t k = 0; k < shapes.size(); ++k)
            inputs.push_back({shapes[k].first, buffers[k]});
        for (bool log : {false, true}) {
            const StatsOptions o{48, log};
            const auto sequential = computeStatsMany(inputs, o);
            QCOMPARE(sequential.size(), inputs.size());
            std::vector<TensorStats> alone;
            for (const auto& in : inputs)
                alone.push_back(computeStats(in.dtype, in.bytes, o));
            for (unsigned t : {2u, 5u}) {
                const auto parallel = computeStatsMany(inputs, o, threads(t));
                for (size_t k = 0; k < inputs.size(); ++k) {
                    for (const TensorStats* s : {&parallel[k], static_cast<const TensorStats*>(&alone[k])}) {
                        const TensorStats& a = sequential[k];
                        // bit-identical, NaN included
                        QCOMPARE(std::bit_cast<uint64_t>(s->sum), std::bit_cast<uint64_t>(a.sum));
                        QCOMPARE(std::bit_cast<uint64_t>(s->std), std::bit_cast<uint64_t>(a.std));
                        QCOMPARE(std::bit_cast<uint64_t>(s->mean), std::bit_cast<uint64_t>(a.mean));
                        QCOMPARE(std::bit_cast<uint64_t>(s->l2), std::bit_cast<uint64_t>(a.l2));
                        QCOMPARE(std::bit_cast<uint64_t>(s->min), std::bit_cast<uint64_t>(a.min));
                        QCOMPARE(std::bit_cast<uint64_t>(s->max), std::bit_cast<uint64_t>(a.max));
                        QCOMPARE(s->count, a.count);
                        QCOMPARE(s->nan, a.nan);
                        QCOMPARE(s->zeros, a.zeros);
                        QCOMPARE(s->histogram, a.histogram);
                    }
                    uint64_t binned = 0;
                    for (uint64_t c : parallel[k].histogram)
                        binned += c;
                    QCOMPARE(binned, parallel[k].histogram.empty() ? 0 : log ? parallel[k].finite - parallel[k].zeros : parallel[k].finite);
                }
            }
            QCOMPARE(sequential[5].count, uint64_t(0)); // QFloat is opaque
            QCOMPARE(sequential[2].count, uint64_t(0));
        }
    }

    /**
     * The chunks of one tensor computed apart (as the timeline's shares do, in other processes) and
     * folded in chunk order give computeStats bit for bit, wherever the tensor is cut: the merge of
     * `ckpt timeline --merge` equals the single scan.
     */
    void chunkMomentsFoldToComputeStats()
    {
        const std::vector<std::pair<DType, size_t>> shapes = {{DType::F32, 3 * StatsChunkElements + 1001}, {DType::F64, 2 * StatsChunkElements + 7},
            {DType::F16, 4 * StatsChunkElements}, {DType::BF16, StatsChunkElements + 3}, {DType::I64, 2 * StatsChunkElements + 1}, {DType::F32, 100}};
        const auto bits = [](double v) { return std::bit_cast<uint64_t>(v); };
        for (const auto& [d, n] : shapes) {
            std::vector<double> v = adversarial(d, n, uint32_t(n));
            for (size_t i = 0; i < n; ++i)
                v[i] += 1e3 * double(i / StatsChunkElements); // chunk means apart: Chan's update does real work
            const auto bytes = encode(d, v);
            const TensorStats whole = computeStats(d, bytes, StatsOptions{0, false});
            const size_t chunks = statsChunkCount(n);
            QCOMPARE(computeChunkMoments(d, bytes, 0, SIZE_MAX).size(), chunks); // clamped to the tensor
            for (size_t cut = 0; cut <= chunks; ++cut) {
                StatsMoments folded;
                for (const auto& part : {computeChunkMoments(d, bytes, 0, cut), computeChunkMoments(d, bytes, cut, chunks - cut)})
                    for (const StatsMoments& m : part)
                        mergeMoments(folded, m);
                const TensorStats s = statsFromMoments(folded);
                const QByteArray what = QByteArray(dtypeName(d).data()) + " cut at chunk " + QByteArray::number(qulonglong(cut));
                QVERIFY2(s.count == whole.count && s.finite == whole.finite && s.nan == whole.nan && s.inf == whole.inf && s.zeros == whole.zeros, what.constData());
                for (const auto& [got, want] : {std::pair{s.sum, whole.sum}, {s.l2, whole.l2}, {s.min, whole.min}, {s.max, whole.max},
                         {s.mean, whole.mean}, {s.std, whole.std}})
                    QVERIFY2(bits(got) == bits(want), what.constData());
            }
        }
        QVERIFY(computeChunkMoments(DType::QFloat, std::vector<uint8_t>(64, 1), 0, 1).empty()); // opaque
    }

    void noHistogramWhenNotAsked()
    {
        const auto bytes = encode(DType::F32, uniform(1000, -1, 1, 1));
        const TensorStats s = computeStats(DType::F32, bytes, StatsOptions{0, false});
        QVERIFY(s.histogram.empty());
        QCOMPARE(s.count, uint64_t(1000));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
