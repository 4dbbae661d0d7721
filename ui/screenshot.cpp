// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/screenshot.h"

#include "ui/mainwindow.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QString>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace ckpt::ui {

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

} // namespace ckpt::ui
