// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <vector>

namespace ckpt::ui {

/**
 * How responsive the GUI thread is: a precise timer asks to fire every \a intervalMs and records how
 * late each timeout came (time since the previous one minus the interval). Work that blocks the event
 * loop shows up directly as lateness; the largest is the longest stall a user would feel.
 *
 * Lateness also counts time the thread was runnable but not running (a machine busier than its
 * cores). So the probe also reads the thread's own CPU clock at each tick: the CPU time the GUI
 * thread spent between two ticks is the work it did while the timer could not fire, the part of a
 * stall that moving work off the GUI thread can remove, whatever the load. On Linux it also reads
 * the scheduler's run-queue wait (/proc/thread-self/schedstat): the time the thread was ready but
 * every core was taken. What is left of a stall is time it was blocked (a lock, a page fault).
 */
class LatencyProbe final : public QObject
{
    Q_OBJECT
public:
    explicit LatencyProbe(int intervalMs = 5, QObject* parent = nullptr);
    ~LatencyProbe() override;
    void start();
    void stop();

    qsizetype ticks() const { return qsizetype(m_lateness.size()); }
    double maxLatenessMs() const;
    /** The \a q quantile (0..1) of the lateness, in ms; 0 without ticks. */
    double quantileMs(double q) const;
    /** Seconds since start() at which the largest lateness ended. */
    double worstAtSeconds() const { return double(m_worstAt) / 1e9; }
    /** GUI-thread CPU time within the largest lateness's interval, in ms (the rest was waiting for a core). */
    double worstCpuMs() const { return double(m_worstCpu) / 1e6; }
    /** Time within the largest lateness's interval the thread waited for a core, in ms (-1: not known). */
    double worstRunQueueMs() const { return m_worstWait < 0 ? -1.0 : double(m_worstWait) / 1e6; }
    /** The most GUI-thread CPU time between two ticks, in ms: the longest piece of work on the event loop. */
    double maxBusyMs() const { return double(m_maxBusy) / 1e6; }
    /** Seconds since start() at which that busiest interval ended. */
    double busiestAtSeconds() const { return double(m_maxBusyAt) / 1e9; }

private:
    void tick();
    qint64 runQueueNs() const;
    QTimer m_timer;
    int m_schedstat = -1; ///< /proc/thread-self/schedstat of the probe's thread, or -1
    qint64 m_lastWait = 0;
    qint64 m_worstWait = -1;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_lastCpu = 0;
    qint64 m_worst = 0;
    qint64 m_worstAt = 0;
    qint64 m_worstCpu = 0;
    qint64 m_maxBusy = 0;
    qint64 m_maxBusyAt = 0;
    std::vector<qint64> m_lateness; ///< ns per tick
    const qint64 m_intervalNs;
};

/** CPU time the calling thread has used, in ns (0 where the platform has no per-thread clock). */
qint64 threadCpuNs();

} // namespace ckpt::ui
