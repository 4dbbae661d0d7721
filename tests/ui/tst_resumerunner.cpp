// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ResumeRunner and the Resume panel against the real ckpt-train: a 20-step run resumed to 40, a stop
// that is not a crash, a failing resume, and the panel's checklist/start/reload wiring in the window.
#include "ui/mainwindow.h"
#include "ui/plots/lossplotwidget.h"
#include "ui/process/resumerunner.h"
#include "ui/widgets/resumepanel.h"

#include <QDir>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QComboBox>
#include <QProcess>
#include <QSettings>
#include <QPushButton>
#include <QSignalSpy>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace ckpt::ui;

namespace {
const QString kTrain = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");

/** A small straight run: TrainingRecord layout plus burn-run logs, checkpoints every 10 steps. */
bool trainInto(const QString& dir, int steps, QString* error)
{
    QProcess p;
    p.start(kTrain, {QStringLiteral("--out"), dir, QStringLiteral("--steps"), QString::number(steps), QStringLiteral("--checkpoint-every"),
                        QStringLiteral("10"), QStringLiteral("--layout"), QStringLiteral("training-record,burn-run"),
                        QStringLiteral("--dataset-size"), QStringLiteral("320"), QStringLiteral("--hidden"), QStringLiteral("8")});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QString::fromUtf8(p.readAllStandardError());
        return false;
    }
    return true;
}

QString record(const QString& dir, int step)
{
    return QDir(dir).filePath(QStringLiteral("checkpoint/record-%1.mpk").arg(step));
}
} // namespace

