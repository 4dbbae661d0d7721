// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// core/tensor/kernels: every instruction-set variant this machine runs, every kernel, every element
// type, against the baseline variant bit for bit (the variants promise the same operations in the
// same order), and the baseline against plain scalar loops (exact where the kernel's arithmetic is
// per element: counts, extrema, histogram bins; close where only the order of additions differs).
// Variants the CPU cannot run are listed, not skipped: the test passes on every machine and says
// which ones it ran. tst_stats checks the active variant against a long-double reference, so each
// variant is as accurate as the one it equals here.
#include "core/tensor/kernels/kernels.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ckpt;
using namespace ckpt::kernels;

namespace {

constexpr std::array<size_t, ElemCount> ElemSize = {4, 8, 2, 2, 8, 4, 2, 1, 8, 4, 2, 1};
constexpr std::array<const char*, ElemCount> ElemName = {"f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8",
                                                         "u64", "u32", "u16", "u8"};

constexpr double Inf = std::numeric_limits<double>::infinity();

/// An instruction set's name for messages (the names are literals: null-terminated).
QString nameOf(Isa isa)
{
    const std::string_view name = isaName(isa);
    return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

bool isFloat(Elem e)
{
    return e == Elem::F32 || e == Elem::F64 || e == Elem::F16 || e == Elem::BF16;
}

/// Element \a i of \a p as the readers widen it (reference decoding through the scalar reader).
double valueAt(Elem e, const uint8_t* p, size_t i)
{
    switch (e) {
    case Elem::F32: return F32R::get(load<float>(p + 4 * i));
    case Elem::F64: return F64R::get(load<double>(p + 8 * i));
    case Elem::F16: return F16R::get(load<uint16_t>(p + 2 * i));
    case Elem::BF16: return BF16R::get(load<uint16_t>(p + 2 * i));
    case Elem::I64: return I64R::get(load<int64_t>(p + 8 * i));
    case Elem::I32: return I32R::get(load<int32_t>(p + 4 * i));
    case Elem::I16: return I16R::get(load<int16_t>(p + 2 * i));
    case Elem::I8: return I8R::get(load<int8_t>(p + i));
    case Elem::U64: return U64R::get(load<uint64_t>(p + 8 * i));
    case Elem::U32: return U32R::get(load<uint32_t>(p + 4 * i));
    case Elem::U16: return U16R::get(load<uint16_t>(p + 2 * i));
    case Elem::U8: return U8R::get(p[i]);
    }
    return 0;
}

/// Stores \a x as element \a i (floats rounded, integers truncated).
void storeAt(Elem e, uint8_t* p, size_t i, double x)
{
    const auto put = [&](auto v) { std::memcpy(p + sizeof v * i, &v, sizeof v); };
    switch (e) {
    case Elem::F32: put(float(x)); break;
    case Elem::F64: put(x); break;
    // f16/bf16: the top bits of a float (bf16) or a coarse encoding (f16): any bit pattern is a value
    case Elem::F16: put(uint16_t((std::bit_cast<uint32_t>(float(x)) >> 16) & 0xfbffu)); break;
    case Elem::BF16: put(uint16_t(std::bit_cast<uint32_t>(float(x)) >> 16)); break;
    case Elem::I64: put(int64_t(x)); break;
    case Elem::I32: put(int32_t(x)); break;
    case Elem::I16: put(int16_t(x)); break;
    case Elem::I8: put(int8_t(x)); break;
    case Elem::U64: put(uint64_t(std::fabs(x))); break;
    case Elem::U32: put(uint32_t(std::fabs(x))); break;
    case Elem::U16: put(uint16_t(std::fabs(x))); break;
    case Elem::U8: put(uint8_t(std::fabs(x))); break;
    }
}

/// Kinds of input: values around an offset (the second sweep when the offset dwarfs the spread),
/// many zeros, and random bit patterns (NaN and ±Inf among them for the floats).
enum class Fill { Spread, Offset, Zeros, Bits };

std::vector<uint8_t> makeData(Elem e, size_t n, Fill fill, std::mt19937_64& rng)
{
    std::vector<uint8_t> bytes(n * ElemSize[size_t(e)]);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double scale = isFloat(e) ? 1.0 : 100.0;
    for (size_t i = 0; i < n; ++i) {
        switch (fill) {
        case Fill::Spread: storeAt(e, bytes.data(), i, scale * normal(rng)); break;
        case Fill::Offset: storeAt(e, bytes.data(), i, (isFloat(e) ? 1e4 : 1e2) + 1e-2 * scale * normal(rng)); break;
        case Fill::Zeros: storeAt(e, bytes.data(), i, rng() % 3 ? 0.0 : scale * normal(rng)); break;
        case Fill::Bits: break;
        }
    }
    if (fill == Fill::Bits)
        for (auto& b : bytes)
            b = uint8_t(rng());
    return bytes;
}

/// The variants this CPU runs other than the baseline, printed once.
std::vector<const Table*> runnableVariants()
{
    std::vector<const Table*> out;
    for (const Isa isa : AllIsas)
        if (cpuRuns(isa))
            out.push_back(variant(isa));
    return out;
}

bool sameBits(double a, double b)
{
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

QString differs(const QString& what, double a, double b, const QString& context)
{
    return QStringLiteral("%1: %2 vs %3 (%4)").arg(what).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17).arg(context);
}

#define CKPT_SAME_BITS(a, b, what) QVERIFY2(sameBits((a), (b)), qPrintable(differs((what), (a), (b), context)))

} // namespace

class TestKernels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void finiteMoments();
    void histogram();
    void sumSquared();
    void diffF32Block();
};

