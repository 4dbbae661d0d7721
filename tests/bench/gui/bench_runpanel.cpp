// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-runpanel RUN [LIMIT_SECONDS]: the app's Run panel (ui/widgets/runpanel.h, issue 30 item 6)
// on the offscreen platform, on a run directory (run_bench.py gives it `ckpt-bench-gen run` output:
// 300 checkpoints of 495 small tensors by default). Two phases in one process, with the timeline
// cache in a temporary XDG_CACHE_HOME of its own (so every round starts cold):
//
//   1. cold scan: a RunPanel (1400×800, shown) is given the run while a 5 ms precise QTimer stamps
//      the event loop; scan_max_stall_ms is the longest gap between two of its ticks from
//      setRunDirectory() until the panel is idle with the complete timeline (scan_s). The GUI
//      thread's own CPU time in the busiest gap is scan_max_busy_ms (the part of a stall that is work
//      on the event loop rather than waiting for a core on a loaded machine).
//   2. warm cache: the panel is destroyed and a new one is given the same run; cached_shown_s is the
//      time until it emitted timelineUpdated() (the complete timeline shown) and one synchronous
//      repaint of the panel (heatmap and list painted) has returned; the cache must have served
//      every checkpoint (else the probe fails). cached_max_stall_ms: the longest gap meanwhile.
//
// Prints one JSON line (run_bench.py's probe protocol, tests/bench/README.md "Probes"); exits non-zero
// when a phase does not finish within LIMIT_SECONDS (default 300) or the cache did not serve the second look.
#include "ui/async/latencyprobe.h"
#include "ui/plots/heatmaptimeline.h"
#include "ui/models/runcheckpointmodel.h"
#include "ui/widgets/runpanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

namespace {

/** A 5 ms precise timer: the longest gap between two ticks, and the GUI-thread CPU time in the busiest gap. */
class GapProbe
{
public:
    GapProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(5);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
    }
    void start()
    {
        m_clock.start();
        m_last = 0;
        m_lastCpu = ckpt::ui::threadCpuNs();
        m_maxGap = m_maxBusy = 0;
        m_ticks = 0;
        m_timer.start();
    }
    /** The gap up to now counts too (a stall at the very end has no tick after it). */
    void stop()
    {
        tick();
        m_timer.stop();
    }
    double maxGapMs() const { return double(m_maxGap) / 1e6; }
    double maxBusyMs() const { return double(m_maxBusy) / 1e6; }
    long long ticks() const { return m_ticks; }

private:
    void tick()
    {
        const qint64 now = m_clock.nsecsElapsed(), cpu = ckpt::ui::threadCpuNs();
        m_maxGap = std::max(m_maxGap, now - m_last);
        m_maxBusy = std::max(m_maxBusy, cpu - m_lastCpu);
        m_last = now;
        m_lastCpu = cpu;
        ++m_ticks;
    }
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0, m_lastCpu = 0, m_maxGap = 0, m_maxBusy = 0;
    long long m_ticks = 0;
};

