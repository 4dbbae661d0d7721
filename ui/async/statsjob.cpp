// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/statsjob.h"

#include <QPromise>
#include <QtConcurrent>

namespace ckpt::ui {

QFuture<StatsItem> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options)
{
    return QtConcurrent::run(
        [](QPromise<StatsItem>& promise, std::vector<StatsRequest> reqs, StatsOptions opts) {
            promise.setProgressRange(0, 1000);
            uint64_t total = 0, done = 0;
            for (const auto& r : reqs)
                total += r.record->tensors[r.tensor].bytes + 1;
            int lastReported = -1;
            for (const auto& r : reqs) {
                if (promise.isCanceled())
                    return;
                promise.addResult(StatsItem{r.row, r.record->stats(r.record->tensors[r.tensor], opts)});
                done += r.record->tensors[r.tensor].bytes + 1;
                const int p = total ? int(done * 1000 / total) : 1000;
                // don't spam the progress bar
                if (p != lastReported) {
                    promise.setProgressValue(p);
                    lastReported = p;
                }
            }
        },
        std::move(requests), options);
}

} // namespace ckpt::ui
