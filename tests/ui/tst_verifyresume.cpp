// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The Resume panel's "Verify resume…" against the real ckpt and ckpt-train: a run resumed from
// record-20 reproduces its record-40 ("identical"); a record-40 of a run with another seed does not
// ("diverged", its differences listed); a cancel, and ckpt failing or printing no document, end in one
// message. The profile is one only the app's settings file knows, so ckpt must read the same file.
#include "ui/process/resumeprofile.h"
#include "ui/process/verifyrunner.h"
#include "ui/widgets/resumepanel.h"
#include "ui/workspace/workspace.h"

#include "../ckptskip.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <memory>

using namespace ckpt::ui;

namespace {
const QString kTrain = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
const QString kCkpt = QStringLiteral(CKPT_BIN_DIR "/ckpt");
/** A profile name no default knows: ckpt finds it only by reading the app's settings file. */
const QString kProfile = QStringLiteral("verify test: ckpt-train from the settings");

bool trainInto(const QString& dir, const QStringList& extra, QString* error)
{
    QProcess p;
    p.start(kTrain, QStringList{QStringLiteral("--out"), dir, QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--checkpoint-every"),
                        QStringLiteral("20")} + extra);
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

/** A panel showing \a recordPath, ready to verify with the real ckpt. */
std::unique_ptr<ResumePanel> panelFor(const QString& recordPath)
{
    auto panel = std::make_unique<ResumePanel>();
    panel->verifyRunner()->setProgram(kCkpt); // the test binary does not sit beside ckpt
    panel->setWorkspace(loadWorkspace({recordPath}, ckpt::Progress::none()));
    panel->resize(1100, 780);
    panel->show();
    return panel;
}

void saveShot(QWidget* w, const QString& path)
{
    QVERIFY2(w->grab().save(path), qPrintable(path));
    qInfo("screenshot: %s", qPrintable(path));
}
} // namespace

class TstVerifyResume : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(kTrain).isExecutable() || !QFileInfo(kCkpt).isExecutable())
            CKPT_SKIP(QStringLiteral("ckpt and ckpt-train are built with the project: missing in " CKPT_BIN_DIR));
        QVERIFY(m_settings.isValid() && m_runs.isValid());
        // The app's names, its settings file in this test's directory: ckpt must be pointed there.
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointInspector"));
        QCoreApplication::setApplicationName(QStringLiteral("checkpoint-inspector"));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        {
            QSettings settings;
            settings.clear();
            ResumeProfile fromSettings = ResumeProfile::defaultProfile();
            fromSettings.name = kProfile;
            ResumeProfiles::save(settings, {ResumeProfile::defaultProfile(), fromSettings, ResumeProfile::slurmProfile()});
            ResumeProfiles::setCurrent(settings, kProfile);
        }
        QString error;
        m_runA = m_runs.filePath(QStringLiteral("run a"));
        m_runSeed7 = m_runs.filePath(QStringLiteral("run seed 7"));
        QVERIFY2(trainInto(m_runA, {}, &error), qPrintable(error));
        QVERIFY2(trainInto(m_runSeed7, {QStringLiteral("--seed"), QStringLiteral("7")}, &error), qPrintable(error));
        // A run whose record-40 is the other seed's: the chooser offers only the same run's checkpoints.
        m_mixed = m_runs.filePath(QStringLiteral("mixed"));
        QVERIFY(QDir().mkpath(QDir(m_mixed).filePath(QStringLiteral("checkpoint"))));
        QVERIFY(QFile::copy(record(m_runA, 20), record(m_mixed, 20)));
        QVERIFY(QFile::copy(record(m_runSeed7, 40), record(m_mixed, 40)));
    }

    /** The settings file the app writes is the one ckpt reads once given the XDG_CONFIG_HOME the runner passes. */
    void appAndCliShareTheSettingsFile()
    {
        const QString file = QSettings().fileName();
        QCOMPARE(QFileInfo(file).absoluteFilePath(), QDir(m_settings.path()).filePath(QStringLiteral("CheckpointInspector/checkpoint-inspector.conf")));
        QVERIFY(QFileInfo::exists(file));
        QCOMPARE(VerifyRunner::configHomeFor(file), std::optional<QString>(QDir(m_settings.path()).absolutePath()));
        QVERIFY(!VerifyRunner::configHomeFor(QStringLiteral("/home/u/.config/ckpt-tests/tst.conf")));
        QVERIFY(!VerifyRunner::configHomeFor(QStringLiteral("/home/u/.config/CheckpointInspector/checkpoint-inspector.ini")));
        const QStringList args = VerifyRunner::arguments({QStringLiteral("/a b/r.mpk"), QStringLiteral("/l.mpk"), kProfile, QStringLiteral("strict")});
        QCOMPARE(args, (QStringList{QStringLiteral("verify-resume"), QStringLiteral("/a b/r.mpk"), QStringLiteral("--against"), QStringLiteral("/l.mpk"),
                           QStringLiteral("--profile"), kProfile, QStringLiteral("--tolerance"), QStringLiteral("strict"), QStringLiteral("--json")}));
    }

    void parseReport()
    {
        const auto ok = VerifyRunner::parseReport(R"({"record":"a","against":"b","steps":20,"tolerance":"relaxed","verdict":"within_tolerance",
            "differences":[{"path":"item[0].w","max_abs":0.5,"rel_l2":null,"status":"changed","above_tolerance":false},
                           {"path":"item[4].progress.step","status":"caller_state","above_tolerance":true,"later":"40","resumed":null}],
            "step":40,"step_source":"record","produced":"checkpoint/record-40.mpk","command":[]})");
        QVERIFY2(ok, ok ? "" : qPrintable(ok.error()));
        QCOMPARE(ok->verdict, QStringLiteral("within_tolerance"));
        QCOMPARE(ok->step, quint64(40));
        QCOMPARE(ok->steps, quint64(20));
        QCOMPARE(ok->differences.size(), 2);
        QCOMPARE(ok->differences[0].maxAbs, std::optional<double>(0.5));
        QVERIFY(!ok->differences[0].relL2); // null: not finite
        QVERIFY(!ok->differences[0].aboveTolerance && !ok->differences[0].isState);
        QVERIFY(ok->differences[1].isState);
        QCOMPARE(ok->differences[1].later, QStringLiteral("40"));
        QVERIFY(ok->differences[1].resumed.isEmpty());
        QVERIFY(!VerifyRunner::parseReport("verify-resume done"));
        QVERIFY(!VerifyRunner::parseReport("[1,2]"));
        QVERIFY(!VerifyRunner::parseReport(R"({"verdict":"maybe","differences":[]})"));
        QVERIFY(!VerifyRunner::parseReport(R"({"verdict":"identical"})"));
    }

    void identicalAgainstTheSameRun()
    {
        auto panel = panelFor(record(m_runA, 20));
        QCOMPARE(panel->recordPath(), record(m_runA, 20));
        QCOMPARE(panel->profileBox()->currentText(), kProfile);
        // Only the later checkpoints of the run: record-40, not record-20 itself.
        QCOMPARE(panel->againstBox()->count(), 1);
        QCOMPARE(QFileInfo(panel->againstBox()->itemData(0).toString()).canonicalFilePath(), QFileInfo(record(m_runA, 40)).canonicalFilePath());
        QVERIFY(panel->againstBox()->itemText(0).contains(QLatin1String("step 40")));
        QCOMPARE(panel->toleranceBox()->currentData().toString(), QStringLiteral("exact"));
        QVERIFY(panel->verifyButton()->isEnabled());
        QVERIFY(!panel->cancelVerifyButton()->isEnabled());

        // A Slurm profile cannot verify here (ckpt refuses it): the button says so instead of failing later.
        panel->profileBox()->setCurrentText(ResumeProfile::slurmProfile().name);
        QVERIFY(!panel->verifyButton()->isEnabled());
        panel->profileBox()->setCurrentText(kProfile);
        QVERIFY(panel->verifyButton()->isEnabled());

        QSignalSpy finished(panel.get(), &ResumePanel::verifyFinished);
        QTest::mouseClick(panel->verifyButton(), Qt::LeftButton);
        QVERIFY(!panel->verifyButton()->isEnabled());
        QVERIFY(!panel->startButton()->isEnabled());
        QVERIFY(panel->cancelVerifyButton()->isEnabled());
        QVERIFY(finished.count() == 1 || finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(panel->verdictLabel()->text() + QLatin1Char('\n') + panel->log()->toPlainText()));
        const auto& report = panel->verifyRunner()->report();
        QVERIFY(report);
        QCOMPARE(report->verdict, QStringLiteral("identical"));
        QCOMPARE(report->step, quint64(40));
        QCOMPARE(report->steps, quint64(20));
        QVERIFY(report->differences.isEmpty());
        QVERIFY2(panel->verdictLabel()->isVisible() && panel->verdictLabel()->text().contains(QLatin1String(">Identical<")),
            qPrintable(panel->verdictLabel()->text()));
        QVERIFY(panel->verdictLabel()->text().contains(QLatin1String("#008000"))); // the checklist's "ok" green
        QVERIFY(!panel->differencesView()->isVisible());
        QVERIFY(panel->log()->toPlainText().contains(QLatin1String("--profile ") + QStringLiteral("\u2039") + kProfile));
        QVERIFY(panel->verifyButton()->isEnabled());
        QVERIFY(!panel->cancelVerifyButton()->isEnabled());
        saveShot(panel.get(), QStringLiteral("/tmp/verify-resume-identical.png"));
    }

    /** With no profile stored (a fresh installation), the app's default profile is also the one ckpt knows. */
    void defaultProfileWithNothingStored()
    {
        QSettings settings;
        const auto stored = ResumeProfiles::load(settings);
        const QString current = ResumeProfiles::current(settings);
        settings.clear();
        settings.sync();
        {
            auto panel = panelFor(record(m_runA, 20));
            QCOMPARE(panel->profileBox()->currentText(), ResumeProfile::defaultProfile().name);
            QSignalSpy finished(panel.get(), &ResumePanel::verifyFinished);
            QTest::mouseClick(panel->verifyButton(), Qt::LeftButton);
            QVERIFY(finished.count() == 1 || finished.wait(120000));
            QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(panel->verdictLabel()->text()));
            QCOMPARE(panel->verifyRunner()->report()->verdict, QStringLiteral("identical"));
        }
        ResumeProfiles::save(settings, stored);
        ResumeProfiles::setCurrent(settings, current);
    }

    void divergedAgainstAnotherSeed()
    {
        auto panel = panelFor(record(m_mixed, 20));
        QCOMPARE(panel->againstBox()->count(), 1);
        QCOMPARE(QFileInfo(panel->againstBox()->currentData().toString()).fileName(), QStringLiteral("record-40.mpk"));
        QSignalSpy finished(panel.get(), &ResumePanel::verifyFinished);
        QTest::mouseClick(panel->verifyButton(), Qt::LeftButton);
        QVERIFY(finished.count() == 1 || finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(panel->verdictLabel()->text() + QLatin1Char('\n') + panel->log()->toPlainText()));
        const auto& report = panel->verifyRunner()->report();
        QVERIFY(report);
        QCOMPARE(report->verdict, QStringLiteral("diverged"));
        QVERIFY(!report->differences.isEmpty());
        QVERIFY2(panel->verdictLabel()->text().contains(QLatin1String(">Diverged<")) && panel->verdictLabel()->text().contains(QLatin1String("#c80000")),
            qPrintable(panel->verdictLabel()->text()));
        QTreeWidget* table = panel->differencesView();
        QVERIFY(table->isVisible());
        const int rows = int(std::min<qsizetype>(report->differences.size(), ResumePanel::MaxDifferencesShown));
        QCOMPARE(table->topLevelItemCount(), rows + (report->differences.size() > rows ? 1 : 0));
        // Another seed: other weights from the first step on, so tensors differ with numbers, largest first.
        const QTreeWidgetItem* first = table->topLevelItem(0);
        QCOMPARE(first->data(0, Qt::UserRole).toString(), report->differences[0].path);
        QVERIFY2(first->data(0, Qt::UserRole).toString().startsWith(QLatin1String("item[")), qPrintable(first->text(0)));
        QVERIFY(!first->text(0).isEmpty());
        QVERIFY(report->differences[0].maxAbs && *report->differences[0].maxAbs > 0);
        QVERIFY(report->differences[0].relL2 && *report->differences[0].relL2 > 0);
        QVERIFY(first->text(1) != QStringLiteral("—") && first->text(2) != QStringLiteral("—"));
        QVERIFY(report->differences[0].relL2 >= report->differences[1].relL2);
        saveShot(panel.get(), QStringLiteral("/tmp/verify-resume-panel.png"));
        panel->resize(870, 430); // about its size as a dock beside the record tree
        saveShot(panel.get(), QStringLiteral("/tmp/verify-resume-panel-small.png"));
    }

    /**
     * Cancel ends ckpt and the resumption it started: a profile whose "trainer" sleeps, so the
     * verification is certainly running, and the sleeper must be gone afterwards, not only ckpt.
     */
    void cancelKillsTheVerificationAndItsTrainer()
    {
        const QString marker = QStringLiteral("120.%1").arg(QCoreApplication::applicationPid()); // seconds, and this run's own
        {
            QSettings settings;
            ResumeProfile sleeper;
            sleeper.name = QStringLiteral("sleeper");
            sleeper.program = QStringLiteral("/bin/sleep");
            sleeper.arguments = {marker};
            sleeper.passSteps = false;
            QList<ResumeProfile> profiles = ResumeProfiles::load(settings);
            profiles.push_back(sleeper);
            ResumeProfiles::save(settings, profiles);
        }
        auto panel = panelFor(record(m_runA, 20));
        panel->profileBox()->setCurrentText(QStringLiteral("sleeper"));
        QCOMPARE(panel->currentProfile().program, QStringLiteral("/bin/sleep"));
        QSignalSpy failed(panel->verifyRunner(), &VerifyRunner::failed);
        QSignalSpy finished(panel.get(), &ResumePanel::verifyFinished);
        QTest::mouseClick(panel->verifyButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(sleeperRunning(marker), 20000);
        QVERIFY(panel->verifyRunner()->isRunning());
        QVERIFY(panel->cancelVerifyButton()->isEnabled());
        QTest::mouseClick(panel->cancelVerifyButton(), Qt::LeftButton);
        QVERIFY(finished.count() == 1 || finished.wait(10000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(failed.count(), 0); // cancelled, not failed
        QVERIFY(!panel->verifyRunner()->isRunning());
        QVERIFY(!panel->verifyRunner()->report());
        QVERIFY2(panel->verdictLabel()->text().contains(QLatin1String("cancelled")), qPrintable(panel->verdictLabel()->text()));
        QTRY_VERIFY_WITH_TIMEOUT(!sleeperRunning(marker), 10000);
        QVERIFY(panel->verifyButton()->isEnabled());
        QVERIFY(panel->startButton()->isEnabled());
        panel->profileBox()->setCurrentText(kProfile);
    }

    /** ckpt failing (exit 1 with its reason), exiting without a word, or printing something else: one message each, no crash. */
    void failuresGetOneClearMessage()
    {
        // A later checkpoint that is not a record: ckpt says so on stderr and exits non-zero.
        const QString broken = m_runs.filePath(QStringLiteral("broken"));
        QVERIFY(QDir().mkpath(QDir(broken).filePath(QStringLiteral("checkpoint"))));
        QVERIFY(QFile::copy(record(m_runA, 20), record(broken, 20)));
        QFile bad(record(broken, 40));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("\xc1 not msgpack");
        bad.close();

        // A "ckpt" that dies of a signal.
        const QString crasher = m_runs.filePath(QStringLiteral("crash.sh"));
        QFile script(crasher);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nkill -SEGV $$\n");
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

        struct Case {
            QString program;
            QString expected;
        };
        const Case cases[] = {
            {kCkpt, QStringLiteral("Verification failed: ckpt exited with code")},
            {QStringLiteral("/bin/false"), QStringLiteral("Verification failed: false exited with code 1.")},
            {QStringLiteral("/bin/echo"), QStringLiteral("Verification failed: echo ended normally, but its output is not JSON")},
            {QStringLiteral("/nonexistent/ckpt"), QStringLiteral("Verification failed: The command line tool /nonexistent/ckpt is missing")},
            {crasher, QStringLiteral("Verification failed: crash.sh crashed")},
        };
        for (const Case& c : cases) {
            auto panel = panelFor(record(broken, 20));
            panel->verifyRunner()->setProgram(c.program);
            QSignalSpy failed(panel->verifyRunner(), &VerifyRunner::failed);
            QSignalSpy messages(panel.get(), &ResumePanel::message);
            QSignalSpy finished(panel.get(), &ResumePanel::verifyFinished);
            QVERIFY(panel->verifyButton()->isEnabled());
            QTest::mouseClick(panel->verifyButton(), Qt::LeftButton);
            if (c.program != QLatin1String("/nonexistent/ckpt")) // refused before starting: no finished
                QVERIFY(finished.count() == 1 || finished.wait(60000));
            QCOMPARE(failed.count(), 1);
            QCOMPARE(messages.count(), 1);
            QVERIFY(messages.at(0).at(1).toBool());
            const QString shown = panel->verdictLabel()->text();
            QVERIFY2(shown.contains(c.expected.toHtmlEscaped()), qPrintable(shown));
            QVERIFY(!panel->differencesView()->isVisible());
            QVERIFY(panel->verifyButton()->isEnabled());
            if (c.program == kCkpt) // ckpt's own reason: the file it could not read
                QVERIFY2(shown.contains(QLatin1String("record-40.mpk")), qPrintable(shown));
        }
    }

private:
    QTemporaryDir m_settings;
    QTemporaryDir m_runs;
    QString m_runA, m_runSeed7, m_mixed;

    /** Whether a `/bin/sleep MARKER` is alive (a zombie has no command line). */
    static bool sleeperRunning(const QString& marker)
    {
        const QByteArray wanted = QByteArrayLiteral("/bin/sleep") + '\0' + marker.toLatin1() + '\0';
        for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll() == wanted)
                return true;
        }
        return false;
    }
};

QTEST_MAIN(TstVerifyResume)
#include "tst_verifyresume.moc"
