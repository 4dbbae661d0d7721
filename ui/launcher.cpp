// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/launcher.h"

#include "ui/async/executor.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace ckpt::ui {

DemoRunner::DemoRunner(QObject* parent)
    : QObject(parent)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_process, &QProcess::readyRead, this, [this] {
        while (m_process.canReadLine()) {
            const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
            // one line per step is too much for a log panel; every 50th step and all other lines
            static const QLatin1String stepPrefix("step=");
            if (line.startsWith(stepPrefix)) {
                const int n = line.mid(5, line.indexOf(QLatin1Char(' ')) - 5).toInt();
                if (n % 50 != 0)
                    continue;
            }
            Q_EMIT output(line);
        }
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            Q_EMIT failed(tr("could not start %1: %2").arg(trainerPath(), m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        if (status != QProcess::NormalExit)
            Q_EMIT failed(tr("ckpt-train crashed"));
        else if (code != 0)
            Q_EMIT failed(tr("ckpt-train exited with code %1").arg(code));
        else
            Q_EMIT finished(m_dir);
    });
}

QString DemoRunner::trainerPath()
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ckpt-train"));
}

QString DemoRunner::demoDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("demo-run"));
}

QStringList DemoRunner::demoArguments(const QString& outDir)
{
    return {QStringLiteral("--out"), outDir, QStringLiteral("--steps"), QStringLiteral("1200"),
        QStringLiteral("--checkpoint-every"), QStringLiteral("50"), QStringLiteral("--layout"), QStringLiteral("all"),
        // a model that looks like one: 16 residual blocks, 102 parameters, 306 tensors per TrainingRecord
        QStringLiteral("--blocks"), QStringLiteral("16"),
        // a run that goes bad late: lr x 10^6 from micro-batch 998 on, so checkpoints 50..950 are healthy,
        // 1000 holds the first inf (Adam moments) and NaN (parameters) beside huge finite values, and
        // 1050..1200 are NaN throughout (the loss logs say NaN from step 1001)
        QStringLiteral("--diverge-at"), QStringLiteral("998"),
        // a cosine schedule gives the Scheduler panel's learning-rate curve something to show (one decay
        // over the whole run: a restart at the divergence would look like its cause)
        QStringLiteral("--scheduler"), QStringLiteral("cosine"), QStringLiteral("--sched-iters"), QStringLiteral("1200")};
}

void DemoRunner::start()
{
    m_dir = demoDirectory();
    // a fresh run each time: the trainer appends metric logs to an existing directory
    QDir(m_dir).removeRecursively();
    QDir().mkpath(m_dir);
    if (!QFileInfo(trainerPath()).isExecutable()) {
        Q_EMIT failed(tr("%1 was not found next to checkpoint-inspector; build the ckpt-train target").arg(trainerPath()));
        return;
    }
    Q_EMIT output(tr("Running %1 %2").arg(trainerPath(), demoArguments(m_dir).join(QLatin1Char(' '))));
    m_process.start(trainerPath(), demoArguments(m_dir));
}

