// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The run timeline, its cache and bisect (core/run/timeline.h) on runs the reference trainer writes,
// and on copies of them with NaN written into one tensor from a known checkpoint on, a checkpoint
// truncated in the middle, files touched and deleted. The numbers themselves are checked against an
// independent numpy computation by timeline_numpy_oracle (tests/timeline/CMakeLists.txt).
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/report/timelinejson.h"
#include "core/run/timeline.h"
#include "tests/ckptskip.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <filesystem>

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const QString kTrainer = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
constexpr int kCheckpoints = 12; // --steps 600 --checkpoint-every 50

bool train(const QStringList& args)
{
    QProcess p;
    p.start(kTrainer, args);
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

void copyRun(const QString& from, const QString& to)
{
    QDir().mkpath(to);
    fs::copy(from.toStdString(), to.toStdString(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

QString recordFile(const QString& run, int step)
{
    return run + QStringLiteral("/checkpoint/record-%1.mpk").arg(step);
}

/** Writes NaN over element \a element of tensor \a path of a MessagePack record, in place (payloads are raw f32 bytes). */
bool poisonTensor(const QString& file, const std::string& path, uint64_t element)
{
    auto r = openRecord(file.toStdString());
    if (!r)
        return false;
    auto t = (*r)->findTensor(path);
    if (!t || !(*r)->tensors[*t].offset || (*r)->tensors[*t].dtype != DType::F32)
        return false;
    const uint64_t at = *(*r)->tensors[*t].offset + element * 4;
    r->reset(); // unmap before writing
    QFile f(file);
    if (!f.open(QIODevice::ReadWrite) || !f.seek(qint64(at)))
        return false;
    const float nan = std::nanf("");
    char bytes[4];
    std::memcpy(bytes, &nan, 4);
    return f.write(bytes, 4) == 4;
}

RunCheckpoints listed(const QString& dir)
{
    auto run = listRunCheckpoints(dir.toStdString());
    if (!run)
        qFatal("%s", run.error().message().c_str());
    return *run;
}

Timeline timelineOf(const QString& dir, bool cache, const std::string& cacheDir, const std::string& filter = {})
{
    TimelineOptions o;
    o.useCache = cache;
    o.cacheDir = cacheDir;
    o.filter = filter;
    auto t = computeTimeline(listed(dir), o);
    if (!t)
        qFatal("%s", t.error().message().c_str());
    return *t;
}

BisectResult bisectOf(const QString& dir, const char* until, bool scan = false, const std::string& filter = {})
{
    auto p = parseBisectPredicate(until);
    if (!p)
        qFatal("%s", p.error().message().c_str());
    BisectOptions o;
    o.scan = scan;
    o.filter = filter;
    auto r = bisectRun(listed(dir), *p, o);
    if (!r)
        qFatal("%s", r.error().message().c_str());
    return *r;
}

/** The document without its cache counters: what must not depend on the cache. */
std::string withoutCache(const Timeline& t)
{
    const std::string j = timelineJson(t);
    return j.substr(0, j.rfind("\"cache\""));
}

const std::string kPoisoned = "item[0].input.weight.param";

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QString m_run;
    std::string cacheDir(const char* name) const { return QString(m_tmp.path() + QStringLiteral("/cache-") + QLatin1String(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(kTrainer).isExecutable())
            CKPT_SKIP(QStringLiteral("ckpt-train is not built: ") + kTrainer);
        QVERIFY(m_tmp.isValid());
        m_run = m_tmp.filePath(QStringLiteral("run"));
        QVERIFY(train({QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("600"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("50")}));
    }

    void listsEveryLayoutInTrainingOrder()
    {
        const RunCheckpoints run = listed(m_run);
        QCOMPARE(run.layout, RunLayout::Records); // ckpt-train writes all three layouts; records are preferred
        QCOMPARE(int(run.points.size()), kCheckpoints);
        for (int i = 0; i < kCheckpoints; ++i) {
            QCOMPARE(run.points[i].index, size_t(i));
            QCOMPARE(run.points[i].step, std::optional<uint64_t>(50 * (i + 1)));
            QVERIFY(run.points[i].loss && std::isfinite(*run.points[i].loss)); // the Loss.log line of that step
            QVERIFY(run.points[i].lr);
        }
        // step 1000 after step 200: numeric order, not the file names' order
        const QString numeric = m_tmp.filePath(QStringLiteral("numeric"));
        QDir().mkpath(numeric + QStringLiteral("/checkpoint"));
        QVERIFY(QFile::copy(recordFile(m_run, 200), numeric + QStringLiteral("/checkpoint/record-200.mpk")));
        QVERIFY(QFile::copy(recordFile(m_run, 600), numeric + QStringLiteral("/checkpoint/record-1000.mpk")));
        QVERIFY(QFile::copy(recordFile(m_run, 100), numeric + QStringLiteral("/checkpoint/.record-1100.mpk.tmp"))); // being written
        const RunCheckpoints n = listed(numeric);
        QCOMPARE(int(n.points.size()), 2);
        QCOMPARE(n.points[1].file, std::string("checkpoint/record-1000.mpk"));

        // burn-train epochs (model, optim, scheduler as one checkpoint) and GradientCheckpoints with their CARs
        const QString epochs = m_tmp.filePath(QStringLiteral("epochs")), graphs = m_tmp.filePath(QStringLiteral("graphs"));
        QDir().mkpath(epochs + QStringLiteral("/checkpoint"));
        for (const QString& f : QDir(m_run + QStringLiteral("/checkpoint")).entryList({QStringLiteral("model-*"), QStringLiteral("optim-*"), QStringLiteral("scheduler-*")}))
            QVERIFY(QFile::copy(m_run + QStringLiteral("/checkpoint/") + f, epochs + QStringLiteral("/checkpoint/") + f));
        copyRun(m_run + QStringLiteral("/train"), epochs + QStringLiteral("/train"));
        copyRun(m_run + QStringLiteral("/graph"), graphs + QStringLiteral("/graph"));
        const RunCheckpoints e = listed(epochs);
        QCOMPARE(e.layout, RunLayout::BurnEpochs);
        QVERIFY(e.points.size() > 1);
        QCOMPARE(e.points[0].files.size(), size_t(3));
        QVERIFY(e.points[0].epoch && e.points[0].loss);
        const Timeline te = timelineOf(epochs, false, {});
        // the optimizer's moments are followed with their parameter: every series spans every epoch
        for (const auto& s : te.series)
            QCOMPARE(s.points.size(), e.points.size());
        QVERIFY(std::any_of(te.series.begin(), te.series.end(), [](const auto& s) { return s.role == TensorRole::Optimizer; }));

        const RunCheckpoints g = listed(graphs);
        QCOMPARE(g.layout, RunLayout::GradientCheckpoints);
        QCOMPARE(int(g.points.size()), kCheckpoints);
        QCOMPARE(g.points[0].files.size(), size_t(2)); // step-N.json and step-N.car
        const Timeline tg = timelineOf(graphs, false, {});
        QVERIFY(tg.series.size() > 10);
        for (const auto& c : tg.checkpoints)
            QVERIFY2(c.valid, c.error.c_str());

        QVERIFY(!listRunCheckpoints(m_tmp.filePath(QStringLiteral("nothing-here")).toStdString()));
        QDir().mkpath(m_tmp.filePath(QStringLiteral("empty")));
        auto none = listRunCheckpoints(m_tmp.filePath(QStringLiteral("empty")).toStdString());
        QVERIFY(!none);
        QVERIFY(none.error().what.find("no checkpoints") != std::string::npos);
    }

    void listsBurnpackTriplesLikeRecorderTriples()
    {
        // burn-train 0.22 writes checkpoint/{model,optim,scheduler}-EPOCH.bpk; the listing opens no
        // file, so empty files with those names must be listed exactly like .mpk triples
        auto write = [](const QString& path, const QByteArray& bytes) {
            QDir().mkpath(QFileInfo(path).absolutePath());
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(bytes), qint64(bytes.size()));
        };
        auto makeRun = [&](const QString& dir, const char* ext) {
            for (int epoch : {1, 2, 10})
                for (const char* kind : {"model", "optim", "scheduler"})
                    write(QStringLiteral("%1/checkpoint/%2-%3.%4").arg(dir, QLatin1String(kind)).arg(epoch).arg(QLatin1String(ext)), QByteArray(16, 'x'));
            write(dir + QStringLiteral("/checkpoint/.model-11.") + QLatin1String(ext) + QStringLiteral(".tmp"), "x"); // being written
            // Loss: batch lines; epoch 2 ends with burn-train 0.22's `value,final` (the epoch's value)
            write(dir + QStringLiteral("/train/epoch-1/Loss.log"), "4,1\n2,3\n");
            write(dir + QStringLiteral("/train/epoch-2/Loss.log"), "1,2\n3,2\n1.25,final\n");
            write(dir + QStringLiteral("/train/epoch-10/Loss.log"), "0.5,final\n");
        };
        const QString bpk = m_tmp.filePath(QStringLiteral("burnpack-epochs")), mpk = m_tmp.filePath(QStringLiteral("mpk-epochs"));
        makeRun(bpk, "bpk");
        makeRun(mpk, "mpk");
        const RunCheckpoints b = listed(bpk), m = listed(mpk);
        QCOMPARE(b.layout, RunLayout::BurnEpochs);
        QCOMPARE(b.layout, m.layout);
        QCOMPARE(b.points.size(), size_t(3)); // one checkpoint per epoch
        QCOMPARE(b.points.size(), m.points.size());
        const uint64_t epochs[] = {1, 2, 10};
        const double losses[] = {2.5, 1.25, 0.5}; // (4 + 2*3) / 4; the final lines
        for (size_t i = 0; i < b.points.size(); ++i) {
            const RunPoint& p = b.points[i];
            QCOMPARE(p.index, i);
            QCOMPARE(p.epoch, std::optional<uint64_t>(epochs[i]));
            QVERIFY(!p.step);
            QCOMPARE(p.file, "checkpoint/model-" + std::to_string(epochs[i]) + ".bpk"); // the model file names it
            QCOMPARE(p.files.size(), size_t(3));
            QCOMPARE(p.bytes, uint64_t(48));
            for (size_t k = 0; k < 3; ++k) {
                const char* kinds[] = {"model-", "optim-", "scheduler-"};
                QCOMPARE(fs::path(p.files[k].path).filename().string(), kinds[k] + std::to_string(epochs[i]) + ".bpk");
            }
            QCOMPARE(p.loss, std::optional<double>(losses[i]));
            // the same as the .mpk triple's, but for the extension
            const RunPoint& q = m.points[i];
            QCOMPARE(q.file, p.file.substr(0, p.file.size() - 3) + "mpk");
            QCOMPARE(q.epoch, p.epoch);
            QCOMPARE(q.loss, p.loss);
            QCOMPARE(q.files.size(), p.files.size());
            QCOMPARE(q.bytes, p.bytes);
        }

        // record-STEP.bpk: the loss of a step skips the final lines (an epoch's value, no iteration)
        const QString steps = m_tmp.filePath(QStringLiteral("burnpack-steps"));
        for (int step : {2, 3})
            write(QStringLiteral("%1/checkpoint/record-%2.bpk").arg(steps).arg(step), "NRUB");
        write(steps + QStringLiteral("/train/epoch-1/Loss.log"), "4,1\n2,1\n3,final\n");
        write(steps + QStringLiteral("/train/epoch-2/Loss.log"), "1,1\n0.5,1\n0.75,final\n");
        const RunCheckpoints r = listed(steps);
        QCOMPARE(r.layout, RunLayout::Records);
        QCOMPARE(r.points.size(), size_t(2));
        QCOMPARE(r.points[0].file, std::string("checkpoint/record-2.bpk"));
        QCOMPARE(r.points[0].loss, std::optional<double>(2.0));
        QCOMPARE(r.points[1].loss, std::optional<double>(1.0)); // epoch 2's first line, not epoch 1's final

        // a folder of .bpk files without checkpoint/
        const QString folder = m_tmp.filePath(QStringLiteral("burnpack-folder"));
        write(folder + QStringLiteral("/weights-20.bpk"), "NRUB");
        write(folder + QStringLiteral("/weights-3.bpk"), "NRUB");
        const RunCheckpoints f = listed(folder);
        QCOMPARE(f.layout, RunLayout::Folder);
        QCOMPARE(f.points.size(), size_t(2));
        QCOMPARE(f.points[0].file, std::string("weights-3.bpk"));
    }

    void followsEveryTensor()
    {
        const Timeline t = timelineOf(m_run, false, {});
        QCOMPARE(int(t.checkpoints.size()), kCheckpoints);
        QCOMPARE(t.read, uint64_t(kCheckpoints));
        auto r = openRecord(recordFile(m_run, 50).toStdString());
        QVERIFY(r);
        QCOMPARE(t.series.size(), (*r)->tensors.size());
        for (const auto& s : t.series) {
            QCOMPARE(int(s.points.size()), kCheckpoints);
            QVERIFY(!s.points[0].updateL2);
            for (size_t i = 1; i < s.points.size(); ++i)
                QVERIFY2(s.points[i].updateL2 && *s.points[i].updateL2 > 0, s.path.c_str()); // training moved every tensor
            QVERIFY(!s.owner.empty());
        }
        // a moment is owned by its parameter's module path, so views can put it beside the parameter
        const auto moment = std::find_if(t.series.begin(), t.series.end(), [](const auto& s) { return s.role == TensorRole::Optimizer; });
        QVERIFY(moment != t.series.end());
        QVERIFY(std::any_of(t.series.begin(), t.series.end(),
            [&](const auto& s) { return s.role == TensorRole::Param && s.paramId == moment->paramId && s.owner == moment->owner; }));
        QVERIFY(t.events.empty()); // a healthy run: no NaN, no spike

        const Timeline filtered = timelineOf(m_run, false, {}, "item[0].*.param");
        QCOMPARE(filtered.series.size(), size_t(6));
    }

    void cacheReadsOnlyWhatChanged()
    {
        const QString run = m_tmp.filePath(QStringLiteral("cached"));
        copyRun(m_run, run);
        const std::string cache = cacheDir("changes");
        const Timeline first = timelineOf(run, true, cache);
        QCOMPARE(first.read, uint64_t(kCheckpoints));
        QCOMPARE(first.reused, uint64_t(0));
        const Timeline second = timelineOf(run, true, cache);
        QCOMPARE(second.read, uint64_t(0));
        QCOMPARE(second.reused, uint64_t(kCheckpoints));
        QCOMPARE(withoutCache(second), withoutCache(first));
        QCOMPARE(withoutCache(timelineOf(run, false, {})), withoutCache(first)); // --no-cache: the same numbers

        // a filter is served from the full cache
        const Timeline filtered = timelineOf(run, true, cache, "item[0].*.param");
        QCOMPARE(filtered.read, uint64_t(0));
        QCOMPARE(filtered.series.size(), size_t(6));

        // a touched file is read again, and so is its successor (its update was taken against it)
        const fs::path touched = recordFile(run, 300).toStdString();
        fs::last_write_time(touched, fs::last_write_time(touched) + std::chrono::seconds(5));
        const Timeline third = timelineOf(run, true, cache);
        QCOMPARE(third.read, uint64_t(2));
        QCOMPARE(withoutCache(third), withoutCache(first));

        // a deleted one drops out; the one after it is updated against the one before it
        QVERIFY(QFile::remove(recordFile(run, 400)));
        const Timeline fourth = timelineOf(run, true, cache);
        QCOMPARE(int(fourth.checkpoints.size()), kCheckpoints - 1);
        QCOMPARE(fourth.read, uint64_t(1));
        QCOMPARE(withoutCache(fourth), withoutCache(timelineOf(run, false, {})));

        // a new one appended: only it is read
        QVERIFY(QFile::copy(recordFile(m_run, 400), recordFile(run, 650)));
        const Timeline fifth = timelineOf(run, true, cache);
        QCOMPARE(fifth.read, uint64_t(1));
        QCOMPARE(fifth.reused, uint64_t(kCheckpoints - 1));

        // a damaged cache file is a warning and a rebuild, never an error or a wrong number
        for (const auto& e : fs::directory_iterator(cache)) {
            QFile f(QString::fromStdString(e.path().string()));
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.resize(f.size() / 2);
        }
        const Timeline sixth = timelineOf(run, true, cache);
        QCOMPARE(sixth.read, uint64_t(kCheckpoints));
        QVERIFY(!sixth.warnings.empty());
        QCOMPARE(withoutCache(sixth), withoutCache(timelineOf(run, false, {})));
    }

    void cancelKeepsWhatIsDone()
    {
        const std::string cache = cacheDir("cancel");
        size_t seen = 0;
        TimelineOptions o;
        o.cacheDir = cache;
        o.onCheckpoint = [&](size_t, const Timeline&) { ++seen; };
        Progress progress;
        progress.isCancelled = [&] { return seen >= 3; };
        auto t = computeTimeline(listed(m_run), o, progress);
        QVERIFY(t);
        QVERIFY(t->cancelled);
        QVERIFY(t->checkpoints.size() >= 3 && t->checkpoints.size() < size_t(kCheckpoints));
        // what was done is cached, and the rest is read on the next run
        const Timeline rest = timelineOf(m_run, true, cache);
        QCOMPARE(rest.reused, uint64_t(t->checkpoints.size()));
        QCOMPARE(rest.read, uint64_t(kCheckpoints) - t->checkpoints.size());
        QCOMPARE(withoutCache(rest), withoutCache(timelineOf(m_run, false, {})));
    }

    void invalidCheckpointInTheMiddle()
    {
        const QString run = m_tmp.filePath(QStringLiteral("damaged"));
        copyRun(m_run, run);
        QFile f(recordFile(run, 300));
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() / 2)); // half-written
        f.close();
        const Timeline t = timelineOf(run, true, cacheDir("damaged"));
        QCOMPARE(int(t.checkpoints.size()), kCheckpoints);
        QVERIFY(!t.checkpoints[5].valid);
        QVERIFY2(t.checkpoints[5].error.find("record-300.mpk") != std::string::npos, t.checkpoints[5].error.c_str());
        for (int i = 0; i < kCheckpoints; ++i)
            if (i != 5)
                QVERIFY(t.checkpoints[i].valid);
        // the rest of the timeline is there, and the update after the gap is taken against checkpoint 4
        for (const auto& s : t.series) {
            QCOMPARE(int(s.points.size()), kCheckpoints - 1);
            QCOMPARE(s.points[5].checkpoint, uint32_t(6));
            QVERIFY(s.points[5].updateL2);
        }
        const BisectResult b = bisectOf(run, "nan");
        QVERIFY(!b.firstBad);
        QCOMPARE(b.lastGood, std::optional<size_t>(kCheckpoints - 1));
        const BisectResult scan = bisectOf(run, "nan", true);
        QVERIFY(!scan.firstBad);
        QCOMPARE(scan.warnings.size(), size_t(1)); // the damaged one, named
    }

    void bisectFindsTheFirstPoisonedCheckpoint_data()
    {
        QTest::addColumn<int>("firstBad");
        QTest::newRow("from checkpoint 7") << 7;
        QTest::newRow("from the first") << 0;
        QTest::newRow("only the last") << kCheckpoints - 1;
    }
    void bisectFindsTheFirstPoisonedCheckpoint()
    {
        QFETCH(int, firstBad);
        const QString run = m_tmp.filePath(QStringLiteral("poisoned-%1").arg(firstBad));
        copyRun(m_run, run);
        for (int i = firstBad; i < kCheckpoints; ++i)
            QVERIFY(poisonTensor(recordFile(run, 50 * (i + 1)), kPoisoned, 3));
        for (bool scan : {false, true}) {
            const BisectResult b = bisectOf(run, "nan", scan);
            QCOMPARE(b.firstBad, std::optional<size_t>(firstBad));
            QCOMPARE(b.badPaths, std::vector<std::string>{kPoisoned});
            QCOMPARE(b.lastGood, firstBad > 0 ? std::optional<size_t>(firstBad - 1) : std::nullopt);
            if (!scan)
                QVERIFY2(b.opened.size() <= 4, std::to_string(b.opened.size()).c_str()); // ceil(log2(12 + 1))
            else
                QCOMPARE(b.opened.size(), size_t(firstBad + 1));
        }
        QCOMPARE(bisectOf(run, "nonfinite").firstBad, std::optional<size_t>(firstBad));
        QVERIFY(!bisectOf(run, "inf").firstBad);
        QVERIFY(!bisectOf(run, "nan", false, "item[1].*").firstBad); // the filter leaves the poisoned tensor out
        QCOMPARE(bisectOf(run, "nan", false, "item[0].input.*").firstBad, std::optional<size_t>(firstBad));

        // the timeline names the same checkpoint and tensor as its first NaN
        const Timeline t = timelineOf(run, false, {});
        QCOMPARE(t.events.size(), size_t(1));
        QCOMPARE(t.events[0].kind, TimelineEventKind::FirstNan);
        QCOMPARE(t.events[0].checkpoint, uint32_t(firstBad));
        QCOMPARE(t.events[0].path, kPoisoned);
        QCOMPARE(t.events[0].detail, std::string("1 NaN of 256"));
    }

    void bisectOnAHealthyRun()
    {
        const BisectResult b = bisectOf(m_run, "nonfinite");
        QVERIFY(!b.firstBad);
        QCOMPARE(b.lastGood, std::optional<size_t>(kCheckpoints - 1));
        QVERIFY(b.opened.size() <= 4);
        // thresholds: every checkpoint has some |x| above 0, none above 1e6
        QCOMPARE(bisectOf(m_run, "max_abs>0").firstBad, std::optional<size_t>(0));
        QVERIFY(!bisectOf(m_run, "max_abs>1e6").firstBad);
        // the first checkpoint has no update: update_ratio is first true at checkpoint 1
        QCOMPARE(bisectOf(m_run, "update_ratio>0").firstBad, std::optional<size_t>(1));
    }

    void predicatesSayWhatIsExpected()
    {
        for (const char* bad : {"", "NaN", "max_abs", "max_abs>", "max_abs>x", "max_abs>1e3x", "update_ratio>inf", "norm>1", "max_abs>nan"}) {
            auto p = parseBisectPredicate(bad);
            QVERIFY2(!p, bad);
            QCOMPARE(p.error().code, ErrorCode::Usage);
            QVERIFY(p.error().what.find("expected") != std::string::npos);
        }
        auto p = parseBisectPredicate("update_ratio>0.5");
        QVERIFY(p);
        QCOMPARE(p->kind, BisectPredicate::Kind::UpdateRatio);
        QCOMPARE(p->threshold, 0.5);
    }

    void divergingRunIsFoundWhereItBlowsUp()
    {
        QProcess help;
        help.start(kTrainer, {QStringLiteral("--help")});
        help.waitForFinished();
        if (!help.readAllStandardOutput().contains("--diverge-at"))
            CKPT_SKIP(QStringLiteral("ckpt-train has no --diverge-at"));
        const QString run = m_tmp.filePath(QStringLiteral("diverged"));
        QVERIFY(train({QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("600"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("50"), QStringLiteral("--diverge-at"), QStringLiteral("400"),
            // the plain MLP's Adam steps stay bounded even at 10^6 times the rate; residual blocks blow up
            QStringLiteral("--blocks"), QStringLiteral("2")}));
        const Timeline t = timelineOf(run, false, {});
        const auto firstNan = std::find_if(t.events.begin(), t.events.end(), [](const auto& e) { return e.kind == TimelineEventKind::FirstNan; });
        QVERIFY(firstNan != t.events.end());
        const BisectResult b = bisectOf(run, "nan");
        QVERIFY(b.firstBad);
        QCOMPARE(uint32_t(*b.firstBad), firstNan->checkpoint);
        QVERIFY(*t.checkpoints[*b.firstBad].point.step >= 400);       // nothing before the learning rate was raised
        QVERIFY(!b.badPaths.empty());
        QCOMPARE(bisectOf(run, "nan", true).firstBad, b.firstBad);     // the scan agrees
        // the update ratio jumps no later than the values go non-finite, and a spike or an Inf marks it.
        // Once everything is NaN no finite pair is left to measure a step: not monotonic, so --scan.
        auto ratio = bisectOf(run, "update_ratio>10", true);
        QVERIFY(ratio.firstBad && *ratio.firstBad <= *b.firstBad);
        QVERIFY(std::any_of(t.events.begin(), t.events.end(), [&](const auto& e) {
            return e.checkpoint <= firstNan->checkpoint && (e.kind == TimelineEventKind::Spike || e.kind == TimelineEventKind::FirstInf);
        }));
    }
};

QTEST_GUILESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