void TestKernels::initTestCase()
{
    QVERIFY(cpuRuns(Isa::Baseline));
    QString ran, notRun;
    for (const Isa isa : AllIsas) {
        const Table* t = variant(isa);
        QCOMPARE(t != nullptr, isaCompiled(isa));
        if (t)
            QCOMPARE(t->isa, isa);
        (cpuRuns(isa) ? ran : notRun) +=
            nameOf(isa) + (isaCompiled(isa) ? QStringLiteral(" ") : QStringLiteral(" (not compiled) "));
    }
    // the widest variant the CPU runs is the one the statistics, update norms and diff use
    QCOMPARE(active().isa, runnableVariants().back()->isa);
    qInfo("kernel variants run here: %s; not run: %s; active: %s", qPrintable(ran.trimmed()),
        notRun.isEmpty() ? "none" : qPrintable(notRun.trimmed()), qPrintable(nameOf(active().isa)));
}

void TestKernels::finiteMoments()
{
    std::mt19937_64 rng(1);
    const Table& base = *variant(Isa::Baseline);
    for (size_t e = 0; e < ElemCount; ++e) {
        for (const Fill fill : {Fill::Spread, Fill::Offset, Fill::Zeros, Fill::Bits}) {
            for (const size_t n : {W, 2 * W, 3 * W, 100 * W, StatsBlockElements - W, StatsBlockElements}) {
                const auto bytes = makeData(Elem(e), n, fill, rng);
                const double shift = valueAt(Elem(e), bytes.data(), n / 2);
                const QString context = QStringLiteral("%1 fill %2 n %3").arg(QString::fromLatin1(ElemName[e])).arg(int(fill)).arg(n);
                StatsMoments want;
                const bool wantOk = base.finiteMoments[e](bytes.data(), n, std::isfinite(shift) ? shift : 0.0, want);
                // the baseline against scalar loops: census and extrema exactly, sums closely
                bool allFinite = true;
                uint64_t zeros = 0;
                double lo = Inf, hi = -Inf, sum = 0;
                for (size_t i = 0; i < n; ++i) {
                    const double x = valueAt(Elem(e), bytes.data(), i);
                    allFinite = allFinite && std::isfinite(x);
                    zeros += x == 0.0;
                    lo = std::min(lo, x);
                    hi = std::max(hi, x);
                    sum += x;
                }
                QVERIFY2(allFinite || !wantOk, qPrintable(context)); // all finite may still overflow the sums (random bits)
                if (wantOk) {
                    QCOMPARE(want.count, uint64_t(n));
                    QCOMPARE(want.finite, uint64_t(n));
                    QCOMPARE(want.zeros, zeros);
                    CKPT_SAME_BITS(want.min, lo, QStringLiteral("min"));
                    CKPT_SAME_BITS(want.max, hi, QStringLiteral("max"));
                    QVERIFY2(std::fabs(want.sum - sum) <= 1e-9 * (std::fabs(sum) + double(n) * std::max(std::fabs(lo), std::fabs(hi))),
                        qPrintable(context));
                }
                for (const Table* t : runnableVariants()) {
                    StatsMoments got;
                    const bool ok = t->finiteMoments[e](bytes.data(), n, std::isfinite(shift) ? shift : 0.0, got);
                    QVERIFY2(ok == wantOk, qPrintable(context));
                    if (!ok)
                        continue;
                    QCOMPARE(got.count, want.count);
                    QCOMPARE(got.finite, want.finite);
                    QCOMPARE(got.nan, want.nan);
                    QCOMPARE(got.zeros, want.zeros);
                    for (const auto field : {&StatsMoments::sum, &StatsMoments::sumSq, &StatsMoments::min, &StatsMoments::max,
                             &StatsMoments::shift, &StatsMoments::mean, &StatsMoments::m2})
                        CKPT_SAME_BITS(got.*field, want.*field, nameOf(t->isa));
                }
            }
        }
    }
}

