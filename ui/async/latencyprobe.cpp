// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/latencyprobe.h"

#include <algorithm>

namespace ckpt::ui {

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent)
    : QObject(parent)
    , m_intervalNs(qint64(intervalMs) * 1'000'000)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LatencyProbe::tick);
}

void LatencyProbe::start()
{
    m_lateness.clear();
    m_worst = 0;
    m_worstAt = 0;
    m_clock.start();
    m_last = m_clock.nsecsElapsed();
    m_timer.start();
}

void LatencyProbe::stop()
{
    m_timer.stop();
}

void LatencyProbe::tick()
{
    const qint64 now = m_clock.nsecsElapsed();
    const qint64 late = std::max<qint64>(0, now - m_last - m_intervalNs);
    if (late > m_worst) {
        m_worst = late;
        m_worstAt = now;
    }
    m_lateness.push_back(late);
    m_last = now;
}

double LatencyProbe::maxLatenessMs() const
{
    return double(m_worst) / 1e6;
}

double LatencyProbe::quantileMs(double q) const
{
    if (m_lateness.empty())
        return 0.0;
    std::vector<qint64> sorted = m_lateness;
    const size_t k = std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5));
    std::nth_element(sorted.begin(), sorted.begin() + qsizetype(k), sorted.end());
    return double(sorted[k]) / 1e6;
}

} // namespace ckpt::ui
