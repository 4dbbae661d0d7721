// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// core/model/schedule: Burn's scheduler formulas, the schedule read from a ckpt-train caller state,
// and the promise that the predicted curve is exactly the `lr=` a resumed ckpt-train prints.
#include "core/model/schedule.h"
#include "core/open/formats.h"
#include "core/record/record.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <functional>
#include <cstdlib>

using namespace ckpt;

namespace {

/** The caller-state and scheduler fields a test varies; everything else is the trainer's shape. */
struct Spec {
    std::string scheduler = "step";
    double lr = 1.0;
    double gamma = 0.5;
    uint64_t stepSize = 1;
    double finalLr = 0.0;
    uint64_t numIters = 4;
    uint64_t gradAccum = 3;
    uint64_t step = 4;
    uint64_t pending = 1;
    double lastLr = 0.5;
    bool withConfig = true;
    bool withSchedulerConfig = true;
    /** Writes item[2]. */
    std::function<void(TapeBuilder&)> schedulerItem = [](TapeBuilder& b) { b.integer(1); };
};

/** A TrainingRecord envelope [module, optimizer, scheduler, gradients, state] shaped as ckpt-train writes it. */
std::shared_ptr<const Record> trainingRecord(const Spec& s)
{
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full));
    b.beginArray();
    b.beginMap(); // module (no parameters needed for the schedule)
    b.end();
    b.beginMap(); // optimizer
    b.end();
    s.schedulerItem(b);
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    b.end();
    b.end();
    b.beginMap(); // caller state
    if (s.withConfig) {
        b.key("config");
        b.beginMap();
        b.key("optimizer");
        b.beginMap();
        b.key("name");
        b.str("adam");
        b.key("lr");
        b.f64(s.lr);
        b.end();
        if (s.withSchedulerConfig) {
            b.key("scheduler");
            b.beginMap();
            b.key("name");
            b.str(s.scheduler);
            b.key("gamma");
            b.f64(s.gamma);
            b.key("step_size");
            b.uinteger(s.stepSize);
            b.key("final_lr");
            b.f64(s.finalLr);
            b.key("num_iters");
            b.uinteger(s.numIters);
            b.key("warmup_steps");
            b.uinteger(4);
            b.key("embedding_size");
            b.uinteger(16);
            b.end();
        }
        b.key("grad_accum");
        b.uinteger(s.gradAccum);
        b.end();
    } else {
        b.key("epoch");
        b.uinteger(3);
    }
    b.key("progress");
    b.beginMap();
    b.key("step");
    b.uinteger(s.step);
    b.key("pending_micro_batches");
    b.uinteger(s.pending);
    b.key("stop_step");
    b.uinteger(100);
    b.key("last_lr");
    b.f64(s.lastLr);
    b.end();
    b.end();
    b.end(); // item
    endEnvelope(b);
    auto rec = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "mem");
    if (!rec)
        qFatal("%s", rec.error().message().c_str());
    return *rec;
}

std::vector<double> firstSteps(const LrSchedulerConfig& c, int n)
{
    LrSchedulerState s = initialLrSchedulerState(c);
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        out.push_back(stepLrScheduler(c, s));
    return out;
}

/** `step=N loss=X lr=Y` -> (N, Y); Rust's Display of an f64 is the shortest round-trip text, so strtod is exact. */
std::vector<std::pair<uint64_t, double>> lrLines(const QByteArray& stdoutText)
{
    std::vector<std::pair<uint64_t, double>> out;
    for (const QByteArray& line : stdoutText.split('\n')) {
        if (!line.startsWith("step="))
            continue;
        const auto parts = line.split(' ');
        if (parts.size() != 3 || !parts[2].startsWith("lr="))
            continue;
        out.emplace_back(parts[0].mid(5).toULongLong(), std::strtod(parts[2].mid(3).constData(), nullptr));
    }
    return out;
}

} // namespace

Q_DECLARE_METATYPE(std::vector<double>)

