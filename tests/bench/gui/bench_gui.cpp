// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-gui FILE: the longest event-loop stall of the desktop app while FILE opens and the
// statistics of all its tensors compute. The real MainWindow (ui/) is shown on the offscreen
// platform and opened through MainWindow::openPaths, the path File > Open takes (QtConcurrent load,
// then the stats job feeding the tensor table, then the detail panel's histogram). A 1 ms precise
// timer stamps every event-loop turn it gets; the largest gap between two stamps is the stall.
// Prints one JSON line; exits non-zero if the window never becomes idle within the time limit.
#include "ui/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // recent-files settings go to a test location, not the user's
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ckpt-bench-gui FILE [LIMIT_SECONDS]\n");
        return 2;
    }
    const QString file = QString::fromLocal8Bit(argv[1]);
    const int limitSeconds = argc > 2 ? std::atoi(argv[2]) : 600;

    ckpt::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();

    QElapsedTimer clock;
    qint64 last = -1, worst = 0, worstAt = 0, ticks = 0, loadedAt = -1;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (last >= 0 && now - last > worst) {
            worst = now - last;
            worstAt = now;
        }
        last = now;
        ++ticks;
    });
    bool loaded = false, done = false;
    QObject::connect(&window, &ckpt::ui::MainWindow::loadFinished, [&] {
        loaded = true;
        loadedAt = clock.nsecsElapsed();
    });
    QObject::connect(&window, &ckpt::ui::MainWindow::idle, [&] {
        if (loaded && !done) {
            done = true;
            QTimer::singleShot(0, &app, &QCoreApplication::quit);
        }
    });
    QTimer::singleShot(limitSeconds * 1000, &app, &QCoreApplication::quit);

    // let the window settle (first paint) before the clock starts
    QTimer::singleShot(200, [&] {
        clock.start();
        tick.start();
        window.openPaths({file});
    });
    app.exec();
    const double total = double(clock.nsecsElapsed()) / 1e9;
    std::printf("{\"max_stall_ms\": %.3f, \"stall_at_s\": %.3f, \"loaded_s\": %.3f, \"idle_s\": %.3f, \"ticks\": %lld, "
                "\"finished\": %s}\n",
        double(worst) / 1e6, double(worstAt) / 1e9, double(loadedAt) / 1e9, total, static_cast<long long>(ticks),
        done ? "true" : "false");
    return done ? 0 : 1;
}
