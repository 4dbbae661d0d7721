// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline RUN --slurm` on a real two-node Slurm cluster (tests/slurm/privatecluster.h): the
// shares run as an array over both nodes, the merge job's timeline equals `ckpt timeline --no-cache`
// of the same run byte for byte (apart from `cache`), in a run directory whose path has spaces and a
// quote; a task that fails is submitted again, or, out of retries, reported by name; --dry-run shows
// the scripts, every path one single-quoted word.
#include "tests/slurm/privatecluster.h"
#include "ui/process/clusterscan.h"
#include "ui/widgets/runpanel.h"

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
        const Run r = run(QStringLiteral("ckpt"), {QStringLiteral("timeline"), m_run, QStringLiteral("--slurm"), QStringLiteral("--tasks"),
            QStringLiteral("5"), QStringLiteral("--partition"), QStringLiteral("debug"), QStringLiteral("--dry-run"), QStringLiteral("--work"),
            work(QStringLiteral("dry"))});
        QVERIFY2(r.code == 0, r.err.constData());
        QString quoted = m_run;
        quoted.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
        const QString word = QLatin1Char('\'') + quoted + QLatin1Char('\'');
        QVERIFY2(r.out.contains(word.toUtf8()), r.out.constData()); // the run, one single-quoted word
        QVERIFY(r.out.contains("--shard \"$SLURM_ARRAY_TASK_ID\"/5"));
        QVERIFY(r.out.contains("'--array=1-5'"));
        QVERIFY(r.out.contains("'--partition=debug'"));
        QVERIFY(r.out.contains("--dependency=afterok:"));
        QVERIFY(!QFileInfo::exists(work(QStringLiteral("dry")))); // nothing written, nothing submitted
    }
};

QTEST_MAIN(TestClusterTimeline)
#include "tst_cluster_timeline.moc"
