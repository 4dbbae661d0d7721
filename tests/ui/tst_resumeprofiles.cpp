// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Resume profiles: placeholder expansion, values with spaces, quotes, `;`, `$()` and newlines reaching
// a real child process verbatim through ResumeRunner (this executable, started again in echo mode),
// the profile's environment and working directory, QSettings round trips and the profile dialog.
#include "ui/process/resumeprofile.h"
#include "ui/process/resumerunner.h"
#include "ui/widgets/resumeprofiledialog.h"

#include <QApplication>
#include <QComboBox>
#include <QSpinBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace ckpt::ui;

namespace {
constexpr const char* kEchoTo = "CKPT_ECHO_ARGS_TO";

/**
 * Echo mode: writes every argument, the working directory and $CKPT_PROFILE_VALUE, each followed by a
 * NUL byte, into the file $CKPT_ECHO_ARGS_TO — what the child really received, byte for byte.
 */
int echoArguments(int argc, char** argv)
{
    FILE* f = std::fopen(std::getenv(kEchoTo), "wb");
    if (!f)
        return 3;
    for (int i = 1; i < argc; ++i)
        std::fwrite(argv[i], 1, std::strlen(argv[i]) + 1, f);
    char cwd[4096] = {};
    if (!::getcwd(cwd, sizeof cwd))
        cwd[0] = 0;
    std::fwrite(cwd, 1, std::strlen(cwd) + 1, f);
    const char* value = std::getenv("CKPT_PROFILE_VALUE");
    const std::string v = value ? value : "(unset)";
    std::fwrite(v.c_str(), 1, v.size() + 1, f);
    std::fclose(f);
    std::puts("step=1 loss=0.5 lr=0.001");
    return 0;
}

/** The nastiest values a path can hold on Linux, short of a NUL. */
PlaceholderValues hostileValues(const QString& base)
{
    PlaceholderValues v;
    v.record = base + QStringLiteral("/it's a \"record\"; rm -rf $(touch PWNED) `touch PWNED2`\nline two {out}.mpk");
    v.dir = base + QStringLiteral("/dir with  two spaces & | > <");
    v.step = QStringLiteral("12");
    v.out = base + QStringLiteral("/out $HOME ${PATH} \\ ;");
    return v;
}
} // namespace

