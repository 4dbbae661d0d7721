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
 */
class LatencyProbe final : public QObject
{
    Q_OBJECT
public:
    explicit LatencyProbe(int intervalMs = 5, QObject* parent = nullptr);
    void start();
    void stop();

    qsizetype ticks() const { return qsizetype(m_lateness.size()); }
    double maxLatenessMs() const;
    /** The \a q quantile (0..1) of the lateness, in ms; 0 without ticks. */
    double quantileMs(double q) const;
    /** Seconds since start() at which the largest lateness ended. */
    double worstAtSeconds() const { return double(m_worstAt) / 1e9; }

private:
    void tick();
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = -1;
    qint64 m_worst = 0;
    qint64 m_worstAt = 0;
    std::vector<qint64> m_lateness; ///< ns per tick
    const qint64 m_intervalNs;
};

} // namespace ckpt::ui
