// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/timeline.h"
#include "ui/plots/heatmaptimeline.h"

#include <QFuture>
#include <QWidget>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QFileSystemWatcher;
class QLabel;
class QLineEdit;
class QPushButton;

class QTableView;
class QTimer;

namespace ckpt::ui {

class ClusterScan;
class ClusterTimeline;
class RunCheckpointModel;
class RunForensicsPlot;

/**
 * The Run panel (issue 30 item 6): a run directory followed across its checkpoints.
 *
 * A summary line; the checkpoints as a list (double-click opens one as the window's record); the
 * timeline as a heatmap of every tensor across the checkpoints with the train loss and learning rate
 * above it on the same axis (TimelineHeatmap); a click on a cell asks for the diff of that checkpoint
 * with the one before; "Find first bad checkpoint" bisects the run for a predicate.
 *
 * Everything that reads files runs on the app's executor (runInBackground with poolParallelFor):
 * the listing, the timeline (its persistent cache makes a second look read only new checkpoints) and
 * bisect. While the timeline is computed, each checkpoint's new points are handed to the GUI thread
 * as they come and the views are refreshed at most every RefreshMs. The run's checkpoint folders are
 * watched: a change is re-listed after DebounceMs, and new or changed checkpoints are read once their
 * size and time stayed the same over two listings PollMs apart (a file still being written is waited
 * for, not misread).
 *
 * Once a timeline is in, the optimizer forensics of every checkpoint not analysed yet (or whose files
 * changed) are computed in one more background job, a checkpoint at a time and cancellable with the
 * rest: the list's optimizer column shows the number of suspect parameters and the worst flag, and
 * a plot under the list their figures per checkpoint (the largest first moment against its parameter,
 * with exploded_moments' threshold, and the largest effective step).
 */
class RunPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    /** Lists \a dir, computes its timeline and watches it; a new directory drops everything before. */
    void setRunDirectory(const QString& dir);
    QString runDirectory() const { return m_dir; }
    /** Forgets the run (no watching). */
    void clear();
    /** A listing, the timeline, the optimizer forensics, bisect or a live update (waiting for files to settle) is under way. */
    bool isBusy() const;
    /** The run was listed (it has checkpoints). */
    bool hasRun() const { return bool(m_run); }

    /** The run as last listed, and the last complete timeline (null while none). */
    std::shared_ptr<const RunCheckpoints> run() const { return m_run; }
    std::shared_ptr<const Timeline> timeline() const { return m_timeline; }

    void setMetric(TimelineHeatmap::Metric metric);
    /** Bisects the run for the predicate in the field (default nonfinite); a bad predicate is said inline. */
    void findFirstBad();
    /** The last bisect's first bad checkpoint (index into the run's points). */
    std::optional<size_t> firstBad() const { return m_firstBad; }
    /** Selects a checkpoint in the list and outlines its column. */
    void selectCheckpoint(size_t index);

    RunCheckpointModel* checkpointModel() const { return m_model; }
    QTableView* checkpointView() const { return m_view; }
    TimelineHeatmap* heatmap() const { return m_heatmap; }
    /** Per checkpoint (x: its index): graph 0 the largest m̂ RMS / max(‖w‖ RMS, 1), graph 1 the largest effective step. */
    QCustomPlot* optimizerPlot() const;
    QComboBox* metricBox() const { return m_metric; }
    QLineEdit* predicateEdit() const { return m_predicate; }
    QPushButton* bisectButton() const { return m_bisect; }
    /** "Scan on cluster…": the timeline computed by a Slurm array (ckpt timeline --slurm), shown as the partials arrive. */
    QPushButton* clusterButton() const { return m_clusterButton; }
    ClusterScan* clusterScan() const;
    /** Starts the cluster scan with the Slurm resume profile \a profile and \a tasks shares (0: ckpt's default); false if it cannot. */
    bool startClusterScan(const QString& profile, int tasks);
    /** Asks for the Slurm profile and the number of shares, then starts the scan. */
    void scanOnCluster();
    QString summary() const;
    QString bisectStatus() const;
    /** The optimizer forensics of the checkpoints are being computed. */
    bool forensicsRunning() const { return m_forensicsRunning; }
    QStringList watchedPaths() const;

    /** Delays of the live updates (tests shorten them). */
    void setLiveTimings(int debounceMs, int pollMs);
    static constexpr int DebounceMs = 1000;
    static constexpr int PollMs = 700;
    static constexpr int RefreshMs = 150;

