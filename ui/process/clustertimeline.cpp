// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/clustertimeline.h"

#include "ui/async/continuation.h"
#include "ui/async/executor.h"
#include "ui/models/formatting.h"
#include "ui/process/clusterscan.h"

#include <string>
#include <vector>

namespace ckpt::ui {

ClusterTimeline::ClusterTimeline(QObject* parent)
    : QObject(parent)
    , m_scan(new ClusterScan(this))
{
    connect(m_scan, &ClusterScan::progress, this, &ClusterTimeline::progress);
    connect(m_scan, &ClusterScan::partialsArrived, this, [this](const QStringList& partials) {
        if (!partials.isEmpty())
            merge(partials, false);
    });
    connect(m_scan, &ClusterScan::finished, this, [this](bool ok, const QString& error) {
        Q_EMIT scanEnded(ok, error);
        if (ok)
            merge(m_scan->partials(), true);
    });
}

bool ClusterTimeline::start(const QString& dir, const QString& profile, int tasks)
{
    if (!m_run || m_scan->isRunning())
        return false;
    ++m_generation;
    return m_scan->start({dir, profile, tasks});
}

void ClusterTimeline::cancel()
{
    ++m_generation;
    m_scan->cancel();
}

bool ClusterTimeline::isRunning() const
{
    return m_scan->isRunning();
}

void ClusterTimeline::merge(const QStringList& partials, bool complete)
{
    if (!m_run)
        return;
    const quint64 generation = m_generation;
    std::vector<std::string> files;
    for (const QString& f : partials)
        files.push_back(f.toStdString());
    m_merging = true;
    auto future = runInBackground([run = m_run, files, complete] {
        markBackgroundThread();
        TimelineOptions options;
        options.partialsSoFar = !complete;
        options.useCache = complete; // the complete merge fills the cache: the next scan of the run reads nothing
        return std::make_shared<Result<Timeline>>(mergeTimelinePartials(*run, files, options));
    });
    whenReady(future, this, [this, generation, complete, shares = int(partials.size())](std::shared_ptr<Result<Timeline>> result) {
        m_merging = false;
        if (generation != m_generation)
            return;
        if (!*result) {
            // so far, a partial still being renamed into place may not read yet: the next poll retries
            if (complete)
                Q_EMIT mergeFailed(qs(result->error().message()));
            return;
        }
        Q_EMIT merged(std::make_shared<const Timeline>(std::move(**result)), complete, shares);
    });
}

} // namespace ckpt::ui
