// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// core/diff: what moved between two records — matching by path and by parameter id, numbers per
// tensor, precision changes, state field by field — on hand-built records and on real ckpt-train runs.
#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/diff/pairdetail.h"
#include "core/edit/edit.h"
#include "core/graph/checkpointfiles.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/report/diffjson.h"
#include "core/report/recordjson.h"
#include "core/run/timeline.h"
#include "tests/common/trainer.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <bit>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

using namespace ckpt;

namespace {

/// One Linear-like parameter of a hand-built TrainingRecord.
struct Param {
    std::string name;          ///< module key
    uint64_t id = 0;
    std::vector<float> values; ///< shape [n]
};

/**
 * A TrainingRecord [module, optimizer (Adam: moment_1 = values / 10, moment_2 = values^2, time),
 * scheduler (usize), gradients (one per parameter), caller state {step, seed}].
 */
Tape buildRecord(const std::vector<Param>& params, uint64_t step = 10, uint64_t seed = 7)
{
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full));
    auto tensor = [&](const std::vector<float>& values) {
        b.beginMap();
        b.key("bytes");
        std::vector<uint8_t> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        b.bin(bytes);
        b.key("shape");
        b.beginArray();
        b.uinteger(values.size());
        b.end();
        b.key("dtype");
        b.str("F32");
        b.end();
    };
    auto scaled = [](std::vector<float> v, bool square) {
        for (auto& x : v)
            x = square ? x * x : x / 10;
        return v;
    };
    b.beginArray();
    b.beginMap();
    for (const auto& p : params) {
        b.key(p.name);
        b.beginMap();
        b.key("id");
        b.str(paramIdFromU64(p.id));
        b.key("param");
        tensor(p.values);
        b.end();
    }
    b.end();
    b.beginMap();
    for (const auto& p : params) {
        b.key(paramIdFromU64(p.id));
        b.beginMap();
        b.key("V1");
        b.beginMap();
        b.key("Rank1");
        b.beginMap();
        b.key("momentum");
        b.beginMap();
        b.key("time");
        b.uinteger(step);
        b.key("moment_1");
        tensor(scaled(p.values, false));
        b.key("moment_2");
        tensor(scaled(p.values, true));
        b.key("max_moment_2");
        b.nil();
        b.end(); // momentum
        b.end(); // Rank1
        b.end(); // V1
        b.end(); // the id's entry
    }
    b.end();
    b.uinteger(step);
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    for (const auto& p : params) {
        b.beginArray();
        b.uinteger(p.id);
        b.str("F32");
        tensor(scaled(p.values, false));
        b.end();
    }
    b.end();
    b.end();
    b.beginMap();
    b.key("step");
    b.uinteger(step);
    b.key("seed");
    b.uinteger(seed);
    b.end();
    b.end();
    endEnvelope(b);
    return std::move(b).finish();
}

std::vector<Param> baseModel()
{
    return {{"fc1", 1001, {0.5f, -1.0f, 2.0f, 0.25f}}, {"fc2", 1002, {3.0f, -0.75f}}};
}

std::shared_ptr<const Record> index(Tape t, const char* name)
{
    auto r = indexRecord(std::move(t), Recorder::NamedMpk, name);
    if (!r)
        qWarning("%s", r.error().message().c_str());
    return r ? *r : nullptr;
}

const TensorDiff* entry(const RecordDiff& d, std::string_view path)
{
    for (const auto& e : d.entries)
        if (e.path == path)
            return &e;
    return nullptr;
}

std::shared_ptr<const Record> open(const QString& path)
{
    auto r = openRecord(path.toStdString());
    if (!r)
        qWarning("%s", r.error().message().c_str());
    return r ? *r : nullptr;
}


/// Raw little-endian f32 bytes, as ckpt-train stores tensors in its CAR files.
std::vector<uint8_t> f32Bytes(const std::vector<float>& v)
{
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

/// A tiny graph x, w -> matmul -> relu -> loss with its tensors in a CAR; \a idPrefix makes fresh node ids.
struct GraphFixture {
    GradientCheckpoint checkpoint;
    std::vector<CarEntry> blocks;

    std::string add(const std::vector<float>& values)
    {
        auto bytes = f32Bytes(values);
        Cid cid = computeCid(bytes);
        blocks.push_back({cid, bytes});
        return cid.toString();
    }
    void node(const std::string& id, const std::string& op, std::vector<std::string> inputs, std::string output)
    {
        ComputationNode n;
        n.id = id;
        n.op = op;
        n.inputCids = std::move(inputs);
        n.outputCid = std::move(output);
        checkpoint.graph.nodes.emplace_back(id, n);
    }
    CarStore car() const
    {
        auto bytes = writeCar({}, blocks);
        auto store = CarStore::open(makeBytes(bytes));
        if (!store)
            qWarning("%s", store.error().message().c_str());
        return std::move(*store);
    }
};

GraphFixture tinyGraph(const std::string& idPrefix, float weight = 0.5f, uint64_t step = 3)
{
    GraphFixture g;
    const auto x = g.add({1, 2, 3, 4}), w = g.add({weight, -weight, weight, -weight});
    const auto y = g.add({weight * 4, -weight}), r = g.add({weight * 4, 0}), loss = g.add({weight * weight});
    g.node(idPrefix + "x", "input", {}, x);
    g.node(idPrefix + "w", "input", {}, w);
    g.node(idPrefix + "mm", "matmul", {x, w}, y);
    g.node(idPrefix + "relu", "relu", {y}, r);
    g.node(idPrefix + "loss", "mse_loss", {r}, loss);
    g.checkpoint.graph.edges = {{idPrefix + "x", idPrefix + "mm"}, {idPrefix + "w", idPrefix + "mm"}, {idPrefix + "mm", idPrefix + "relu"},
        {idPrefix + "relu", idPrefix + "loss"}};
    g.checkpoint.step = step;
    g.checkpoint.lossCid = loss;
    uint64_t counter = step;
    std::vector<uint8_t> c(8);
    std::memcpy(c.data(), &counter, 8);
    g.checkpoint.optimizerState = {{"w/exp_avg", f32Bytes({weight, weight})}, {"w/step", c}};
    return g;
}

const NodeDiff* nodeOf(const GraphDiff& d, std::string_view keyA)
{
    for (const auto& n : d.nodes)
        if (n.keyA == keyA)
            return &n;
    return nullptr;
}

} // namespace

