// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-gui FILE [LIMIT_SECONDS] [--optimizer] [--self-diff]: the longest event-loop stall of
// the desktop app while FILE opens and the statistics of all its tensors compute. The real MainWindow
// (ui/) is shown on the offscreen platform and opened through MainWindow::openPaths, the path
// File > Open takes (the load job, then the stats job feeding the tensor table, then the detail
// panel's histogram). A 1 ms precise timer stamps every event-loop turn it gets; the largest gap
// between two stamps is the stall.
//
// Then, as the issue-28 probes ask (run_bench.py's "transformer" probe, on transformer-shaped
// records with the pool at 1, 2 and 8 threads through CKPT_THREADS): --optimizer selects the last
// optimizer entry's parameter in the Optimizer panel and waits for its histograms (optimizer_s);
// --self-diff opens FILE against itself in the Diff panel and waits for the result (diff_s), which
// must report no change. The app's own watchdog (ui/async/activity.h) ends the probe as soon as
// background work stops moving: a hang is a failure within seconds, not a long timeout.
// Prints one JSON line; exits non-zero if the window never becomes idle, the watchdog fires or
// the self-diff is not empty.
#include "core/record/record.h"
#include "ui/async/executor.h"
#include "ui/document/checkpointdocument.h"
#include "ui/mainwindow.h"
#include "ui/models/tensortablemodel.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/optimizerpanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // recent-files settings go to a test location, not the user's
    QApplication app(argc, argv);
    QString file;
    int limitSeconds = 600;
    bool optimizer = false, selfDiff = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--optimizer") == 0)
            optimizer = true;
        else if (std::strcmp(argv[i], "--self-diff") == 0)
            selfDiff = true;
        else if (file.isEmpty())
            file = QString::fromLocal8Bit(argv[i]);
        else
            limitSeconds = std::atoi(argv[i]);
    }
    if (file.isEmpty() || limitSeconds <= 0) {
        std::fprintf(stderr, "usage: ckpt-bench-gui FILE [LIMIT_SECONDS] [--optimizer] [--self-diff]\n");
        return 2;
    }

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

    // The steps, each started when the window is idle after the one before.
    double idleS = -1, optimizerS = -1, diffS = -1;
    bool failed = false;
    std::string failure;
    int loads = 0;
    QObject::connect(&window, &ckpt::ui::MainWindow::loadFinished, [&] {
        if (++loads == 1)
            loadedAt = clock.nsecsElapsed();
    });
    qint64 stepStart = 0;
    enum class Step { Open, Optimizer, Diff, Done } step = Step::Open;
    const auto finish = [&] {
        step = Step::Done;
        QTimer::singleShot(0, &app, &QCoreApplication::quit);
    };
    const auto afterOptimizer = [&] {
        if (!selfDiff)
            return finish();
        step = Step::Diff;
        stepStart = clock.nsecsElapsed();
        loads = 1; // the diff opens the file twice: its own loadFinished follows
        window.openDiff(file, file);
    };
    const auto afterOpen = [&] {
        idleS = double(clock.nsecsElapsed()) / 1e9;
        if (const auto* model = window.tensorModel(); model->statsCount() != model->rowCount()) {
            failed = true; // idle, yet statistics missing: the window would stay silently incomplete
            failure = "idle with the statistics of " + std::to_string(model->statsCount()) + " of "
                + std::to_string(model->rowCount()) + " tensors";
            return finish();
        }
        if (!optimizer)
            return afterOptimizer();
        const auto& records = window.document()->workspace().records;
        if (records.empty() || records.front().record->optimizer.empty()) {
            failed = true;
            failure = "--optimizer: the record has no optimizer entries";
            return finish();
        }
        step = Step::Optimizer;
        stepStart = clock.nsecsElapsed();
        window.raisePanel(QStringLiteral("optimizer"));
        window.optimizerPanel()->selectParam(QString::fromStdString(records.front().record->optimizer.back().paramId));
    };
    // idle() is emitted when the last job of a step ends; a step whose work is already done (a
    // histogram cached) ends on the next poll instead
    const auto advance = [&] {
        switch (step) {
        case Step::Open:
            if (loads >= 1 && window.isIdle())
                afterOpen();
            break;
        case Step::Optimizer:
            if (window.isIdle() && window.optimizerPanel()->plotCount() > 0) {
                optimizerS = double(clock.nsecsElapsed() - stepStart) / 1e9;
                afterOptimizer();
            }
            break;
        case Step::Diff:
            if (loads >= 2 && window.isIdle() && !window.diffPanel()->summary().isEmpty()) {
                diffS = double(clock.nsecsElapsed() - stepStart) / 1e9;
                if (!window.diffPanel()->summary().contains(QLatin1String("changed 0"))) {
                    failed = true;
                    failure = "self-diff reports changes: " + window.diffPanel()->summary().toStdString();
                }
                finish();
            }
            break;
        case Step::Done:
            break;
        }
    };
    QObject::connect(&window, &ckpt::ui::MainWindow::idle, &app, [&] { QTimer::singleShot(0, &app, advance); });
    QTimer poll;
    poll.setInterval(100);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (step == Step::Done)
            return;
        if (const QString stalled = window.watchdogText(); !stalled.isEmpty()) {
            failed = true;
            failure = "the app's watchdog: " + stalled.toStdString();
            return finish();
        }
        advance();
    });
    QTimer::singleShot(limitSeconds * 1000, &app, [&] {
        failed = true;
        failure = "not idle after " + std::to_string(limitSeconds) + " s";
        finish();
    });

    // let the window settle (first paint) before the clock starts
    QTimer::singleShot(200, [&] {
        clock.start();
        tick.start();
        poll.start();
        window.openPaths({file});
    });
    app.exec();
    if (failed)
        std::fprintf(stderr, "ckpt-bench-gui: %s: %s\n", qPrintable(file), failure.c_str());
    const auto opt = [](double v) { return v < 0 ? std::string("null") : std::to_string(v); };
    std::printf("{\"max_stall_ms\": %.3f, \"stall_at_s\": %.3f, \"loaded_s\": %.3f, \"idle_s\": %s, \"optimizer_s\": %s, "
                "\"diff_s\": %s, \"threads\": %d, \"ticks\": %lld, \"finished\": %s}\n",
        double(worst) / 1e6, double(worstAt) / 1e9, double(loadedAt) / 1e9, opt(idleS).c_str(), opt(optimizerS).c_str(),
        opt(diffS).c_str(), ckpt::ui::backgroundPool()->maxThreadCount(), static_cast<long long>(ticks),
        failed ? "false" : "true");
    return failed ? 1 : 0;
}