class TstResumeProfiles : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void expansionIsOnePass()
    {
        const PlaceholderValues v{QStringLiteral("R{out}"), QStringLiteral("D"), QStringLiteral("7"), QStringLiteral("O{record}")};
        QCOMPARE(expandPlaceholders(QStringLiteral("{record}|{dir}|{step}|{out}"), v), QStringLiteral("R{out}|D|7|O{record}"));
        QCOMPARE(expandPlaceholders(QStringLiteral("--x={step}{step}"), v), QStringLiteral("--x=77"));
        // unknown and unbalanced braces stay as they are
        QCOMPARE(expandPlaceholders(QStringLiteral("{nope} {rec {"), v), QStringLiteral("{nope} {rec {"));
        QCOMPARE(expandPlaceholders(QString(), v), QString());
    }

    void defaultProfileIsTodaysCommand()
    {
        const ResumeProfile p = ResumeProfile::defaultProfile();
        const ResolvedCommand c = resolveProfile(p, {QStringLiteral("/r/record-5.mpk"), QStringLiteral("/r"), QStringLiteral("5"), QStringLiteral("/o")},
            QStringLiteral("/opt/bin/ckpt-train"), 40);
        QCOMPARE(c.program, QStringLiteral("/opt/bin/ckpt-train"));
        QCOMPARE(c.arguments, (QStringList{QStringLiteral("--resume"), QStringLiteral("/r/record-5.mpk"), QStringLiteral("--out"), QStringLiteral("/o"),
                                  QStringLiteral("--steps"), QStringLiteral("40")}));
        ResumeRunner::Request r{QStringLiteral("/r/record-5.mpk"), QStringLiteral("/o"), std::nullopt};
        QCOMPARE(ResumeRunner::arguments(r), c.arguments.mid(0, 4));
    }

    /** Every hostile value reaches the program as exactly one argument, unchanged; no shell ever sees it. */
    void hostileValuesReachTheProgramVerbatim()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString work = tmp.filePath(QStringLiteral("work dir; $(x)"));
        QVERIFY(QDir().mkpath(work));
        const QString echoFile = tmp.filePath(QStringLiteral("argv.bin"));
        const PlaceholderValues v = hostileValues(tmp.path());

        ResumeProfile p;
        p.name = QStringLiteral("echo");
        p.program = QCoreApplication::applicationFilePath();
        p.arguments = {QStringLiteral("--record={record}"), QStringLiteral("{dir}"), QStringLiteral("{step}"), QStringLiteral("{out}"),
            QStringLiteral("literal ; $(touch PWNED3) 'q' \"qq\""), QString()};
        p.environment = {QString::fromLatin1(kEchoTo) + QLatin1Char('=') + echoFile, QStringLiteral("CKPT_PROFILE_VALUE=v={record}")};
        p.workingDirectory = work;
        p.passSteps = true;

        ResumeRunner runner;
        QSignalSpy finished(&runner, &ResumeRunner::finished);
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        QSignalSpy steps(&runner, &ResumeRunner::stepReported);
        ResumeRunner::Request request{v.record, v.out, 99, p, 12};
        QVERIFY(runner.start(request));
        QVERIFY(finished.wait(30000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.at(0).at(0).toInt(), 0);
        QCOMPARE(steps.count(), 1);

        QFile f(echoFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> got = f.readAll().split('\0');
        QCOMPARE(got.takeLast(), QByteArray()); // after the final NUL
        const QList<QByteArray> expected = {QString(QStringLiteral("--record=") + v.record).toUtf8(), QFileInfo(v.record).absolutePath().toUtf8(), "12", v.out.toUtf8(),
            "literal ; $(touch PWNED3) 'q' \"qq\"", "", "--steps", "99", QDir(work).canonicalPath().toUtf8(), QString(QStringLiteral("v=") + v.record).toUtf8()};
        QCOMPARE(got, expected);
        // nothing was interpreted: no command substitution ran anywhere
        for (const QString& d : {tmp.path(), work, QDir::currentPath()})
            for (const char* name : {"PWNED", "PWNED2", "PWNED3"})
                QVERIFY2(!QFile::exists(QDir(d).filePath(QLatin1String(name))), qPrintable(d));
    }

    /**
     * The Slurm batch script: /bin/sh runs it here exactly as slurmd would on a node, and the hostile
     * values still arrive as single, unchanged arguments.
     */
    void slurmScriptQuotesEveryArgument()
    {
        QTemporaryDir tmp;
        const QString echoFile = tmp.filePath(QStringLiteral("argv.bin"));
        const PlaceholderValues v = hostileValues(tmp.path());
        ResumeProfile p = ResumeProfile::slurmProfile();
        p.program = QCoreApplication::applicationFilePath();
        p.arguments << QStringLiteral("{dir}") << QStringLiteral("it's") << QStringLiteral("'") << QStringLiteral("''\\'") << QString();
        const ResolvedCommand c = resolveProfile(p, v, QString(), 7);
        const QString script = slurmScript(c);
        QVERIFY(script.startsWith(QLatin1String("#!/bin/sh\n")));
        QCOMPARE(script.count(u'\n') - c.arguments.join(QString()).count(u'\n'), 5); // 4 lines of header + the exec line
        const QString scriptPath = tmp.filePath(QStringLiteral("job.sh"));
        QFile f(scriptPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(script.toUtf8());
        f.close();
        QProcess sh;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kEchoTo), echoFile);
        sh.setProcessEnvironment(env);
        sh.setWorkingDirectory(tmp.path());
        sh.start(QStringLiteral("/bin/sh"), {scriptPath});
        QVERIFY(sh.waitForFinished(30000));
        QCOMPARE(sh.exitCode(), 0);
        QFile out(echoFile);
        QVERIFY(out.open(QIODevice::ReadOnly));
        QList<QByteArray> got = out.readAll().split('\0');
        got.removeLast();
        got = got.mid(0, got.size() - 2); // working directory and $CKPT_PROFILE_VALUE
        QList<QByteArray> expected;
        for (const QString& a : c.arguments)
            expected << a.toUtf8();
        QCOMPARE(got, expected);
        QCOMPARE(expected.at(1), v.record.toUtf8());
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("PWNED"))));
        QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("PWNED2"))));

        // sbatch gets its options as separate arguments, the script last
        p.slurm = {QStringLiteral("gpu queue"), 2, 1, QStringLiteral("00:10:00")};
        p.workingDirectory = QStringLiteral("{dir}");
        const ResolvedCommand c2 = resolveProfile(p, v, QString(), std::nullopt);
        const QStringList sb = sbatchArguments(p, c2, QStringLiteral("/x/job.sh"), QStringLiteral("/x/job.out"), QStringLiteral("/x/job.err"));
        QCOMPARE(sb, (QStringList{QStringLiteral("--parsable"), QStringLiteral("--job-name=ckpt-resume"), QStringLiteral("--output=/x/job.out"),
                         QStringLiteral("--error=/x/job.err"),
                         QStringLiteral("--partition=gpu queue"), QStringLiteral("--nodes=2"), QStringLiteral("--gres=gpu:1"), QStringLiteral("--time=00:10:00"),
                         QStringLiteral("--chdir=") + v.dir, QStringLiteral("/x/job.sh")}));
    }

    void badProfilesFailBeforeStarting()
    {
        ResumeRunner runner;
        QSignalSpy failed(&runner, &ResumeRunner::failed);
        ResumeProfile p = ResumeProfile::defaultProfile();
        p.program = QStringLiteral("/bin/true");
        p.environment = {QStringLiteral("NO_EQUALS_SIGN")};
        QVERIFY(!runner.start({QStringLiteral("r.mpk"), QStringLiteral("/tmp"), std::nullopt, p, 0}));
        QVERIFY(failed.last().at(0).toString().contains(QLatin1String("NAME=VALUE")));
        p.environment.clear();
        p.workingDirectory = QStringLiteral("/nonexistent/{step}");
        QVERIFY(!runner.start({QStringLiteral("r.mpk"), QStringLiteral("/tmp"), std::nullopt, p, 3}));
        QVERIFY2(failed.last().at(0).toString().contains(QLatin1String("/nonexistent/3")), qPrintable(failed.last().at(0).toString()));
        QVERIFY(!runner.isRunning());
    }

    void settingsRoundTrip()
    {
        QTemporaryDir tmp;
        QSettings s(tmp.filePath(QStringLiteral("p.ini")), QSettings::IniFormat);
        // nothing stored: the default profile
        QCOMPARE(ResumeProfiles::load(s), ResumeProfile::defaultProfiles());
        QCOMPARE(ResumeProfile::defaultProfiles().at(1).launcher, ResumeProfile::Launcher::Slurm);
        ResumeProfile odd;
        odd.name = QStringLiteral("cluster \"A\"; x");
        odd.program = QStringLiteral("/usr/bin/env");
        odd.arguments = {QStringLiteral("a\nb"), QString(), QStringLiteral("{record}")};
        odd.environment = {QStringLiteral("A=1 2"), QStringLiteral("B=")};
        odd.workingDirectory = QStringLiteral("{dir}");
        odd.passSteps = false;
        odd.launcher = ResumeProfile::Launcher::Slurm;
        odd.slurm = {QStringLiteral("gpu"), 2, 4, QStringLiteral("01:30:00")};
        ResumeProfile single = ResumeProfile::defaultProfile();
        single.name = QStringLiteral("one argument");
        single.arguments = {QStringLiteral("--only")};
        const QList<ResumeProfile> list{ResumeProfile::defaultProfile(), odd, single};
        ResumeProfiles::save(s, list);
        ResumeProfiles::setCurrent(s, odd.name);
        s.sync();
        QSettings again(tmp.filePath(QStringLiteral("p.ini")), QSettings::IniFormat);
        QCOMPARE(ResumeProfiles::load(again), list);
        QCOMPARE(ResumeProfiles::current(again), odd.name);
        // saving fewer profiles drops the rest
        ResumeProfiles::save(again, {odd});
        QCOMPARE(ResumeProfiles::load(again), QList<ResumeProfile>{odd});
    }

    /** A list an older version kept in QSettings moves into core's store once, where ckpt reads it too. */
    void settingsProfilesMoveToTheStore()
    {
        QTemporaryDir tmp;
        const QString ini = tmp.filePath(QStringLiteral("p.ini"));
        {
            QSettings old(ini, QSettings::IniFormat);
            old.beginWriteArray(QStringLiteral("resume/profiles"), 2);
            old.setArrayIndex(0);
            old.setValue(QStringLiteral("name"), QStringLiteral("kept, \"quoted\""));
            old.setValue(QStringLiteral("program"), QStringLiteral("/usr/bin/env"));
            old.setValue(QStringLiteral("arguments"), QStringList{QStringLiteral("a b"), QStringLiteral("{record}")});
            old.setValue(QStringLiteral("passSteps"), false);
            old.setArrayIndex(1);
            old.setValue(QStringLiteral("name"), QStringLiteral("cluster"));
            old.setValue(QStringLiteral("program"), QStringLiteral("ckpt-train"));
            old.setValue(QStringLiteral("launcher"), QStringLiteral("slurm"));
            old.setValue(QStringLiteral("slurmPartition"), QStringLiteral("gpu"));
            old.setValue(QStringLiteral("slurmNodes"), 2);
            old.endArray();
            old.setValue(QStringLiteral("resume/current"), QStringLiteral("cluster"));
        }
        QSettings s(ini, QSettings::IniFormat);
        const QList<ResumeProfile> loaded = ResumeProfiles::load(s);
        QCOMPARE(loaded.size(), 2);
        QCOMPARE(loaded[0].name, QStringLiteral("kept, \"quoted\""));
        QCOMPARE(loaded[0].arguments, (QStringList{QStringLiteral("a b"), QStringLiteral("{record}")}));
        QVERIFY(!loaded[0].passSteps);
        QCOMPARE(loaded[1].launcher, ResumeProfile::Launcher::Slurm);
        QCOMPARE(loaded[1].slurm.partition, QStringLiteral("gpu"));
        QCOMPARE(loaded[1].slurm.nodes, 2);
        QCOMPARE(ResumeProfiles::current(s), QStringLiteral("cluster"));
        // moved: the store holds them, the settings no longer do
        const QString store = ResumeProfiles::storePath(s);
        QCOMPARE(store, tmp.filePath(QStringLiteral("resume-profiles.json")));
        QVERIFY(!s.contains(QStringLiteral("resume/profiles/size")));
        const auto stored = ckpt::loadResumeProfiles(store.toStdString());
        QVERIFY(stored);
        QCOMPARE(stored->size(), size_t(2));
        QVERIFY(stored->at(0) == toSpec(loaded[0]));
        QVERIFY(stored->at(1) == toSpec(loaded[1]));
        QCOMPARE(ResumeProfiles::load(s), loaded);
        // a damaged store reads as the defaults (the file stays until the next save)
        QFile broken(store);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{\"profiles\": [");
        broken.close();
        QCOMPARE(ResumeProfiles::load(s), ResumeProfile::defaultProfiles());
        QVERIFY(!ckpt::loadResumeProfiles(store.toStdString()));
    }

    void dialogEditsDuplicatesAndDeletes()
    {
        ResumeProfileDialog d({ResumeProfile::defaultProfile()});
        d.setPreviewValues({QStringLiteral("/r/x.mpk"), QStringLiteral("/r"), QStringLiteral("3"), QStringLiteral("/o")}, QStringLiteral("/bin/ckpt-train"));
        QCOMPARE(d.list()->count(), 1);
        QVERIFY(!d.deleteButton()->isEnabled()); // the last profile stays
        QVERIFY(d.preview()->toPlainText().contains(QLatin1String("/bin/ckpt-train\n  --resume\n  /r/x.mpk\n  --out\n  /o\n  (--steps N")));
        QTest::mouseClick(d.duplicateButton(), Qt::LeftButton);
        QCOMPARE(d.list()->count(), 2);
        QCOMPARE(d.list()->currentRow(), 1);
        QCOMPARE(d.profiles()[1].name, ResumeProfile::defaultProfile().name + QStringLiteral(" copy"));
        d.nameEdit()->setText(QStringLiteral("slow queue"));
        d.argumentsEdit()->setPlainText(QStringLiteral("--resume\n{record}\n--out\n{out}/more\n"));
        d.environmentEdit()->setPlainText(QStringLiteral("OMP_NUM_THREADS=1"));
        QCOMPARE(d.profiles()[1].name, QStringLiteral("slow queue"));
        QCOMPARE(d.profiles()[1].arguments.last(), QStringLiteral("{out}/more"));
        QCOMPARE(d.profiles()[1].environment, QStringList{QStringLiteral("OMP_NUM_THREADS=1")});
        QCOMPARE(d.list()->item(1)->text(), QStringLiteral("slow queue"));
        QVERIFY(d.preview()->toPlainText().contains(QLatin1String("/o/more")));
        // a name another profile has is made unique
        d.nameEdit()->setText(ResumeProfile::defaultProfile().name);
        QCOMPARE(d.profiles()[1].name, ResumeProfile::defaultProfile().name + QStringLiteral(" (2)"));
        QTest::mouseClick(d.newButton(), Qt::LeftButton);
        QCOMPARE(d.list()->count(), 3);
        QCOMPARE(d.selectedName(), QStringLiteral("New profile"));
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) {
            d.list()->setCurrentRow(1);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(QDir(shots).filePath(QStringLiteral("resume-profiles.png")));
        }
        d.list()->setCurrentRow(0);
        QTest::mouseClick(d.deleteButton(), Qt::LeftButton);
        QCOMPARE(d.list()->count(), 2);
        QCOMPARE(d.profiles()[0].name, ResumeProfile::defaultProfile().name + QStringLiteral(" (2)"));
        QCOMPARE(d.profiles()[0].arguments.last(), QStringLiteral("{out}/more"));
    }

    void dialogEditsSlurmOptions()
    {
        ResumeProfileDialog d(ResumeProfile::defaultProfiles());
        d.setPreviewValues({QStringLiteral("/runs/a b/checkpoint/record-20.mpk"), QStringLiteral("/runs/a b/checkpoint"), QStringLiteral("20"),
                               QStringLiteral("/runs/a b")},
            QStringLiteral("/usr/bin/ckpt-train"));
        d.selectProfile(ResumeProfile::slurmProfile().name);
        QCOMPARE(d.launcherBox()->currentData().toInt(), int(ResumeProfile::Launcher::Slurm));
        QVERIFY(d.partitionEdit()->isVisibleTo(&d));
        d.partitionEdit()->setText(QStringLiteral("gpu"));
        d.gpusBox()->setValue(2);
        d.timeEdit()->setText(QStringLiteral("02:00:00"));
        const ResumeProfile p = d.profiles().at(1);
        QCOMPARE(p.slurm, (ResumeProfile::Slurm{QStringLiteral("gpu"), 1, 2, QStringLiteral("02:00:00")}));
        const QString preview = d.preview()->toPlainText();
        QVERIFY2(preview.startsWith(QLatin1String("sbatch\n  --parsable")) && preview.contains(QLatin1String("--gres=gpu:2"))
                && preview.contains(QLatin1String("--output=/runs/a b/slurm/resume-STAMP.out"))
                && preview.contains(QLatin1String("exec '/usr/bin/ckpt-train' '--resume' '/runs/a b/checkpoint/record-20.mpk'")),
            qPrintable(preview));
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) {
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(QDir(shots).filePath(QStringLiteral("resume-profiles-slurm.png")));
        }
        d.selectProfile(ResumeProfile::defaultProfile().name);
        QVERIFY(!d.partitionEdit()->isVisibleTo(&d));
    }
};

int main(int argc, char** argv)
{
    if (std::getenv(kEchoTo))
        return echoArguments(argc, argv);
    QApplication app(argc, argv);
    TstResumeProfiles t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_resumeprofiles.moc"
