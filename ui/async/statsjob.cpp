// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/statsjob.h"

#include "ui/async/activity.h"

#include <QCoreApplication>
#include <QPromise>
#include <QtConcurrent>

#include <filesystem>

namespace ckpt::ui {

TensorStats tensorStats(const Record& record, size_t tensor, const StatsOptions& options)
{
    markBackgroundThread();
    const Activity activity(QCoreApplication::translate("StatsJob", "statistics of %1")
                                .arg(QString::fromStdString(record.tensors[tensor].path)));
    return std::move(record.stats(std::span<const size_t>(&tensor, 1), options, poolParallelFor()).front());
}

QFuture<StatsBatch> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options)
{
    return runInBackground(
        [](QPromise<StatsBatch>& promise, std::vector<StatsRequest> reqs, StatsOptions opts) {
            constexpr uint64_t BatchBytes = uint64_t(32) << 20;
            constexpr size_t BatchTensors = 256;
            markBackgroundThread();
            // named after the first record; a job spans one workspace's records
            const Activity activity(reqs.empty() ? QString()
                : QCoreApplication::translate("StatsJob", "statistics of %1 tensors of %2")
                      .arg(reqs.size())
                      .arg(QString::fromStdString(std::filesystem::path(reqs.front().record->file).filename().string())));
            promise.setProgressRange(0, 1000);
            uint64_t total = 0, done = 0;
            for (const auto& r : reqs)
                total += r.record->tensors[r.tensor].bytes + 1;
            const ParallelFor parallel = poolParallelFor();
            std::vector<size_t> indices;
            for (size_t first = 0; first < reqs.size();) {
                if (promise.isCanceled())
                    return;
                const Record& record = *reqs[first].record;
                indices.clear();
                uint64_t bytes = 0;
                size_t last = first;
                while (last < reqs.size() && reqs[last].record.get() == &record && indices.size() < BatchTensors
                    && (indices.empty() || bytes + record.tensors[reqs[last].tensor].bytes <= BatchBytes)) {
                    indices.push_back(reqs[last].tensor);
                    bytes += record.tensors[reqs[last].tensor].bytes + 1;
                    ++last;
                }
                auto stats = record.stats(indices, opts, parallel);
                StatsBatch batch;
                batch.reserve(indices.size());
                for (size_t k = 0; k < indices.size(); ++k)
                    batch.push_back({reqs[first + k].row, std::move(stats[k])});
                promise.addResult(std::move(batch));
                done += bytes;
                promise.setProgressValue(total ? int(done * 1000 / total) : 1000);
                first = last;
            }
        },
        std::move(requests), options);
}

} // namespace ckpt::ui
