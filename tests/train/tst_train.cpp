// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The reference trainer's promises: exact resumption for every optimizer x scheduler x recorder,
// records that core reads back with the right counts and dtypes, bad --resume input refused before
// any training, edits and overrides honoured and announced, a clean stop on SIGTERM, --diverge-at
// (non-finite values from its step on, resumed bit-exactly) and --blocks (backward pass checked by
// finite differences, records indexed with their block parameters).
#include "app/train/model.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

using namespace ckpt;

namespace {

const QString kTrainer = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");

struct RunResult {
    int exitCode = -1;
    QStringList lines;   ///< stdout lines
    QString err;
};

RunResult runTrainer(const QStringList& args)
{
    QProcess p;
    p.start(kTrainer, args);
    RunResult r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timeout");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.lines = QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

QString ext(const QString& recorder)
{
    auto r = recorderFromName(recorder.toStdString());
    return r ? QString::fromLatin1(recorderExtension(*r).data(), qsizetype(recorderExtension(*r).size())) : QString();
}

/** A small, fast model for the matrix (a few ms per run). */
/**
 * Scratch directories on tmpfs when there is one: every record write is fsync'ed (atomic writes), and
 * on a real disk those syncs, not the training, would dominate the test's time.
 */
struct ScratchDir : QTemporaryDir {
    ScratchDir()
        : QTemporaryDir(QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm/tst_train-XXXXXX") : QDir::tempPath() + QStringLiteral("/tst_train-XXXXXX"))
    {
    }
};

QStringList smallModel()
{
    return {QStringLiteral("--hidden"), QStringLiteral("8"), QStringLiteral("--dataset-size"), QStringLiteral("64"),
        QStringLiteral("--valid-size"), QStringLiteral("16"), QStringLiteral("--batch-size"), QStringLiteral("8")};
}

/** Copies \a t, calling \a replace instead of copying wherever it returns true. */
void rebuild(const Tape& t, uint32_t node, TapeBuilder& b, const std::function<bool(uint32_t, TapeBuilder&)>& replace)
{
    if (replace(node, b))
        return;
    const Node& n = t[node];
    if (n.kind == Kind::Map || n.kind == Kind::Array) {
        n.kind == Kind::Map ? b.beginMap() : b.beginArray();
        t.forEachChild(node, [&](uint32_t c) { rebuild(t, c, b, replace); });
        b.end();
        return;
    }
    b.copy(t, node);
}

/** Writes \a in with the node at \a path replaced (or removed from its map when \a remove). */
bool editRecord(const QString& in, const QString& out, const std::string& path, const std::function<void(TapeBuilder&)>& write,
    bool remove = false)
{
    auto rec = openRecord(in.toStdString());
    if (!rec)
        return false;
    const Tape& t = (*rec)->tape;
    auto steps = parsePath(path);
    if (!steps)
        return false;
    auto target = resolvePath(t, *steps);
    if (!target)
        return false;
    // The key node in front of the target (for removal from a map).
    uint32_t keyNode = UINT32_MAX;
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
        if (t[i].end == *target && t[i].kind == Kind::Str)
            keyNode = i;
    TapeBuilder b;
    rebuild(t, t.root(), b, [&](uint32_t n, TapeBuilder& bb) {
        if (remove && (n == keyNode || n == *target))
            return true;
        if (!remove && n == *target) {
            write(bb);
            return true;
        }
        return false;
    });
    return saveRecord(std::move(b).finish(), (*rec)->recorder, out.toStdString()).has_value();
}

/** NaN and ±Inf elements over a record's tensors of one role. */
struct NonFinite {
    uint64_t nan = 0, inf = 0, tensors = 0;
    uint64_t total() const { return nan + inf; }
};
NonFinite nonFinite(const Record& r, TensorRole role)
{
    NonFinite n;
    for (const auto& t : r.tensors)
        if (t.role == role) {
            const TensorStats s = r.stats(t);
            n.nan += s.nan;
            n.inf += s.inf;
            ++n.tensors;
        }
    return n;
}

/** The caller state's config.diverge_at: its value, -1 for nil, -2 when missing. */
int64_t recordedDivergeAt(const Record& r)
{
    if (!r.stateNode)
        return -2;
    const Tape& t = r.tape;
    auto config = t.find(*r.stateNode, "config");
    auto d = config ? t.find(*config, "diverge_at") : std::nullopt;
    if (!d)
        return -2;
    if (t[*d].kind == Kind::Nil)
        return -1;
    return static_cast<int64_t>(t.asU64(*d).value_or(0));
}

} // namespace

class TrainTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(kTrainer), qPrintable(kTrainer));
        // GradientCheckpoint timestamps come from SOURCE_DATE_EPOCH when set: whole run directories compare equal.
        qputenv("SOURCE_DATE_EPOCH", "1767225600");
    }

    /**
     * Resuming into the run's own directory, which holds the files of a longer run that went another
     * way after the record, rewrites exactly what the straight run wrote: every record, burn-train
     * checkpoint, metric log line and graph file.
     */
    void runDirectoryResume()
    {
        ScratchDir dir;
        const QString a = dir.filePath(QStringLiteral("a")), b = dir.filePath(QStringLiteral("b"));
        const QStringList run = smallModel() + QStringList{QStringLiteral("--steps"), QStringLiteral("30"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("7"), QStringLiteral("--grad-accum"), QStringLiteral("3")};
        QCOMPARE(runTrainer(run + QStringList{QStringLiteral("--out"), a}).exitCode, 0);
        QCOMPARE(runTrainer(run + QStringList{QStringLiteral("--out"), b}).exitCode, 0);
        const QString record14 = b + QStringLiteral("/checkpoint/record-14.mpk");
        QCOMPARE(readAll(record14), readAll(a + QStringLiteral("/checkpoint/record-14.mpk")));
        // b's files past step 14 become those of a continuation with another learning rate: stale
        // leftovers that differ from a's, so a resume that rewrote nothing could not pass below.
        const RunResult diverged = runTrainer({QStringLiteral("--resume"), record14, QStringLiteral("--out"), b, QStringLiteral("--lr"),
            QStringLiteral("0.05")});
        QVERIFY2(diverged.exitCode == 0, qPrintable(diverged.err));
        for (const char* stale : {"checkpoint/record-21.mpk", "checkpoint/record-30.mpk", "checkpoint/model-4.mpk", "graph/step-30.car",
                 "train/epoch-2/Learning_Rate.log", "train/epoch-4/Loss.log", "valid/epoch-3/Loss.log"}) {
            const QString f = QString::fromLatin1(stale);
            QVERIFY2(readAll(b + QLatin1Char('/') + f) != readAll(a + QLatin1Char('/') + f), stale);
        }

        const RunResult r = runTrainer({QStringLiteral("--resume"), record14, QStringLiteral("--out"), b});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.lines.value(0).contains(QStringLiteral("2 pending micro-batches")));
        QStringList files;
        QDirIterator it(a, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << QDir(a).relativeFilePath(it.next());
        QVERIFY(files.contains(QStringLiteral("valid/epoch-3/Loss.log")));
        QVERIFY(files.contains(QStringLiteral("graph/step-28.car")));
        for (const QString& f : files)
            QVERIFY2(readAll(a + QLatin1Char('/') + f) == readAll(b + QLatin1Char('/') + f), qPrintable(f));
        QStringList filesB;
        QDirIterator itB(b, QDir::Files, QDirIterator::Subdirectories);
        while (itB.hasNext())
            filesB << QDir(b).relativeFilePath(itB.next());
        files.sort();
        filesB.sort();
        QCOMPARE(filesB, files);
    }

    void exactness_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("recorder");
        const QStringList optimizers = {QStringLiteral("adam"), QStringLiteral("adamw"), QStringLiteral("sgd")};
        const QStringList schedulers = {QStringLiteral("constant"), QStringLiteral("step"), QStringLiteral("linear"), QStringLiteral("cosine"),
            QStringLiteral("exponential"), QStringLiteral("noam")};
        const QStringList recorders = {QStringLiteral("NamedMpk"), QStringLiteral("NamedMpkGz"), QStringLiteral("PrettyJson"),
            QStringLiteral("JsonGz"), QStringLiteral("Bin"), QStringLiteral("BinGz")};
        int row = 0;
        for (const QString& opt : optimizers)
            for (const QString& sch : schedulers) {
                const QString rec = recorders[row % recorders.size()];
                QStringList args = {QStringLiteral("--optimizer"), opt, QStringLiteral("--scheduler"), sch, QStringLiteral("--step-size"),
                    QStringLiteral("2"), QStringLiteral("--sched-iters"), QStringLiteral("4"), QStringLiteral("--gamma"), QStringLiteral("0.8")};
                // Odd rows accumulate 2 micro-batches, so the record at step 5 carries pending gradients.
                if (row % 2)
                    args << QStringLiteral("--grad-accum") << QStringLiteral("2");
                if (opt == QStringLiteral("adamw") && row % 3 == 0)
                    args << QStringLiteral("--amsgrad");
                if (opt != QStringLiteral("adamw") && row % 4 == 1)
                    args << QStringLiteral("--weight-decay") << QStringLiteral("0.01");
                QTest::addRow("%s-%s-%s", qPrintable(opt), qPrintable(sch), qPrintable(rec)) << args << rec;
                ++row;
            }
        QTest::addRow("f64-double-adam-cosine-Bin") << QStringList{QStringLiteral("--dtype"), QStringLiteral("f64"), QStringLiteral("--precision"),
            QStringLiteral("double"), QStringLiteral("--scheduler"), QStringLiteral("cosine"), QStringLiteral("--grad-accum"), QStringLiteral("3")}
                                                   << QStringLiteral("Bin");
        QTest::addRow("f64-double-sgd-nesterov-PrettyJson") << QStringList{QStringLiteral("--dtype"), QStringLiteral("f64"), QStringLiteral("--precision"),
            QStringLiteral("double"), QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--nesterov"), QStringLiteral("--dampening"),
            QStringLiteral("0.1")} << QStringLiteral("PrettyJson");
        QTest::addRow("classification-gelu-adamw-NamedMpk") << QStringList{QStringLiteral("--task"), QStringLiteral("classification"),
            QStringLiteral("--activation"), QStringLiteral("gelu"), QStringLiteral("--optimizer"), QStringLiteral("adamw"), QStringLiteral("--weight-decay"),
            QStringLiteral("0.05")} << QStringLiteral("NamedMpk");
        QTest::addRow("sgd-no-momentum-JsonGz") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"),
            QStringLiteral("0")} << QStringLiteral("JsonGz");
    }

    /** N steps straight == k steps + resume: byte-identical final record, identical metric lines after k. */
    void exactness()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, recorder);
        ScratchDir dir;
        const QString a = dir.filePath(QStringLiteral("a")), b = dir.filePath(QStringLiteral("b")), c = dir.filePath(QStringLiteral("c"));
        const QString e = ext(recorder);
        const QStringList common = smallModel() + args + QStringList{QStringLiteral("--recorder"), recorder, QStringLiteral("--layout"),
            QStringLiteral("training-record,gradient-checkpoint"), QStringLiteral("--checkpoint-every"), QStringLiteral("5")};
        const RunResult straight = runTrainer(common + QStringList{QStringLiteral("--out"), a, QStringLiteral("--steps"), QStringLiteral("12")});
        QCOMPARE(straight.exitCode, 0);
        QCOMPARE(straight.lines.size(), 12);
        const QString k = a + QStringLiteral("/checkpoint/record-5.") + e;
        QVERIFY(QFile::exists(k));

        // Resume from the straight run's record at 5 (no flags: everything comes from the record).
        const RunResult resumed = runTrainer({QStringLiteral("--resume"), k, QStringLiteral("--out"), b});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QVERIFY(resumed.lines.value(0).startsWith(QStringLiteral("resumed from ")));
        QVERIFY2(resumed.lines.value(0).contains(QStringLiteral("overridden: none")), qPrintable(resumed.lines.value(0)));
        QCOMPARE(resumed.lines.mid(1), straight.lines.mid(5));
        const QByteArray final = readAll(a + QStringLiteral("/checkpoint/record-12.") + e);
        QVERIFY(!final.isEmpty());
        QVERIFY2(readAll(b + QStringLiteral("/checkpoint/record-12.") + e) == final, "final records differ");
        QVERIFY(readAll(b + QStringLiteral("/checkpoint/record-10.") + e) == readAll(a + QStringLiteral("/checkpoint/record-10.") + e));

        // Resume from the straight run's GradientCheckpoint at 5 (graph/step-5.json + step-5.car): parameters
        // and pending gradients from the CAR blocks, optimizer state from the blobs. Same lines, same bytes.
        const QString g = dir.filePath(QStringLiteral("g"));
        const RunResult fromGraph = runTrainer({QStringLiteral("--resume"), a + QStringLiteral("/graph/step-5.json"), QStringLiteral("--out"), g});
        QVERIFY2(fromGraph.exitCode == 0, qPrintable(fromGraph.err));
        QVERIFY2(fromGraph.lines.value(0).contains(QStringLiteral("at step 5")) && fromGraph.lines.value(0).contains(QStringLiteral("GradientCheckpoint with ")),
            qPrintable(fromGraph.lines.value(0)));
        QVERIFY2(fromGraph.lines.value(0).contains(QStringLiteral("overridden: none")), qPrintable(fromGraph.lines.value(0)));
        QCOMPARE(fromGraph.lines.mid(1), straight.lines.mid(5));
        QVERIFY2(readAll(g + QStringLiteral("/checkpoint/record-12.") + e) == final, "final record after a GradientCheckpoint resume differs");
        for (const QString& f : {QStringLiteral("/graph/step-12.json"), QStringLiteral("/graph/step-12.car"), QStringLiteral("/graph/step-10.car")})
            QVERIFY2(!readAll(a + f).isEmpty() && readAll(g + f) == readAll(a + f), qPrintable(f));

        // Stop at 5 with --steps 5, then extend with --resume --steps 12: the same final record.
        QCOMPARE(runTrainer(common + QStringList{QStringLiteral("--out"), c, QStringLiteral("--steps"), QStringLiteral("5")}).exitCode, 0);
        const RunResult extended = runTrainer({QStringLiteral("--resume"), c + QStringLiteral("/checkpoint/record-5.") + e, QStringLiteral("--out"), c,
            QStringLiteral("--steps"), QStringLiteral("12")});
        QVERIFY2(extended.exitCode == 0, qPrintable(extended.err));
        QVERIFY(extended.lines.value(0).contains(QStringLiteral("steps=12 (recorded 5)")));
        QCOMPARE(extended.lines.mid(1), straight.lines.mid(5));
        QVERIFY2(readAll(c + QStringLiteral("/checkpoint/record-12.") + e) == final, "extended run's final record differs");
    }

    void recordsReadBack_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("recorder");
        QTest::newRow("full") << QStringLiteral("full") << QStringLiteral("F32") << QStringLiteral("NamedMpk");
        QTest::newRow("half") << QStringLiteral("half") << QStringLiteral("F16") << QStringLiteral("PrettyJson");
        QTest::newRow("double") << QStringLiteral("double") << QStringLiteral("F64") << QStringLiteral("NamedMpkGz");
    }

    /** Every layout at a checkpoint with pending gradients, read back with core. */
    void recordsReadBack()
    {
        QFETCH(QString, precision);
        QFETCH(QString, dtype);
        QFETCH(QString, recorder);
        ScratchDir dir;
        const QString out = dir.path();
        // 8 samples per batch, 64 per epoch: step 7 is in epoch 1, 3 optimizer steps + 1 pending micro-batch.
        const RunResult r = runTrainer(smallModel() + QStringList{QStringLiteral("--out"), out, QStringLiteral("--steps"), QStringLiteral("7"),
            QStringLiteral("--grad-accum"), QStringLiteral("2"), QStringLiteral("--precision"), precision, QStringLiteral("--recorder"), recorder,
            QStringLiteral("--optimizer"), QStringLiteral("adamw"), QStringLiteral("--amsgrad")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString e = ext(recorder);
        auto rec = openRecord(QString(out + QStringLiteral("/checkpoint/record-7.") + e).toStdString());
        QVERIFY2(rec.has_value(), rec ? "" : rec.error().message().c_str());
        const Record& R = **rec;
        QCOMPARE(R.kind, RecordKind::TrainingRecord);
        QCOMPARE(QString::fromStdString(std::string(precisionName(R.precision))), precision);
        QCOMPARE(R.params.size(), size_t(6));
        QCOMPARE(R.optimizer.size(), size_t(6));
        QCOMPARE(R.gradients.size(), size_t(6));
        for (const auto& o : R.optimizer) {
            QCOMPARE(o.time.value_or(0), uint64_t(3));
            QVERIFY(o.amsgrad);
        }
        // 6 params + 6 x (moment_1, moment_2, max_moment_2) + 6 pending gradients.
        QCOMPARE(R.tensors.size(), size_t(6 + 18 + 6));
        for (const auto& t : R.tensors)
            QCOMPARE(QString::fromLatin1(dtypeName(t.dtype).data()), dtype);
        for (const auto& g : R.gradients) {
            QCOMPARE(QString::fromStdString(g.nativeDType), QStringLiteral("F32"));
            QVERIFY(R.findParam(g.paramId).has_value());
        }
        QVERIFY(R.stateNode.has_value());

        // burn-train layout: model/optim/scheduler of epoch 1 and one metric line per step.
        auto model = openRecord(QString(out + QStringLiteral("/checkpoint/model-1.") + e).toStdString());
        QVERIFY(model.has_value());
        QCOMPARE((*model)->kind, RecordKind::ModuleRecord);
        QCOMPARE((*model)->params.size(), size_t(6));
        auto optim = openRecord(QString(out + QStringLiteral("/checkpoint/optim-1.") + e).toStdString());
        QVERIFY(optim.has_value());
        QCOMPARE((*optim)->optimizer.size(), size_t(6));
        QVERIFY(openRecord(QString(out + QStringLiteral("/checkpoint/scheduler-1.") + e).toStdString()).has_value());
        const QList<QByteArray> loss = readAll(out + QStringLiteral("/train/epoch-1/Loss.log")).split('\n');
        QCOMPARE(loss.size(), 8); // 7 lines + the empty piece after the last newline
        QVERIFY(loss[0].endsWith(",1"));
        QCOMPARE(r.lines[0], QStringLiteral("step=1 loss=") + QString::fromLatin1(loss[0].chopped(2))
                + QStringLiteral(" lr=") + QString::fromLatin1(readAll(out + QStringLiteral("/train/epoch-1/Learning_Rate.log")).split(',')[0]));

        // GradientCheckpoint: every CID the JSON names is a verified block of the CAR.
        const QByteArray json = readAll(out + QStringLiteral("/graph/step-7.json"));
        QVERIFY(json.startsWith("{\n  \"graph\": {"));
        auto carBytes = mapFile(QString(out + QStringLiteral("/graph/step-7.car")).toStdString());
        QVERIFY(carBytes.has_value());
        auto car = CarStore::open(*carBytes);
        QVERIFY(car.has_value());
        QVERIFY(car->blocks().size() > 10);
        for (size_t i = 0; i < car->blocks().size(); ++i)
            QCOMPARE(car->verify(i), BlockCheck::Ok);
        int cids = 0;
        for (qsizetype at = json.indexOf("\"bafkrei"); at >= 0; at = json.indexOf("\"bafkrei", at + 1)) {
            const QByteArray cid = json.mid(at + 1, json.indexOf('"', at + 1) - at - 1);
            QVERIFY2(car->resolve(cid.toStdString()).has_value(), cid.constData());
            ++cids;
        }
        QVERIFY(cids > 15);
    }

    void badResume_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing file") << QStringLiteral("missing") << QString();
        QTest::newRow("truncated") << QStringLiteral("truncated") << QString();
        QTest::newRow("module record, not a TrainingRecord") << QStringLiteral("model") << QStringLiteral("not a TrainingRecord");
        QTest::newRow("another model") << QStringLiteral("othermodel") << QStringLiteral("does not match the model");
        QTest::newRow("time/step mismatch") << QStringLiteral("time") << QStringLiteral("does not match progress.optimizer_steps");
        QTest::newRow("inconsistent progress") << QStringLiteral("progress") << QStringLiteral("does not equal");
        QTest::newRow("hostile config") << QStringLiteral("config") << QStringLiteral("at item[4].config: dataset_size must be a multiple");
        QTest::newRow("pending gradients missing") << QStringLiteral("nograds") << QStringLiteral("pending gradients");
    }

    /** Bad input is refused with one message and exit 1 before any step is trained. */
    void badResume()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        ScratchDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        QCOMPARE(runTrainer(smallModel() + QStringList{QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("5"),
                     QStringLiteral("--grad-accum"), QStringLiteral("2")}).exitCode,
            0);
        const QString good = run + QStringLiteral("/checkpoint/record-5.mpk");
        QString bad = dir.filePath(QStringLiteral("bad.mpk"));
        if (kind == QStringLiteral("missing")) {
            bad = dir.filePath(QStringLiteral("nope.mpk"));
        } else if (kind == QStringLiteral("truncated")) {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(readAll(good).left(readAll(good).size() / 2));
        } else if (kind == QStringLiteral("model")) {
            bad = run + QStringLiteral("/checkpoint/model-1.mpk");
        } else if (kind == QStringLiteral("othermodel")) {
            const QString other = dir.filePath(QStringLiteral("other"));
            QCOMPARE(runTrainer({QStringLiteral("--out"), other, QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--hidden"),
                         QStringLiteral("16"), QStringLiteral("--dataset-size"), QStringLiteral("64"), QStringLiteral("--batch-size"),
                         QStringLiteral("8"), QStringLiteral("--layout"), QStringLiteral("burn-run")}).exitCode,
                0);
            auto m = openRecord(QString(other + QStringLiteral("/checkpoint/model-1.mpk")).toStdString());
            QVERIFY(m.has_value());
            QVERIFY(editRecord(good, bad, "item[0]", [&](TapeBuilder& b) { b.copy((*m)->tape, *(*m)->moduleNode); }));
        } else if (kind == QStringLiteral("time")) {
            auto rec = openRecord(good.toStdString());
            QVERIFY(rec.has_value());
            const std::string id = (*rec)->optimizer.at(2).paramId;
            QVERIFY(editRecord(good, bad, "item[1][\"" + id + "\"].V1.Rank1.momentum.time", [](TapeBuilder& b) { b.uinteger(7); }));
        } else if (kind == QStringLiteral("progress")) {
            QVERIFY(editRecord(good, bad, "item[4].progress.step", [](TapeBuilder& b) { b.uinteger(6); }));
        } else if (kind == QStringLiteral("config")) {
            QVERIFY(editRecord(good, bad, "item[4].config.batch_size", [](TapeBuilder& b) { b.uinteger(7); }));
        } else if (kind == QStringLiteral("nograds")) {
            QVERIFY(editRecord(good, bad, "item[3].gradients", [](TapeBuilder& b) {
                b.beginArray();
                b.end();
            }));
        }
        const QString out = dir.filePath(QStringLiteral("out"));
        const RunResult r = runTrainer({QStringLiteral("--resume"), bad, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.lines.isEmpty(), qPrintable(r.lines.join(QLatin1Char('\n'))));
        QVERIFY(r.err.startsWith(QStringLiteral("ckpt-train: ")));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        if (!expected.isEmpty())
            QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(!QDir(out + QStringLiteral("/checkpoint")).exists());
    }

    void badGraphResume_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("CAR file missing") << QStringLiteral("nocar") << QStringLiteral("step-4.car");
        QTest::newRow("parameter block corrupted") << QStringLiteral("corrupt") << QStringLiteral("does not match its CID");
        QTest::newRow("foreign GradientCheckpoint") << QStringLiteral("foreign") << QStringLiteral("without ckpt-train's continuation state");
        QTest::newRow("optimizer blob missing") << QStringLiteral("noblob") << QStringLiteral("missing optimizer blob input.weight/exp_avg");
        QTest::newRow("step differs from the caller state") << QStringLiteral("step") << QStringLiteral("differs from the caller state");
    }

    /** A GradientCheckpoint that cannot continue exactly is refused with one message before any step. */
    void badGraphResume()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        ScratchDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        QCOMPARE(runTrainer(smallModel() + QStringList{QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("4"),
                     QStringLiteral("--layout"), QStringLiteral("gradient-checkpoint")}).exitCode,
            0);
        const QString json = run + QStringLiteral("/graph/step-4.json"), car = run + QStringLiteral("/graph/step-4.car");
        auto rewrite = [](const QString& path, const std::function<void(QByteArray&)>& edit) {
            QByteArray bytes = readAll(path);
            edit(bytes);
            QFile f(path);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        if (kind == QStringLiteral("nocar")) {
            QVERIFY(QFile::remove(car));
        } else if (kind == QStringLiteral("corrupt")) {
            QVERIFY(rewrite(car, [](QByteArray& b) { b[b.size() - 3] = char(b[b.size() - 3] ^ 0x40); }));
        } else {
            auto bytes = mapFile(json.toStdString());
            QVERIFY(bytes.has_value());
            auto cp = loadGradientCheckpoint(*bytes);
            QVERIFY(cp.has_value());
            auto& blobs = cp->optimizerState;
            if (kind == QStringLiteral("foreign") || kind == QStringLiteral("noblob")) {
                const std::string drop = kind == QStringLiteral("foreign") ? "ckpt-train/resume_state" : "input.weight/exp_avg";
                const auto before = blobs.size();
                std::erase_if(blobs, [&](const OptimizerBlob& b) { return b.key == drop; });
                QCOMPARE(blobs.size(), before - 1);
            } else {
                cp->step = 3;
            }
            const auto out = saveGradientCheckpoint(*cp);
            QVERIFY(rewrite(json, [&](QByteArray& b) { b = QByteArray(reinterpret_cast<const char*>(out.data()), qsizetype(out.size())); }));
        }
        const QString out = dir.filePath(QStringLiteral("out"));
        const RunResult r = runTrainer({QStringLiteral("--resume"), json, QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.lines.isEmpty(), qPrintable(r.lines.join(QLatin1Char('\n'))));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(!QDir(out + QStringLiteral("/checkpoint")).exists());
    }

    /** Edited continuation state is honoured and announced; explicit flags override and are listed. */
    void editsAndOverrides()
    {
        ScratchDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        QCOMPARE(runTrainer(smallModel() + QStringList{QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("4"),
                     QStringLiteral("--scheduler"), QStringLiteral("step"), QStringLiteral("--step-size"), QStringLiteral("1")}).exitCode,
            0);
        const QString good = run + QStringLiteral("/checkpoint/record-4.mpk");

        const QString stop = dir.filePath(QStringLiteral("stop.mpk"));
        QVERIFY(editRecord(good, stop, "item[4].progress.stop_step", [](TapeBuilder& b) { b.uinteger(6); }));
        RunResult r = runTrainer({QStringLiteral("--resume"), stop, QStringLiteral("--out"), dir.filePath(QStringLiteral("o1"))});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.lines.value(0).contains(QStringLiteral("stop_step edited to 6")), qPrintable(r.lines.value(0)));
        QCOMPARE(r.lines.size(), 3);
        QVERIFY(r.lines.last().startsWith(QStringLiteral("step=6 ")));

        const QString rng = dir.filePath(QStringLiteral("rng.mpk"));
        QVERIFY(editRecord(good, rng, "item[4].progress.rng_counter", [](TapeBuilder& b) { b.uinteger(1000); }));
        r = runTrainer({QStringLiteral("--resume"), rng, QStringLiteral("--out"), dir.filePath(QStringLiteral("o0")), QStringLiteral("--steps"),
            QStringLiteral("5")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.lines.value(0).contains(QStringLiteral("rng_counter edited (1000, 4 steps give 32): honoured")), qPrintable(r.lines.value(0)));
        const RunResult plain = runTrainer({QStringLiteral("--resume"), good, QStringLiteral("--out"), dir.filePath(QStringLiteral("o00")),
            QStringLiteral("--steps"), QStringLiteral("5")});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(plain.lines.value(1) != r.lines.value(1)); // another batch was drawn

        const QString sched = dir.filePath(QStringLiteral("sched.mpk"));
        QVERIFY(editRecord(good, sched, "item[2]", [](TapeBuilder& b) { b.integer(-1); }));
        r = runTrainer({QStringLiteral("--resume"), sched, QStringLiteral("--out"), dir.filePath(QStringLiteral("o2")), QStringLiteral("--steps"),
            QStringLiteral("5")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.lines.value(0).contains(QStringLiteral("scheduler state edited (iter_idx=-1")), qPrintable(r.lines.value(0)));
        QVERIFY(r.lines.value(1).endsWith(QStringLiteral(" lr=0.003"))); // back to the first step's lr

        r = runTrainer({QStringLiteral("--resume"), good, QStringLiteral("--out"), dir.filePath(QStringLiteral("o3")), QStringLiteral("--steps"),
            QStringLiteral("6"), QStringLiteral("--recorder"), QStringLiteral("PrettyJson"), QStringLiteral("--checkpoint-every"), QStringLiteral("3")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.lines.value(0).contains(QStringLiteral("recorder=PrettyJson (recorded NamedMpk)")), qPrintable(r.lines.value(0)));
        QVERIFY(r.lines.value(0).contains(QStringLiteral("checkpoint-every=3 (recorded 500)")));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("o3/checkpoint/record-6.json"))));

        r = runTrainer({QStringLiteral("--resume"), good, QStringLiteral("--out"), dir.filePath(QStringLiteral("o4")), QStringLiteral("--hidden"),
            QStringLiteral("16")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.lines.isEmpty());
    }

    /** A half-precision record resumes, and the first line says the state was rounded. */
    void halfPrecisionAnnounced()
    {
        ScratchDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        QCOMPARE(runTrainer(smallModel() + QStringList{QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("3"),
                     QStringLiteral("--precision"), QStringLiteral("half"), QStringLiteral("--layout"), QStringLiteral("training-record")}).exitCode,
            0);
        const RunResult r = runTrainer({QStringLiteral("--resume"), run + QStringLiteral("/checkpoint/record-3.mpk"), QStringLiteral("--out"),
            dir.filePath(QStringLiteral("o")), QStringLiteral("--steps"), QStringLiteral("4")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.lines.value(0).contains(QStringLiteral("half precision")), qPrintable(r.lines.value(0)));
        QVERIFY(r.lines.value(0).contains(QStringLiteral("rounded")));
    }

    /** SIGTERM: the trainer writes a checkpoint at the step it reached and exits 0; that record resumes. */
    void sigterm()
    {
        ScratchDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        QProcess p;
        p.start(kTrainer, smallModel() + QStringList{QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("100000000"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("100000000"), QStringLiteral("--layout"), QStringLiteral("training-record")});
        QVERIFY(p.waitForStarted());
        QByteArray out;
        while (out.count('\n') < 50 && p.waitForReadyRead(10000))
            out += p.readAllStandardOutput();
        p.terminate();
        QVERIFY(p.waitForFinished(20000));
        out += p.readAllStandardOutput();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        const QList<QByteArray> lines = out.trimmed().split('\n');
        const QByteArray last = lines.last();
        QVERIFY(last.startsWith("step="));
        const QByteArray step = last.mid(5, last.indexOf(' ') - 5);
        const QString record = run + QStringLiteral("/checkpoint/record-") + QString::fromLatin1(step) + QStringLiteral(".mpk");
        QVERIFY2(QFile::exists(record), qPrintable(record));
        const RunResult r = runTrainer({QStringLiteral("--resume"), record, QStringLiteral("--out"), run, QStringLiteral("--steps"),
            QString::number(step.toULongLong() + 2)});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.lines.size(), 3);
    }

    /**
     * --diverge-at 6: the update at micro-batch 6 applies lr x 10^6. Up to step 5 the run is the run
     * without the flag (same lines, same tensors, nothing non-finite); from the update at 6 on the
     * parameters blow up, the optimizer moments reach inf, then parameters, moments and pending
     * gradients turn NaN, the loss is logged as NaN, and a checkpoint is still written at every step.
     */
    void divergeAt()
    {
        ScratchDir dir;
        const QString a = dir.filePath(QStringLiteral("a")), b = dir.filePath(QStringLiteral("b"));
        const QStringList common = smallModel() + QStringList{QStringLiteral("--blocks"), QStringLiteral("2"), QStringLiteral("--grad-accum"),
            QStringLiteral("2"), QStringLiteral("--checkpoint-every"), QStringLiteral("1")};
        const RunResult diverging = runTrainer(common + QStringList{QStringLiteral("--out"), a, QStringLiteral("--steps"), QStringLiteral("14"),
            QStringLiteral("--diverge-at"), QStringLiteral("6")});
        QVERIFY2(diverging.exitCode == 0, qPrintable(diverging.err));
        QCOMPARE(diverging.lines.size(), 14);
        const RunResult plain = runTrainer(common + QStringList{QStringLiteral("--out"), b, QStringLiteral("--steps"), QStringLiteral("6")});
        QCOMPARE(plain.exitCode, 0);
        // step=6's loss is computed before the update at 6: the first six lines are the plain run's.
        QCOMPARE(diverging.lines.mid(0, 6), plain.lines);
        QVERIFY2(diverging.lines.last().contains(QStringLiteral(" loss=NaN ")), qPrintable(diverging.lines.last()));
        // lr= keeps the scheduled value (the constant 0.003), only the optimizer applies the factor.
        QVERIFY(diverging.lines.last().endsWith(QStringLiteral(" lr=0.003")));

        auto open = [](const QString& path) {
            auto r = openRecord(path.toStdString());
            if (!r)
                qWarning("%s: %s", qPrintable(path), r.error().message().c_str());
            return r ? *r : nullptr;
        };
        bool sawInf = false;
        uint64_t firstNan = 0;
        for (int step = 1; step <= 14; ++step) {
            const QString name = QStringLiteral("/checkpoint/record-%1.mpk").arg(step);
            auto rec = open(a + name);
            QVERIFY2(rec, qPrintable(name));
            QCOMPARE(recordedDivergeAt(*rec), int64_t(6));
            const NonFinite params = nonFinite(*rec, TensorRole::Param), optim = nonFinite(*rec, TensorRole::Optimizer),
                            grads = nonFinite(*rec, TensorRole::Gradient);
            QCOMPARE(params.tensors, uint64_t(18));
            if (step <= 5) {
                QVERIFY2(params.total() + optim.total() + grads.total() == 0, qPrintable(name));
                // ... and the very tensors of the run without the flag.
                auto twin = open(b + name);
                QVERIFY(twin);
                QCOMPARE(recordedDivergeAt(*twin), int64_t(-1));
                QCOMPARE(rec->tensors.size(), twin->tensors.size());
                for (size_t i = 0; i < rec->tensors.size(); ++i) {
                    const auto x = rec->payload(rec->tensors[i]), y = twin->payload(twin->tensors[i]);
                    QVERIFY2(std::equal(x.begin(), x.end(), y.begin(), y.end()), rec->tensors[i].path.c_str());
                }
            } else if (step == 6) {
                auto twin = open(b + name);
                QVERIFY(twin);
                const TensorStats blown = rec->stats(rec->tensors[rec->params[0].tensor]), calm = twin->stats(twin->tensors[twin->params[0].tensor]);
                QVERIFY2(std::max(std::abs(blown.min), std::abs(blown.max)) > 100 * std::max(std::abs(calm.min), std::abs(calm.max)),
                    "the update at step 6 used lr x 10^6");
            }
            sawInf |= optim.inf > 0 || params.inf > 0;
            if (!firstNan && params.nan > 0)
                firstNan = uint64_t(step);
            if (step >= 12) {
                QVERIFY2(params.nan > 0 && optim.nan > 0, qPrintable(name));
                if (step % 2) // odd steps hold one pending micro-batch
                    QVERIFY2(grads.nan > 0, qPrintable(name));
            }
        }
        QVERIFY2(sawInf, "the optimizer moments overflow to inf on the way");
        QVERIFY2(firstNan > 6, "NaN only after the updates with the multiplied lr");
        // Every layout kept being written: the burn-train logs say NaN, the GradientCheckpoint of the last step is there.
        QVERIFY(readAll(a + QStringLiteral("/train/epoch-2/Loss.log")).contains("NaN,1\n"));
        QVERIFY(QFile::exists(a + QStringLiteral("/graph/step-14.car")));
        QVERIFY(QFile::exists(a + QStringLiteral("/checkpoint/model-2.mpk")));
        QVERIFY(openRecord(QString(a + QStringLiteral("/checkpoint/optim-2.mpk")).toStdString()).has_value());
    }

    void divergeResume_data()
    {
        QTest::addColumn<QString>("recorder");
        QTest::newRow("NamedMpk") << QStringLiteral("NamedMpk");
        QTest::newRow("PrettyJson") << QStringLiteral("PrettyJson"); // loss_tail's None as null
        QTest::newRow("BinGz") << QStringLiteral("BinGz");           // diverge_at Some(6) with its Option tag
    }

    /**
     * A diverging run resumed before and after its divergence, from a record and from a
     * GradientCheckpoint, continues bit-exactly: same metric lines (NaN included), byte-identical
     * final record. --diverge-at never on resume stops the multiplier and is announced.
     */
    void divergeResume()
    {
        QFETCH(QString, recorder);
        ScratchDir dir;
        const QString e = ext(recorder);
        const QString a = dir.filePath(QStringLiteral("a"));
        const RunResult straight = runTrainer(smallModel() + QStringList{QStringLiteral("--blocks"), QStringLiteral("2"), QStringLiteral("--grad-accum"),
            QStringLiteral("2"), QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--diverge-at"), QStringLiteral("6"),
            QStringLiteral("--recorder"), recorder, QStringLiteral("--layout"), QStringLiteral("training-record,gradient-checkpoint"),
            QStringLiteral("--out"), a, QStringLiteral("--steps"), QStringLiteral("16")});
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.err));
        QVERIFY(straight.lines.last().contains(QStringLiteral(" loss=NaN ")));
        const QByteArray final = readAll(a + QStringLiteral("/checkpoint/record-16.") + e);
        QVERIFY(!final.isEmpty());
        // 3: before the divergence; 9: parameters blown up, moments partly inf, one pending micro-batch; 15: NaN throughout.
        for (int k : {3, 9, 15}) {
            for (const QString& from : QStringList{QStringLiteral("/checkpoint/record-%1.").arg(k) + e, QStringLiteral("/graph/step-%1.json").arg(k)}) {
                const QString out = dir.filePath(QStringLiteral("r%1-%2").arg(k).arg(from.contains(QStringLiteral("graph")) ? 1 : 0));
                const RunResult r = runTrainer({QStringLiteral("--resume"), a + from, QStringLiteral("--out"), out});
                QVERIFY2(r.exitCode == 0, qPrintable(from + QLatin1Char(' ') + r.err));
                QVERIFY2(r.lines.value(0).contains(QStringLiteral("overridden: none")), qPrintable(r.lines.value(0)));
                QCOMPARE(r.lines.mid(1), straight.lines.mid(k));
                QVERIFY2(readAll(out + QStringLiteral("/checkpoint/record-16.") + e) == final, qPrintable(from));
            }
        }
        const RunResult calm = runTrainer({QStringLiteral("--resume"), a + QStringLiteral("/checkpoint/record-3.") + e, QStringLiteral("--out"),
            dir.filePath(QStringLiteral("calm")), QStringLiteral("--diverge-at"), QStringLiteral("never")});
        QVERIFY2(calm.exitCode == 0, qPrintable(calm.err));
        QVERIFY2(calm.lines.value(0).contains(QStringLiteral("diverge-at=never (recorded 6)")), qPrintable(calm.lines.value(0)));
        QVERIFY(!calm.lines.last().contains(QStringLiteral("NaN")));
        auto rec = openRecord(dir.filePath(QStringLiteral("calm/checkpoint/record-16.") + e).toStdString());
        QVERIFY(rec.has_value());
        QCOMPARE(recordedDivergeAt(**rec), int64_t(-1));
        QCOMPARE(nonFinite(**rec, TensorRole::Param).total(), uint64_t(0));
    }

    /**
     * The hand-written backward pass of a model with two residual blocks against central finite
     * differences of the loss, in f64, for every element of every parameter (GELU and a regression
     * and a classification head; parameters moved off their init so no gamma is 1 and no beta 0).
     */
    void blocksGradientCheck_data()
    {
        QTest::addColumn<bool>("classification");
        QTest::newRow("regression") << false;
        QTest::newRow("classification") << true;
    }
    void blocksGradientCheck()
    {
        QFETCH(bool, classification);
        using namespace ckpt::train;
        TrainConfig c;
        c.inputDim = 3;
        c.hidden = 5;
        c.outputDim = classification ? 3 : 2;
        c.task = classification ? Task::Classification : Task::Regression;
        c.activation = Activation::Gelu;
        c.blocks = 2;
        Mlp<double> m = Mlp<double>::create(c);
        QCOMPARE(m.params.size(), size_t(c.paramCount()));
        QCOMPARE(m.params.size(), size_t(18));
        uint64_t k = 0;
        for (auto& p : m.params)
            for (Eigen::Index i = 0; i < p.value.size(); ++i)
                p.value.data()[i] += 0.3 * counterNormal(7, 9000, k++);
        Batch<double> b;
        const Eigen::Index n = 4;
        b.x.resize(n, Eigen::Index(c.inputDim));
        for (Eigen::Index i = 0; i < b.x.size(); ++i)
            b.x.data()[i] = counterNormal(7, 9001, uint64_t(i));
        b.y.resize(n, Eigen::Index(c.outputDim));
        for (Eigen::Index i = 0; i < b.y.size(); ++i)
            b.y.data()[i] = counterNormal(7, 9002, uint64_t(i));
        b.label = {0, 2, 1, 2};

        m.forwardBackward(b);
        std::vector<Mat<double>> analytic;
        for (const auto& p : m.params)
            analytic.push_back(p.grad);
        const double h = 1e-6;
        double worst = 0;
        std::string worstAt;
        for (size_t pi = 0; pi < m.params.size(); ++pi)
            for (Eigen::Index i = 0; i < m.params[pi].value.size(); ++i) {
                double& v = m.params[pi].value.data()[i];
                const double saved = v;
                v = saved + h;
                const double up = m.evaluate(b);
                v = saved - h;
                const double down = m.evaluate(b);
                v = saved;
                const double fd = (up - down) / (2 * h), g = analytic[pi].data()[i];
                const double err = std::abs(fd - g) / std::max(1.0, std::abs(fd));
                if (err > worst) {
                    worst = err;
                    worstAt = m.params[pi].modulePath + "[" + std::to_string(i) + "]: analytic " + std::to_string(g) + ", numeric " + std::to_string(fd);
                }
            }
        QVERIFY2(worst < 1e-6, worstAt.c_str());
        // The gradients really reach the blocks (a block cut off from the loss would pass the check with zeros).
        for (size_t bi = 0; bi < 2; ++bi)
            QVERIFY(analytic[Mlp<double>::blockParam(bi, Mlp<double>::Fc1W)].norm() > 1e-6);
    }

    /**
     * --blocks 2: 6 + 12 parameters, Burn's Vec<Module> record paths item[0].blocks[K].<field>, an
     * optimizer state and a pending gradient for each, read back by core from NamedMpk and from bincode
     * (core's built-in ckpt-train layout); the GradientCheckpoint has 7 nodes per block.
     */
    void blocksRecord_data()
    {
        QTest::addColumn<QString>("recorder");
        QTest::newRow("NamedMpk") << QStringLiteral("NamedMpk");
        QTest::newRow("Bin") << QStringLiteral("Bin");
    }
    void blocksRecord()
    {
        QFETCH(QString, recorder);
        ScratchDir dir;
        const QString out = dir.path();
        const RunResult r = runTrainer(smallModel() + QStringList{QStringLiteral("--blocks"), QStringLiteral("2"), QStringLiteral("--out"), out,
            QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--grad-accum"), QStringLiteral("2"), QStringLiteral("--recorder"), recorder});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString e = ext(recorder);
        auto rec = openRecord(QString(out + QStringLiteral("/checkpoint/record-3.") + e).toStdString());
        QVERIFY2(rec.has_value(), rec ? "" : rec.error().message().c_str());
        const Record& R = **rec;
        QCOMPARE(R.kind, RecordKind::TrainingRecord);
        QVERIFY(!R.partial);
        if (recorder == QStringLiteral("Bin"))
            QVERIFY2(R.schemaSource.find("ckpt-train TrainingRecord") != std::string::npos, R.schemaSource.c_str());
        QCOMPARE(R.params.size(), size_t(18));
        QCOMPARE(R.optimizer.size(), size_t(18));
        QCOMPARE(R.gradients.size(), size_t(18));
        QCOMPARE(R.tensors.size(), size_t(18 + 36 + 18));
        QStringList paths;
        std::set<std::string> ids;
        for (const auto& p : R.params) {
            paths << QString::fromStdString(p.modulePath);
            ids.insert(p.id);
        }
        QCOMPARE(ids.size(), size_t(18));
        QStringList expected = {QStringLiteral("item[0].input.weight"), QStringLiteral("item[0].input.bias"), QStringLiteral("item[0].norm.gamma"),
            QStringLiteral("item[0].norm.beta")};
        for (int b = 0; b < 2; ++b)
            for (const char* f : {"fc1.weight", "fc1.bias", "norm.gamma", "norm.beta", "fc2.weight", "fc2.bias"})
                expected << QStringLiteral("item[0].blocks[%1].").arg(b) + QString::fromLatin1(f);
        expected << QStringLiteral("item[0].output.weight") << QStringLiteral("item[0].output.bias");
        QCOMPARE(paths, expected);
        const auto fc1 = std::find_if(R.params.begin(), R.params.end(), [](const ParamEntry& p) { return p.modulePath == "item[0].blocks[1].fc1.weight"; });
        QVERIFY(fc1 != R.params.end());
        QCOMPARE(R.tensors[fc1->tensor].shape, (std::vector<uint64_t>{8, 8}));
        for (const auto& g : R.gradients)
            QVERIFY(R.findParam(g.paramId).has_value());
        auto config = R.tape.find(*R.stateNode, "config");
        auto model = config ? R.tape.find(*config, "model") : std::nullopt;
        auto blocks = model ? R.tape.find(*model, "blocks") : std::nullopt;
        QVERIFY(blocks && R.tape.asU64(*blocks) == uint64_t(2));

        auto module = openRecord(QString(out + QStringLiteral("/checkpoint/model-1.") + e).toStdString());
        QVERIFY2(module.has_value(), module ? "" : module.error().message().c_str());
        QCOMPARE((*module)->kind, RecordKind::ModuleRecord);
        QCOMPARE((*module)->params.size(), size_t(18));

        auto bytes = mapFile(QString(out + QStringLiteral("/graph/step-3.json")).toStdString());
        QVERIFY(bytes.has_value());
        auto cp = loadGradientCheckpoint(*bytes);
        QVERIFY(cp.has_value());
        QCOMPARE(cp->graph.nodes.size(), size_t(9 + 7 * 2));
    }
};

QTEST_GUILESS_MAIN(TrainTest)
#include "tst_train.moc"