void scheduleScreenshot(MainWindow* window, const QString& outPng, const QString& panel, bool expectLoad)
{
    auto loaded = std::make_shared<bool>(!expectLoad);
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    QObject::connect(window, &MainWindow::loadFinished, window, [loaded] { *loaded = true; });
    auto* poll = new QTimer(window);
    poll->setInterval(100);
    QObject::connect(poll, &QTimer::timeout, window, [=] {
        const bool timedOut = clock->elapsed() > 180000;
        // the app's own watchdog: work that stopped moving ends the wait (the picture shows what stalled)
        const QString stalled = window->watchdogText();
        if (!timedOut && stalled.isEmpty() && !(*loaded && window->isIdle()))
            return;
        poll->stop();
        if (!panel.isEmpty() && !window->raisePanel(panel))
            window->logMessage(QObject::tr("No panel named \"%1\" (panels: %2)").arg(panel, MainWindow::panelNames().join(QStringLiteral(", "))), true);
        // let the raised dock lay out and the queued plot replots run before grabbing
        QTimer::singleShot(400, window, [=] {
            // What the Messages panel says goes to stderr too, so a script sees what was (not) opened.
            for (const QString& line : window->messages()->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
                std::fprintf(stderr, "checkpoint-inspector: %s\n", qPrintable(line));
            const bool ok = window->grab().save(outPng);
            if (!ok)
                std::fprintf(stderr, "checkpoint-inspector: could not write %s\n", qPrintable(outPng));
            if (timedOut)
                std::fprintf(stderr, "checkpoint-inspector: timed out waiting for loading to finish\n");
            else if (!stalled.isEmpty())
                std::fprintf(stderr, "checkpoint-inspector: %s\n", qPrintable(stalled));
            QCoreApplication::exit(ok && !timedOut && stalled.isEmpty() ? 0 : 1);
        });
    });
    poll->start();
}

int runInspector(QApplication& app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate("main", "Inspect Burn records, run directories and gradient checkpoints."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("paths"), QCoreApplication::translate("main", "Record files or run directories to open."),
        QStringLiteral("[FILE|RUN_DIR ...]"));
    const QCommandLineOption diff(QStringLiteral("diff"), QCoreApplication::translate("main", "Compare two records: --diff A B."));
    const QCommandLineOption demo(QStringLiteral("demo"), QCoreApplication::translate("main", "Train a small demo run with ckpt-train, then open it."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QCoreApplication::translate("main", "Write a PNG of the window once loading has finished, then exit."), QStringLiteral("OUT.png"));
    const QCommandLineOption panel(QStringLiteral("panel"),
        QCoreApplication::translate("main", "Panel in front for --screenshot: %1.").arg(MainWindow::panelNames().join(QStringLiteral("|"))),
        QStringLiteral("NAME"));
    const QCommandLineOption lenient(QStringLiteral("lenient"),
        QCoreApplication::translate("main", "Open damaged records anyway (File > Open Damaged File…): shown partial, with the reason."));
    const QCommandLineOption threads(QStringLiteral("threads"),
        QCoreApplication::translate("main", "Background threads for loading and statistics (default: CKPT_THREADS, else the cores + 1)."),
        QStringLiteral("N"));
    parser.addOptions({diff, demo, screenshot, panel, lenient, threads});
    parser.process(app);
    if (parser.isSet(threads)) {
        bool ok = false;
        const int n = parser.value(threads).toInt(&ok);
        if (!ok || n < 1 || n > 1024) {
            std::fprintf(stderr, "checkpoint-inspector: --threads: expected a whole number from 1 to 1024, found \"%s\"\n",
                qPrintable(parser.value(threads)));
            return 2;
        }
        setBackgroundThreadCount(n);
    }

    const QStringList paths = parser.positionalArguments();
    if (parser.isSet(diff) && paths.size() != 2) {
        std::fprintf(stderr, "checkpoint-inspector: --diff needs exactly two paths\n%s", qPrintable(parser.helpText()));
        return 2;
    }
    if (parser.isSet(panel) && !MainWindow::panelNames().contains(parser.value(panel))) {
        std::fprintf(stderr, "checkpoint-inspector: unknown panel \"%s\"\n", qPrintable(parser.value(panel)));
        return 2;
    }

    MainWindow window;
    if (parser.isSet(screenshot))
        window.resize(1600, 1000);
    window.show();
    const bool willLoad = !paths.isEmpty() || parser.isSet(demo);
    if (parser.isSet(screenshot))
        scheduleScreenshot(&window, parser.value(screenshot), parser.value(panel), willLoad);
    if (parser.isSet(demo)) {
        auto* runner = new DemoRunner(&window);
        QObject::connect(runner, &DemoRunner::output, &window, [&window](const QString& l) { window.logMessage(l); });
        QObject::connect(runner, &DemoRunner::failed, &window, [&window](const QString& m) {
            window.logMessage(m, true);
            window.raisePanel(QStringLiteral("messages"));
            Q_EMIT window.loadFinished(); // a screenshot still shows the failure
        });
        QObject::connect(runner, &DemoRunner::finished, &window, [&window](const QString& dir) { window.openPaths({dir}); });
        window.raisePanel(QStringLiteral("messages"));
        runner->start();
    } else if (parser.isSet(diff)) {
        window.openDiff(paths[0], paths[1]);
    } else if (!paths.isEmpty()) {
        window.openPaths(paths, parser.isSet(lenient));
    }
    return app.exec();
}

} // namespace ckpt::ui