    /** What the worker hands over after each checkpoint while the timeline is computed (defined in runpanel.cpp). */
    struct Delta;

Q_SIGNALS:
    /** Double-click on a checkpoint: its files (model, optimizer, scheduler of a burn-train epoch). */
    void openCheckpointRequested(const QStringList& files);
    /** A heatmap cell: checkpoint i-1 (the previous readable one) against i, and the tensor's path. */
    void diffRequested(const QString& a, const QString& b, const QString& tensorPath);
    /** The first listing of a directory given to setRunDirectory() ended (ok: it has checkpoints). */
    void runListed(bool ok);
    /** A timeline was completed and shown. */
    void timelineUpdated();
    /** The cluster scan's partials so far were merged and shown (\a shares of the scan are in). */
    void clusterScanUpdated(int shares);
    /** The cluster scan ended: its complete timeline is shown (ok), or \a error says why not. */
    void clusterScanFinished(bool ok, const QString& error);
    /** The optimizer forensics of every listed checkpoint are in the list (or the job was cancelled). */
    void forensicsUpdated();
    /** Nothing is running any more. */
    void idle();
    void message(const QString& text, bool error);

private:
    void setupControls();
    void setupCluster();
    void setupList();
    void setupLayout();
    void setupLive();
    using Signature = std::vector<FileIdentity>;
    static Signature signatureOf(const RunCheckpoints& run);
    void startListing(bool live);
    void onListed(Result<RunCheckpoints> listed, bool live);
    void startTimeline();
    void onTimeline(quint64 generation, std::shared_ptr<Result<Timeline>> result, Signature signature);
    void applyDelta(quint64 generation, const Delta& delta);
    void refreshLive();
    void showTimeline(const Timeline& t);
    void updateWatches();
    void updateSummary();
    void cellClicked(size_t series, size_t checkpoint);
    void openRow(int row);
    void showBisect(quint64 generation, std::shared_ptr<const Result<BisectResult>> result);
    QString pointName(size_t index) const;
    QString shortWhere(size_t index) const; ///< "step 800", "epoch 3"
    const Timeline* shownTimeline() const;
    void checkIdle();
    void cancelJobs();
    void startForensics();
    /** Shows the timeline merged from the cluster scan's partials (so far, or all of them at the end). */
    void showClusterTimeline(std::shared_ptr<const Timeline> timeline, bool complete, int shares);

    QLabel* m_summary;
    QComboBox* m_metric;
    QLineEdit* m_predicate;
    QPushButton* m_bisect;
    QPushButton* m_clusterButton;
    ClusterTimeline* m_cluster;
    bool m_timelineFromCluster = false; ///< the shown timeline is a merge of the cluster scan's partials
    QLabel* m_bisectStatus;
    RunCheckpointModel* m_model;
    QTableView* m_view;
    TimelineHeatmap* m_heatmap;
    RunForensicsPlot* m_optimizerPlot;
    QFileSystemWatcher* m_watcher;
    QTimer* m_debounce;
    QTimer* m_poll;
    QTimer* m_refresh;

    QString m_dir;
    std::shared_ptr<const RunCheckpoints> m_run;
    std::shared_ptr<const Timeline> m_timeline;
    std::unique_ptr<Timeline> m_live;         ///< the timeline being computed, as far as it came
    bool m_liveShown = false;                 ///< the views follow m_live (nothing complete to show yet)
    Signature m_computedSignature;            ///< the files the shown timeline was computed from
    Signature m_pendingSignature;             ///< new files seen once, to be seen unchanged once more
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QFuture<void> m_listFuture, m_timelineFuture, m_bisectFuture, m_forensicsFuture;
    quint64 m_dirGeneration = 0, m_timelineGeneration = 0, m_bisectGeneration = 0, m_forensicsGeneration = 0;
    bool m_forensicsRunning = false, m_forensicsAfter = false;
    std::map<std::string, Signature> m_forensicsDone; ///< RunPoint::file -> the files its forensics were computed from
    bool m_listing = false, m_computing = false, m_bisecting = false;
    bool m_relistAfter = false, m_recomputeAfter = false, m_firstListing = false;
    size_t m_liveDone = 0;                    ///< checkpoints the computing timeline has done
    std::optional<size_t> m_firstBad;
    QString m_listError;
    QString m_timelineError;
};

} // namespace ckpt::ui
