// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/stats.h"

#include <QFuture>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <utility>

/**
 * The app's one executor (docs/development.md, "The app's executor").
 *
 * Every piece of background work in the app runs on backgroundPool(): top-level jobs (loading a
 * workspace, a record's statistics, a diff, a panel's histogram) are started with runInBackground(),
 * and a job that wants more cores splits its work with poolParallelFor(). The rule that keeps this
 * free of deadlocks: no thread ever blocks waiting for work that is queued behind it. A parallel loop
 * is run by its caller, which claims indices one at a time and runs them itself; helpers are started
 * only on pool threads that are idle at that moment (QThreadPool::tryStart, never a queued task), and
 * they claim indices from the same counter. When the caller runs out of indices it waits only for the
 * indices that a helper has claimed and is running right now; by induction over the nesting depth,
 * those finish. So the loop completes with 1 pool thread or 100, from a pool thread or from any
 * other, nested in another loop or not, and the results do not depend on who ran which index.
 *
 * Qt's QtConcurrent::blockingMap does not work this way in Qt 6: it is startMap() followed by
 * QFuture::waitForFinished(), and the calling thread runs none of the map's items. Called from a job
 * on the same pool, it waited for map tasks queued behind the jobs that held every thread: the app
 * hung for good on records of 64 MiB and more, whose statistics overlap with other jobs (issue 28).
 */
namespace ckpt::ui {

/**
 * The thread pool of all the app's background work. Not QThreadPool::globalInstance(): Qt 6.4's
 * raster paint engine splits some drawing into tasks on the global pool and waits for them, so a
 * global pool busy with statistics stalled the GUI thread's painting for hundreds of milliseconds.
 * One thread more than the cores by default (so that a single tensor's histogram in the detail view
 * is not queued behind a whole record's statistics), or what setBackgroundThreadCount() says.
 */
QThreadPool* backgroundPool();

/**
 * Limits backgroundPool() to \a threads (at least 1), as the app's --threads option and the tests
 * do; 0 restores the default. Loops started later use the new count; running ones finish as they are.
 */
void setBackgroundThreadCount(int threads);

/** The default thread count of backgroundPool(): the CKPT_THREADS environment variable, else cores + 1. */
int defaultBackgroundThreadCount();

/**
 * A ParallelFor for core on backgroundPool(), run as described above: callable from any thread,
 * nested or not, with any pool size. Each finished index counts as progress of the caller's
 * Activity (ui/async/activity.h), so the status bar's watchdog sees a long loop move.
 */
ParallelFor poolParallelFor();

/**
 * Runs \a tasks[i]() for every i with poolParallelFor(): the caller runs what no idle pool thread
 * takes, so work meant to overlap (a graph's analysis beside its grouping) still completes when no
 * other thread is free.
 */
void runTogether(std::initializer_list<std::function<void()>> tasks);

/**
 * Marks the calling (pool) thread as background work: on Linux its nice value goes to 10, so on a
 * machine with as many busy workers as cores the GUI thread still gets a core the moment it wakes
 * (without this, the statistics workers of a large record delayed its timers by 200 ms on 2 cores).
 * Pool threads only ever run background work, so the setting may stay; idempotent and cheap.
 */
void markBackgroundThread();

/**
 * Starts a top-level job on backgroundPool(). A job may run poolParallelFor() loops but must not
 * wait for another future of the pool (that is the deadlock described above).
 */
template<typename F, typename... Args>
auto runInBackground(F&& job, Args&&... args)
{
    return QtConcurrent::run(backgroundPool(), std::forward<F>(job), std::forward<Args>(args)...);
}

} // namespace ckpt::ui
