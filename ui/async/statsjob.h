// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"
#include "ui/async/executor.h"

#include <QFuture>

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
 * record, about 32 MiB or 256 tensors each); the chunks of a batch are spread over the app's pool
 * (poolParallelFor, ui/async/executor.h), and each batch arrives as one result (resultReadyAt), so a record
 * of 10k small tensors costs the GUI a few dozen model updates, not 10k. Progress is 0..1000;
 * cancelling the future stops after the current batch.
 */
QFuture<StatsBatch> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options);

/** Statistics of one tensor with its chunks spread over the pool (call from a worker thread). */
TensorStats tensorStats(const Record& record, size_t tensor, const StatsOptions& options);

} // namespace ckpt::ui
