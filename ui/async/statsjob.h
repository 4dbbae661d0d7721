// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

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

/**
 * Computes statistics of many tensors in a worker thread. Results arrive one by one (resultReadyAt);
 * progress is 0..1000; cancelling the future stops after the current tensor.
 */
QFuture<StatsItem> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options);

} // namespace ckpt::ui