/** Runs the event loop until \a done holds (checked on every signal of \a panel that may end a phase, and every 20 ms). */
bool waitUntil(ckpt::ui::RunPanel* panel, const std::function<bool()>& done, int limitSeconds)
{
    if (done())
        return true;
    QEventLoop loop;
    auto check = [&] {
        if (done())
            loop.quit();
    };
    QTimer poll;
    poll.setInterval(20);
    QObject::connect(&poll, &QTimer::timeout, &loop, check);
    QObject::connect(panel, &ckpt::ui::RunPanel::idle, &loop, check, Qt::QueuedConnection);
    QObject::connect(panel, &ckpt::ui::RunPanel::timelineUpdated, &loop, check, Qt::QueuedConnection);
    QTimer::singleShot(limitSeconds * 1000, &loop, &QEventLoop::quit);
    poll.start();
    loop.exec();
    return done();
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location, not the user's
    QTemporaryDir cache;
    if (!cache.isValid())
        return 1;
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8()); // read by defaultTimelineCacheDir() at each computation
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ckpt-bench-runpanel RUN [LIMIT_SECONDS]\n");
        return 2;
    }
    const QString run = QString::fromLocal8Bit(argv[1]);
    const int limitSeconds = argc > 2 ? std::atoi(argv[2]) : 300;
    using ckpt::ui::RunPanel;

    // 1. cold scan
    GapProbe scanProbe;
    auto panel = std::make_unique<RunPanel>();
    panel->resize(1400, 800);
    panel->show();
    QCoreApplication::processEvents(); // first paint before the clock starts
    QElapsedTimer clock;
    clock.start();
    double scanS = -1;
    QObject::connect(panel.get(), &RunPanel::idle, [&] {
        if (scanS < 0 && panel->timeline())
            scanS = double(clock.nsecsElapsed()) / 1e9;
    });
    scanProbe.start();
    panel->setRunDirectory(run);
    const bool scanned = waitUntil(panel.get(), [&] { return scanS >= 0 || (panel->timeline() && !panel->isBusy()); }, limitSeconds);
    scanProbe.stop();
    if (scanS < 0)
        scanS = double(clock.nsecsElapsed()) / 1e9;
    if (!scanned) {
        std::fprintf(stderr, "ckpt-bench-runpanel: the cold scan did not finish within %d s\n", limitSeconds);
        return 1;
    }
    const auto first = panel->timeline();
    const size_t checkpoints = first->checkpoints.size(), series = first->series.size();
    const uint64_t coldRead = first->read;
    panel.reset();

    // 2. warm cache: until the complete timeline is shown and painted
    GapProbe cachedProbe;
    panel = std::make_unique<RunPanel>();
    panel->resize(1400, 800);
    panel->show();
    QCoreApplication::processEvents();
    bool updated = false;
    double shownS = -1;
    QObject::connect(panel.get(), &RunPanel::timelineUpdated, [&] {
        if (updated)
            return;
        updated = true;
        panel->repaint(); // synchronous: the heatmap and the list as the user sees them
        shownS = double(clock.nsecsElapsed()) / 1e9;
    });
    cachedProbe.start();
    clock.restart();
    panel->setRunDirectory(run);
    const bool shown = waitUntil(panel.get(), [&] { return updated; }, limitSeconds);
    const bool settled = shown && waitUntil(panel.get(), [&] { return !panel->isBusy(); }, limitSeconds);
    cachedProbe.stop();
    const double idleS = double(clock.nsecsElapsed()) / 1e9;
    if (!shown || !settled) {
        std::fprintf(stderr, "ckpt-bench-runpanel: the panel on a warm cache did not show the timeline within %d s\n", limitSeconds);
        return 1;
    }
    const auto second = panel->timeline();
    const int rows = panel->heatmap()->rowCount(), columns = panel->heatmap()->columnCount();
    const int listed = panel->checkpointModel()->rowCount();
    std::printf("{\"cached_shown_s\": %.4f, \"cached_idle_s\": %.4f, \"cached_max_stall_ms\": %.3f, \"cached_max_busy_ms\": %.3f, "
                "\"scan_s\": %.4f, \"scan_max_stall_ms\": %.3f, \"scan_max_busy_ms\": %.3f, \"scan_ticks\": %lld, "
                "\"checkpoints\": %zu, \"series\": %zu, \"cold_read\": %llu, \"cached_read\": %llu, \"cached_reused\": %llu, "
                "\"heatmap_rows\": %d, \"heatmap_columns\": %d, \"listed\": %d, \"probe_interval_ms\": 5}\n",
        shownS, idleS, cachedProbe.maxGapMs(), cachedProbe.maxBusyMs(), scanS, scanProbe.maxGapMs(), scanProbe.maxBusyMs(),
        scanProbe.ticks(), checkpoints, series, static_cast<unsigned long long>(coldRead),
        static_cast<unsigned long long>(second->read), static_cast<unsigned long long>(second->reused), rows, columns, listed);
    // the second look must come from the cache and show everything the first one did
    if (second->read != 0 || second->reused != checkpoints || second->series.size() != series || columns != int(checkpoints)
        || listed != int(checkpoints)) {
        std::fprintf(stderr, "ckpt-bench-runpanel: the second look read %llu checkpoints, reused %llu of %zu; %zu series (first: %zu); "
                             "heatmap %d x %d, list %d\n",
            static_cast<unsigned long long>(second->read), static_cast<unsigned long long>(second->reused), checkpoints,
            second->series.size(), series, rows, columns, listed);
        return 1;
    }
    return 0;
}
