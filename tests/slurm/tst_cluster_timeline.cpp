// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline RUN --slurm` on a real two-node Slurm cluster (tests/slurm/privatecluster.h): the
// shares run as an array over both nodes, the merge job's timeline equals `ckpt timeline --no-cache`
// of the same run byte for byte (apart from `cache`), in a run directory whose path has spaces and a
// quote; a task that fails (its partial's path blocked) is submitted again, or, out of retries,
// reported by name; a task killed from outside while Slurm shows it RUNNING (kill -9 of its process, as
// the OOM killer does; scancel --signal=KILL of the one array task, as an operator does) is submitted
// again, or, out of retries, reported by name with its shard and Slurm state: never a timeline with a
// share silently missing; one killed after writing its partial still gives the merge (submitted again
// without the dependency Slurm says failed); --node-ckpt runs another ckpt on the nodes (here a wrapper that holds the
// task to be killed); the Run panel's cluster scan; --dry-run shows the scripts, every path (the
// nodes' ckpt too) one single-quoted word.
#include "tests/slurm/privatecluster.h"
#include "ui/process/clusterscan.h"
#include "ui/widgets/runpanel.h"

#include "core/report/timelinejson.h"
#include "core/run/timeline.h"

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/types.h>

using clustertest::fileText;
using clustertest::PrivateCluster;
using ckpt::ui::RunPanel;

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run run(const QString& program, const QStringList& args, int timeoutMs = 300000)
{
    QProcess p;
    p.start(QStringLiteral(CKPT_BIN_DIR "/") + program, args);
    p.waitForFinished(timeoutMs);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

/// \a s as one word for sh, as ckpt's scripts quote it: single-quoted, a quote becoming '\''.
QString shellWord(QString s)
{
    s.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + s + QLatin1Char('\'');
}

QString squeueState(const QString& job)
{
    return clustertest::runTool(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-j"), job, QStringLiteral("-o"), QStringLiteral("%T")})
        .trimmed();
}

/**
 * `ckpt timeline --slurm` whose share 2 is killed while it runs: --node-ckpt is a wrapper that, on
 * the first attempt at share 2 only, leaves its pid in DIR/held/pid and holds the task (RUNNING) in a
 * long sleep, in place of the task's own process (exec: the pid is the task's, and a kill of it ends
 * the task, not a child of it); every other run, the retry too, is the real ckpt. With
 * Hold::AfterPartial the held attempt first runs the real ckpt, so the task is killed after its
 * partial was written. The destructor cleans up after a failed check: ckpt, stopped, cancels its
 * jobs; the held task is cancelled too.
 */
class ScanWithHeldShard {
public:
    enum class Hold { BeforePartial, AfterPartial };
    ScanWithHeldShard(const QString& dir, const QString& run, const QStringList& options, Hold hold = Hold::BeforePartial)
        : m_dir(dir)
    {
        QDir().mkpath(dir);
        const QString wrapper = dir + QStringLiteral("/node ckpt 'wrapper'.sh");
        QFile f(wrapper);
        if (!f.open(QIODevice::WriteOnly))
            return;
        // mkdir is the first attempt's claim (atomic, so only one run ever holds); the pid file is
        // renamed into place, so that the test never reads half of it.
        const QString held = shellWord(dir + QStringLiteral("/held"));
        const QString realCkpt = shellWord(QStringLiteral(CKPT_BIN_DIR "/ckpt"));
        f.write(QStringLiteral("#!/bin/sh\n"
                               "case \"$*\" in\n"
                               "*' --shard 2/'*)\n"
                               "    if mkdir %1 2>/dev/null; then\n"
                               "        %3\n"
                               "        echo $$ >%1/pid.tmp && mv %1/pid.tmp %1/pid\n"
                               "        exec sleep 600\n"
                               "    fi ;;\n"
                               "esac\n"
                               "exec %2 \"$@\"\n")
                    .arg(held, realCkpt, hold == Hold::AfterPartial ? realCkpt + QStringLiteral(" \"$@\" || exit 1") : QStringLiteral(":"))
                    .toUtf8());
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        m_ckpt.start(QStringLiteral(CKPT_BIN_DIR "/ckpt"),
            QStringList {QStringLiteral("timeline"), run, QStringLiteral("--slurm"), QStringLiteral("--work"), dir, QStringLiteral("--node-ckpt"), wrapper}
                + options);
    }
    ~ScanWithHeldShard()
    {
        if (m_ckpt.state() != QProcess::NotRunning) {
            m_ckpt.terminate();
            if (!m_ckpt.waitForFinished(30000)) {
                m_ckpt.kill();
                m_ckpt.waitForFinished(5000);
            }
        }
        if (!m_arrayJob.isEmpty())
            clustertest::runTool(QStringLiteral("scancel"), {m_arrayJob});
    }
    ScanWithHeldShard(const ScanWithHeldShard&) = delete;
    ScanWithHeldShard& operator=(const ScanWithHeldShard&) = delete;

    /** Waits until share 2 holds: its pid is written and squeue shows its array task RUNNING. */
    bool waitUntilShard2Holds()
    {
        const QRegularExpression arrayJob(QStringLiteral("array job (\\d+)"));
        return QTest::qWaitFor(
            [&] {
                if (m_ckpt.state() == QProcess::NotRunning)
                    return true; // ended early: the caller's checks say why
                m_err += m_ckpt.readAllStandardError();
                if (m_arrayJob.isEmpty())
                    m_arrayJob = arrayJob.match(QString::fromUtf8(m_err)).captured(1);
                return !m_arrayJob.isEmpty() && QFileInfo::exists(m_dir + QStringLiteral("/held/pid"))
                    && squeueState(task2()) == QLatin1String("RUNNING");
            },
            120000)
            && m_ckpt.state() != QProcess::NotRunning;
    }
    QString task2() const { return m_arrayJob + QStringLiteral("_2"); }
    pid_t heldPid() const { return pid_t(fileText(m_dir + QStringLiteral("/held/pid")).trimmed().toInt()); }

    /**
     * kill -9 of the held task's own process, as the OOM killer does; empty, or why not. The test runs
     * as root: it kills only the holding sleep itself, never a pid that has since become another process's.
     */
    QString killHeldTask() const
    {
        const pid_t pid = heldPid();
        if (pid <= 1)
            return QStringLiteral("no pid in the held task's pid file");
        if (const QByteArray comm = fileText(QStringLiteral("/proc/%1/comm").arg(pid)).trimmed(); comm != "sleep")
            return QStringLiteral("pid %1 is '%2', not the holding sleep").arg(pid).arg(QString::fromUtf8(comm));
        if (::kill(pid, SIGKILL) != 0)
            return QStringLiteral("kill -9 %1: %2").arg(pid).arg(QString::fromLocal8Bit(std::strerror(errno)));
        return {};
    }

    /** Waits for ckpt to end; its exit code (-1 when it did not end by itself). */
    int finish()
    {
        const bool ended = m_ckpt.waitForFinished(300000);
        m_err += m_ckpt.readAllStandardError();
        m_out = m_ckpt.readAllStandardOutput();
        return ended && m_ckpt.exitStatus() == QProcess::NormalExit ? m_ckpt.exitCode() : -1;
    }
    const QByteArray& err() const { return m_err; }
    const QByteArray& out() const { return m_out; }

private:
    QString m_dir, m_arrayJob;
    QProcess m_ckpt;
    QByteArray m_err, m_out;
};

/// The document without `cache`, which says how it was computed, not what.
QByteArray withoutCache(const QByteArray& json)
{
    QJsonObject o = QJsonDocument::fromJson(json).object();
    o.remove(QStringLiteral("cache"));
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

class TestClusterTimeline : public QObject {
    Q_OBJECT
    PrivateCluster m_cluster;
    QTemporaryDir m_dir {QStringLiteral("/tmp/ckpt cluster scan 'q'-XXXXXX")}; // spaces and a quote in every path
    QString m_run;

    QString work(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (const QString why = PrivateCluster::unavailable(); !why.isEmpty())
            CKPT_SKIP(why);
        QString error;
        QVERIFY2(m_cluster.start({.nodes = 2}, &error), qPrintable(error));
        m_run = m_dir.filePath(QStringLiteral("run"));
        // --grad-accum 2 with a checkpoint every 3 steps: pending gradients in every other checkpoint; the blow-up gives events.
        const Run t = run(QStringLiteral("ckpt-train"), {QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("24"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--grad-accum"), QStringLiteral("2"), QStringLiteral("--diverge-at"),
            QStringLiteral("18"), QStringLiteral("--layout"), QStringLiteral("training-record")});
        QVERIFY2(t.code == 0, t.err.constData());
    }

    void arrayOverTwoNodesEqualsTheLocalTimeline()
    {
        const Run local = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--no-cache"), QStringLiteral("--json")});
        QVERIFY2(local.code == 0, local.err.constData());
        const Run cluster = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--tasks"),
            QStringLiteral("4"), QStringLiteral("--json"), QStringLiteral("--work"), work(QStringLiteral("scan"))});
        QVERIFY2(cluster.code == 0, cluster.err.constData());
        QCOMPARE(withoutCache(cluster.out), withoutCache(local.out));

        // The shares ran on both nodes.
        const auto id = QRegularExpression(QStringLiteral("array job (\\d+)")).match(QString::fromUtf8(cluster.err));
        QVERIFY2(id.hasMatch(), cluster.err.constData());
        const QString jobs = clustertest::runTool(QStringLiteral("scontrol"), {QStringLiteral("-o"), QStringLiteral("show"), QStringLiteral("job"), id.captured(1)});
        QSet<QString> nodes;
        for (const auto& m : QRegularExpression(QStringLiteral(" NodeList=(cn\\d)")).globalMatch(jobs))
            nodes.insert(m.captured(1));
        QCOMPARE(nodes, (QSet<QString> {QStringLiteral("cn1"), QStringLiteral("cn2")}));
    }

    /** A share that fails is submitted again; the merged timeline is still complete. */
    void failedTaskIsRetried()
    {
        const QString dir = work(QStringLiteral("retry"));
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/partial-2.timeline-partial"))); // task 2 cannot write its partial...
        QProcess p;
        p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--tasks"),
            QStringLiteral("4"), QStringLiteral("--json"), QStringLiteral("--work"), dir});
        // ...until its first attempt has failed: then the way is cleared for the retry.
        QVERIFY(QTest::qWaitFor([&] { return fileText(dir + QStringLiteral("/task-2.log")).contains("ckpt:"); }, 120000));
        QVERIFY(QDir(dir + QStringLiteral("/partial-2.timeline-partial")).removeRecursively());
        QVERIFY(p.waitForFinished(300000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        QVERIFY2(err.contains("task 2 of 4 ended") && err.contains("submitted again"), err.constData());
        const Run local = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--no-cache"), QStringLiteral("--json")});
        QCOMPARE(withoutCache(p.readAllStandardOutput()), withoutCache(local.out));
    }

    /** Out of retries, the failed share is reported by name and the scan fails: never a timeline with a hole. */
    void failedTaskIsReportedByName()
    {
        const QString dir = work(QStringLiteral("fail"));
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/partial-3.timeline-partial")));
        const Run r = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--tasks"),
            QStringLiteral("3"), QStringLiteral("--retries"), QStringLiteral("0"), QStringLiteral("--work"), dir});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("task 3 of 3 (shard 3/3) ended FAILED without its partial"), r.err.constData());
        QVERIFY2(r.err.contains("1 of 3 shares failed"), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    /** A task killed while it runs (kill -9 of its process from outside Slurm, as the OOM killer does) is submitted again; the timeline is complete. */
    void killedTaskIsRetried()
    {
        ScanWithHeldShard scan(work(QStringLiteral("killed retry")), m_run, {QStringLiteral("--tasks"), QStringLiteral("4"), QStringLiteral("--json")});
        QVERIFY2(scan.waitUntilShard2Holds(), scan.err().constData());
        const QString killed = scan.killHeldTask();
        QVERIFY2(killed.isEmpty(), qPrintable(killed));
        QCOMPARE(scan.finish(), 0);
        QVERIFY2(scan.err().contains("task 2 of 4 ended FAILED without its partial: submitted again"), scan.err().constData());
        const Run local = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--no-cache"), QStringLiteral("--json")});
        QVERIFY2(local.code == 0, local.err.constData());
        QCOMPARE(withoutCache(scan.out()), withoutCache(local.out));
    }

    /** Out of retries, a task killed while it runs (scancel --signal=KILL of that array task) is reported by name; no timeline. */
    void killedTaskIsReportedByName()
    {
        ScanWithHeldShard scan(
            work(QStringLiteral("killed fail")), m_run, {QStringLiteral("--tasks"), QStringLiteral("3"), QStringLiteral("--retries"), QStringLiteral("0")});
        QVERIFY2(scan.waitUntilShard2Holds(), scan.err().constData());
        QProcess scancel;
        scancel.start(QStringLiteral("scancel"), {QStringLiteral("--signal=KILL"), scan.task2()});
        QVERIFY(scancel.waitForFinished(30000));
        QVERIFY2(scancel.exitStatus() == QProcess::NormalExit && scancel.exitCode() == 0, scancel.readAllStandardError().constData());
        QCOMPARE(scan.finish(), 1);
        QVERIFY2(scan.err().contains("task 2 of 3 (shard 2/3) ended CANCELLED without its partial"), scan.err().constData());
        QVERIFY2(scan.err().contains("1 of 3 shares failed"), scan.err().constData());
        QVERIFY(scan.out().isEmpty());
        // Nothing left behind: the merge job, which could never run, was cancelled.
        QVERIFY(QTest::qWaitFor([] { return clustertest::runTool(QStringLiteral("squeue"), {QStringLiteral("-h")}).trimmed().isEmpty(); }, 30000));
    }

    /**
     * A task killed after it wrote its partial (its last act) but before it exited: Slurm calls it
     * FAILED, so the merge's afterok can never be met; every partial is there, so the merge is
     * submitted again without the dependency, and the timeline is complete.
     */
    void killedAfterItsPartialStillMerges()
    {
        const QString dir = work(QStringLiteral("killed after"));
        ScanWithHeldShard scan(dir, m_run, {QStringLiteral("--tasks"), QStringLiteral("4"), QStringLiteral("--json"), QStringLiteral("--retries"),
            QStringLiteral("0")}, ScanWithHeldShard::Hold::AfterPartial);
        QVERIFY2(scan.waitUntilShard2Holds(), scan.err().constData());
        QVERIFY(QFileInfo::exists(dir + QStringLiteral("/partial-2.timeline-partial")));
        const QString killed = scan.killHeldTask();
        QVERIFY2(killed.isEmpty(), qPrintable(killed));
        QCOMPARE(scan.finish(), 0);
        QVERIFY2(scan.err().contains("failed after writing its partial"), scan.err().constData());
        const Run local = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--no-cache"), QStringLiteral("--json")});
        QCOMPARE(withoutCache(scan.out()), withoutCache(local.out));
    }

    /** The Run panel's "Scan on cluster": the heatmap fills from the partials, and ends with the local timeline. */
    void runPanelScansOnTheCluster()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointInspector")); // where ckpt finds the app's profiles
        QCoreApplication::setApplicationName(QStringLiteral("checkpoint-inspector"));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, work(QStringLiteral("config")));
        QSettings().clear(); // no profile saved: the app's default Slurm profile is offered
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        QSignalSpy listed(&panel, &RunPanel::runListed);
        panel.setRunDirectory(m_run);
        QVERIFY(listed.wait(60000));
        QVERIFY(QTest::qWaitFor([&] { return !panel.isBusy(); }, 60000)); // its own local scan first
        QVERIFY(panel.clusterButton()->isEnabled());
        QSignalSpy updated(&panel, &RunPanel::clusterScanUpdated);
        QSignalSpy finished(&panel, &RunPanel::clusterScanFinished);
        panel.clusterScan()->setProgram(QStringLiteral(CKPT_BIN_DIR "/ckpt")); // the test is not beside it, the app is
        QSignalSpy refused(panel.clusterScan(), &ckpt::ui::ClusterScan::finished);
        QVERIFY2(panel.startClusterScan(QStringLiteral("ckpt-train on Slurm (sbatch)"), 4),
            refused.isEmpty() ? "no run listed" : qPrintable(refused.front().at(1).toString()));
        QVERIFY(finished.wait(300000));
        QVERIFY2(finished.front().at(0).toBool(), qPrintable(finished.front().at(1).toString()));
        QVERIFY(updated.count() >= 1); // shown as the partials came in, before the end
        QVERIFY(updated.front().at(0).toInt() <= 4);
        QCOMPARE(panel.clusterScan()->partials().size(), 4);
        const Run local = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--no-cache"), QStringLiteral("--json")});
        QCOMPARE(withoutCache(QByteArray::fromStdString(ckpt::timelineJson(*panel.timeline()))), withoutCache(local.out));
        if (const QByteArray dir = qgetenv("CKPT_SHOT_DIR"); !dir.isEmpty())
            panel.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/run-cluster-scan.png"));
    }

    void dryRunPrintsTheScripts()
    {
        const QString nodeCkpt = QStringLiteral("/opt/ckpt 'node'/bin/ckpt"); // where the nodes have it: a path of its own, quoted as the others
        const Run r = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--tasks"),
            QStringLiteral("5"), QStringLiteral("--partition"), QStringLiteral("debug"), QStringLiteral("--dry-run"), QStringLiteral("--work"),
            work(QStringLiteral("dry")), QStringLiteral("--node-ckpt"), nodeCkpt});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains(shellWord(m_run).toUtf8()), r.out.constData()); // the run, one single-quoted word
        QCOMPARE(r.out.count((QStringLiteral("exec ") + shellWord(nodeCkpt) + QStringLiteral(" timeline ")).toUtf8()), 2); // the nodes' ckpt runs both scripts
        QVERIFY(r.out.contains("--shard \"$SLURM_ARRAY_TASK_ID\"/5"));
        QVERIFY(r.out.contains("'--array=1-5'"));
        QVERIFY(r.out.contains("'--partition=debug'"));
        QVERIFY(r.out.contains("--dependency=afterok:"));
        QVERIFY(!QFileInfo::exists(work(QStringLiteral("dry")))); // nothing written, nothing submitted
    }

    void nodeCkptBareNameOrRelativePath()
    {
        // A bare name is the node's PATH's to find, so the scripts keep it as given; a relative path is the
        // submitter's, made absolute (ckpt runs in the test's working directory, as QProcess starts it).
        const QString relative = QStringLiteral("tools dir/ckpt");
        const std::pair<QString, QString> cases[] = {{QStringLiteral("ckpt"), QStringLiteral("ckpt")},
            {relative, QDir::current().absoluteFilePath(relative)}};
        for (const auto& [given, written] : cases) {
            const Run r = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--dry-run"),
                QStringLiteral("--work"), work(QStringLiteral("dry")), QStringLiteral("--node-ckpt"), given});
            QVERIFY2(r.code == 0, r.err.constData());
            QCOMPARE(r.out.count((QStringLiteral("exec ") + shellWord(written) + QStringLiteral(" timeline ")).toUtf8()), 2);
        }
    }
};

QTEST_MAIN(TestClusterTimeline)
#include "tst_cluster_timeline.moc"
