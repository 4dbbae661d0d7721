// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/launcher.h"

#include "ui/async/executor.h"
#include "ui/demorun.h"
#include "ui/mainwindow.h"
#include "ui/screenshot.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

namespace ckpt::ui {

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
