// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt verify-resume` as scripts use it (cli-contract.md, "Repair and verify"): the real ckpt and
// ckpt-train, a resumption that is bit-exact for every optimizer, resume commands that change the
// training (diverged, naming the tensors), a resumption that fails (exit 1) and usage errors (exit 2).
#include "cliprocess.h"
#include "core/run/resumeprofiles.h"
#include <QDir>
#include <QElapsedTimer>
#include <QFile>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

using ckpt::ResumeProfileSpec;
using ckpt::saveResumeProfiles;
using clitest::Run;
using clitest::run;

/// The small model every run here uses (structural flags: a fresh run needs the same ones).
const QStringList kModel = {QStringLiteral("--hidden"), QStringLiteral("8"), QStringLiteral("--dataset-size"), QStringLiteral("64"),
    QStringLiteral("--batch-size"), QStringLiteral("8")};

QStringList verifyArgs(const QString& runDir, const QStringList& extra = {})
{
    return QStringList{QStringLiteral("verify-resume"), runDir + QStringLiteral("/checkpoint/record-4.mpk"), QStringLiteral("--against"),
               runDir + QStringLiteral("/checkpoint/record-8.mpk"), QStringLiteral("--json")}
        + extra;
}

/// The ckpt-verify-resume-* directories under \a tmp (the test points TMPDIR there).
QStringList leftovers(const QString& tmp)
{
    return QDir(tmp).entryList({QStringLiteral("ckpt-verify-resume-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
}

} // namespace

class TestCliVerifyResume : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_tmp;

    /// A ckpt-train run with checkpoints at steps 4 and 8.
    QString trainRun(const QString& name, const QStringList& optimizer)
    {
        const QString out = m_dir.filePath(name);
        const Run t = run(QStringLiteral("ckpt-train"),
            QStringList{QStringLiteral("--out"), out, QStringLiteral("--steps"), QStringLiteral("8"), QStringLiteral("--checkpoint-every"),
                QStringLiteral("4"), QStringLiteral("--layout"), QStringLiteral("training-record")}
                + kModel + optimizer);
        if (t.code != 0)
            qWarning("ckpt-train failed: %s", t.err.constData());
        return t.code == 0 ? out : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The temporary directories go under $TMPDIR: a private one, so the test sees them cleaned up.
        m_tmp = m_dir.filePath(QStringLiteral("tmp"));
        QVERIFY(QDir().mkpath(m_tmp));
        qputenv("TMPDIR", m_tmp.toUtf8());
        // The app's settings (resume profiles) as ckpt finds them: a private XDG config directory.
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
    }

    void identicalForEveryOptimizer_data()
    {
        QTest::addColumn<QStringList>("optimizer");
        QTest::newRow("adam") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("adam")};
        QTest::newRow("adam-amsgrad") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("adam"), QStringLiteral("--amsgrad")};
        QTest::newRow("adamw") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("adamw")};
        QTest::newRow("sgd") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"), QStringLiteral("0")};
        QTest::newRow("sgd-momentum") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"),
            QStringLiteral("0.9")};
        QTest::newRow("sgd-nesterov") << QStringList{QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"),
            QStringLiteral("0.9"), QStringLiteral("--nesterov")};
    }

    void identicalForEveryOptimizer()
    {
        QFETCH(QStringList, optimizer);
        const QString dir = trainRun(QString::fromUtf8(QTest::currentDataTag()), optimizer);
        QVERIFY(!dir.isEmpty());
        const Run r = run(QStringLiteral("ckpt"), verifyArgs(dir));
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"record", "against", "steps", "tolerance", "verdict", "differences"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("identical"));
        QCOMPARE(o[QLatin1String("tolerance")].toString(), QStringLiteral("exact"));
        QCOMPARE(o[QLatin1String("steps")].toInt(), 4);
        QCOMPARE(o[QLatin1String("step")].toInt(), 8);
        QCOMPARE(o[QLatin1String("step_source")].toString(), QStringLiteral("record"));
        QVERIFY(o[QLatin1String("differences")].toArray().isEmpty());
        QCOMPARE(o[QLatin1String("record")].toString(), dir + QStringLiteral("/checkpoint/record-4.mpk"));
        QVERIFY(leftovers(m_tmp).isEmpty());
    }

    void changedTrainingDivergesAndNamesTheTensors()
    {
        const QString dir = trainRun(QStringLiteral("adam-changed"), {QStringLiteral("--optimizer"), QStringLiteral("adam")});
        QVERIFY(!dir.isEmpty());
        // Another seed: ckpt-train refuses to change it on --resume, so this command trains afresh with it.
        QStringList seed = {QStringLiteral("--"), QStringLiteral("ckpt-train"), QStringLiteral("--out"), QStringLiteral("{out}"),
            QStringLiteral("--steps"), QStringLiteral("{step}"), QStringLiteral("--checkpoint-every"), QStringLiteral("4"),
            QStringLiteral("--seed"), QStringLiteral("99"), QStringLiteral("--optimizer"), QStringLiteral("adam")};
        seed += kModel;
        for (const QString& tolerance : {QStringLiteral("exact"), QStringLiteral("relaxed")}) {
            const Run r = run(QStringLiteral("ckpt"), verifyArgs(dir, QStringList{QStringLiteral("--tolerance"), tolerance} + seed));
            QVERIFY2(r.code == 0, r.err.constData());
            const QJsonObject o = QJsonDocument::fromJson(r.out).object();
            QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("diverged"));
            QCOMPARE(o[QLatin1String("tolerance")].toString(), tolerance);
            const QJsonArray diffs = o[QLatin1String("differences")].toArray();
            QVERIFY(!diffs.isEmpty());
            bool param = false, seedField = false;
            double previous = INFINITY;
            for (const auto& v : diffs) {
                const QJsonObject d = v.toObject();
                const QString path = d[QLatin1String("path")].toString();
                param |= path.startsWith(QLatin1String("item[0].")) && path.endsWith(QLatin1String(".param"));
                seedField |= path == QLatin1String("item[4].config.seed");
                if (d.contains(QLatin1String("rel_l2"))) { // tensors first, largest first
                    const double rel = d[QLatin1String("rel_l2")].toDouble();
                    QVERIFY(rel <= previous);
                    previous = rel;
                }
            }
            QVERIFY(param);
            QVERIFY(seedField);
        }
        // Another learning rate on --resume: parameters and Adam's moments move, and the state says so.
        const Run lr = run(QStringLiteral("ckpt"),
            verifyArgs(dir,
                {QStringLiteral("--"), QStringLiteral("ckpt-train"), QStringLiteral("--resume"), QStringLiteral("{record}"),
                    QStringLiteral("--out"), QStringLiteral("{out}"), QStringLiteral("--steps"), QStringLiteral("{step}"),
                    QStringLiteral("--lr"), QStringLiteral("0.01")}));
        QVERIFY2(lr.code == 0, lr.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(lr.out).object();
        QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("diverged"));
        bool moment = false, lrField = false;
        for (const auto& v : o[QLatin1String("differences")].toArray()) {
            const QString path = v.toObject()[QLatin1String("path")].toString();
            moment |= path.contains(QLatin1String(".moment_1")) || path.contains(QLatin1String(".moment_2"));
            lrField |= path == QLatin1String("item[4].config.optimizer.lr");
            if (!v.toObject().contains(QLatin1String("rel_l2")))
                QVERIFY(v.toObject().contains(QLatin1String("later"))); // a state field: path, both sides
        }
        QVERIFY(moment);
        QVERIFY(lrField);
        // The text form says it too.
        const Run text = run(QStringLiteral("ckpt"),
            {QStringLiteral("verify-resume"), dir + QStringLiteral("/checkpoint/record-4.mpk"), QStringLiteral("--against"),
                dir + QStringLiteral("/checkpoint/record-8.mpk"), QStringLiteral("--"), QStringLiteral("ckpt-train"), QStringLiteral("--resume"),
                QStringLiteral("{record}"), QStringLiteral("--out"), QStringLiteral("{out}"), QStringLiteral("--steps"), QStringLiteral("{step}"),
                QStringLiteral("--lr"), QStringLiteral("0.01")});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("diverged (tolerance exact)"));
        QVERIFY(text.out.contains("rel_l2="));
        QVERIFY(leftovers(m_tmp).isEmpty());
    }

    void droppedOptimizerStateDivergesAndNamesTheMoments()
    {
        // SGD with momentum, resumed with --momentum 0: the trainer drops the velocity buffers it was given.
        const QString dir = trainRun(QStringLiteral("sgd-drop"),
            {QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--momentum"), QStringLiteral("0.9")});
        QVERIFY(!dir.isEmpty());
        const Run r = run(QStringLiteral("ckpt"),
            verifyArgs(dir,
                {QStringLiteral("--tolerance"), QStringLiteral("strict"), QStringLiteral("--"), QStringLiteral("ckpt-train"),
                    QStringLiteral("--resume"), QStringLiteral("{record}"), QStringLiteral("--out"), QStringLiteral("{out}"),
                    QStringLiteral("--steps"), QStringLiteral("{step}"), QStringLiteral("--momentum"), QStringLiteral("0")}));
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("diverged"));
        int velocities = 0;
        bool param = false;
        for (const auto& v : o[QLatin1String("differences")].toArray()) {
            const QJsonObject d = v.toObject();
            const QString path = d[QLatin1String("path")].toString();
            if (path.endsWith(QLatin1String(".momentum.velocity"))) {
                ++velocities;
                QCOMPARE(d[QLatin1String("status")].toString(), QStringLiteral("removed"));
                QVERIFY(d[QLatin1String("rel_l2")].isNull());
            }
            param |= path.endsWith(QLatin1String(".param")) && d[QLatin1String("rel_l2")].toDouble() > 1e-3;
        }
        QCOMPARE(velocities, 6); // one per parameter of the plain MLP
        QVERIFY(param);
        // The missing state sorts before every moved tensor.
        QVERIFY(o[QLatin1String("differences")].toArray().first().toObject()[QLatin1String("path")].toString().endsWith(
            QLatin1String(".momentum.velocity")));
    }

    void failedResumptionIsExitOne()
    {
        const QString dir = trainRun(QStringLiteral("adam-fail"), {QStringLiteral("--optimizer"), QStringLiteral("adam")});
        QVERIFY(!dir.isEmpty());
        const Run f = run(QStringLiteral("ckpt"), verifyArgs(dir, {QStringLiteral("--"), QStringLiteral("/bin/false")}));
        QCOMPARE(f.code, 1);
        QVERIFY(f.out.isEmpty());
        QVERIFY2(f.err.startsWith("ckpt: the resumption failed: /bin/false exited with code 1"), f.err.constData());
        // The child's own message is shown.
        const Run refused = run(QStringLiteral("ckpt"),
            verifyArgs(dir,
                {QStringLiteral("--"), QStringLiteral("ckpt-train"), QStringLiteral("--resume"), QStringLiteral("{record}"),
                    QStringLiteral("--out"), QStringLiteral("{out}"), QStringLiteral("--steps"), QStringLiteral("{step}"),
                    QStringLiteral("--seed"), QStringLiteral("99")}));
        QCOMPARE(refused.code, 1);
        QVERIFY2(refused.err.contains("--seed 99 cannot override the record's 42"), refused.err.constData());
        // A program that does not exist, and one that writes nothing at LATER's step.
        const Run missing = run(QStringLiteral("ckpt"), verifyArgs(dir, {QStringLiteral("--"), QStringLiteral("/nonexistent/trainer")}));
        QCOMPARE(missing.code, 1);
        QVERIFY2(missing.err.contains("could not be started"), missing.err.constData());
        const Run nothing = run(QStringLiteral("ckpt"), verifyArgs(dir, {QStringLiteral("--"), QStringLiteral("/bin/true")}));
        QCOMPARE(nothing.code, 1);
        QVERIFY2(nothing.err.contains("wrote no checkpoint"), nothing.err.constData());
        QVERIFY(leftovers(m_tmp).isEmpty());
        // --keep leaves the directory and says where.
        const Run kept = run(QStringLiteral("ckpt"), verifyArgs(dir, {QStringLiteral("--keep")}));
        QCOMPARE(kept.code, 0);
        QVERIFY2(kept.err.contains("ckpt: kept the resumption's directory"), kept.err.constData());
        const QStringList left = leftovers(m_tmp);
        QCOMPARE(left.size(), 1);
        QVERIFY(QFile::exists(m_tmp + QLatin1Char('/') + left[0] + QStringLiteral("/out/checkpoint/record-8.mpk")));
        QVERIFY(QDir(m_tmp + QLatin1Char('/') + left[0]).removeRecursively());
    }

    void profilesOfTheApp()
    {
        const QString dir = trainRun(QStringLiteral("adam-profiles"), {QStringLiteral("--optimizer"), QStringLiteral("adam")});
        QVERIFY(!dir.isEmpty());
        const auto withProfile = [&](const QString& name) {
            return run(QStringLiteral("ckpt"), verifyArgs(dir, {QStringLiteral("--profile"), name}));
        };
        // No settings yet: the app's default profile.
        Run r = withProfile(QStringLiteral("ckpt-train (local)"));
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()[QLatin1String("verdict")].toString(), QStringLiteral("identical"));

        // Profiles in the store the app writes (core/run/resumeprofiles.h), where ckpt reads them.
        {
            struct P {
                std::string name, program;
                std::vector<std::string> arguments, environment;
                bool passSteps;
                ResumeProfileSpec::Launcher launcher;
            };
            using L = ResumeProfileSpec::Launcher;
            const std::vector<P> profiles = {
                {"local, \"quoted\" = trainer", "ckpt-train", {"--resume", "{record}", "--out", "{out}"}, {}, true, L::Local},
                {"faster", "ckpt-train", {"--resume", "{record}", "--out", "{out}", "--steps", "{step}", "--lr", "0.01"}, {}, false, L::Local},
                {"echo", "/usr/bin/printenv", {"CKPT_VR_VALUE", " a, \"b\" $(c) ;{step}\\ "}, {"CKPT_VR_VALUE=at {step}, \"q\" \\ back \u00e9"}, false,
                    L::Local},
                {"cluster", "ckpt-train", {"--resume", "{record}"}, {}, true, L::Slurm},
            };
            std::vector<ResumeProfileSpec> specs;
            for (const P& p : profiles) {
                ResumeProfileSpec spec;
                spec.name = p.name;
                spec.program = p.program;
                spec.arguments = p.arguments;
                spec.environment = p.environment;
                spec.passSteps = p.passSteps;
                spec.launcher = p.launcher;
                specs.push_back(spec);
            }
            const auto saved = saveResumeProfiles(m_dir.filePath(QStringLiteral("config/CheckpointInspector/resume-profiles.json")).toStdString(), specs);
            QVERIFY2(saved, saved ? "" : saved.error().message().c_str());
        }
        r = withProfile(QStringLiteral("local, \"quoted\" = trainer"));
        QVERIFY2(r.code == 0, r.err.constData());
        QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("identical"));
        QCOMPARE(o[QLatin1String("command")].toArray().last().toString(), QStringLiteral("8")); // passSteps: --steps LATER's step
        r = withProfile(QStringLiteral("faster"));
        QVERIFY2(r.code == 0, r.err.constData());
        o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QLatin1String("verdict")].toString(), QStringLiteral("diverged"));
        QCOMPARE(o[QLatin1String("command")].toArray().last().toString(), QStringLiteral("0.01")); // no passSteps
        // Arguments and environment arrive as the store holds them, placeholders expanded, no shell:
        // printenv prints the variable and fails on the second (unknown) name, so its output is shown.
        r = withProfile(QStringLiteral("echo"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("\nat 8, \"q\" \\ back \xc3\xa9\n"), r.err.constData());
        QVERIFY2(r.err.contains("command: /usr/bin/printenv CKPT_VR_VALUE  a, \"b\" $(c) ;8\\ \n"), r.err.constData());
        // Slurm profiles and unknown names are usage errors.
        r = withProfile(QStringLiteral("cluster"));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("submits to Slurm"), r.err.constData());
        r = withProfile(QStringLiteral("nope"));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no resume profile \"nope\"") && r.err.contains("\"faster\""), r.err.constData());
        QVERIFY(leftovers(m_tmp).isEmpty());
    }

    /** A stop signal while the resumption runs: passed on to it, the temporary directory removed, ckpt dies of the signal. */
    void interruptedRemovesTheTemporaryDirectory()
    {
        const QString dir = trainRun(QStringLiteral("interrupted"), {QStringLiteral("--optimizer"), QStringLiteral("adam")});
        QVERIFY(!dir.isEmpty());
        QProcess p;
        p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt"), verifyArgs(dir, {QStringLiteral("--"), QStringLiteral("sleep"), QStringLiteral("60")}));
        QVERIFY(p.waitForStarted());
        QVERIFY(QTest::qWaitFor([&] { return !leftovers(m_tmp).isEmpty(); }, 20000)); // the resumption is running
        QElapsedTimer clock;
        clock.start();
        p.terminate(); // SIGTERM
        QVERIFY(p.waitForFinished(20000));
        QVERIFY2(clock.elapsed() < 20000, "the child was not stopped");
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // died of the signal, as without a handler
        QVERIFY(p.readAllStandardError().contains("interrupted by signal"));
        QVERIFY(leftovers(m_tmp).isEmpty());
    }

    void usageErrors()
    {
        const QString dir = trainRun(QStringLiteral("adam-usage"), {QStringLiteral("--optimizer"), QStringLiteral("adam")});
        QVERIFY(!dir.isEmpty());
        const QString rec = dir + QStringLiteral("/checkpoint/record-4.mpk"), later = dir + QStringLiteral("/checkpoint/record-8.mpk");
        const struct {
            QStringList args;
            const char* message;
        } cases[] = {
            {{rec}, "needs --against LATER"},
            {{rec, QStringLiteral("--against"), later, QStringLiteral("--tolerance"), QStringLiteral("loose")}, "--tolerance takes exact, strict or relaxed"},
            {{rec, QStringLiteral("--against"), later, QStringLiteral("--profile"), QStringLiteral("x"), QStringLiteral("--"), QStringLiteral("/bin/true")},
                "--profile NAME or -- PROGRAM ARGS, not both"},
            {{rec, QStringLiteral("--against"), later, QStringLiteral("--")}, "must be followed by the resume PROGRAM"},
            {{QStringLiteral("--against"), later}, "takes one RECORD"},
            {{later, QStringLiteral("--against"), rec}, "beyond LATER's step"},
        };
        for (const auto& c : cases) {
            const Run r = run(QStringLiteral("ckpt"), QStringList{QStringLiteral("verify-resume")} + c.args);
            QCOMPARE(r.code, 2);
            QVERIFY(r.out.isEmpty());
            QVERIFY2(r.err.contains(c.message), r.err.constData());
        }
        // LATER that cannot be read is bad input, not a failed resumption.
        const Run bad = run(QStringLiteral("ckpt"), {QStringLiteral("verify-resume"), rec, QStringLiteral("--against"), m_dir.filePath(QStringLiteral("nope.mpk"))});
        QCOMPARE(bad.code, 1);
        QVERIFY(leftovers(m_tmp).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliVerifyResume)
#include "tst_cli_verify_resume.moc"