class TestDiff : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run, m_resumed;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(testing::trainerPath()).isExecutable(), "ckpt-train is built with the project; build it first");
        // A run to step 8 with records at 4 and 8, and a resumption from 4 to 8 in another directory.
        m_run = m_dir.filePath(QStringLiteral("run"));
        m_resumed = m_dir.filePath(QStringLiteral("resumed"));
        QVERIFY(testing::runTrainer({QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("8"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("4"), QStringLiteral("--layout"), QStringLiteral("all")}));
        QVERIFY(testing::runTrainer({QStringLiteral("--resume"), m_run + QStringLiteral("/checkpoint/record-4.mpk"), QStringLiteral("--out"), m_resumed,
            QStringLiteral("--steps"), QStringLiteral("8")}));
    }

    void selfDiffIsEmpty()
    {
        auto a = index(buildRecord(baseModel()), "a");
        QVERIFY(a);
        QCOMPARE(a->kind, RecordKind::TrainingRecord);
        QCOMPARE(a->tensors.size(), size_t(8)); // two parameters, their two moments and pending gradients
        auto d = diffRecords(*a, *a);
        QVERIFY(d);
        QCOMPARE(d->added + d->removed + d->changed + d->renamed, uint64_t(0));
        QCOMPARE(d->unchanged, uint64_t(a->tensors.size()));
        QVERIFY(d->state.empty());
        QVERIFY(!d->precision);
        for (const auto& e : d->entries) {
            QVERIFY2(e.byteEqual, e.path.c_str()); // found without decoding
            QCOMPARE(e.match, MatchKind::PathAndId);
            QCOMPARE(*e.maxAbs, 0.0);
        }
    }

    void numbersOfAChangedTensor()
    {
        auto model = baseModel();
        auto a = index(buildRecord(model), "a");
        model[0].values = {0.5f, -0.5f, 1.0f, 0.25f}; // d = 0, +0.5, -1, 0
        auto b = index(buildRecord(model), "b");
        DiffOptions o;
        o.tolerance = 0.6;
        auto d = diffRecords(*a, *b, o);
        QVERIFY(d);
        const auto* e = entry(*d, "item[0].fc1.param");
        QVERIFY(e);
        QCOMPARE(e->status, DiffStatus::Changed);
        QVERIFY(!e->byteEqual);
        QCOMPARE(*e->maxAbs, 1.0);
        QCOMPARE(*e->meanAbs, 1.5 / 4);
        // |a| = sqrt(0.25 + 1 + 4 + 0.0625), |d| = sqrt(1.25)
        QVERIFY(std::fabs(*e->relL2 - std::sqrt(1.25 / 5.3125)) < 1e-12);
        const double dot = 0.25 + 0.5 + 2.0 + 0.0625, nb = std::sqrt(0.25 + 0.25 + 1 + 0.0625);
        QVERIFY(std::fabs(*e->cosine - dot / (std::sqrt(5.3125) * nb)) < 1e-12);
        QCOMPARE(e->differing, uint64_t(1)); // only |-1| exceeds 0.6
        QCOMPARE(e->histogram.zero, uint64_t(2));
        QCOMPARE(e->histogram.positive[size_t(-1 - DeltaHistogram::minExp)], uint64_t(1)); // 0.5 in [2^-1, 2^0)
        QCOMPARE(e->histogram.negative[size_t(0 - DeltaHistogram::minExp)], uint64_t(1));  // -1 in -[2^0, 2^1)
        QCOMPARE(e->histogram.total(), uint64_t(4));
        // The untouched second layer is unchanged by its bytes; fc1's second moment moved beyond the
        // tolerance, its first moment (values / 10) only within it: unchanged, yet not byte-equal.
        QVERIFY(entry(*d, "item[0].fc2.param")->byteEqual);
        const std::string adam = "item[1]." + paramIdFromU64(1001) + ".V1.Rank1.momentum.";
        QCOMPARE(entry(*d, adam + "moment_2")->status, DiffStatus::Changed);
        const auto* m1 = entry(*d, adam + "moment_1");
        QCOMPARE(m1->status, DiffStatus::Unchanged);
        QVERIFY(!m1->byteEqual);
        QCOMPARE(*m1->maxAbs, double(0.1f));
        QCOMPARE(d->changed, uint64_t(2));
    }

    void parallelChunkedDiffIsTheSerialOne()
    {
        // Tensors over several chunks: one moved only in its last chunk (its equal chunks are read
        // again for the norms), one byte-equal, one with every element moved, and a small one.
        const size_t n = 3 * StatsChunkElements + 1000;
        std::vector<float> base(n), tail(n), all(n);
        for (size_t i = 0; i < n; ++i) {
            base[i] = float(std::sin(double(i) * 0.001));
            tail[i] = i + 10 >= n ? base[i] + 0.5f : base[i];
            all[i] = base[i] * 1.25f - 0.125f;
        }
        auto a = index(buildRecord({{"big", 1, base}, {"same", 2, base}, {"moved", 3, base}, {"small", 4, {1.0f, 2.0f}}}), "a");
        auto b = index(buildRecord({{"big", 1, tail}, {"same", 2, base}, {"moved", 3, all}, {"small", 4, {1.0f, 3.0f}}}), "b");
        QVERIFY(a && b);
        auto serial = diffRecords(*a, *b);
        // bodies in reverse order, from two threads: what a pool may do
        const ParallelFor twoThreads = [](size_t count, const std::function<void(size_t)>& body) {
            std::atomic<size_t> next{0};
            auto work = [&] {
                for (size_t i; (i = next.fetch_add(1)) < count;)
                    body(count - 1 - i);
            };
            std::thread helper(work);
            work();
            helper.join();
        };
        std::vector<double> reported;
        Progress progress;
        progress.onProgress = [&](double f) { reported.push_back(f); };
        auto parallel = diffRecords(*a, *b, {}, progress, twoThreads);
        QVERIFY(serial && parallel);
        QCOMPARE(parallel->entries.size(), serial->entries.size());
        for (size_t k = 0; k < serial->entries.size(); ++k) {
            const TensorDiff &x = serial->entries[k], &y = parallel->entries[k];
            QCOMPARE(y.status, x.status);
            QCOMPARE(y.byteEqual, x.byteEqual);
            QCOMPARE(y.maxAbs, x.maxAbs); // exactly: merged in chunk order whatever ran where
            QCOMPARE(y.meanAbs, x.meanAbs);
            QCOMPARE(y.relL2, x.relL2);
            QCOMPARE(y.cosine, x.cosine);
            QCOMPARE(y.differing, x.differing);
            QVERIFY(y.histogram.positive == x.histogram.positive && y.histogram.negative == x.histogram.negative && y.histogram.zero == x.histogram.zero);
        }
        QVERIFY(!reported.empty() && reported.back() == 1.0);
        // against a plain scalar pass written here (the kernel runs four lanes of vectors): the
        // same counts and bins, the sums to rounding; with a NaN and an infinity in one block
        std::vector<float> odd = all;
        odd[5] = std::numeric_limits<float>::quiet_NaN();
        odd[6] = std::numeric_limits<float>::infinity();
        for (const auto* values : {&tail, &all, &odd}) {
            TensorDiff got;
            compareTensorValues(DType::F32, f32Bytes(base), DType::F32, f32Bytes(*values), n, 0.01, got);
            double maxAbs = 0, sumAbs = 0, dot = 0, na = 0, nb = 0, nd = 0;
            uint64_t finite = 0, differing = 0;
            DeltaHistogram h;
            for (size_t i = 0; i < n; ++i) {
                const double x = base[i], y = (*values)[i];
                if (std::isnan(y)) {
                    ++differing;
                    continue;
                }
                const double d = y - x;
                differing += std::fabs(d) > 0.01;
                h.add(d);
                if (std::isinf(y)) {
                    maxAbs = INFINITY;
                    continue;
                }
                maxAbs = std::max(maxAbs, std::fabs(d));
                sumAbs += std::fabs(d);
                ++finite;
                dot += x * y;
                na += x * x;
                nb += y * y;
                nd += d * d;
            }
            QCOMPARE(*got.maxAbs, maxAbs);
            QCOMPARE(got.differing, differing);
            QVERIFY(got.histogram.positive == h.positive && got.histogram.negative == h.negative && got.histogram.zero == h.zero);
            QVERIFY(std::abs(*got.meanAbs - sumAbs / double(finite)) <= 1e-12 * (sumAbs / double(finite)));
            QVERIFY(std::abs(*got.relL2 - std::sqrt(nd) / std::sqrt(na)) <= 1e-12 * (std::sqrt(nd) / std::sqrt(na)));
            QVERIFY(std::abs(*got.cosine - dot / (std::sqrt(na) * std::sqrt(nb))) <= 1e-12);
        }
        const auto* big = entry(*parallel, "item[0].big.param");
        QVERIFY(big && !big->byteEqual);
        QCOMPARE(big->differing, uint64_t(10));
        QCOMPARE(big->histogram.zero, uint64_t(n - 10));
        QVERIFY(entry(*parallel, "item[0].same.param")->byteEqual);
        QCOMPARE(entry(*parallel, "item[0].moved.param")->differing, uint64_t(n));
        // cancelled between batches: an error, not a partial diff
        Progress cancel;
        cancel.isCancelled = [] { return true; };
        QVERIFY(!diffRecords(*a, *b, {}, cancel, twoThreads));

        // Across batch boundaries (each pair its own batch, as a record of several 64 MiB batches
        // has them): the same numbers, progress after every batch, cancellation after the first.
        DiffOptions small;
        small.batchBytes = 1;
        std::vector<double> steps;
        Progress stepping;
        stepping.onProgress = [&](double f) { steps.push_back(f); };
        auto batched = diffRecords(*a, *b, small, stepping, twoThreads);
        QVERIFY(batched);
        QCOMPARE(batched->entries.size(), serial->entries.size());
        for (size_t k = 0; k < serial->entries.size(); ++k) {
            const TensorDiff &x = serial->entries[k], &y = batched->entries[k];
            QCOMPARE(y.status, x.status);
            QCOMPARE(y.maxAbs, x.maxAbs);
            QCOMPARE(y.meanAbs, x.meanAbs);
            QCOMPARE(y.relL2, x.relL2);
            QCOMPARE(y.cosine, x.cosine);
            QCOMPARE(y.differing, x.differing);
        }
        QVERIFY2(steps.size() >= 4, qPrintable(QString::number(steps.size()))); // one report per batch at least
        QVERIFY(std::is_sorted(steps.begin(), steps.end()) && steps.back() == 1.0);
        int asked = 0;
        Progress afterFirst;
        afterFirst.isCancelled = [&] { return ++asked > 1; };
        const auto stopped = diffRecords(*a, *b, small, afterFirst, twoThreads);
        QVERIFY(!stopped);
        QCOMPARE(stopped.error().code, ErrorCode::Cancelled);
        QVERIFY(asked >= 2);

        // The tensor report (`ckpt tensors`, ckpt.tensors()) across its batch boundaries the same way:
        // the same bits as one batch, progress after every batch, and a cancellation after the first
        // batch keeps that batch's rows only.
        const auto whole = tensorRows(*a, "", Progress::none(), twoThreads);
        std::vector<double> rowSteps;
        Progress rowStepping;
        rowStepping.onProgress = [&](double f) { rowSteps.push_back(f); };
        const auto perTensor = tensorRows(*a, "", rowStepping, twoThreads, 1);
        QCOMPARE(perTensor.size(), whole.size());
        QVERIFY(whole.size() >= 3);
        for (size_t k = 0; k < whole.size(); ++k) {
            QCOMPARE(perTensor[k].entry, whole[k].entry);
            QCOMPARE(std::bit_cast<uint64_t>(perTensor[k].stats.sum), std::bit_cast<uint64_t>(whole[k].stats.sum));
            QCOMPARE(std::bit_cast<uint64_t>(perTensor[k].stats.l2), std::bit_cast<uint64_t>(whole[k].stats.l2));
            QCOMPARE(std::bit_cast<uint64_t>(perTensor[k].stats.std), std::bit_cast<uint64_t>(whole[k].stats.std));
            QCOMPARE(perTensor[k].stats.nan, whole[k].stats.nan);
        }
        QCOMPARE(rowSteps.size(), whole.size()); // one report per batch, one tensor per batch
        QVERIFY(std::is_sorted(rowSteps.begin(), rowSteps.end()) && rowSteps.back() == 1.0);
        int rowAsked = 0;
        Progress rowAfterFirst;
        rowAfterFirst.isCancelled = [&] { return ++rowAsked > 1; };
        QCOMPARE(tensorRows(*a, "", rowAfterFirst, twoThreads, 1).size(), size_t(1));
    }

    void deltaHistogramBins()
    {
        DeltaHistogram h;
        for (double d : {0.0, -0.0, 1e-300, 0.75, -3.0, 1000.0, double(INFINITY), -double(INFINITY)})
            h.add(d);
        QCOMPARE(h.zero, uint64_t(2));
        QCOMPARE(h.positive[0], uint64_t(1));                                 // tiny: the first bin
        QCOMPARE(h.positive[size_t(-1 - DeltaHistogram::minExp)], uint64_t(1)); // 0.75 in [2^-1, 2^0)
        QCOMPARE(h.negative[size_t(1 - DeltaHistogram::minExp)], uint64_t(1));  // -3 in -[2^1, 2^2)
        QCOMPARE(h.positive[DeltaHistogram::bins - 1], uint64_t(2));          // 1000 and +inf: the last bin
        QCOMPARE(h.negative[DeltaHistogram::bins - 1], uint64_t(1));
        QCOMPARE(h.total(), uint64_t(8));
        QCOMPARE(DeltaHistogram::binLow(0), 0.0);
        QCOMPARE(DeltaHistogram::binLow(size_t(-1 - DeltaHistogram::minExp)), 0.5);
        QCOMPARE(DeltaHistogram::binHigh(size_t(-1 - DeltaHistogram::minExp)), 1.0);
        QVERIFY(std::isinf(DeltaHistogram::binHigh(DeltaHistogram::bins - 1)));
    }

    void renamedParameterIsARename()
    {
        auto model = baseModel();
        auto a = index(buildRecord(model), "a");
        model[0].name = "encoder";
        auto b = index(buildRecord(model), "b");
        auto d = diffRecords(*a, *b);
        QVERIFY(d);
        QCOMPARE(d->added, uint64_t(0));
        QCOMPARE(d->removed, uint64_t(0));
        QCOMPARE(d->renamed, uint64_t(1));
        const auto* e = entry(*d, "item[0].fc1.param");
        QVERIFY(e);
        QCOMPARE(e->match, MatchKind::ParamId);
        QCOMPARE(e->pathB, std::string("item[0].encoder.param"));
        QVERIFY(e->renamed());
        QCOMPARE(e->status, DiffStatus::Unchanged);
        // The JSON says so too.
        const std::string json = diffJson(*d, *a, *b);
        QVERIFY(json.find("\"match\": \"param_id\"") != std::string::npos);
        QVERIFY(json.find("\"path_b\": \"item[0].encoder.param\"") != std::string::npos);
        QVERIFY(json.find("\"renamed\": 1") != std::string::npos);
    }

    void reinitialisedLayerMatchesByPath()
    {
        auto model = baseModel();
        auto a = index(buildRecord(model), "a");
        model[1].id = 2002;
        model[1].values = {0.1f, 0.2f};
        auto b = index(buildRecord(model), "b");
        auto d = diffRecords(*a, *b);
        QVERIFY(d);
        QCOMPARE(d->added, uint64_t(0));
        QCOMPARE(d->removed, uint64_t(0));
        QCOMPARE(d->renamed, uint64_t(0));
        const auto* p = entry(*d, "item[0].fc2.param");
        QCOMPARE(p->match, MatchKind::Path);
        QVERIFY(p->reinitialised());
        QCOMPARE(p->paramIdB, paramIdFromU64(2002));
        QCOMPARE(p->status, DiffStatus::Changed);
        // Its optimizer moments are keyed by the new id, yet found through the parameter's module path.
        const auto* m = entry(*d, "item[1]." + paramIdFromU64(1002) + ".V1.Rank1.momentum.moment_2");
        QVERIFY(m);
        QCOMPARE(m->match, MatchKind::Path);
        QCOMPARE(m->pathB, "item[1]." + paramIdFromU64(2002) + ".V1.Rank1.momentum.moment_2");
        // Its step counter is compared across the re-keyed entry: equal, so no state line; the
        // gradient's u64 id changed and is reported in the gradients section.
        for (const auto& s : d->state)
            QVERIFY2(s.path.find(".time") == std::string::npos, s.path.c_str());
        bool idLine = false;
        for (const auto& s : d->state)
            idLine |= s.section == StateSection::Gradients && s.a == "1002" && s.b == "2002";
        QVERIFY(idLine);
    }

    void removedAndAddedParameters()
    {
        auto model = baseModel();
        auto a = index(buildRecord(model), "a");
        model.pop_back();
        model.push_back({"head", 3003, {1.0f}});
        auto b = index(buildRecord(model), "b");
        auto d = diffRecords(*a, *b);
        QVERIFY(d);
        QCOMPARE(d->removed, uint64_t(4)); // fc2: param, two moments, gradient
        QCOMPARE(d->added, uint64_t(4));
        QCOMPARE(entry(*d, "item[0].fc2.param")->status, DiffStatus::Removed);
        QCOMPARE(entry(*d, "item[0].head.param")->status, DiffStatus::Added);
    }

    void fullVersusHalfIsAPrecisionChange()
    {
        auto a = index(buildRecord(baseModel()), "a");
        ConvertResult rep;
        auto half = index(*convertedEnvelope(*a, Recorder::NamedMpk, Precision::Half, rep), "h");
        QVERIFY(a && half);
        auto d = diffRecords(*a, *half);
        QVERIFY(d);
        QVERIFY(d->precision);
        QCOMPARE(d->precision->a, Precision::Full);
        QCOMPARE(d->precision->b, Precision::Half);
        QVERIFY(d->precision->roundingOnly);
        for (const auto& e : d->entries) {
            QCOMPARE(e.status, DiffStatus::DTypeChanged);
            QVERIFY2(e.precisionChange, e.path.c_str());
        }
        bool metadataLine = false;
        for (const auto& s : d->state)
            metadataLine |= s.section == StateSection::Metadata;
        QVERIFY(metadataLine);
        // A half copy whose values were also edited is not mere rounding.
        auto model = baseModel();
        model[0].values[2] = 2.5f;
        auto moved = index(buildRecord(model), "m");
        auto movedHalf = index(*convertedEnvelope(*moved, Recorder::NamedMpk, Precision::Half, rep), "mh");
        auto d2 = diffRecords(*a, *movedHalf);
        QVERIFY(d2->precision);
        QVERIFY(!d2->precision->roundingOnly);
        QVERIFY(!entry(*d2, "item[0].fc1.param")->precisionChange);
        QVERIFY(entry(*d2, "item[0].fc2.param")->precisionChange);
    }

    void editedContinuationStateFieldByField()
    {
        auto a = index(buildRecord(baseModel(), 10, 18446744073709551614ull), "a");
        // u64 exact: ...614 vs ...615 are the same double.
        auto edited = applyEdits(*a, {{"item[4].seed", "18446744073709551615"}});
        QVERIFY(edited);
        auto b = index(std::move(*edited), "b");
        auto d = diffRecords(*a, *b);
        QVERIFY(d);
        QCOMPARE(d->changed, uint64_t(0));
        QCOMPARE(d->state.size(), size_t(1));
        QCOMPARE(d->state[0].path, std::string("item[4].seed"));
        QCOMPARE(d->state[0].section, StateSection::CallerState);
        QCOMPARE(*d->state[0].a, std::string("18446744073709551614"));
        QCOMPARE(*d->state[0].b, std::string("18446744073709551615"));
        QVERIFY(diffJson(*d, *a, *b).find("\"b\": 18446744073709551615") != std::string::npos);
    }

    void sameRunAtTwoSteps()
    {
        auto a = open(m_run + QStringLiteral("/checkpoint/record-4.mpk"));
        auto b = open(m_run + QStringLiteral("/checkpoint/record-8.mpk"));
        QVERIFY(a && b);
        auto d = diffRecords(*a, *b);
        QVERIFY(d);
        QCOMPARE(d->added + d->removed, uint64_t(0));
        QCOMPARE(d->changed, uint64_t(a->tensors.size())); // training moves every parameter and moment
        for (const auto& e : d->entries) {
            QCOMPARE(e.match, MatchKind::PathAndId);
            QVERIFY(*e.maxAbs > 0 && *e.cosine > -1.0000001 && *e.cosine < 1.0000001);
        }
        // Optimizer step counters, the scheduler's step and the caller's progress moved; each is in its section.
        std::map<StateSection, int> sections;
        for (const auto& s : d->state)
            ++sections[s.section];
        QVERIFY(sections[StateSection::Optimizer] > 0);
        QVERIFY(sections[StateSection::CallerState] > 0);
        bool step = false;
        for (const auto& s : d->state)
            step |= s.path == "item[4].progress.step" && s.a == "4" && s.b == "8";
        QVERIFY(step);
    }

    void recordVersusItsResumedContinuation()
    {
        auto start = open(m_run + QStringLiteral("/checkpoint/record-4.mpk"));
        auto straight = open(m_run + QStringLiteral("/checkpoint/record-8.mpk"));
        auto resumed = open(m_resumed + QStringLiteral("/checkpoint/record-8.mpk"));
        QVERIFY(start && straight && resumed);
        // Resumption is exact: the continuation ends where the straight run ends, every tensor by its bytes.
        auto same = diffRecords(*straight, *resumed);
        QVERIFY(same);
        QCOMPARE(same->changed + same->added + same->removed, uint64_t(0));
        for (const auto& e : same->entries)
            QVERIFY(e.byteEqual);
        QVERIFY2(same->state.empty(), same->state.empty() ? "" : same->state[0].path.c_str());
        // And the continuation did move from where it started.
        auto moved = diffRecords(*start, *resumed);
        QVERIFY(moved);
        QCOMPARE(moved->changed, uint64_t(start->tensors.size()));
    }

    void graphFilesOpenWithTheirCarAndSayWhenItIsDamaged()
    {
        // The trainer's own files: the CAR beside the JSON is found and opened, its loss block is the
        // loss the trainer logged for that step (an f32 in the CAR, a Rust f64 Display in the log).
        const std::string json = QString(m_run + QStringLiteral("/graph/step-4.json")).toStdString();
        auto files = openGradientCheckpointFiles(json);
        QVERIFY2(files, files ? "" : files.error().message().c_str());
        QVERIFY(files->car && !files->carError);
        QCOMPARE(*files->carPath, QString(m_run + QStringLiteral("/graph/step-4.car")).toStdString());
        const auto loss = lossValueOf(files->car.get(), files->checkpoint.lossCid);
        QVERIFY(loss && std::isfinite(*loss));
        auto run = listRunCheckpoints(m_run.toStdString());
        QVERIFY(run);
        const auto at4 = std::find_if(run->points.begin(), run->points.end(), [](const RunPoint& p) { return p.step == uint64_t(4); });
        QVERIFY(at4 != run->points.end() && at4->loss);
        QVERIFY2(std::fabs(*loss - *at4->loss) <= 1e-6 * std::fabs(*at4->loss), qPrintable(QStringLiteral("%1 vs %2").arg(*loss).arg(*at4->loss)));
        QVERIFY(!lossValueOf(nullptr, files->checkpoint.lossCid));
        QVERIFY(!lossValueOf(files->car.get(), std::string("bafy-not-a-cid")));

        // A damaged CAR beside the checkpoint is reported, not taken for a missing one; the same file
        // given explicitly is an error naming it.
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("step-4.json")), car = dir.filePath(QStringLiteral("step-4.car"));
        QVERIFY(QFile::copy(QString::fromStdString(json), copy));
        QFile damaged(car);
        QVERIFY(damaged.open(QIODevice::WriteOnly) && damaged.write("\x3a\xa2not a CAR") > 0);
        damaged.close();
        auto beside = openGradientCheckpointFiles(copy.toStdString());
        QVERIFY(beside && !beside->car && beside->carError);
        QCOMPARE(beside->carError->file, car.toStdString());
        auto given = openGradientCheckpointFiles(copy.toStdString(), car.toStdString());
        QVERIFY(!given);
        QCOMPARE(given.error().file, car.toStdString());
        QVERIFY(QFile::remove(car));
        auto without = openGradientCheckpointFiles(copy.toStdString());
        QVERIFY(without && !without->car && !without->carPath && !without->carError);
        auto missing = openGradientCheckpointFiles(dir.filePath(QStringLiteral("absent.json")).toStdString());
        QVERIFY(!missing);
        QVERIFY(missing.error().message().find("absent.json") != std::string::npos);
    }

    void checkpointPlaceFromThePathAlone()
    {
        const std::string run = QFileInfo(m_run).absoluteFilePath().toStdString();
        const auto graph = checkpointPlaceOf(run + "/graph/step-4.json");
        QCOMPARE(graph.runDirectory, run);
        QCOMPARE(graph.step, std::optional<uint64_t>(4));
        QVERIFY(!graph.epoch);
        const auto record = checkpointPlaceOf(run + "/checkpoint/record-8.mpk");
        QCOMPARE(record.runDirectory, run);
        QCOMPARE(record.step, std::optional<uint64_t>(8));
        // burn-train names an epoch; outside a run directory there is no run to find
        QTemporaryDir dir;
        const auto epoch = checkpointPlaceOf(dir.filePath(QStringLiteral("model-3.mpk")).toStdString());
        QCOMPARE(epoch.epoch, std::optional<uint64_t>(3));
        QVERIFY(!epoch.step && epoch.runDirectory.empty());
        const auto plain = checkpointPlaceOf(dir.filePath(QStringLiteral("weights.mpk")).toStdString());
        QVERIFY(!plain.step && !plain.epoch && plain.runDirectory.empty());
    }

    void pairDetailHistogramsShareOneRangeAndTheDeltaImageKeepsTheLargestChange()
    {
        PairValues v;
        v.a = {0.0, 0.25, 0.5, 1.0, std::nan("")};
        v.b = {1.0, 1.5, 2.0, 2.0, 1.0};
        const auto h = sharedRangeHistograms(v, 4);
        QCOMPARE(h.a.histLo, 0.0);
        QCOMPARE(h.a.histHi, 2.0);
        QCOMPARE(h.b.histLo, 0.0);
        QCOMPARE(h.b.histHi, 2.0);
        QCOMPARE(h.a.histogram, (std::vector<uint64_t>{2, 1, 1, 0})); // NaN not binned; 1.0 starts bin 2
        QCOMPARE(h.b.histogram, (std::vector<uint64_t>{0, 0, 2, 3})); // 1.0 twice; 1.5 and the maximum 2.0 (twice) in the last bin
        QCOMPARE(h.a.count, uint64_t(5));

        // 1000 × 600 folds by 4 into 250 × 150 cells; one moved weight survives as its cell's value
        PairValues big;
        big.shape = {1000, 600};
        big.a.assign(600000, 1.0);
        big.b = big.a;
        big.b[size_t(517) * 600 + 301] = -2.0; // delta −3 at row 517, column 301
        big.b[size_t(517) * 600 + 302] = 1.5;  // a smaller one in the same 4 × 4 block
        const auto image = deltaImage(big, 256);
        QCOMPARE(image.fold, uint64_t(4));
        QCOMPARE(image.width, 150);
        QCOMPARE(image.height, 250);
        QCOMPARE(image.rows, uint64_t(1000));
        QCOMPARE(image.cols, uint64_t(600));
        QCOMPARE(image.maxAbs, 3.0);
        QCOMPARE(image.cells[size_t(517 / 4) * 150 + 301 / 4], -3.0);
        QCOMPARE(std::count_if(image.cells.begin(), image.cells.end(), [](double c) { return c != 0; }), std::ptrdiff_t(1));

        // a sliver [32, 1] wraps into a square; differing counts make no image
        PairValues sliver;
        sliver.shape = {32, 1};
        sliver.a.assign(32, 0.0);
        sliver.b.assign(32, 1.0);
        const auto square = deltaImage(sliver, 256);
        QCOMPARE(square.cols, uint64_t(6));
        QCOMPARE(square.rows, uint64_t(6));
        sliver.b.pop_back();
        QCOMPARE(deltaImage(sliver, 256).width, 0);
    }

    void graphSelfDiffReadsNoBytes()
    {
        auto g = tinyGraph("a-");
        const auto car = g.car();
        auto d = diffGradientCheckpoints(g.checkpoint, g.checkpoint, &car, &car);
        QCOMPARE(d.unchanged, uint64_t(5));
        QCOMPARE(d.added + d.removed + d.changed, uint64_t(0));
        QVERIFY(d.edgesAdded.empty() && d.edgesRemoved.empty());
        QCOMPARE(d.blockBytesRead, uint64_t(0));
        for (const auto& n : d.nodes) {
            QCOMPARE(*n.match, NodeMatch::Id);
            for (const auto& s : n.tensors)
                QCOMPARE(s.how, CidComparison::SameCid);
        }
        for (const auto& b : d.optimizer)
            QCOMPARE(b.status, DiffStatus::Unchanged);
    }

    void graphWithAddedAndRemovedNodesAndEqualCids()
    {
        // Fresh node ids (as a trainer mints them per checkpoint), the same tensors; relu removed,
        // a dropout added after the loss's input. Equal CIDs are equal tensors: no block is read.
        auto a = tinyGraph("a-");
        auto b = tinyGraph("b-");
        auto& nodes = b.checkpoint.graph.nodes;
        const std::string reluOut = *nodes[3].second.outputCid;
        nodes.erase(nodes.begin() + 3);
        b.node("b-drop", "dropout", {reluOut}, reluOut);
        b.checkpoint.graph.edges = {{"b-x", "b-mm"}, {"b-w", "b-mm"}, {"b-mm", "b-drop"}, {"b-drop", "b-loss"}};
        const auto carA = a.car(), carB = b.car();
        auto d = diffGradientCheckpoints(a.checkpoint, b.checkpoint, &carA, &carB);
        QCOMPARE(d.removed, uint64_t(1));
        QCOMPARE(d.added, uint64_t(1));
        QCOMPARE(d.matchedByPosition, uint64_t(4));
        QCOMPARE(nodeOf(d, "a-relu")->status, DiffStatus::Removed);
        QCOMPARE(d.nodes.back().keyB, std::string("b-drop"));
        QCOMPARE(d.nodes.back().status, DiffStatus::Added);
        const auto* mm = nodeOf(d, "a-mm");
        QCOMPARE(mm->keyB, std::string("b-mm"));
        QCOMPARE(*mm->match, NodeMatch::OpPosition);
        QCOMPARE(mm->status, DiffStatus::Unchanged);
        QCOMPARE(d.unchanged, uint64_t(4));
        QCOMPARE(d.blockBytesRead, uint64_t(0));
        // mm->relu and relu->loss are gone; mm->drop and drop->loss are new; x->mm, w->mm survive the id change.
        QCOMPARE(d.edgesRemoved.size(), size_t(2));
        QCOMPARE(d.edgesAdded.size(), size_t(2));
        QVERIFY((d.edgesAdded[0] == std::pair<std::string, std::string>{"b-mm", "b-drop"}));
    }

    void graphTensorsByCarBlocksWhenCidsDiffer()
    {
        auto a = tinyGraph("n-", 0.5f, 3);
        auto b = tinyGraph("n-", 0.75f, 6);
        b.checkpoint.graph.nodes[4].second.op = "l1_loss";
        const auto carA = a.car(), carB = b.car();
        auto d = diffGradientCheckpoints(a.checkpoint, b.checkpoint, &carA, &carB);
        QCOMPARE(d.sideA.step, uint64_t(3));
        QCOMPARE(d.sideB.step, uint64_t(6));
        QVERIFY(d.sideA.lossCid != d.sideB.lossCid);
        QVERIFY(d.lossValues);
        QCOMPARE(*d.lossValues->maxAbs, 0.75 * 0.75 - 0.25);
        const auto* x = nodeOf(d, "n-x");
        QCOMPARE(x->status, DiffStatus::Unchanged); // the data did not change: same CID
        const auto* w = nodeOf(d, "n-w");
        QCOMPARE(w->status, DiffStatus::Changed);
        QCOMPARE(w->tensors[0].how, CidComparison::ValuesCompared);
        QCOMPARE(*w->tensors[0].values->maxAbs, 0.25);
        QVERIFY(nodeOf(d, "n-loss")->opChanged);
        QVERIFY(d.blockBytesRead > 0);
        // Optimizer counters exactly, moments by value.
        QCOMPARE(*d.optimizer[1].counterA, uint64_t(3));
        QCOMPARE(*d.optimizer[1].counterB, uint64_t(6));
        QCOMPARE(*d.optimizer[0].values->maxAbs, 0.25);
        // Without the CARs only "different" is known.
        auto blind = diffGradientCheckpoints(a.checkpoint, b.checkpoint, nullptr, nullptr);
        QCOMPARE(nodeOf(blind, "n-w")->tensors[0].how, CidComparison::Unresolved);
        QCOMPARE(nodeOf(blind, "n-w")->status, DiffStatus::Changed);
        QCOMPARE(blind.blockBytesRead, uint64_t(0));
        // The same bytes under another codec's CID are the same tensor.
        auto c = tinyGraph("n-");
        auto& wNode = c.checkpoint.graph.nodes[1].second;
        const auto wBytes = f32Bytes({0.5f, -0.5f, 0.5f, -0.5f});
        const Cid other = computeCid(wBytes, multicodec::DagCbor);
        c.blocks.push_back({other, wBytes});
        wNode.outputCid = other.toString();
        const auto carC = c.car();
        auto recoded = diffGradientCheckpoints(a.checkpoint, c.checkpoint, &carA, &carC);
        QCOMPARE(nodeOf(recoded, "n-w")->tensors[0].how, CidComparison::SameBytes);
        QCOMPARE(nodeOf(recoded, "n-w")->status, DiffStatus::Unchanged);
    }

    void trainerGraphsAtTwoStepsAndResumed()
    {
        auto load = [](const QString& path) -> std::optional<GradientCheckpoint> {
            auto bytes = mapFile(path.toStdString());
            if (!bytes)
                return std::nullopt;
            auto c = loadGradientCheckpoint(*bytes, false);
            return c ? std::optional(std::move(*c)) : std::nullopt;
        };
        auto loadCar = [](const QString& path) {
            auto bytes = mapFile(path.toStdString());
            return CarStore::open(*bytes);
        };
        const QString g = m_run + QStringLiteral("/graph/");
        auto a = load(g + QStringLiteral("step-4.json")), b = load(g + QStringLiteral("step-8.json"));
        auto r = load(m_resumed + QStringLiteral("/graph/step-8.json"));
        QVERIFY(a && b && r);
        auto ca = loadCar(g + QStringLiteral("step-4.car")), cb = loadCar(g + QStringLiteral("step-8.car"));
        auto cr = loadCar(m_resumed + QStringLiteral("/graph/step-8.car"));
        QVERIFY(ca && cb && cr);
        auto d = diffGradientCheckpoints(*a, *b, &*ca, &*cb);
        QCOMPARE(d.added + d.removed, uint64_t(0));
        QCOMPARE(d.matchedByPosition, uint64_t(a->graph.nodes.size())); // the trainer mints ids per step
        QVERIFY(d.edgesAdded.empty() && d.edgesRemoved.empty());
        QCOMPARE(d.sideB.step - d.sideA.step, uint64_t(4));
        QVERIFY(d.changed > 0 && d.lossValues);
        // The resumed run's graph at 8 is the straight run's: same ids, same CIDs, nothing read.
        auto same = diffGradientCheckpoints(*b, *r, &*cb, &*cr);
        QCOMPARE(same.changed + same.added + same.removed, uint64_t(0));
        QCOMPARE(same.blockBytesRead, uint64_t(0));
        QVERIFY(same.sideA.lossCid == same.sideB.lossCid);
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
