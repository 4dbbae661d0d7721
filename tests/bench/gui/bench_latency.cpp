// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-latency FILE [LIMIT_SECONDS]: the GUI's latency probe (ui/async/latencyprobe.h, a 5 ms
// precise timer measuring its own lateness) while the real MainWindow, on the offscreen platform,
// opens FILE through MainWindow::openPaths and the statistics of every tensor fill the table. Ends
// when the window is idle; prints one JSON line (max and p99 lateness, when the worst came, ticks);
// exits non-zero if the window never became idle within the limit.
#include "ui/async/latencyprobe.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // recent-files settings go to a test location, not the user's
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ckpt-bench-latency FILE [LIMIT_SECONDS]\n");
        return 2;
    }
    const QString file = QString::fromLocal8Bit(argv[1]);
    const int limitSeconds = argc > 2 ? std::atoi(argv[2]) : 600;

    ckpt::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    ckpt::ui::LatencyProbe probe(5);
    bool loaded = false, done = false;
    double loadedAt = -1;
    QElapsedTimer clock;
    QObject::connect(&window, &ckpt::ui::MainWindow::loadFinished, [&] {
        loaded = true;
        loadedAt = double(clock.nsecsElapsed()) / 1e9;
    });
    QObject::connect(&window, &ckpt::ui::MainWindow::idle, [&] {
        if (loaded && !done) {
            done = true;
            probe.stop();
            QTimer::singleShot(0, &app, &QCoreApplication::quit);
        }
    });
    QTimer::singleShot(limitSeconds * 1000, &app, &QCoreApplication::quit);
    // let the window settle (first paint) before measuring
    QTimer::singleShot(200, [&] {
        clock.start();
        probe.start();
        window.openPaths({file});
    });
    app.exec();
    std::printf("{\"probe_interval_ms\": 5, \"max_lateness_ms\": %.3f, \"p99_lateness_ms\": %.3f, \"worst_at_s\": %.3f, "
                "\"loaded_s\": %.3f, \"idle_s\": %.3f, \"ticks\": %lld, \"finished\": %s}\n",
        probe.maxLatenessMs(), probe.quantileMs(0.99), probe.worstAtSeconds(), loadedAt, double(clock.nsecsElapsed()) / 1e9,
        static_cast<long long>(probe.ticks()), done ? "true" : "false");
    return done ? 0 : 1;
}
