// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

#include <QFuture>
#include <QThreadPool>

#include <memory>
#include <vector>

namespace ckpt::ui {

struct StatsRequest {
    int row = 0;                          ///< whatever the caller wants back with the result
    std::shared_ptr<const Record> record; ///< kept alive by the job
    size_t tensor = 0;
};
struct StatsItem {
    int row = 0;
    TensorStats stats;
};
/** The results of consecutive requests, delivered together so the GUI updates once per batch. */
using StatsBatch = std::vector<StatsItem>;

/**
 * Computes statistics of many tensors off the GUI thread. Requests are grouped into batches (same
 * record, about 32 MiB or 256 tensors each); the chunks of a batch are spread over QtConcurrent's
 * global pool (qtParallelFor), and each batch arrives as one result (resultReadyAt), so a record
 * of 10k small tensors costs the GUI a few dozen model updates, not 10k. Progress is 0..1000;
 * cancelling the future stops after the current batch.
 */
QFuture<StatsBatch> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options);

/**
 * The thread pool of the app's long-running background work (loading, statistics). Not
 * QThreadPool::globalInstance(): Qt 6.4's raster paint engine splits some drawing into tasks on the
 * global pool and waits for them, so a global pool busy with statistics stalled the GUI thread's
 * painting for hundreds of milliseconds. One thread more than the cores, so that a single tensor's
 * histogram (detail view) is not queued behind a whole record's statistics.
 */
QThreadPool* backgroundPool();

/** A ParallelFor for core's statistics on backgroundPool() (the calling thread helps). */
ParallelFor qtParallelFor();

/**
 * Marks the calling (pool) thread as background work: on Linux its nice value goes to 10, so on a
 * machine with as many busy workers as cores the GUI thread still gets a core the moment it wakes
 * (without this, the statistics workers of a large record delayed its timers by 200 ms on 2 cores).
 * Pool threads only ever run background work, so the setting may stay; idempotent and cheap.
 */
void markBackgroundThread();

/** Statistics of one tensor with its chunks spread over the pool (call from a worker thread). */
TensorStats tensorStats(const Record& record, size_t tensor, const StatsOptions& options);

} // namespace ckpt::ui
