// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The sharded timeline (core/run/timeline.h: writeTimelinePartial, mergeTimelinePartials; `ckpt timeline
// --shard I/N --partial OUT`, `--merge PARTIAL...`) on runs the reference trainer writes: the merged
// timeline is the single-process `--no-cache` document byte for byte (apart from "cache") for every
// layout and every N, from one share to more shares than checkpoints (checkpoints split by tensor
// ranges, and tensors of several stats chunks split by element ranges, f32 and f16, NaN and Inf
// included); a missing, foreign, damaged or stale partial, or a share missing in the middle of a
// tensor, is one error naming it.
#include "core/report/timelinejson.h"
#include "core/run/timeline.h"
#include "tests/ckptskip.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <functional>

using namespace ckpt;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(std::vector<uint64_t>)
using ShareGroups = std::vector<std::pair<uint32_t, uint32_t>>; ///< timelineShareGroups: per checkpoint, its first and last share
Q_DECLARE_METATYPE(ShareGroups)

namespace {

const QString kTrainer = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
const QString kCkpt = QStringLiteral(CKPT_BIN_DIR "/ckpt");

bool train(const QStringList& args)
{
    QProcess p;
    p.start(kTrainer, args);
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

struct Ran {
    int exit = -1;
    QByteArray out, err;
};

Ran runCkpt(const QStringList& args)
{
    QProcess p;
    p.start(kCkpt, args);
    Ran r;
    if (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit)
        r.exit = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

RunCheckpoints listed(const QString& dir)
{
    auto run = listRunCheckpoints(dir.toStdString());
    if (!run)
        qFatal("%s", run.error().message().c_str());
    return *run;
}

/** The document without its cache counters (the one thing a merge reports differently). */
std::string withoutCache(const std::string& j)
{
    return j.substr(0, j.rfind("\"cache\""));
}

/** The text without its first line (which carries the read/reused counts). */
std::string withoutHeader(const std::string& t)
{
    return t.substr(t.find('\n') + 1);
}

Timeline reference(const RunCheckpoints& run, const std::string& filter = {})
{
    TimelineOptions o;
    o.useCache = false;
    o.filter = filter;
    auto t = computeTimeline(run, o);
    if (!t)
        qFatal("%s", t.error().message().c_str());
    return *t;
}

/** What the shares of one split did between them. */
struct ShareCounts {
    size_t split = 0;          ///< pieces that are tensor ranges of a shared checkpoint
    size_t sharedTensors = 0;  ///< tensors held as a range of chunks
    std::vector<uint32_t> onlyInsideATensor; ///< shares whose whole part is chunks in the middle of one tensor
};

/** Every share of N written to DIR/pI-of-N.part; their paths. */
std::vector<std::string> shards(const RunCheckpoints& run, uint32_t n, const QString& dir, ShareCounts* counts = nullptr)
{
    std::vector<std::string> files;
    QDir().mkpath(dir);
    for (uint32_t i = 1; i <= n; ++i) {
        files.push_back(QStringLiteral("%1/p%2-of-%3.part").arg(dir).arg(i).arg(n).toStdString());
        auto done = writeTimelinePartial(run, TimelineShard{i, n}, files.back());
        if (!done)
            qFatal("%s", done.error().message().c_str());
        if (counts) {
            counts->split += done->split;
            counts->sharedTensors += done->sharedTensors;
            if (done->tensors == 1 && done->sharedTensors == 1)
                counts->onlyInsideATensor.push_back(i);
        }
    }
    return files;
}

Result<Timeline> merged(const RunCheckpoints& run, const std::vector<std::string>& files, const std::string& filter = {})
{
    TimelineOptions o;
    o.useCache = false;
    o.filter = filter;
    return mergeTimelinePartials(run, files, o);
}

} // namespace

class TestTimelineShards : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QString m_diverged, m_pending, m_graphs, m_epochs, m_broken, m_wide, m_wideHalf;

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(kTrainer).isExecutable())
            CKPT_SKIP(QStringLiteral("ckpt-train is not built: ") + kTrainer);
        QVERIFY(m_tmp.isValid());
        const auto s = [](const char* t) { return QString::fromLatin1(t); };
        m_diverged = m_tmp.filePath(s("diverged"));
        m_pending = m_tmp.filePath(s("pending"));
        m_graphs = m_tmp.filePath(s("graphs"));
        m_epochs = m_tmp.filePath(s("epochs"));
        m_broken = m_tmp.filePath(s("broken"));
        m_wide = m_tmp.filePath(s("wide"));
        m_wideHalf = m_tmp.filePath(s("wide-half"));
        QVERIFY(train({s("--out"), m_diverged, s("--steps"), s("40"), s("--checkpoint-every"), s("4"), s("--grad-accum"), s("2"), s("--diverge-at"),
            s("30"), s("--layout"), s("training-record")}));
        // gradients pending in every other checkpoint only: their predecessor is two checkpoints back
        QVERIFY(train({s("--out"), m_pending, s("--steps"), s("40"), s("--checkpoint-every"), s("3"), s("--grad-accum"), s("2"), s("--blocks"),
            s("1"), s("--layout"), s("training-record")}));
        QVERIFY(train({s("--out"), m_graphs, s("--steps"), s("40"), s("--checkpoint-every"), s("3"), s("--grad-accum"), s("2"), s("--layout"),
            s("gradient-checkpoint")}));
        QVERIFY(train({s("--out"), m_epochs, s("--steps"), s("40"), s("--checkpoint-every"), s("4"), s("--dataset-size"), s("64"), s("--batch-size"),
            s("8"), s("--layout"), s("burn-run")})); // 5 epochs
        // hidden 768: weights and moments of 589824 elements, 2.25 stats chunks, which more shares than
        // checkpoints split by element ranges; diverging (NaN and Inf in them), gradients pending
        QVERIFY(train({s("--out"), m_wide, s("--steps"), s("8"), s("--checkpoint-every"), s("2"), s("--grad-accum"), s("2"), s("--diverge-at"),
            s("5"), s("--hidden"), s("768"), s("--blocks"), s("1"), s("--layout"), s("training-record")}));
        QVERIFY(train({s("--out"), m_wideHalf, s("--steps"), s("8"), s("--checkpoint-every"), s("2"), s("--diverge-at"), s("5"), s("--hidden"),
            s("768"), s("--blocks"), s("1"), s("--precision"), s("half"), s("--layout"), s("training-record")}));
        // a copy with two checkpoints that cannot be read, one of them the first of a share at N = 3
        fs::copy(m_pending.toStdString(), m_broken.toStdString(), fs::copy_options::recursive);
        const RunCheckpoints b = listed(m_broken);
        QVERIFY(b.points.size() > 8);
        fs::resize_file(b.points[4].files.front().path, 3000);
        fs::resize_file(b.points[5].files.front().path, 100);
        { // and one that keeps its size (so that with more shares than checkpoints it is split): a byte no encoder writes first
            QFile f(QString::fromStdString(b.points[8].files.front().path));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.write("\xc1", 1) == 1);
        }
    }

    void mergedEqualsSingleProcess_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("layout");
        QTest::newRow("records, diverging") << m_diverged << int(RunLayout::Records);
        QTest::newRow("records, pending gradients") << m_pending << int(RunLayout::Records);
        QTest::newRow("gradient checkpoints") << m_graphs << int(RunLayout::GradientCheckpoints);
        QTest::newRow("burn-train epochs") << m_epochs << int(RunLayout::BurnEpochs);
        QTest::newRow("unreadable checkpoints") << m_broken << int(RunLayout::Records);
        QTest::newRow("tensors of several chunks, f32") << m_wide << int(RunLayout::Records);
        QTest::newRow("tensors of several chunks, f16") << m_wideHalf << int(RunLayout::Records);
    }
    void mergedEqualsSingleProcess()
    {
        QFETCH(QString, run);
        QFETCH(int, layout);
        const RunCheckpoints r = listed(run);
        QCOMPARE(int(r.layout), layout);
        const Timeline single = reference(r);
        const std::string json = withoutCache(timelineJson(single)), text = withoutHeader(timelineText(single));
        const std::string filter = "*weight*";
        const std::string filteredJson = withoutCache(timelineJson(reference(r, filter)));
        const uint32_t n = uint32_t(r.points.size());
        const bool wide = run == m_wide || run == m_wideHalf;
        std::vector<uint32_t> splits = {1u, 2u, 3u, 7u, n + 5};
        if (wide)
            splits.insert(splits.end(), {3 * n + 1, 11 * n}); // a tensor over three shares, a share inside one tensor
        size_t sharedTensors = 0; // over the splits with more shares than checkpoints
        for (uint32_t shares : splits) {
            ShareCounts counts;
            const auto files = shards(r, shares, run + QStringLiteral("-parts-%1").arg(shares), &counts);
            auto t = merged(r, files);
            QVERIFY2(t, t ? "" : t.error().message().c_str());
            QCOMPARE(t->read, uint64_t(0));
            QCOMPARE(t->reused, uint64_t(n));
            QVERIFY2(withoutCache(timelineJson(*t)) == json, qPrintable(QStringLiteral("N = %1").arg(shares)));
            QVERIFY2(withoutHeader(timelineText(*t)) == text, qPrintable(QStringLiteral("N = %1").arg(shares)));
            auto f = merged(r, files, filter);
            QVERIFY(f);
            QVERIFY2(withoutCache(timelineJson(*f)) == filteredJson, qPrintable(QStringLiteral("--filter, N = %1").arg(shares)));
            if (shares > n)
                QVERIFY(counts.split > 0); // more shares than checkpoints: checkpoints split by tensor ranges
            if (shares > n)
                sharedTensors += counts.sharedTensors;
            if (wide && shares == 11 * n)
                QVERIFY(!counts.onlyInsideATensor.empty());
            if (wide) // bit for bit, not only as far as the JSON's digits go
                for (size_t k = 0; k < single.series.size(); ++k)
                    for (size_t j = 0; j < single.series[k].points.size(); ++j) {
                        const TimelinePoint &a = single.series[k].points[j], &b = t->series[k].points[j];
                        for (const auto& [x, y] : {std::pair{a.l2, b.l2}, {a.maxAbs, b.maxAbs}, {a.mean, b.mean}, {a.std, b.std},
                                 {a.updateL2.value_or(-1), b.updateL2.value_or(-1)}, {a.updateRatio.value_or(-1), b.updateRatio.value_or(-1)}})
                            QCOMPARE(std::bit_cast<uint64_t>(y), std::bit_cast<uint64_t>(x));
                    }
        }
        if (wide) // what the comparison covers: large tensors split by element ranges, with non-finite values
            QVERIFY(sharedTensors > 0);
        if (wide)
            QVERIFY(std::any_of(single.series.begin(), single.series.end(), [](const auto& s) {
                return s.points.front().count > StatsChunkElements
                    && std::any_of(s.points.begin(), s.points.end(), [](const auto& p) { return p.nan + p.inf > 0; });
            }));
        // what the comparison covers: updates against the predecessor, and for the diverging run, events
        QVERIFY(std::any_of(single.series.begin(), single.series.end(), [](const auto& s) {
            return std::any_of(s.points.begin(), s.points.end(), [](const auto& p) { return p.updateRatio.has_value(); });
        }));
        if (run == m_diverged)
            QVERIFY(!single.events.empty());
        if (run == m_broken)
            QVERIFY(!single.checkpoints[4].valid && !single.checkpoints[5].valid && !single.checkpoints[8].valid);
    }

    /**
     * The plan every share and the merge compute (timelineShareGroups), on runs of the sizes users have:
     * many small checkpoints go whole; large ones go to groups of shares that each take a column of
     * every checkpoint in the group (so a checkpoint's predecessor is the same share's).
     */
    void shareGroups_data()
    {
        QTest::addColumn<std::vector<uint64_t>>("sizes");
        QTest::addColumn<uint32_t>("shares");
        QTest::addColumn<ShareGroups>("groups");
        constexpr uint64_t MiB = uint64_t(1) << 20, GiB = uint64_t(1) << 30;
        using Groups = ShareGroups;
        Groups whole;
        for (uint32_t i = 0; i < 96; ++i)
            whole.push_back({i / 12, i / 12});
        QTest::newRow("96 x 64 MiB in 8: 12 whole checkpoints a share") << std::vector<uint64_t>(96, 64 * MiB) << 8u << whole;
        QTest::newRow("2 x 2 GiB in 6: one group, 6 columns of both") << std::vector<uint64_t>(2, 2 * GiB) << 6u << Groups(2, {0, 5});
        Groups halves(16, {0, 3});
        std::fill(halves.begin() + 8, halves.end(), std::pair{4u, 7u});
        QTest::newRow("16 x 1 GiB in 8: two groups of 8 checkpoints, 4 columns of 256 MiB")
            << std::vector<uint64_t>(16, GiB) << 8u << halves;
        std::vector<uint64_t> mixed(10, 10 * MiB);
        mixed[0] = GiB;
        QTest::newRow("1 GiB and 9 x 10 MiB in 8: every share a column of all") << mixed << 8u << Groups(10, {0, 7});
        QTest::newRow("4 small in 7: groups of 2, 2 and 3 shares") << std::vector<uint64_t>(4, MiB) << 7u
                                                                   << Groups{{0, 1}, {2, 3}, {2, 3}, {4, 6}};
        QTest::newRow("4 small in 2: two whole each") << std::vector<uint64_t>(4, MiB) << 2u << Groups{{0, 0}, {0, 0}, {1, 1}, {1, 1}};
        QTest::newRow("3 in 1") << std::vector<uint64_t>(3, GiB) << 1u << Groups(3, {0, 0});
    }
    void shareGroups()
    {
        QFETCH(std::vector<uint64_t>, sizes);
        QFETCH(uint32_t, shares);
        QFETCH(ShareGroups, groups);
        RunCheckpoints run;
        for (size_t i = 0; i < sizes.size(); ++i) {
            RunPoint p;
            p.index = i;
            p.bytes = sizes[i];
            run.points.push_back(p);
        }
        QCOMPARE(timelineShareGroups(run, shares), groups);
    }

    /**
     * While shares are still running (the app's cluster scan): the checkpoints of the shares that are in
     * equal the single scan's, those of the missing shares wait, by name, and nothing is cached.
     */
    void mergeSoFarShowsWhatIsIn()
    {
        const RunCheckpoints r = listed(m_diverged);
        const Timeline single = reference(r);
        const auto files = shards(r, 4, m_tmp.filePath(QStringLiteral("sofar")));
        const QString cache = m_tmp.filePath(QStringLiteral("sofar-cache"));
        TimelineOptions o;
        o.partialsSoFar = true;
        o.cacheDir = cache.toStdString();
        auto t = mergeTimelinePartials(r, {files[0], files[2]}, o); // shares 2 and 4 still running
        QVERIFY2(t, t ? "" : t.error().message().c_str());
        QCOMPARE(t->checkpoints.size(), r.points.size());
        size_t waiting = 0, in = 0;
        for (size_t i = 0; i < t->checkpoints.size(); ++i) {
            const auto& c = t->checkpoints[i];
            if (!c.valid) {
                ++waiting;
                QVERIFY2(c.error.find("waiting for shard") != std::string::npos, c.error.c_str());
                continue;
            }
            ++in;
            // its statistics are the single scan's (the update ratio of a share's first checkpoint waits for its predecessor)
            for (size_t s = 0; s < single.series.size(); ++s) {
                auto same = [&](const std::vector<TimelinePoint>& pts) {
                    return std::find_if(pts.begin(), pts.end(), [&](const TimelinePoint& p) { return p.checkpoint == i; });
                };
                const auto a = same(single.series[s].points);
                if (a == single.series[s].points.end())
                    continue;
                const auto it = std::find_if(t->series.begin(), t->series.end(), [&](const auto& x) { return x.path == single.series[s].path; });
                QVERIFY(it != t->series.end());
                const auto b = same(it->points);
                QVERIFY(b != it->points.end());
                QCOMPARE(b->l2, a->l2);
                QCOMPARE(b->nan, a->nan);
                QCOMPARE(b->updateL2.has_value(), a->updateL2.has_value());
            }
        }
        QVERIFY(waiting > 0 && in > 0);
        QVERIFY(t->series.size() <= single.series.size()); // a tensor after a waiting checkpoint goes on in its own row, not a new one
        QVERIFY(!QDir(cache).exists() || QDir(cache).isEmpty()); // nothing waiting ever reaches the cache
        // all four in: the same as the full merge
        auto all = mergeTimelinePartials(r, files, o);
        QVERIFY(all);
        QCOMPARE(withoutCache(timelineJson(*all)), withoutCache(timelineJson(single)));
    }

    void mergeRefusesMissingForeignAndDamagedPartials()
    {
        const RunCheckpoints r = listed(m_pending);
        const QString dir = m_tmp.filePath(QStringLiteral("refused"));
        const auto files = shards(r, 3, dir);
        auto refused = [&](const std::vector<std::string>& given, const std::vector<std::string>& says) {
            auto t = merged(r, given);
            QVERIFY(!t);
            const std::string m = t.error().message();
            for (const auto& s : says)
                QVERIFY2(m.find(s) != std::string::npos, (m + "\nlacks: " + s).c_str());
            QVERIFY(m.find('\n') == std::string::npos); // one message
        };
        // a missing share: the checkpoint it should have produced and the shard, by name
        refused({files[0], files[2]}, {"checkpoint checkpoint/record-", "is in no partial", "shard 2/3 (no partial given)"});
        // the same shard twice, shards of another split, a partial of another run
        refused({files[0], files[1], files[1], files[2]}, {files[1], "given twice"});
        const auto seven = shards(r, 7, dir + QStringLiteral("/seven"));
        refused({files[0], seven[1], files[2]}, {seven[1], "another split"});
        const auto foreign = shards(listed(m_diverged), 3, dir + QStringLiteral("/foreign"));
        refused({files[0], foreign[1], files[2]}, {foreign[1], "a partial of the run", m_diverged.toStdString()});
        // damaged: truncated, garbage appended, not a partial at all, absent
        auto damaged = [&](const char* name, const std::function<void(QByteArray&)>& edit) -> std::string {
            QFile in(QString::fromStdString(files[1]));
            if (!in.open(QIODevice::ReadOnly))
                qFatal("cannot read %s", files[1].c_str());
            QByteArray bytes = in.readAll();
            edit(bytes);
            const QString path = dir + QLatin1Char('/') + QLatin1String(name);
            QFile out(path);
            if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size())
                qFatal("cannot write %s", qPrintable(path));
            return path.toStdString();
        };
        for (int cut : {4, 12, 100, 1000}) {
            const auto path = damaged("cut.part", [&](QByteArray& b) { b.chop(std::min<int>(cut, int(b.size()) - 9)); });
            refused({files[0], path, files[2]}, {path, "damaged or truncated"});
        }
        const auto extra = damaged("extra.part", [](QByteArray& b) { b.append("trailing"); });
        refused({files[0], extra, files[2]}, {extra, "damaged or truncated"});
        // a flipped byte anywhere, in a statistic as well as in a length: the checksum finds it
        for (int at : {9, 40, 200, 1000, 5000, -12, -3})
            for (char mask : {'\x01', '\x80'}) {
                const auto flipped = damaged("flipped.part", [&](QByteArray& b) {
                    const qsizetype i = at >= 0 ? std::min<qsizetype>(at, b.size() - 1) : b.size() + at;
                    b[i] = char(b[i] ^ mask);
                });
                refused({files[0], flipped, files[2]}, {flipped, "damaged or truncated"});
            }
        const auto text = damaged("text.part", [](QByteArray& b) { b = "hello\n"; });
        refused({files[0], text, files[2]}, {text, "not a timeline partial"});
        refused({files[0], QString(dir + QStringLiteral("/absent.part")).toStdString(), files[2]}, {"absent.part"});

        // a checkpoint rewritten after the shards ran: the partial no longer describes it
        const QString copy = m_tmp.filePath(QStringLiteral("rewritten"));
        fs::copy(m_pending.toStdString(), copy.toStdString(), fs::copy_options::recursive);
        const RunCheckpoints c = listed(copy);
        const auto mine = shards(c, 3, dir + QStringLiteral("/rewritten"));
        fs::last_write_time(c.points[1].files.front().path, fs::last_write_time(c.points[1].files.front().path) + std::chrono::seconds(5));
        auto stale = merged(listed(copy), mine);
        QVERIFY(!stale);
        QVERIFY2(stale.error().message().find("changed since") != std::string::npos, stale.error().message().c_str());
        QVERIFY(stale.error().message().find(c.points[1].file) != std::string::npos);
    }

    /** A share whose whole part is chunks inside one tensor: missing, it is named, and a merge so far waits for it. */
    void missingShareInsideATensor()
    {
        const RunCheckpoints r = listed(m_wide);
        const uint32_t n = 11 * uint32_t(r.points.size());
        ShareCounts counts;
        const auto files = shards(r, n, m_tmp.filePath(QStringLiteral("inside")), &counts);
        QVERIFY(!counts.onlyInsideATensor.empty());
        const uint32_t gone = counts.onlyInsideATensor.front();
        std::vector<std::string> given = files;
        given.erase(given.begin() + std::ptrdiff_t(gone - 1));
        auto t = merged(r, given);
        QVERIFY(!t);
        const std::string m = t.error().message();
        for (const std::string& says : {std::string(" of tensor "), std::string("in no partial"), "shard " + std::to_string(gone) + "/"
                 + std::to_string(n) + " (no partial given)"})
            QVERIFY2(m.find(says) != std::string::npos, (m + "\nlacks: " + says).c_str());
        QVERIFY(m.find("chunk") != std::string::npos);

        TimelineOptions o;
        o.useCache = false;
        o.partialsSoFar = true;
        auto soFar = mergeTimelinePartials(r, given, o);
        QVERIFY2(soFar, soFar ? "" : soFar.error().message().c_str());
        const auto waiting = std::count_if(soFar->checkpoints.begin(), soFar->checkpoints.end(), [](const TimelineCheckpoint& c) {
            return !c.valid && c.error.find("waiting for") != std::string::npos;
        });
        QCOMPARE(waiting, 1);
    }

    void mergeFillsTheCache()
    {
        const RunCheckpoints r = listed(m_diverged);
        const auto files = shards(r, 4, m_tmp.filePath(QStringLiteral("cached")));
        TimelineOptions o;
        o.cacheDir = m_tmp.filePath(QStringLiteral("cache")).toStdString();
        auto t = mergeTimelinePartials(r, files, o);
        QVERIFY(t);
        auto again = computeTimeline(r, o); // the cache took the partials: nothing is read
        QVERIFY(again);
        QCOMPARE(again->read, uint64_t(0));
        QCOMPARE(again->reused, uint64_t(r.points.size()));
        QCOMPARE(withoutCache(timelineJson(*again)), withoutCache(timelineJson(reference(r))));
    }

    void commandLine()
    {
        if (!QFileInfo(kCkpt).isExecutable())
            CKPT_SKIP(QStringLiteral("ckpt is not built: ") + kCkpt);
        const QString dir = m_tmp.filePath(QStringLiteral("cli"));
        QDir().mkpath(dir);
        QStringList parts;
        for (int i = 1; i <= 3; ++i) {
            parts << QStringLiteral("%1/part %2 'of' 3.bin").arg(dir).arg(i); // spaces and quotes are just bytes of a path
            const Ran s = runCkpt({QStringLiteral("timeline"), m_pending, QStringLiteral("--shard"), QStringLiteral("%1/3").arg(i), QStringLiteral("--partial"), parts.back()});
            QVERIFY2(s.exit == 0, s.err.constData());
            QVERIFY(QFileInfo::exists(parts.back()));
        }
        for (const QStringList& extra : {QStringList{}, QStringList{QStringLiteral("--filter"), QStringLiteral("*gradients*")}}) {
            const Ran single = runCkpt(QStringList{QStringLiteral("timeline"), m_pending, QStringLiteral("--json"), QStringLiteral("--no-cache")} + extra);
            const Ran merge = runCkpt(QStringList{QStringLiteral("timeline"), m_pending, QStringLiteral("--merge")} + parts
                + QStringList{QStringLiteral("--json"), QStringLiteral("--no-cache")} + extra);
            QCOMPARE(single.exit, 0);
            QVERIFY2(merge.exit == 0, merge.err.constData());
            QCOMPARE(withoutCache(merge.out.toStdString()), withoutCache(single.out.toStdString()));
        }
        const Ran missing = runCkpt({QStringLiteral("timeline"), m_pending, QStringLiteral("--merge"), parts[0], parts[2], QStringLiteral("--no-cache")});
        QCOMPARE(missing.exit, 1);
        QVERIFY2(missing.err.contains("shard 2/3"), missing.err.constData());

        const QString out = dir + QStringLiteral("/x.part");
        const QList<QStringList> usage = {
            {QStringLiteral("--shard"), QStringLiteral("0/3"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("4/3"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("1/0"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("3"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("-1/3"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("1/3x"), QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("1/3")},
            {QStringLiteral("--partial"), out},
            {QStringLiteral("--shard"), QStringLiteral("1/3"), QStringLiteral("--partial"), out, QStringLiteral("--merge"), parts[0]},
            {QStringLiteral("--shard"), QStringLiteral("1/3"), QStringLiteral("--partial"), out, QStringLiteral("--filter"), QStringLiteral("*")},
            {QStringLiteral("--merge")},
            {QStringLiteral("--shard")},
        };
        for (const QStringList& args : usage) {
            const Ran u = runCkpt(QStringList{QStringLiteral("timeline"), m_pending} + args);
            QVERIFY2(u.exit == 2, qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": exit %1").arg(u.exit)));
            QVERIFY(!QFileInfo::exists(out));
        }
        // two runs without --merge: still one RUN
        QCOMPARE(runCkpt({QStringLiteral("timeline"), m_pending, parts[0]}).exit, 2);
    }
};

QTEST_GUILESS_MAIN(TestTimelineShards)
#include "tst_timelineshards.moc"