void TestKernels::histogram()
{
    std::mt19937_64 rng(2);
    const Table& base = *variant(Isa::Baseline);
    for (size_t e = 0; e < ElemCount; ++e) {
        for (const Fill fill : {Fill::Spread, Fill::Offset, Fill::Zeros, Fill::Bits}) {
            for (const size_t n : {size_t(1), size_t(7), W, 3 * StatsBlockElements + 5}) {
                for (const uint32_t bins : {1u, 7u, 256u}) {
                    for (const bool logScale : {false, true}) {
                        const auto bytes = makeData(Elem(e), n, fill, rng);
                        bool allFinite = true;
                        double lo = Inf, hi = -Inf;
                        for (size_t i = 0; i < n; ++i) {
                            double x = valueAt(Elem(e), bytes.data(), i);
                            allFinite = allFinite && std::isfinite(x);
                            if (logScale)
                                x = x != 0 && std::isfinite(x) ? std::log10(std::fabs(x)) : NAN;
                            if (std::isfinite(x)) {
                                lo = std::min(lo, x);
                                hi = std::max(hi, x);
                            }
                        }
                        if (!std::isfinite(lo) || !std::isfinite(hi - lo))
                            continue; // nothing to bin (no histogram is asked for), or a range beyond the doubles
                        const BinRange r{lo, hi, hi > lo ? double(bins) / (hi - lo) : 0.0, bins, logScale};
                        const QString context = QStringLiteral("%1 fill %2 n %3 bins %4 log %5")
                                                    .arg(QString::fromLatin1(ElemName[e]))
                                                    .arg(int(fill))
                                                    .arg(n)
                                                    .arg(bins)
                                                    .arg(logScale);
                        // the scalar reference: the kernel's own per-element formula, so every bin is exact
                        std::vector<uint64_t> scalar(bins, 0);
                        for (size_t i = 0; i < n; ++i) {
                            const double x = valueAt(Elem(e), bytes.data(), i);
                            const double a = std::fabs(x);
                            if (logScale && a > 0 && std::isfinite(a))
                                ++scalar[uint32_t(int32_t(std::clamp((std::log10(a) - r.lo) * r.scale, 0.0, double(bins - 1))))];
                            else if (!logScale && std::isfinite(x))
                                ++scalar[uint32_t(int32_t(std::min((x - r.lo) * r.scale, double(bins - 1))))];
                        }
                        for (const bool finiteHint : {false, true}) {
                            if (finiteHint && !allFinite)
                                continue; // the hint is given only when the chunk's moments saw no NaN or ±Inf
                            std::vector<uint64_t> want(bins, 0);
                            base.histogram[e](bytes.data(), n, r, finiteHint, want.data());
                            QVERIFY2(want == scalar, qPrintable(context));
                            for (const Table* t : runnableVariants()) {
                                std::vector<uint64_t> got(bins, 0);
                                t->histogram[e](bytes.data(), n, r, finiteHint, got.data());
                                QVERIFY2(got == want, qPrintable(context + QLatin1Char(' ') + nameOf(t->isa)));
                            }
                        }
                    }
                }
            }
        }
    }
}

