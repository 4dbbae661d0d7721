// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/timeline.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace ckpt::ui {

class ClusterScan;

/**
 * A run's timeline computed on a Slurm cluster: the ClusterScan (`ckpt timeline --slurm`) and the
 * merge of its shares' partial files in the background, so far as they arrive and all of them at the
 * end (that last merge fills the timeline cache, so the next look at the run reads nothing). The Run
 * panel only shows what merged() hands it.
 */
class ClusterTimeline : public QObject
{
    Q_OBJECT
public:
    explicit ClusterTimeline(QObject* parent = nullptr);

    ClusterScan* scan() const { return m_scan; }
    /** The run the partials are merged against (the panel's last listing; null: none, merges are skipped). */
    void setRun(std::shared_ptr<const RunCheckpoints> run) { m_run = std::move(run); }
    /** Starts the scan of \a dir with the Slurm resume profile \a profile and \a tasks shares; false if it cannot. */
    bool start(const QString& dir, const QString& profile, int tasks);
    /** Cancels the scan; merges still under way are dropped when they end. */
    void cancel();
    bool isRunning() const;
    /** A merge of partials runs in the background. */
    bool isMerging() const { return m_merging; }

Q_SIGNALS:
    /** A line of ckpt's progress. */
    void progress(const QString& line);
    /** The scan's process ended: ok (its final merge follows), or \a error says why not. */
    void scanEnded(bool ok, const QString& error);
    /** The partials so far (\a complete: all of them) merged into \a timeline; \a shares of the scan are in. */
    void merged(std::shared_ptr<const Timeline> timeline, bool complete, int shares);
    /** The final merge failed (a merge so far that fails is retried with the next partials instead). */
    void mergeFailed(const QString& error);

private:
    void merge(const QStringList& partials, bool complete);

    ClusterScan* m_scan;
    std::shared_ptr<const RunCheckpoints> m_run;
    quint64 m_generation = 0;
    bool m_merging = false;
};

} // namespace ckpt::ui