class TstSchedule : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void formulas_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<std::vector<double>>("expected");
        // lr 1, gamma 0.5, step_size 2, final 0, num_iters 4, warmup 4, embedding 16 (hand-computed)
        QTest::newRow("constant") << "constant" << std::vector<double>{1, 1, 1, 1, 1, 1};
        QTest::newRow("step") << "step" << std::vector<double>{1, 1, 0.5, 0.5, 0.25, 0.25};
        // step_size = (0 - 1) / 4; remaining 5 -> 4, 3, ... 0, then stays at 0
        QTest::newRow("linear") << "linear" << std::vector<double>{1, 0.75, 0.5, 0.25, 0, 0};
        // current_iter usize::MAX wraps to 0; restarts after num_iters (period num_iters + 1)
        QTest::newRow("cosine") << "cosine"
                                << std::vector<double>{1, 0.5 * (1 + std::cos(0.25 * M_PI)), 0.5 * (1 + std::cos(0.5 * M_PI)),
                                       0.5 * (1 + std::cos(0.75 * M_PI)), 0.5 * (1 + std::cos(M_PI)), 1};
        QTest::newRow("exponential") << "exponential" << std::vector<double>{1, 0.5, 0.25, 0.125, 0.0625, 0.03125};
        // 16^-0.5 * min(k^-0.5, k * 4^-1.5): warm-up grows k/8 until k = 4, then decays as k^-0.5
        QTest::newRow("noam") << "noam"
                              << std::vector<double>{0.25 / 8, 0.25 * 2 / 8, 0.25 * 3 / 8, 0.25 * 0.5, 0.25 / std::sqrt(5.0),
                                     0.25 / std::sqrt(6.0)};
    }
    void formulas()
    {
        QFETCH(QString, kind);
        QFETCH(std::vector<double>, expected);
        LrSchedulerConfig c;
        c.kind = *lrSchedulerFromName(kind.toStdString());
        c.initialLr = 1.0;
        c.gamma = 0.5;
        c.stepSize = 2;
        c.finalLr = 0.0;
        c.numIters = 4;
        c.warmupSteps = 4;
        c.embeddingSize = 16;
        QVERIFY(lrSchedulerConfigProblem(c).empty());
        const auto got = firstSteps(c, int(expected.size()));
        for (size_t i = 0; i < expected.size(); ++i) {
            if (std::abs(got[i] - expected[i]) > 1e-15)
                QFAIL(qPrintable(QStringLiteral("step %1: %2 != %3").arg(i + 1).arg(got[i], 0, 'g', 17).arg(expected[i], 0, 'g', 17)));
        }
    }

    void namesRoundTrip()
    {
        for (auto k : {LrSchedulerKind::Constant, LrSchedulerKind::Step, LrSchedulerKind::Linear, LrSchedulerKind::Cosine,
                 LrSchedulerKind::Exponential, LrSchedulerKind::Noam})
            QCOMPARE(lrSchedulerFromName(lrSchedulerName(k)), std::optional<LrSchedulerKind>(k));
        QVERIFY(!lrSchedulerFromName("warmup"));
    }

    void recordStateRoundTrip()
    {
        // write -> read gives the same position for every kind
        for (auto k : {LrSchedulerKind::Constant, LrSchedulerKind::Step, LrSchedulerKind::Linear, LrSchedulerKind::Cosine,
                 LrSchedulerKind::Exponential, LrSchedulerKind::Noam}) {
            LrSchedulerConfig c;
            c.kind = k;
            LrSchedulerState s = initialLrSchedulerState(c);
            for (int i = 0; i < 7; ++i)
                stepLrScheduler(c, s);
            TapeBuilder b;
            writeLrSchedulerState(b, c, s);
            const Tape tape = std::move(b).finish();
            LrSchedulerState back = initialLrSchedulerState(c);
            QVERIFY(readLrSchedulerState(tape, 0, c, back));
            QCOMPARE(lrSchedulerPosition(c, back), lrSchedulerPosition(c, s));
            QVERIFY(back == s);
        }
        // the wrong record kind is named, with the path
        LrSchedulerConfig c;
        c.kind = LrSchedulerKind::Exponential;
        TapeBuilder b;
        b.str("nope");
        const Tape tape = std::move(b).finish();
        LrSchedulerState s;
        auto r = readLrSchedulerState(tape, 0, c, s);
        QVERIFY(!r);
        QCOMPARE(r.error().recordPath, std::string("item[2]"));
        QVERIFY(r.error().what.find("exponential scheduler's record is an f64") != std::string::npos);
    }

    void curveFollowsAccumulationWindows()
    {
        // step scheduler, gamma 0.5 every scheduler step, 3 micro-batches per window; at step 4 the
        // second window has begun (pending 1, iter_idx 1, last_lr 0.5)
        const auto rec = trainingRecord({});
        auto sched = learningRateSchedule(*rec, 6, 4);
        QVERIFY2(sched, sched ? "" : sched.error().message().c_str());
        const std::vector<std::pair<uint64_t, double>> ahead{{5, 0.5}, {6, 0.5}, {7, 0.25}, {8, 0.25}, {9, 0.25}, {10, 0.125}};
        QCOMPARE(sched->ahead, ahead);
        const std::vector<std::pair<uint64_t, double>> behind{{1, 1.0}, {2, 1.0}, {3, 1.0}, {4, 0.5}};
        QCOMPARE(sched->behind, behind);
        QCOMPARE(sched->step, uint64_t(4));
        QCOMPARE(sched->currentLr, 0.5);
        QCOMPARE(sched->config.kind, LrSchedulerKind::Step);
        auto curve = learningRateCurve(*rec, 6);
        QVERIFY(curve);
        QCOMPARE(*curve, ahead);
        // the behind window is capped, the newest steps kept
        auto capped = learningRateSchedule(*rec, 0, 2);
        QVERIFY(capped);
        QCOMPARE(capped->behind, (std::vector<std::pair<uint64_t, double>>{{3, 1.0}, {4, 0.5}}));
        QVERIFY(capped->ahead.empty());
    }

    void editedPositionIsHonoured()
    {
        // the record's scheduler item is the truth (as ckpt-train honours it): iter_idx 5 -> next is 6
        Spec s;
        s.pending = 0;
        s.step = 6;
        s.schedulerItem = [](TapeBuilder& b) { b.integer(5); };
        auto curve = learningRateCurve(*trainingRecord(s), 1);
        QVERIFY(curve);
        QCOMPARE(curve->front(), (std::pair<uint64_t, double>{7, std::ldexp(1.0, -6)}));
    }

    void notStored_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("caller state without config") << 0;
        QTest::newRow("config without scheduler") << 1;
        QTest::newRow("genuine burn module record") << 2;
        QTest::newRow("genuine burn-train optimizer record") << 3;
    }
    void notStored()
    {
        QFETCH(int, which);
        std::shared_ptr<const Record> rec;
        if (which < 2) {
            Spec s;
            s.withConfig = which != 0;
            s.withSchedulerConfig = false;
            rec = trainingRecord(s);
        } else {
            const char* file = which == 2 ? "/models/burn-0.16.1_full_connect4.mpk" : "/runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk";
            auto opened = openRecord(std::string(CKPT_FIXTURES) + file);
            QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
            rec = *opened;
        }
        auto curve = learningRateCurve(*rec, 10);
        QVERIFY(!curve);
        QCOMPARE(curve.error().code, ErrorCode::Unsupported);
        QVERIFY(curve.error().what.starts_with("the learning-rate schedule is not stored in this record"));
    }

    void invalidConfigurations_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("what");
        QTest::newRow("unknown name") << 0 << "item[4].config.scheduler.name" << "unknown scheduler \"warmup\"";
        QTest::newRow("step_size 0") << 1 << "item[4].config.scheduler" << "must be at least 1";
        QTest::newRow("num_iters 0") << 2 << "item[4].config.scheduler" << "must be at least 1";
        QTest::newRow("gamma 0") << 3 << "item[4].config.scheduler" << "gamma finite and non-zero";
        QTest::newRow("pending >= grad_accum") << 4 << "item[4].progress.pending_micro_batches" << "is not below grad_accum 3";
        QTest::newRow("scheduler item mistyped") << 5 << "item[2]" << "the step scheduler's record is an i32, found str";
        QTest::newRow("i32 out of range") << 6 << "item[2]" << "an i32 in range";
        QTest::newRow("grad_accum 0") << 7 << "item[4].config" << "grad_accum";
    }
    void invalidConfigurations()
    {
        QFETCH(int, which);
        QFETCH(QString, path);
        QFETCH(QString, what);
        Spec s;
        switch (which) {
        case 0: s.scheduler = "warmup"; break;
        case 1: s.stepSize = 0; break;
        case 2: s.scheduler = "cosine"; s.numIters = 0; s.schedulerItem = [](TapeBuilder& b) { b.uinteger(1); }; break;
        case 3: s.scheduler = "exponential"; s.gamma = 0; s.schedulerItem = [](TapeBuilder& b) { b.f64(1); }; break;
        case 4: s.pending = 3; break;
        case 5: s.schedulerItem = [](TapeBuilder& b) { b.str("1"); }; break;
        case 6: s.schedulerItem = [](TapeBuilder& b) { b.uinteger(uint64_t(1) << 40); }; break;
        case 7: s.gradAccum = 0; s.pending = 0; break;
        }
        auto curve = learningRateCurve(*trainingRecord(s), 10);
        QVERIFY(!curve);
        QCOMPARE(curve.error().code, ErrorCode::Invalid);
        QVERIFY2(QString::fromStdString(curve.error().recordPath).startsWith(path), curve.error().message().c_str());
        QVERIFY2(QString::fromStdString(curve.error().what).contains(what), curve.error().message().c_str());
    }

    void boundedStepCount()
    {
        auto curve = learningRateCurve(*trainingRecord({}), kMaxScheduleSteps + 1);
        QVERIFY(!curve);
        QCOMPARE(curve.error().code, ErrorCode::Usage);
        // a hostile step count gets no history (replaying it would not terminate in useful time)
        Spec s;
        s.step = uint64_t(1) << 60;
        s.pending = 0;
        auto sched = learningRateSchedule(*trainingRecord(s), 3, 100);
        QVERIFY(sched);
        QVERIFY(sched->behind.empty());
        QCOMPARE(sched->ahead.size(), size_t(3));
        QCOMPARE(sched->ahead.front().first, (uint64_t(1) << 60) + 1);
    }

    /**
     * The exactness promise, checked against the real trainer: the curve predicted from record-8 is,
     * bit for bit, the `lr=` ckpt-train prints for steps 9..24 (3 micro-batches per window, so record-8
     * sits inside a window), and the reconstructed history is steps 1..8.
     */
    void matchesTrainer_data()
    {
        QTest::addColumn<QString>("scheduler");
        for (const char* s : {"constant", "step", "linear", "cosine", "exponential", "noam"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }
    void matchesTrainer()
    {
        QFETCH(QString, scheduler);
        const QString train = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
        QVERIFY2(QFileInfo(train).isExecutable(), "ckpt-train is built with the project; build it first");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess p;
        p.start(train, {QStringLiteral("--out"), dir.path(), QStringLiteral("--steps"), QStringLiteral("24"),
                           QStringLiteral("--checkpoint-every"), QStringLiteral("8"), QStringLiteral("--grad-accum"),
                           QStringLiteral("3"), QStringLiteral("--layout"), QStringLiteral("training-record"),
                           QStringLiteral("--scheduler"), scheduler, QStringLiteral("--step-size"), QStringLiteral("2"),
                           QStringLiteral("--gamma"), QStringLiteral("0.7"), QStringLiteral("--sched-iters"),
                           QStringLiteral("5"), QStringLiteral("--warmup"), QStringLiteral("3"),
                           QStringLiteral("--dataset-size"), QStringLiteral("256"), QStringLiteral("--hidden"),
                           QStringLiteral("8")});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAllStandardError().constData());
        const auto lines = lrLines(p.readAllStandardOutput());
        QCOMPARE(lines.size(), size_t(24));

        auto rec = openRecord(QDir(dir.path()).filePath(QStringLiteral("checkpoint/record-8.mpk")).toStdString());
        QVERIFY2(rec, rec ? "" : rec.error().message().c_str());
        auto sched = learningRateSchedule(**rec, 16, 8);
        QVERIFY2(sched, sched ? "" : sched.error().message().c_str());
        QCOMPARE(sched->pendingMicroBatches, uint64_t(2));
        QCOMPARE(sched->currentLr, lines[7].second);
        const std::vector<std::pair<uint64_t, double>> behind(lines.begin(), lines.begin() + 8);
        const std::vector<std::pair<uint64_t, double>> ahead(lines.begin() + 8, lines.end());
        QCOMPARE(sched->behind, behind);
        QCOMPARE(sched->ahead, ahead);
    }
};

QTEST_GUILESS_MAIN(TstSchedule)
#include "tst_schedule.moc"
