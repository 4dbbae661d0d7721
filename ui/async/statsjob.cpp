// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/statsjob.h"

#include <QPromise>
#include <QtConcurrent>

#include <numeric>

#ifdef __linux__
#include <sys/resource.h>
#endif

namespace ckpt::ui {

void markBackgroundThread()
{
#ifdef __linux__
    thread_local bool marked = false;
    if (!marked) {
        // Linux keeps nice values per thread: PRIO_PROCESS with 0 is the calling thread only
        setpriority(PRIO_PROCESS, 0, 10);
        marked = true;
    }
#endif
}

QThreadPool* backgroundPool()
{
    static QThreadPool* const pool = [] {
        // Owned by the application, whose end waits for the pool's threads. The first use can be on a
        // worker (a diff job's parallel pass), where a parent in the GUI thread cannot be given to a new
        // object ("Cannot create children for a parent that is in a different thread": the pool was
        // then ownerless); created here and pushed to the application's thread, it can take it.
        auto* p = new QThreadPool;
        p->setMaxThreadCount(QThread::idealThreadCount() + 1);
        if (QCoreApplication* app = QCoreApplication::instance()) {
            p->moveToThread(app->thread());
            p->setParent(app);
        }
        return p;
    }();
    return pool;
}

ParallelFor qtParallelFor()
{
    return [](size_t n, const std::function<void(size_t)>& body) {
        std::vector<size_t> indices(n);
        std::iota(indices.begin(), indices.end(), size_t(0));
        // blocking: runs on the calling thread too, and takes pool threads only if they are free, so a
        // job already on the pool cannot deadlock waiting for itself
        QtConcurrent::blockingMap(backgroundPool(), indices, [&body](size_t i) {
            markBackgroundThread();
            body(i);
        });
    };
}

TensorStats tensorStats(const Record& record, size_t tensor, const StatsOptions& options)
{
    return std::move(record.stats(std::span<const size_t>(&tensor, 1), options, qtParallelFor()).front());
}

QFuture<StatsBatch> startStatsJob(std::vector<StatsRequest> requests, StatsOptions options)
{
    return QtConcurrent::run(backgroundPool(),
        [](QPromise<StatsBatch>& promise, std::vector<StatsRequest> reqs, StatsOptions opts) {
            constexpr uint64_t BatchBytes = uint64_t(32) << 20;
            constexpr size_t BatchTensors = 256;
            markBackgroundThread();
            promise.setProgressRange(0, 1000);
            uint64_t total = 0, done = 0;
            for (const auto& r : reqs)
                total += r.record->tensors[r.tensor].bytes + 1;
            const ParallelFor parallel = qtParallelFor();
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
