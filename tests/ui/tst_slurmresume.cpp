// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The Slurm profile against a real single-node Slurm from Debian (slurm-wlm + munge), configured on
// localhost inside the test: its own munge key and socket, its own ports, state and spool in a
// temporary directory, daemons in the foreground as children of this test. From a demo run the Resume
// panel submits a resumption of ckpt-train with the Slurm profile; the job's output streams into the
// live log and loss plot, and the record it writes is byte-identical to a straight run's. scancel
// stops a long job, which checkpoints first.
#include "tests/ckptskip.h"
#include "tests/slurm/privatecluster.h"
#include "ui/mainwindow.h"
#include "ui/plots/lossplotwidget.h"
#include "ui/process/resumerunner.h"
#include "ui/widgets/resumepanel.h"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>
#include <unistd.h>

using namespace ckpt::ui;

namespace {
const QString kTrain = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");

bool trainInto(const QString& dir, int steps, QString* error)
{
    QProcess p;
    p.start(kTrain, {QStringLiteral("--out"), dir, QStringLiteral("--steps"), QString::number(steps), QStringLiteral("--checkpoint-every"),
                        QStringLiteral("10"), QStringLiteral("--layout"), QStringLiteral("training-record,burn-run"), QStringLiteral("--dataset-size"),
                        QStringLiteral("320"), QStringLiteral("--hidden"), QStringLiteral("8")});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QString::fromUtf8(p.readAllStandardError());
        return false;
    }
    return true;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TstSlurmResume : public QObject
{
    Q_OBJECT
    clustertest::PrivateCluster m_cluster;
    QString m_skip;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kTrain).isExecutable(), "ckpt-train is built with the project");
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("ckpt-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_slurmresume"));
        // The resume profiles are stored beside the settings file (ResumeProfiles::storePath): a
        // directory of this process's own, so that tests running side by side never share them.
        static QTemporaryDir settingsDir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
        QSettings().clear();
        if (const QString why = clustertest::PrivateCluster::unavailable(); !why.isEmpty())
            CKPT_SKIP(why);
        QString error;
        // One node with every core; KillWait 20 s: scancel's SIGTERM lets the trainer checkpoint before it goes.
        QVERIFY2(m_cluster.start({.nodes = 1, .cpusPerNode = QThread::idealThreadCount(), .killWaitSeconds = 20}, &error), qPrintable(error));
    }

    /** The demo-run story: pick the Slurm profile, submit, watch the loss continue from the job's output. */
    void panelResumesThroughSlurm()
    {
        QTemporaryDir dir(QStringLiteral("/tmp/ckpt slurm run 'x'-XXXXXX")); // spaces and a quote in every path
        QTemporaryDir straight;
        QString error;
        QVERIFY2(trainInto(dir.path(), 20, &error), qPrintable(error));
        QVERIFY2(trainInto(straight.path(), 30, &error), qPrintable(error));
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths({QDir(dir.path()).filePath(QStringLiteral("checkpoint/record-20.mpk"))});
        QVERIFY(loaded.wait(30000));
        ResumePanel* panel = w.resumePanel();
        const int slurm = panel->profileBox()->findText(ResumeProfile::slurmProfile().name);
        QVERIFY(slurm >= 0);
        panel->profileBox()->setCurrentIndex(slurm);
        QCOMPARE(panel->currentProfile().launcher, ResumeProfile::Launcher::Slurm);
        panel->runner()->setProgram(kTrain);
        panel->runner()->setPollInterval(200);
        panel->stepsBox()->setValue(30);
        QSignalSpy states(panel->runner(), &ResumeRunner::jobStateChanged);
        QSignalSpy finished(panel, &ResumePanel::runFinished);
        QTest::mouseClick(panel->startButton(), Qt::LeftButton);
        QVERIFY(panel->stopButton()->isEnabled());
        QVERIFY2(finished.wait(90000), qPrintable(panel->log()->toPlainText()));
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(panel->log()->toPlainText()));
        QVERIFY(!panel->runner()->jobId().isEmpty());
        QVERIFY(states.count() >= 1);
        QCOMPARE(states.last().at(1).toString(), QStringLiteral("COMPLETED"));
        const QString log = panel->log()->toPlainText();
        QVERIFY2(log.contains(QLatin1String("submitted Slurm job ")) && log.contains(QLatin1String("resumed from ")) && log.contains(QLatin1String("step=30 ")),
            qPrintable(log));
        QCOMPARE(w.lossPlot()->livePointCount(), 10); // steps 21..30, read from the job's output file
        QVERIFY(QFileInfo::exists(panel->runner()->slurmScriptPath()));
        QVERIFY(readAll(panel->runner()->slurmOutputPath()).contains("step=30 "));
        // what the job wrote is what a straight run writes
        const QByteArray expected = readAll(QDir(straight.path()).filePath(QStringLiteral("checkpoint/record-30.mpk")));
        QVERIFY(!expected.isEmpty());
        QVERIFY2(readAll(QDir(dir.path()).filePath(QStringLiteral("checkpoint/record-30.mpk"))) == expected, "the Slurm resumption differs from a straight run");
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) {
            for (auto* dock : w.findChildren<QDockWidget*>())
                if (dock->isAncestorOf(w.lossPlot()))
                    dock->raise();
            QTest::qWait(200);
            w.grab().save(QDir(shots).filePath(QStringLiteral("resume-slurm-loss.png")));
            for (auto* dock : w.findChildren<QDockWidget*>())
                if (dock->widget() == panel)
                    dock->raise();
            QTest::qWait(200);
            w.grab().save(QDir(shots).filePath(QStringLiteral("resume-slurm-finished.png")));
        }
        // the run directory is reopened (possibly already during the screenshot's wait)
        QTRY_COMPARE_WITH_TIMEOUT(QFileInfo(panel->recordPath()).fileName(), QStringLiteral("record-30.mpk"), 30000);
    }

    /** Stop is scancel: the trainer gets SIGTERM inside the job, writes a checkpoint, and the run reads as stopped. */
    void stopCancelsTheJob()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY2(trainInto(dir.path(), 10, &error), qPrintable(error));
        ResumeRunner runner;
        runner.setProgram(kTrain);
        runner.setPollInterval(200);
        QSignalSpy steps(&runner, &ResumeRunner::stepReported);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        ResumeRunner::Request r{QDir(dir.path()).filePath(QStringLiteral("checkpoint/record-10.mpk")), dir.path(), 50'000'000,
            ResumeProfile::slurmProfile(), 10};
        QVERIFY(runner.start(r));
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() >= 3, 60000);
        runner.stop();
        QVERIFY(finished.count() == 1 || finished.wait(60000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QVERIFY(!runner.isRunning());
        QVERIFY2(readAll(runner.slurmErrorPath()).contains("stopped by signal"), readAll(runner.slurmErrorPath()).right(500).constData());
        qulonglong newest = 0;
        for (const QString& f : QDir(QDir(dir.path()).filePath(QStringLiteral("checkpoint"))).entryList({QStringLiteral("record-*.mpk")}))
            newest = std::max(newest, f.mid(7, f.size() - 11).toULongLong());
        QVERIFY2(newest > 10, qPrintable(QString::number(newest)));
    }

    /** A job that fails reports Slurm's final state and the trainer's own error line (from the job's .err file). */
    void failingJobReportsTheTrainersError()
    {
        QTemporaryDir dir;
        const QString bogus = QDir(dir.path()).filePath(QStringLiteral("not-a-record.mpk"));
        QFile f(bogus);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\xc1 not msgpack");
        f.close();
        ResumeRunner runner;
        runner.setProgram(kTrain);
        runner.setPollInterval(200);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QSignalSpy errors(&runner, &ResumeRunner::outputAvailable);
        QVERIFY(runner.start({bogus, dir.path(), std::nullopt, ResumeProfile::slurmProfile(), 0}));
        QVERIFY(finished.wait(60000));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QLatin1String("FAILED")) && message.contains(QLatin1String("exit code 1"))
                && message.contains(QLatin1String("not-a-record.mpk")),
            qPrintable(message));
        QCOMPARE(finished.at(0).at(0).toInt(), 1);
        QVERIFY(std::any_of(errors.begin(), errors.end(), [](const QList<QVariant>& e) { return e.at(1).toBool(); })); // shown as an error line
    }
};

QTEST_MAIN(TstSlurmResume)
#include "tst_slurmresume.moc"