void TestKernels::sumSquared()
{
    std::mt19937_64 rng(3);
    const Table& base = *variant(Isa::Baseline);
    for (const Elem e : {Elem::F32, Elem::F64}) {
        for (const Fill fill : {Fill::Spread, Fill::Offset, Fill::Bits}) {
            for (const size_t n : {size_t(0), size_t(5), size_t(8), size_t(1000), size_t(4099)}) {
                const auto a = makeData(e, n, fill, rng), b = makeData(e, n, fill, rng);
                const QString context =
                    QStringLiteral("%1 fill %2 n %3").arg(QString::fromLatin1(ElemName[size_t(e)])).arg(int(fill)).arg(n);
                const auto kernel = e == Elem::F32 ? &Table::sumSquaredF32 : &Table::sumSquaredF64;
                const double want = (base.*kernel)(a.data(), b.data(), n);
                double scalar = 0;
                for (size_t i = 0; i < n; ++i) {
                    const double d = valueAt(e, b.data(), i) - valueAt(e, a.data(), i);
                    if (std::isfinite(d))
                        scalar += d * d;
                }
                QVERIFY2(std::fabs(want - scalar) <= 1e-12 * std::fabs(scalar) || (std::isinf(want) && std::isinf(scalar)),
                    qPrintable(context));
                for (const Table* t : runnableVariants())
                    CKPT_SAME_BITS((t->*kernel)(a.data(), b.data(), n), want, nameOf(t->isa));
            }
        }
    }
}

void TestKernels::diffF32Block()
{
    std::mt19937_64 rng(4);
    const Table& base = *variant(Isa::Baseline);
    for (const Fill fill : {Fill::Spread, Fill::Offset, Fill::Zeros}) {
        for (const size_t n : {size_t(4), size_t(64), size_t(1024)}) {
            for (const double tol : {0.0, 1e-3}) {
                auto a = makeData(Elem::F32, n, fill, rng), b = makeData(Elem::F32, n, fill, rng);
                std::memcpy(b.data(), a.data(), n / 2 * 4); // equal pairs too: zero differences
                const QString context = QStringLiteral("fill %1 n %2 tol %3").arg(int(fill)).arg(n).arg(tol);
                DiffLanes want;
                base.diffF32Block(a.data(), b.data(), n, tol, want);
                base.diffF32Block(b.data(), a.data(), n, tol, want); // lanes accumulate over blocks
                // the baseline against a scalar loop: counts and extrema exactly
                uint64_t differing = 0;
                double maxAbs = 0;
                for (size_t i = 0; i < n; ++i) {
                    const double ad = std::fabs(valueAt(Elem::F32, b.data(), i) - valueAt(Elem::F32, a.data(), i));
                    differing += uint64_t(2) * (ad > tol);
                    maxAbs = std::max(maxAbs, ad);
                }
                uint64_t binned = 0, laneDiffering = 0;
                double laneMax = 0;
                for (size_t l = 0; l < 4; ++l) {
                    for (const uint64_t c : want.hist[l])
                        binned += c;
                    laneDiffering += uint64_t(want.differing[l]);
                    laneMax = std::max(laneMax, want.maxAbs[l]);
                }
                QCOMPARE(binned, uint64_t(2 * n));
                QCOMPARE(laneDiffering, differing);
                CKPT_SAME_BITS(laneMax, maxAbs, QStringLiteral("maxAbs"));
                for (const Table* t : runnableVariants()) {
                    DiffLanes got;
                    t->diffF32Block(a.data(), b.data(), n, tol, got);
                    t->diffF32Block(b.data(), a.data(), n, tol, got);
                    const QString name = nameOf(t->isa);
                    for (int l = 0; l < 4; ++l) {
                        for (const auto field : {&DiffLanes::sumAbs, &DiffLanes::dot, &DiffLanes::na, &DiffLanes::nb, &DiffLanes::nd,
                                 &DiffLanes::maxAbs})
                            CKPT_SAME_BITS((got.*field)[l], (want.*field)[l], name);
                        QCOMPARE(got.differing[l], want.differing[l]);
                    }
                    QVERIFY2(got.hist == want.hist, qPrintable(context + QLatin1Char(' ') + name));
                }
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestKernels)
#include "tst_kernels.moc"