class TstResumeRunner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kTrain).isExecutable(), "ckpt-train is built with the project");
        QStandardPaths::setTestModeEnabled(true);
        // Settings and profiles of this run apart from the user's.
        QCoreApplication::setOrganizationName(QStringLiteral("ckpt-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_resumerunner"));
        // The resume profiles are stored beside the settings file (ResumeProfiles::storePath): a
        // directory of this process's own, so that tests running side by side never share them.
        static QTemporaryDir settingsDir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
        QSettings().clear();
    }

    void parseStepLine_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<quint64>("step");
        QTest::addColumn<double>("lr");
        QTest::newRow("metric line") << "step=21 loss=0.4415 lr=0.003" << true << quint64(21) << 0.003;
        QTest::newRow("trailing newline") << "step=7 loss=1 lr=0.0001\n" << true << quint64(7) << 0.0001;
        QTest::newRow("NaN loss still a step") << "step=3 loss=NaN lr=0.5" << true << quint64(3) << 0.5;
        QTest::newRow("resume banner") << "resuming from record-20.mpk at step 20" << false << quint64(0) << 0.0;
        QTest::newRow("missing lr") << "step=3 loss=1" << false << quint64(0) << 0.0;
        QTest::newRow("bad step") << "step=x loss=1 lr=2" << false << quint64(0) << 0.0;
    }
    void parseStepLine()
    {
        QFETCH(QString, line);
        QFETCH(bool, ok);
        QFETCH(quint64, step);
        QFETCH(double, lr);
        const auto s = ResumeRunner::parseStepLine(line);
        QCOMPARE(s.has_value(), ok);
        if (ok) {
            QCOMPARE(s->step, step);
            QCOMPARE(s->lr, lr);
        }
    }

    void arguments()
    {
        ResumeRunner::Request r{QStringLiteral("/a b/record-20.mpk"), QStringLiteral("/out dir"), 40};
        // an argument list: spaces stay inside their argument, no shell quoting
        QCOMPARE(ResumeRunner::arguments(r), (QStringList{QStringLiteral("--resume"), QStringLiteral("/a b/record-20.mpk"),
                                                 QStringLiteral("--out"), QStringLiteral("/out dir"), QStringLiteral("--steps"),
                                                 QStringLiteral("40")}));
        r.steps.reset();
        QCOMPARE(ResumeRunner::arguments(r).size(), 4);
    }

    void resumeTo40()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY2(trainInto(dir.path(), 20, &error), qPrintable(error));
        QVERIFY(QFileInfo::exists(record(dir.path(), 20)));
        QVERIFY(!QFileInfo::exists(record(dir.path(), 40)));

        ResumeRunner runner;
        runner.setProgram(kTrain);
        QSignalSpy started(&runner, &ResumeRunner::started);
        QSignalSpy steps(&runner, &ResumeRunner::stepReported);
        QSignalSpy output(&runner, &ResumeRunner::outputAvailable);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QVERIFY(runner.start({record(dir.path(), 20), dir.path(), 40}));
        QVERIFY(runner.isRunning() || finished.count() == 1);
        QVERIFY(finished.wait(60000));
        QCOMPARE(started.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(0).toInt(), 0);
        QCOMPARE(finished.at(0).at(1).toBool(), false);
        // one line per step 21..40, in order, each with a positive lr
        QCOMPARE(steps.count(), 20);
        for (int i = 0; i < steps.count(); ++i) {
            QCOMPARE(steps.at(i).at(0).toULongLong(), quint64(21 + i));
            QVERIFY(steps.at(i).at(2).toDouble() > 0);
        }
        QVERIFY(output.count() >= 20);
        QVERIFY(QFileInfo::exists(record(dir.path(), 30)));
        QVERIFY(QFileInfo::exists(record(dir.path(), 40)));
        QCOMPARE(runner.lastStep()->step, quint64(40));
    }

    void stopIsNotACrash()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY2(trainInto(dir.path(), 10, &error), qPrintable(error));
        ResumeRunner runner;
        runner.setProgram(kTrain);
        runner.setStopTimeout(10000);
        QSignalSpy steps(&runner, &ResumeRunner::stepReported);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QVERIFY(runner.start({record(dir.path(), 10), dir.path(), 50'000'000}));
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() >= 5, 30000);
        runner.stop();
        QVERIFY(finished.count() == 1 || finished.wait(20000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(1).toBool(), true); // stopped by the user
        QVERIFY(runner.stopRequested());
        QVERIFY(!runner.isRunning());
        // SIGTERM: ckpt-train checkpoints where it stopped
        QDir cp(QDir(dir.path()).filePath(QStringLiteral("checkpoint")));
        qulonglong newest = 0;
        for (const QString& f : cp.entryList({QStringLiteral("record-*.mpk")}))
            newest = std::max(newest, f.mid(7, f.size() - 11).toULongLong());
        QVERIFY2(newest >= runner.lastStep()->step, qPrintable(QString::number(newest)));
        runner.stop(); // idle: a no-op
        QCOMPARE(finished.count(), 1);
    }

    void failingResumeReportsTheTrainersError()
    {
        QTemporaryDir dir;
        const QString bogus = QDir(dir.path()).filePath(QStringLiteral("not-a-record.mpk"));
        QFile f(bogus);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\xc1 not msgpack");
        f.close();
        ResumeRunner runner;
        runner.setProgram(kTrain);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QVERIFY(runner.start({bogus, dir.path(), std::nullopt}));
        QVERIFY(finished.wait(30000));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QLatin1String("exited with code")) && message.contains(QLatin1String("not-a-record.mpk")), qPrintable(message));
        QCOMPARE(finished.at(0).at(1).toBool(), false);
    }

    void missingProgramFailsWithoutStarting()
    {
        ResumeRunner runner;
        runner.setProgram(QStringLiteral("/nonexistent/ckpt-train"));
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QVERIFY(!runner.start({QStringLiteral("r.mpk"), QStringLiteral("/tmp"), std::nullopt}));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(finished.count(), 0);
    }

    /** The panel in the window: checklist shown, Start resumes, step lines reach the loss plot, the run is reloaded. */
    void panelResumesAndReloads()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY2(trainInto(dir.path(), 20, &error), qPrintable(error));
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths({record(dir.path(), 20)});
        QVERIFY(loaded.wait(30000));
        ResumePanel* panel = w.resumePanel();
        QCOMPARE(panel->recordPath(), record(dir.path(), 20));
        QCOMPARE(QDir(panel->outDirEdit()->text()), QDir(dir.path()));
        QVERIFY(panel->checks()->topLevelItemCount() > 1);
        QVERIFY(panel->startButton()->isEnabled());
        QCOMPARE(panel->stepsPerEpoch(), quint64(10)); // 320 samples / 32 per batch
        panel->runner()->setProgram(kTrain);
        panel->stepsBox()->setValue(30);
        QSignalSpy finished(panel, &ResumePanel::runFinished);
        const qsizetype loadsBeforeRun = loaded.count();
        QTest::mouseClick(panel->startButton(), Qt::LeftButton);
        QVERIFY(panel->stopButton()->isEnabled());
        QVERIFY(finished.wait(60000));
        QVERIFY(finished.at(0).at(1).toBool());
        QCOMPARE(w.lossPlot()->livePointCount(), 10);
        QVERIFY(panel->log()->toPlainText().contains(QLatin1String("step=30 ")));
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) // for looking at it
            w.grab().save(QDir(shots).filePath(QStringLiteral("resume-finished.png")));
        // the run directory is reopened: its newest record is now record-30 (the reload may already
        // have arrived while the spy above spun its event loop)
        QVERIFY(loaded.count() > loadsBeforeRun || loaded.wait(30000));
        QCOMPARE(QFileInfo(panel->recordPath()).fileName(), QStringLiteral("record-30.mpk"));
        QVERIFY(w.lossPlot()->curveCount() > 0);
    }

    /**
     * A GradientCheckpoint opened alone is offered for resumption (CAR, continuation state and block
     * checks), and the run goes through the profile chosen in the settings: an edited copy of the
     * default with an extra environment entry.
     */
    void panelResumesAGradientCheckpointThroughAProfile()
    {
        QTemporaryDir dir;
        QProcess p;
        p.start(kTrain, {QStringLiteral("--out"), dir.path(), QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--checkpoint-every"),
                            QStringLiteral("10"), QStringLiteral("--dataset-size"), QStringLiteral("320"), QStringLiteral("--hidden"), QStringLiteral("8")});
        QVERIFY(p.waitForFinished(60000) && p.exitCode() == 0);
        const QString graph = QDir(dir.path()).filePath(QStringLiteral("graph/step-20.json"));
        QVERIFY(QFileInfo::exists(graph));
        {
            QSettings settings;
            ResumeProfile profile = ResumeProfile::defaultProfile();
            profile.name = QStringLiteral("with env");
            profile.environment = {QStringLiteral("CKPT_TEST_MARKER=1")};
            ResumeProfiles::save(settings, {ResumeProfile::defaultProfile(), profile});
            ResumeProfiles::setCurrent(settings, profile.name);
        }
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths({graph});
        QVERIFY(loaded.wait(30000));
        ResumePanel* panel = w.resumePanel();
        QCOMPARE(panel->recordPath(), graph);
        QVERIFY(panel->sourceBox()->currentText().startsWith(QLatin1String("GradientCheckpoint step-20.json")));
        QCOMPARE(QDir(panel->outDirEdit()->text()), QDir(dir.path()));
        QCOMPARE(panel->checks()->topLevelItemCount(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(panel->checks()->topLevelItem(i)->text(1), QStringLiteral("ok"));
        QCOMPARE(panel->stepsPerEpoch(), quint64(10));
        QCOMPARE(panel->profileBox()->currentText(), QStringLiteral("with env"));
        QCOMPARE(panel->currentRequest().profile.environment, QStringList{QStringLiteral("CKPT_TEST_MARKER=1")});
        QVERIFY(panel->startButton()->isEnabled());
        panel->runner()->setProgram(kTrain);
        panel->stepsBox()->setValue(25);
        QSignalSpy finished(panel, &ResumePanel::runFinished);
        const qsizetype loadsBeforeRun = loaded.count();
        QTest::mouseClick(panel->startButton(), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(panel->log()->toPlainText()));
        const QString log = panel->log()->toPlainText();
        QVERIFY2(log.startsWith(QLatin1String("[with env] ")), qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("resumed from ")) && log.contains(QLatin1String("GradientCheckpoint with ")), qPrintable(log));
        QVERIFY(log.contains(QLatin1String("step=25 ")));
        QCOMPARE(w.lossPlot()->livePointCount(), 5);
        QVERIFY(QFileInfo::exists(record(dir.path(), 25)));
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty())
            w.grab().save(QDir(shots).filePath(QStringLiteral("resume-graph-finished.png")));

        // A damaged CAR blocks Start with the reason in the checklist.
        QFile car(QDir(dir.path()).filePath(QStringLiteral("graph/step-20.car")));
        QVERIFY(car.open(QIODevice::ReadWrite));
        QByteArray bytes = car.readAll();
        bytes[bytes.size() - 2] = char(bytes[bytes.size() - 2] ^ 0x10);
        QVERIFY(car.seek(0) && car.write(bytes) == bytes.size());
        car.close();
        // The reload after the run may already have arrived while the spy above spun its event loop
        // (a slow build, e.g. under sanitizers): wait only when it has not.
        QVERIFY(loaded.count() > loadsBeforeRun || loaded.wait(30000));
        w.openPaths({graph});
        QVERIFY(loaded.wait(30000));
        QCOMPARE(panel->recordPath(), graph);
        QVERIFY(!panel->startButton()->isEnabled());
        QCOMPARE(panel->checks()->topLevelItem(2)->text(1), QStringLiteral("error"));
    }
};

QTEST_MAIN(TstResumeRunner)
#include "tst_resumerunner.moc"
