// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-latency FILE [LIMIT_SECONDS]: the GUI's latency probe (ui/async/latencyprobe.h, a 5 ms
// precise timer measuring its own lateness) while the real MainWindow, on the offscreen platform,
// opens FILE through MainWindow::openPaths and the statistics of every tensor fill the table. Ends
// when the window is idle; prints one JSON line (max and p99 lateness, when the worst came, ticks);
// exits non-zero if the window never became idle within the limit.
//
// Besides lateness (which also counts waiting for a core on a loaded machine) it reports the GUI
// thread's own CPU time: max_busy_ms, the most CPU time between two ticks, and the slowest single
// events the GUI thread delivered (receiver class, event type, ms), which name the work to move off.
// Once idle, it selects the largest tensor (detail histogram, heatmap slice, value table) and reports
// that step's lateness and busy time as select_max_lateness_ms / select_max_busy_ms; then it opens
// the file again over the loaded one (reopen_max_lateness_ms / reopen_max_busy_ms: the old
// workspace is released while the new one loads).
#include "ui/async/latencyprobe.h"
#include "ui/document/checkpointdocument.h"
#include "ui/mainwindow.h"
#include "ui/models/tensortablemodel.h"

#include <QApplication>
#include <QMetaEnum>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/** Times every event the GUI thread delivers (outermost only: nested deliveries are part of it). */
class TimingApplication final : public QApplication
{
public:
    using QApplication::QApplication;
    struct Slow {
        double cpuMs; ///< GUI-thread CPU time: the work itself, whatever the machine's load
        double ms;    ///< wall time
        double atS;
        std::string what;
    };
    bool notify(QObject* receiver, QEvent* event) override
    {
        if (!measuring || depth > 0 || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        ++depth;
        const qint64 t0 = clock.nsecsElapsed();
        const qint64 c0 = ckpt::ui::threadCpuNs();
        // the names are taken before delivery: the receiver may delete itself
        const char* cls = receiver->metaObject()->className();
        const int type = int(event->type());
        const bool r = QApplication::notify(receiver, event);
        const double ms = double(clock.nsecsElapsed() - t0) / 1e6;
        const double cpuMs = double(ckpt::ui::threadCpuNs() - c0) / 1e6;
        --depth;
        if (slowest.size() < 8 || cpuMs > slowest.back().cpuMs) {
            const char* typeName = QMetaEnum::fromType<QEvent::Type>().valueToKey(type);
            slowest.push_back({cpuMs, ms, double(t0) / 1e9, std::string(cls) + " " + (typeName ? typeName : std::to_string(type))});
            std::sort(slowest.begin(), slowest.end(), [](const Slow& a, const Slow& b) { return a.cpuMs > b.cpuMs; });
            if (slowest.size() > 8)
                slowest.pop_back();
        }
        return r;
    }
    bool measuring = false;
    int depth = 0;
    QElapsedTimer clock;
    std::vector<Slow> slowest;
};

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // recent-files settings go to a test location, not the user's
    TimingApplication app(argc, argv);
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
    // Then a second phase: the largest tensor selected in the table, as a user does next (its
    // histogram, heatmap slice and value table are built); measured by a second probe until idle.
    ckpt::ui::LatencyProbe selectProbe(5);
    bool loaded = false, done = false, selected = false;
    double loadedAt = -1, idleAt = -1;
    QElapsedTimer clock;
    ckpt::ui::LatencyProbe reopenProbe(5);
    bool reopening = false, reloaded = false;
    QObject::connect(&window, &ckpt::ui::MainWindow::loadFinished, [&] {
        if (reopening) {
            reloaded = true;
            return;
        }
        loaded = true;
        loadedAt = double(clock.nsecsElapsed()) / 1e9;
    });
    QObject::connect(&window, &ckpt::ui::MainWindow::idle, [&] {
        if (loaded && !done) {
            done = true;
            probe.stop();
            idleAt = double(clock.nsecsElapsed()) / 1e9;
            app.measuring = false; // the slowest events are those of the open
            auto* model = window.tensorModel();
            int largest = -1;
            uint64_t bytes = 0;
            const auto& ws = window.document()->workspace();
            for (int row = 0; row < model->rowCount(); ++row)
                if (const auto* t = ws.tensor(model->refAt(row)); t && (largest < 0 || t->bytes > bytes)) {
                    largest = row;
                    bytes = t->bytes;
                }
            if (largest < 0) {
                QTimer::singleShot(0, &app, &QCoreApplication::quit);
                return;
            }
            QTimer::singleShot(100, [&, largest] {
                selectProbe.start();
                window.selectTensor(window.tensorModel()->refAt(largest));
                selected = true;
            });
        } else if (selected) {
            selected = false;
            selectProbe.stop();
            // Third phase: the same file opened again over the loaded one, so the old workspace
            // (its 1 GiB mapping, its index) is released while the new one loads.
            QTimer::singleShot(100, [&] {
                reopenProbe.start();
                reopening = true;
                window.openPaths({file});
            });
        } else if (reopening && reloaded) {
            reopening = false;
            reopenProbe.stop();
            QTimer::singleShot(0, &app, &QCoreApplication::quit);
        }
    });
    QTimer::singleShot(limitSeconds * 1000, &app, &QCoreApplication::quit);
    // let the window settle (first paint) before measuring
    QTimer::singleShot(200, [&] {
        clock.start();
        app.clock = clock;
        app.measuring = true;
        probe.start();
        window.openPaths({file});
    });
    app.exec();
    app.measuring = false;
    std::string slow;
    for (const auto& e : app.slowest)
        slow += (slow.empty() ? "" : ", ") + std::string("{\"cpu_ms\": ") + std::to_string(e.cpuMs) + ", \"ms\": " + std::to_string(e.ms) + ", \"at_s\": " + std::to_string(e.atS)
            + ", \"event\": \"" + e.what + "\"}";
    std::printf("{\"probe_interval_ms\": 5, \"max_lateness_ms\": %.3f, \"p99_lateness_ms\": %.3f, \"worst_at_s\": %.3f, "
                "\"worst_cpu_ms\": %.3f, \"worst_runqueue_ms\": %.3f, \"max_busy_ms\": %.3f, \"busiest_at_s\": %.3f, "
                "\"loaded_s\": %.3f, \"idle_s\": %.3f, \"ticks\": %lld, \"finished\": %s, "
                "\"select_max_lateness_ms\": %.3f, \"select_max_busy_ms\": %.3f, \"select_ticks\": %lld, "
                "\"reopen_max_lateness_ms\": %.3f, \"reopen_max_busy_ms\": %.3f, \"reopen_ticks\": %lld, \"slowest_events\": [%s]}\n",
        probe.maxLatenessMs(), probe.quantileMs(0.99), probe.worstAtSeconds(), probe.worstCpuMs(), probe.worstRunQueueMs(), probe.maxBusyMs(),
        probe.busiestAtSeconds(), loadedAt, idleAt, static_cast<long long>(probe.ticks()), done ? "true" : "false",
        selectProbe.maxLatenessMs(), selectProbe.maxBusyMs(), static_cast<long long>(selectProbe.ticks()),
        reopenProbe.maxLatenessMs(), reopenProbe.maxBusyMs(), static_cast<long long>(reopenProbe.ticks()), slow.c_str());
    return done ? 0 : 1;
}
