// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/latencyprobe.h"

#include <algorithm>

#include <cstdio>
#include <ctime>

#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>
#endif

namespace ckpt::ui {

qint64 threadCpuNs()
{
#ifdef CLOCK_THREAD_CPUTIME_ID
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
#endif
    return 0;
}

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent)
    : QObject(parent)
    , m_intervalNs(qint64(intervalMs) * 1'000'000)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LatencyProbe::tick);
}

LatencyProbe::~LatencyProbe()
{
#ifdef __linux__
    if (m_schedstat >= 0)
        ::close(m_schedstat);
#endif
}

qint64 LatencyProbe::runQueueNs() const
{
#ifdef __linux__
    // "cpu_ns runqueue_wait_ns timeslices"
    char buf[96];
    if (m_schedstat < 0)
        return -1;
    const ssize_t n = ::pread(m_schedstat, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    unsigned long long cpu = 0, wait = 0;
    if (std::sscanf(buf, "%llu %llu", &cpu, &wait) != 2)
        return -1;
    return qint64(wait);
#else
    return -1;
#endif
}

void LatencyProbe::start()
{
#ifdef __linux__
    // the thread that will run tick(): the file names the thread that opens it
    if (m_schedstat < 0)
        m_schedstat = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
#endif
    m_lateness.clear();
    m_worst = 0;
    m_worstAt = 0;
    m_worstCpu = 0;
    m_worstWait = -1;
    m_lastWait = runQueueNs();
    m_maxBusy = 0;
    m_maxBusyAt = 0;
    m_clock.start();
    m_last = m_clock.nsecsElapsed();
    m_lastCpu = threadCpuNs();
    m_timer.start();
}

void LatencyProbe::stop()
{
    m_timer.stop();
}

void LatencyProbe::tick()
{
    const qint64 now = m_clock.nsecsElapsed();
    const qint64 cpu = threadCpuNs();
    const qint64 late = std::max<qint64>(0, now - m_last - m_intervalNs);
    const qint64 busy = cpu - m_lastCpu;
    const qint64 wait = runQueueNs();
    if (late > m_worst) {
        m_worst = late;
        m_worstAt = now;
        m_worstCpu = busy;
        m_worstWait = wait >= 0 && m_lastWait >= 0 ? wait - m_lastWait : -1;
    }
    m_lastWait = wait;
    if (busy > m_maxBusy) {
        m_maxBusy = busy;
        m_maxBusyAt = now;
    }
    m_lateness.push_back(late);
    m_last = now;
    m_lastCpu = cpu;
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
