// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/activity.h"

#include <QByteArray>
#include <QtGlobal>

#include <algorithm>
#include <utility>

namespace ckpt::ui {

namespace {
thread_local std::shared_ptr<ActivityBoard::Entry> t_current;
}

ActivityBoard& ActivityBoard::instance()
{
    static ActivityBoard board;
    return board;
}

int64_t ActivityBoard::nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::shared_ptr<ActivityBoard::Entry> ActivityBoard::add(QString what)
{
    auto e = std::make_shared<Entry>();
    e->what = std::move(what);
    const int64_t now = nowMs();
    e->startedMs.store(now);
    e->lastTickMs.store(now);
    std::lock_guard lock(m_mutex);
    m_entries.push_back(e);
    return e;
}

void ActivityBoard::remove(const std::shared_ptr<Entry>& entry)
{
    std::lock_guard lock(m_mutex);
    m_entries.remove(entry);
}

std::vector<ActivityBoard::Stalled> ActivityBoard::stalled(int64_t thresholdMs) const
{
    const int64_t now = nowMs();
    std::vector<Stalled> out;
    std::lock_guard lock(m_mutex);
    for (const auto& e : m_entries) {
        const int64_t idle = now - e->lastTickMs.load(std::memory_order_relaxed);
        if (idle >= thresholdMs)
            out.push_back({e->what, idle, e->ticks.load(std::memory_order_relaxed)});
    }
    std::sort(out.begin(), out.end(), [](const Stalled& a, const Stalled& b) { return a.idleMs > b.idleMs; });
    return out;
}

size_t ActivityBoard::running() const
{
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

Activity::Activity(QString what)
    : m_entry(ActivityBoard::instance().add(std::move(what)))
    , m_previous(std::exchange(t_current, m_entry))
{
}

Activity::~Activity()
{
    t_current = std::move(m_previous);
    ActivityBoard::instance().remove(m_entry);
}

std::shared_ptr<ActivityBoard::Entry> Activity::current()
{
    return t_current;
}

int64_t watchdogThresholdMs()
{
    bool ok = false;
    const int seconds = qEnvironmentVariableIntValue("CKPT_WATCHDOG_SECONDS", &ok);
    return ok && seconds > 0 ? int64_t(seconds) * 1000 : int64_t(20000);
}

} // namespace ckpt::ui
