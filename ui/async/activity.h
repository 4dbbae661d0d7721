// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

namespace ckpt::ui {

/**
 * What the app's background work is doing, for the watchdog in the status bar: a job names itself
 * when it starts (an Activity lives as long as the job) and ticks when it moves on. Ticks are cheap
 * (one relaxed atomic store), so a loop may tick for every chunk it finishes; poolParallelFor ticks
 * the caller's activity for every index any thread finishes. MainWindow polls stalled() once a
 * second and shows work that has not moved for a while instead of a silently incomplete window.
 * Thread-safe; no Qt objects, so it is usable from any thread.
 */
class ActivityBoard {
public:
    struct Entry {
        QString what;                          ///< "Statistics of model.mpk", set once
        std::atomic<int64_t> lastTickMs{0};    ///< steady-clock milliseconds of the last progress
        std::atomic<int64_t> startedMs{0};
        std::atomic<uint64_t> ticks{0};
    };
    struct Stalled {
        QString what;
        int64_t idleMs = 0;   ///< since the last progress (or the start)
        uint64_t ticks = 0;   ///< progress made before it stopped
    };

    static ActivityBoard& instance();
    static int64_t nowMs();

    std::shared_ptr<Entry> add(QString what);
    void remove(const std::shared_ptr<Entry>& entry);
    /** The activities that have made no progress for \a thresholdMs, the longest-idle first. */
    std::vector<Stalled> stalled(int64_t thresholdMs) const;
    /** How many activities are running now. */
    size_t running() const;

private:
    mutable std::mutex m_mutex;
    std::list<std::shared_ptr<Entry>> m_entries;
};

/**
 * One running job on the ActivityBoard, from construction to destruction. While it lives, it is the
 * calling thread's current activity (restored on destruction), which poolParallelFor() ticks.
 */
class Activity {
public:
    explicit Activity(QString what);
    ~Activity();
    Activity(const Activity&) = delete;
    Activity& operator=(const Activity&) = delete;

    /** Progress was made (a batch, a chunk, a file). */
    void tick() const { tickEntry(m_entry.get()); }
    /** The activity of the calling thread, or null; for helpers that tick on the caller's behalf. */
    static std::shared_ptr<ActivityBoard::Entry> current();
    static void tickEntry(ActivityBoard::Entry* e)
    {
        if (e) {
            e->lastTickMs.store(ActivityBoard::nowMs(), std::memory_order_relaxed);
            e->ticks.fetch_add(1, std::memory_order_relaxed);
        }
    }

private:
    std::shared_ptr<ActivityBoard::Entry> m_entry;
    std::shared_ptr<ActivityBoard::Entry> m_previous;
};

/** The watchdog's threshold: CKPT_WATCHDOG_SECONDS when set (tests use a few seconds), else 20 s. */
int64_t watchdogThresholdMs();

} // namespace ckpt::ui
