// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/runpanel.h"

#include "ui/process/clusterscan.h"
#include "ui/process/clustertimeline.h"
#include "ui/process/resumeprofile.h"

#include "core/run/runpolicy.h"
#include "core/open/formats.h"
#include "core/optim/forensics.h"
#include "core/record/record.h"

#include "ui/async/activity.h"
#include "ui/async/continuation.h"
#include "ui/async/executor.h"
#include "ui/models/formatting.h"
#include "ui/models/runcheckpointmodel.h"
#include "ui/plots/forensicsplot.h"
#include "ui/widgets/viewsetup.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <QCoreApplication>

#include <algorithm>

namespace ckpt::ui {

/** New since the last checkpoint: the checkpoint's state, series first seen, their points, events. */
struct RunPanel::Delta {
    size_t checkpoint = 0;
    std::optional<TimelineCheckpoint> state;
    size_t firstNewSeries = 0;
    std::vector<TimelineSeries> newSeries;                 ///< without their points
    std::vector<std::pair<uint32_t, TimelinePoint>> points; ///< (series, point)
    std::vector<TimelineEvent> events;
};

namespace {

QString layoutText(RunLayout l)
{
    switch (l) {
    case RunLayout::Records: return QObject::tr("records");
    case RunLayout::BurnEpochs: return QObject::tr("burn-train epochs");
    case RunLayout::GradientCheckpoints: return QObject::tr("GradientCheckpoints");
    case RunLayout::Folder: return QObject::tr("folder of records");
    case RunLayout::HuggingFace: return QObject::tr("Hugging Face Trainer checkpoints");
    }
    return {};
}

/** "(step 800)", "(epoch 3)" or nothing. */
QString whereText(const RunPoint& p)
{
    if (p.step)
        return QObject::tr("(step %1)").arg(*p.step);
    if (p.epoch)
        return QObject::tr("(epoch %1)").arg(*p.epoch);
    return {};
}

/** "1 checkpoint", "64 checkpoints" */
QString counted(size_t n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

/** A checkpoint's optimizer forensics (core/run/runpolicy.h) as the list shows them. */
RunCheckpointModel::Optimizer optimizerRow(const CheckpointForensics& f)
{
    RunCheckpointModel::Optimizer out;
    out.available = f.available;
    if (!f.error.empty())
        out.error = qs(f.error);
    out.parameters = f.parameters;
    out.suspects = f.suspects;
    for (const std::string& flag : f.flags)
        out.flags << qs(flag);
    if (!out.flags.isEmpty())
        out.worstFlag = out.flags.front();
    if (!f.worstParam.empty())
        out.worstParam = qs(f.worstParam);
    out.maxStep = f.maxStep;
    out.maxMomentRms = f.maxMomentRms;
    out.maxMomentRatio = f.maxMomentRatio;
    return out;
}

TimelineSeries withoutPoints(const TimelineSeries& s)
{
    TimelineSeries m;
    static_cast<SeriesIdentity&>(m) = s;
    return m;
}

} // namespace

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(tr("Open a run directory (File ▸ Open Directory…) to follow its checkpoints."), this))
    , m_metric(new QComboBox(this))
    , m_predicate(new QLineEdit(this))
    , m_bisect(new QPushButton(tr("Find first bad checkpoint"), this))
    , m_clusterButton(new QPushButton(tr("Scan on cluster…"), this))
    , m_cluster(new ClusterTimeline(this))
    , m_bisectStatus(new QLabel(this))
    , m_model(new RunCheckpointModel(this))
    , m_view(new QTableView(this))
    , m_heatmap(new TimelineHeatmap(this))
    , m_optimizerPlot(new RunForensicsPlot(this))
    , m_watcher(new QFileSystemWatcher(this))
    , m_debounce(new QTimer(this))
    , m_poll(new QTimer(this))
    , m_refresh(new QTimer(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setObjectName(QStringLiteral("runSummary"));
    m_bisectStatus->setWordWrap(true);
    m_bisectStatus->setTextFormat(Qt::RichText);
    m_bisectStatus->setObjectName(QStringLiteral("bisectStatus"));
    m_bisectStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setupControls();
    setupCluster();
    setupList();
    setupLayout();
    setupLive();
}

void RunPanel::setupControls()
{
    m_metric->addItem(TimelineHeatmap::metricName(TimelineHeatmap::Metric::L2), int(TimelineHeatmap::Metric::L2));
    m_metric->addItem(TimelineHeatmap::metricName(TimelineHeatmap::Metric::UpdateRatio), int(TimelineHeatmap::Metric::UpdateRatio));
    m_metric->addItem(TimelineHeatmap::metricName(TimelineHeatmap::Metric::MaxAbs), int(TimelineHeatmap::Metric::MaxAbs));
    m_metric->addItem(TimelineHeatmap::metricName(TimelineHeatmap::Metric::NonFinite), int(TimelineHeatmap::Metric::NonFinite));
    m_metric->setToolTip(tr("What the heatmap's colour shows for each tensor at each checkpoint (log scale)"));
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        setMetric(TimelineHeatmap::Metric(m_metric->currentData().toInt()));
    });
    m_predicate->setText(QStringLiteral("nonfinite"));
    m_predicate->setPlaceholderText(QStringLiteral("nonfinite"));
    m_predicate->setToolTip(tr("What makes a checkpoint bad: nan, inf, nonfinite, max_abs>X or update_ratio>X"));
    m_predicate->setMaximumWidth(220);
    connect(m_predicate, &QLineEdit::returnPressed, this, &RunPanel::findFirstBad);
    connect(m_bisect, &QPushButton::clicked, this, &RunPanel::findFirstBad);
    m_bisect->setEnabled(false);
}

void RunPanel::setupCluster()
{
    m_clusterButton->setToolTip(tr("Compute the timeline on a Slurm cluster, next to the data: one array task per share of the run "
                                   "(ckpt timeline --slurm with one of the Slurm resume profiles); the heatmap fills as the shares come in"));
    m_clusterButton->setEnabled(false);
    connect(m_clusterButton, &QPushButton::clicked, this, &RunPanel::scanOnCluster);
    connect(m_cluster, &ClusterTimeline::progress, this, [this](const QString& line) { Q_EMIT message(tr("Cluster scan: %1").arg(line), false); });
    connect(m_cluster, &ClusterTimeline::scanEnded, this, [this](bool ok, const QString& error) {
        m_clusterButton->setText(tr("Scan on cluster…"));
        if (!ok) {
            Q_EMIT message(tr("Cluster scan failed: %1").arg(error), true);
            Q_EMIT clusterScanFinished(false, error);
        }
    });
    connect(m_cluster, &ClusterTimeline::mergeFailed, this, [this](const QString& error) {
        Q_EMIT message(tr("Cluster scan: %1").arg(error), true);
        Q_EMIT clusterScanFinished(false, error);
    });
    connect(m_cluster, &ClusterTimeline::merged, this, &RunPanel::showClusterTimeline);
}

void RunPanel::setupList()
{
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(20);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(RunCheckpointModel::IndexColumn, 36);
    m_view->setColumnWidth(RunCheckpointModel::StepColumn, 56);
    m_view->setColumnWidth(RunCheckpointModel::LossColumn, 76);
    m_view->setColumnWidth(RunCheckpointModel::SizeColumn, 70);
    m_view->setColumnWidth(RunCheckpointModel::TensorsColumn, 56);
    m_view->setColumnWidth(RunCheckpointModel::OptimizerColumn, 190); // "12 · inconsistent_moments"
    m_view->setWordWrap(false); // a long flag is elided at its end, not broken onto a second line the row has no room for
    m_view->setToolTip(tr("Double-click a checkpoint to open it"));
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { openRow(i.row()); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
        if (i.isValid())
            m_heatmap->setCurrentCell(-1, size_t(i.row()));
    });
    connect(m_heatmap, &TimelineHeatmap::cellClicked, this, &RunPanel::cellClicked);
    m_heatmap->setMinimumSize(360, 260);
    m_optimizerPlot->showCheckpoints(*m_model);
}

void RunPanel::setupLayout()
{
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Colour:"), this));
    controls->addWidget(m_metric);
    controls->addStretch(1);
    controls->addWidget(new QLabel(tr("Bad means:"), this));
    controls->addWidget(m_predicate);
    controls->addWidget(m_bisect);
    controls->addWidget(m_clusterButton);
    // the list with the optimizer forensics per checkpoint under it, beside the heatmap
    auto* left = makeSplitter(Qt::Vertical, this, {{m_view, 1, 400}, {m_optimizerPlot, 0, 180}});
    // every column of the list, the optimizer's flags included
    auto* split = makeSplitter(Qt::Horizontal, this, {{left, 0, 600}, {m_heatmap, 1, 700}});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addLayout(controls);
    layout->addWidget(m_bisectStatus);
    layout->addWidget(split, 1);
    m_bisectStatus->hide();
}

void RunPanel::setupLive()
{
    // live: a change in a watched folder is re-listed once the writer paused (debounce)
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(DebounceMs);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { m_debounce->start(); });
    connect(m_debounce, &QTimer::timeout, this, [this] { startListing(true); });
    m_poll->setSingleShot(true);
    m_poll->setInterval(PollMs);
    connect(m_poll, &QTimer::timeout, this, [this] { startListing(true); });
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(RefreshMs);
    connect(m_refresh, &QTimer::timeout, this, &RunPanel::refreshLive);
}

RunPanel::~RunPanel()
{
    // no worker may outlive the panel it reports to (they are cancelled: the wait is short)
    cancelJobs();
    m_listFuture.waitForFinished();
    m_timelineFuture.waitForFinished();
    m_bisectFuture.waitForFinished();
    m_forensicsFuture.waitForFinished();
}

void RunPanel::cancelJobs()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
}

void RunPanel::setLiveTimings(int debounceMs, int pollMs)
{
    m_debounce->setInterval(debounceMs);
    m_poll->setInterval(pollMs);
}

QString RunPanel::summary() const
{
    return m_summary->text();
}

QString RunPanel::bisectStatus() const
{
    return m_bisectStatus->text();
}

QStringList RunPanel::watchedPaths() const
{
    return m_watcher->directories();
}

QCustomPlot* RunPanel::optimizerPlot() const
{
    return m_optimizerPlot;
}

ClusterScan* RunPanel::clusterScan() const
{
    return m_cluster->scan();
}

bool RunPanel::isBusy() const
{
    return m_listing || m_computing || m_bisecting || m_forensicsRunning || m_cluster->isMerging() || m_poll->isActive() || m_debounce->isActive()
        || m_refresh->isActive();
}

void RunPanel::checkIdle()
{
    if (!isBusy())
        Q_EMIT idle();
}

void RunPanel::clear()
{
    cancelJobs();
    ++m_dirGeneration;
    ++m_timelineGeneration;
    ++m_bisectGeneration;
    ++m_forensicsGeneration;
    m_forensicsRunning = m_forensicsAfter = false;
    m_forensicsDone.clear();
    m_dir.clear();
    m_run.reset();
    m_timeline.reset();
    m_timelineFromCluster = false;
    m_live.reset();
    m_computedSignature.clear();
    m_pendingSignature.clear();
    m_listing = m_computing = m_bisecting = false;
    m_relistAfter = m_recomputeAfter = m_firstListing = false;
    m_firstBad.reset();
    m_listError.clear();
    m_timelineError.clear();
    m_debounce->stop();
    m_poll->stop();
    m_refresh->stop();
    if (const QStringList watched = m_watcher->directories(); !watched.isEmpty())
        m_watcher->removePaths(watched);
    m_model->clear();
    m_optimizerPlot->showCheckpoints(*m_model);
    m_heatmap->setRun({});
    m_heatmap->clearTimeline();
    m_heatmap->setFirstBad(std::nullopt);
    m_bisectStatus->clear();
    m_bisectStatus->hide();
    m_bisect->setEnabled(false);
    m_clusterButton->setEnabled(false);
    m_cluster->setRun(nullptr);
    m_cluster->cancel();
}

void RunPanel::setRunDirectory(const QString& dir)
{
    clear();
    m_dir = QFileInfo(dir).absoluteFilePath();
    m_firstListing = true;
    m_summary->setText(tr("<b>%1</b>: listing the checkpoints…").arg(m_dir.toHtmlEscaped()));
    updateWatches();
    startListing(false);
}

void RunPanel::updateWatches()
{
    if (m_dir.isEmpty())
        return;
    // the run directory (a checkpoint folder appearing) and the folders checkpoints are written to
    QStringList wanted{m_dir};
    for (const char* sub : {"checkpoint", "graph"})
        if (const QString p = QDir(m_dir).filePath(QLatin1String(sub)); QFileInfo(p).isDir())
            wanted << p;
    const QStringList watched = m_watcher->directories();
    for (const QString& p : watched)
        if (!wanted.contains(p))
            m_watcher->removePath(p);
    for (const QString& p : std::as_const(wanted))
        if (!watched.contains(p) && QFileInfo(p).isDir())
            m_watcher->addPath(p);
}

RunPanel::Signature RunPanel::signatureOf(const RunCheckpoints& run)
{
    Signature s;
    for (const RunPoint& p : run.points)
        s.insert(s.end(), p.files.begin(), p.files.end());
    return s;
}

void RunPanel::startListing(bool live)
{
    if (m_dir.isEmpty())
        return;
    if (m_listing) {
        m_relistAfter = true;
        return;
    }
    m_listing = true;
    const quint64 generation = m_dirGeneration;
    auto future = runInBackground([dir = m_dir.toStdString()] {
        markBackgroundThread();
        const Activity activity(tr("listing the checkpoints of %1").arg(qs(dir)));
        return listRunCheckpoints(dir);
    });
    m_listFuture = QFuture<void>(future);
    whenReady(future, this, [this, generation, live](Result<RunCheckpoints> listed) {
        if (generation != m_dirGeneration)
            return;
        onListed(std::move(listed), live);
    });
}

void RunPanel::onListed(Result<RunCheckpoints> listed, bool live)
{
    m_listing = false;
    updateWatches(); // checkpoint/ or graph/ may have appeared since
    const bool first = std::exchange(m_firstListing, false);
    if (!listed) {
        // a run that has not written a checkpoint yet is watched until it does
        m_listError = qs(listed.error().message());
        if (!m_run)
            m_summary->setText(tr("<b>%1</b>: %2<br>Watching it for checkpoints.").arg(m_dir.toHtmlEscaped(), m_listError.toHtmlEscaped()));
        if (first)
            Q_EMIT runListed(false);
    } else {
        m_listError.clear();
        const Signature signature = signatureOf(*listed);
        const bool firstRun = !m_run;
        m_run = std::make_shared<const RunCheckpoints>(std::move(*listed));
        m_cluster->setRun(m_run);
        m_model->setPoints(m_run->points);
        m_heatmap->setRun(*m_run);
        m_bisect->setEnabled(true);
        m_clusterButton->setEnabled(true);
        if (firstRun)
            for (const std::string& w : m_run->warnings)
                Q_EMIT message(tr("warning: %1").arg(qs(w)), false);
        if (signature == m_computedSignature) {
            m_pendingSignature.clear(); // the logs may have moved; the checkpoints did not
        } else if (!live) {
            startTimeline(); // what is there when the run is opened is read at once
        } else if (signature == m_pendingSignature) {
            m_pendingSignature.clear();
            startTimeline(); // unchanged over two listings: written
        } else {
            m_pendingSignature = signature;
            m_poll->start(); // new or changed files: look again before reading them
        }
        updateSummary();
        if (first)
            Q_EMIT runListed(true);
    }
    if (std::exchange(m_relistAfter, false))
        startListing(true);
    checkIdle();
}

void RunPanel::startTimeline()
{
    if (!m_run)
        return;
    if (m_computing) {
        m_recomputeAfter = true;
        return;
    }
    m_computing = true;
    m_timelineError.clear();
    const quint64 generation = ++m_timelineGeneration;
    auto run = m_run;
    const Signature signature = signatureOf(*run);
    m_live = std::make_unique<Timeline>();
    m_live->run = run->dir;
    m_live->layout = run->layout;
    m_live->checkpoints.resize(run->points.size());
    m_liveShown = !m_timeline; // a recompute (a few new checkpoints, the rest cached) swaps at the end
    m_liveDone = 0;
    if (m_liveShown)
        m_heatmap->clearTimeline();
    updateSummary();
    auto cancel = m_cancel;
    auto future = runInBackground([run, cancel, generation, guard = QPointer<RunPanel>(this)] {
        markBackgroundThread();
        const Activity activity(tr("timeline of %1").arg(qs(run->dir)));
        TimelineOptions options;
        // only what is new goes to the GUI thread: the checkpoint's points, not the timeline so far
        size_t sentSeries = 0, sentEvents = 0;
        std::vector<size_t> sentPoints;
        options.onCheckpoint = [&](size_t i, const Timeline& sofar) {
            activity.tick();
            auto delta = std::make_shared<Delta>();
            delta->checkpoint = i;
            if (i < sofar.checkpoints.size())
                delta->state = sofar.checkpoints[i];
            delta->firstNewSeries = sentSeries;
            for (size_t s = sentSeries; s < sofar.series.size(); ++s)
                delta->newSeries.push_back(withoutPoints(sofar.series[s]));
            sentSeries = sofar.series.size();
            sentPoints.resize(sentSeries, 0);
            for (size_t s = 0; s < sentSeries; ++s) {
                const auto& pts = sofar.series[s].points;
                for (size_t k = sentPoints[s]; k < pts.size(); ++k)
                    delta->points.emplace_back(uint32_t(s), pts[k]);
                sentPoints[s] = pts.size();
            }
            for (size_t k = sentEvents; k < sofar.events.size(); ++k)
                delta->events.push_back(sofar.events[k]);
            sentEvents = sofar.events.size();
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, generation, delta] {
                    if (guard)
                        guard->applyDelta(generation, *delta);
                },
                Qt::QueuedConnection);
        };
        Progress progress;
        progress.onProgress = [&activity](double) { activity.tick(); };
        progress.isCancelled = [cancel] { return cancel->load(); };
        // Checkpoints of a few MiB gain little from being split across threads, and a pool as busy as
        // the cores would leave the GUI thread waiting for one: a run of small checkpoints is scanned on
        // this job's thread alone. Large ones (the statistics dominate) use the pool.
        uint64_t bytes = 0;
        for (const RunPoint& p : run->points)
            bytes += p.bytes;
        const bool large = !run->points.empty() && bytes / run->points.size() >= (uint64_t(16) << 20);
        return std::make_shared<Result<Timeline>>(computeTimeline(*run, options, progress, large ? poolParallelFor() : ParallelFor()));
    });
    m_timelineFuture = QFuture<void>(future);
    whenReady(future, this, [this, generation, signature](std::shared_ptr<Result<Timeline>> result) {
        onTimeline(generation, std::move(result), signature);
    });
}

void RunPanel::applyDelta(quint64 generation, const Delta& d)
{
    if (generation != m_timelineGeneration || !m_live)
        return;
    Timeline& t = *m_live;
    if (d.state) {
        if (t.checkpoints.size() <= d.checkpoint)
            t.checkpoints.resize(d.checkpoint + 1);
        t.checkpoints[d.checkpoint] = *d.state;
        (d.state->fromCache ? t.reused : t.read) += 1;
    }
    if (!d.newSeries.empty()) {
        if (t.series.size() < d.firstNewSeries + d.newSeries.size())
            t.series.resize(d.firstNewSeries + d.newSeries.size());
        for (size_t k = 0; k < d.newSeries.size(); ++k)
            t.series[d.firstNewSeries + k] = d.newSeries[k];
    }
    for (const auto& [s, p] : d.points)
        if (s < t.series.size())
            t.series[s].points.push_back(p);
    t.events.insert(t.events.end(), d.events.begin(), d.events.end());
    ++m_liveDone;
    if (!m_refresh->isActive())
        m_refresh->start();
}

void RunPanel::refreshLive()
{
    if (m_live) {
        m_model->setStates(m_live->checkpoints);
        if (m_liveShown)
            m_heatmap->setTimeline(*m_live);
        updateSummary();
    }
    checkIdle();
}

void RunPanel::onTimeline(quint64 generation, std::shared_ptr<Result<Timeline>> result, Signature signature)
{
    if (generation != m_timelineGeneration)
        return;
    m_computing = false;
    m_live.reset();
    m_refresh->stop();
    if (!*result) {
        m_timelineError = qs(result->error().message());
        Q_EMIT message(tr("Run timeline: %1").arg(m_timelineError), true);
    } else {
        m_timeline = std::make_shared<const Timeline>(std::move(**result));
        m_timelineFromCluster = false;
        m_computedSignature = std::move(signature);
        for (const std::string& w : m_timeline->warnings)
            Q_EMIT message(tr("warning: %1").arg(qs(w)), false);
        showTimeline(*m_timeline);
        Q_EMIT timelineUpdated();
    }
    updateSummary();
    startForensics(); // after the timeline, so that the two do not share the cores
    if (std::exchange(m_recomputeAfter, false))
        startListing(true);
    checkIdle();
}

void RunPanel::startForensics()
{
    if (!m_run)
        return;
    if (m_forensicsRunning) {
        m_forensicsAfter = true;
        return;
    }
    std::vector<RunPoint> todo;
    for (const RunPoint& p : m_run->points)
        if (auto it = m_forensicsDone.find(p.file); it == m_forensicsDone.end() || it->second != p.files)
            todo.push_back(p);
    if (todo.empty())
        return;
    m_forensicsRunning = true;
    const quint64 generation = ++m_forensicsGeneration;
    auto future = runInBackground([run = m_run, todo = std::move(todo), cancel = m_cancel, generation, guard = QPointer<RunPanel>(this)] {
        markBackgroundThread();
        const Activity activity(tr("optimizer forensics of %1").arg(qs(run->dir)));
        Progress progress;
        progress.onProgress = [&activity](double) { activity.tick(); }; // every parameter, every chunk of a large one
        progress.isCancelled = [cancel] { return cancel->load(); };
        bool complete = true;
        for (const RunPoint& p : todo) {
            if (cancel->load()) {
                complete = false;
                break;
            }
            const std::optional<CheckpointForensics> f = checkpointForensics(*run, p, progress);
            activity.tick();
            if (!f) {
                complete = false;
                break;
            }
            // one checkpoint's summary at a time: the column fills as the job goes
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [guard, generation, file = p.file, files = p.files, o = optimizerRow(*f)] {
                    if (guard && generation == guard->m_forensicsGeneration) {
                        guard->m_model->setOptimizer(file, o);
                        guard->m_forensicsDone[file] = files;
                        guard->updateSummary();
                        guard->m_optimizerPlot->showCheckpoints(*guard->m_model);
                    }
                },
                Qt::QueuedConnection);
        }
        return complete;
    });
    m_forensicsFuture = QFuture<void>(future);
    whenReady(future, this, [this, generation](bool) {
        if (generation != m_forensicsGeneration)
            return;
        m_forensicsRunning = false;
        updateSummary();
        Q_EMIT forensicsUpdated();
        if (std::exchange(m_forensicsAfter, false))
            startForensics();
        checkIdle();
    });
}

void RunPanel::showTimeline(const Timeline& t)
{
    m_model->setStates(t.checkpoints);
    m_heatmap->setTimeline(t);
    // until a bisect says otherwise, the first checkpoint where a tensor turned NaN or Inf
    if (!m_firstBad) {
        std::optional<size_t> bad;
        for (const TimelineEvent& e : t.events)
            if (e.kind != TimelineEventKind::Spike && (!bad || e.checkpoint < *bad))
                bad = e.checkpoint;
        m_heatmap->setFirstBad(bad, bad ? tr("first NaN/Inf · %1").arg(shortWhere(*bad)) : QString());
    }
}

const Timeline* RunPanel::shownTimeline() const
{
    if (m_live && m_liveShown)
        return m_live.get();
    return m_timeline.get();
}

QString RunPanel::pointName(size_t index) const
{
    if (!m_run || index >= m_run->points.size())
        return tr("checkpoint %1").arg(index);
    const RunPoint& p = m_run->points[index];
    const QString where = whereText(p);
    return RunCheckpointModel::checkpointName(p) + (where.isEmpty() ? QString() : QString(QStringLiteral(" ") + where));
}

QString RunPanel::shortWhere(size_t index) const
{
    if (m_run && index < m_run->points.size()) {
        const RunPoint& p = m_run->points[index];
        if (p.step)
            return tr("step %1").arg(*p.step);
        if (p.epoch)
            return tr("epoch %1").arg(*p.epoch);
    }
    return tr("checkpoint %1").arg(index);
}

void RunPanel::updateSummary()
{
    if (!m_run) {
        if (m_dir.isEmpty())
            m_summary->setText(tr("Open a run directory (File ▸ Open Directory…) to follow its checkpoints."));
        return;
    }
    QStringList parts;
    parts << tr("<b>%1</b>").arg(QFileInfo(m_dir).fileName().toHtmlEscaped());
    parts << tr("%1 layout").arg(layoutText(m_run->layout));
    const Timeline* t = m_timeline.get();
    size_t invalid = 0;
    if (t)
        for (const TimelineCheckpoint& c : t->checkpoints)
            invalid += !c.valid;
    parts << counted(m_run->points.size(), tr("checkpoint"), tr("checkpoints")) + (invalid ? tr(" (%1 unreadable)").arg(invalid) : QString());
    if (m_computing) {
        parts << tr("reading the timeline: %1 of %2").arg(m_liveDone).arg(m_run->points.size());
    }
    if (t) {
        parts << counted(t->series.size(), tr("tensor series"), tr("tensor series"));
        std::optional<TimelineEvent> nan, inf;
        for (const TimelineEvent& e : t->events) {
            if (e.kind == TimelineEventKind::FirstNan && (!nan || e.checkpoint < nan->checkpoint))
                nan = e;
            if (e.kind == TimelineEventKind::FirstInf && (!inf || e.checkpoint < inf->checkpoint))
                inf = e;
        }
        if (nan)
            parts << tr("<span style='color:#b00000'>first NaN at %1 in %2</span>").arg(pointName(nan->checkpoint).toHtmlEscaped(), qs(nan->path).toHtmlEscaped());
        if (inf)
            parts << tr("<span style='color:#b00000'>first Inf at %1 in %2</span>").arg(pointName(inf->checkpoint).toHtmlEscaped(), qs(inf->path).toHtmlEscaped());
        if (!nan && !inf)
            parts << tr("no NaN or Inf");
        const size_t spikes = size_t(std::ranges::count(t->events, TimelineEventKind::Spike, &TimelineEvent::kind));
        if (spikes)
            parts << counted(spikes, tr("spike"), tr("spikes"));
        parts << (m_timelineFromCluster ? tr("%1 from the cluster's shares").arg(t->reused) : tr("%1 read, %2 from cache").arg(t->read).arg(t->reused));
        size_t analysed = 0, suspect = 0;
        std::optional<size_t> firstSuspect;
        for (int row = 0; row < m_model->rowCount(); ++row)
            if (const RunCheckpointModel::Optimizer* o = m_model->optimizerOf(row); o && o->available) {
                ++analysed;
                if (o->suspects > 0) {
                    ++suspect;
                    if (!firstSuspect)
                        firstSuspect = size_t(row);
                }
            }
        if (m_forensicsRunning)
            parts << tr("optimizer forensics: %1 of %2").arg(analysed).arg(m_run->points.size());
        else if (firstSuspect)
            parts << tr("<span style='color:#b00000'>optimizer suspects in %1 (first: %2)</span>")
                         .arg(counted(suspect, tr("checkpoint"), tr("checkpoints")), pointName(*firstSuspect).toHtmlEscaped());
        else if (analysed > 0)
            parts << tr("optimizer state ok");
        if (t->cancelled)
            parts << tr("cancelled");
    }
    if (!m_timelineError.isEmpty())
        parts << tr("<span style='color:#b00000'>timeline failed: %1</span>").arg(m_timelineError.toHtmlEscaped());
    if (m_poll->isActive())
        parts << tr("new checkpoints: waiting for them to be written");
    else if (!m_watcher->directories().isEmpty())
        parts << tr("watching for new checkpoints");
    m_summary->setText(parts.join(QStringLiteral(" · ")));
    m_summary->setToolTip(m_dir);
}

void RunPanel::setMetric(TimelineHeatmap::Metric metric)
{
    if (const int i = m_metric->findData(int(metric)); i >= 0 && i != m_metric->currentIndex()) {
        m_metric->setCurrentIndex(i); // comes back here through the signal
        return;
    }
    static const Timeline empty;
    const Timeline* t = shownTimeline();
    m_heatmap->setMetric(metric, t ? *t : empty);
}

void RunPanel::selectCheckpoint(size_t index)
{
    if (index >= size_t(m_model->rowCount()))
        return;
    const QModelIndex i = m_model->index(int(index), 0);
    m_view->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(i);
}

void RunPanel::openRow(int row)
{
    if (!m_run || row < 0 || size_t(row) >= m_run->points.size())
        return;
    QStringList files;
    for (const std::string& f : filesToOpen(*m_run, m_run->points[size_t(row)]))
        files << qs(f);
    Q_EMIT openCheckpointRequested(files);
}

void RunPanel::cellClicked(size_t series, size_t checkpoint)
{
    const Timeline* t = shownTimeline();
    if (!m_run || !t || series >= t->series.size() || checkpoint >= m_run->points.size())
        return;
    selectCheckpoint(checkpoint);
    m_heatmap->setCurrentCell(m_heatmap->rowOfSeries(series), checkpoint);
    // the previous checkpoint that could be read
    std::optional<size_t> previous;
    for (size_t j = checkpoint; j-- > 0;)
        if (m_model->isValid(int(j)) != false) {
            previous = j;
            break;
        }
    const TimelineSeries& s = t->series[series];
    if (!previous) {
        Q_EMIT message(tr("%1 is the run's first readable checkpoint: there is nothing before it to compare with.").arg(pointName(checkpoint)), false);
        return;
    }
    Q_EMIT diffRequested(qs(fileOfRole(*m_run, m_run->points[*previous], s.role)), qs(fileOfRole(*m_run, m_run->points[checkpoint], s.role)),
        qs(s.path));
}

void RunPanel::findFirstBad()
{
    QString text = m_predicate->text().trimmed();
    if (text.isEmpty())
        text = QStringLiteral("nonfinite");
    auto predicate = parseBisectPredicate(text.toStdString());
    m_bisectStatus->show();
    if (!predicate) {
        m_bisectStatus->setText(tr("<span style='color:#b00000'>%1</span>").arg(qs(predicate.error().message()).toHtmlEscaped()));
        return;
    }
    if (!m_run) {
        m_bisectStatus->setText(tr("No run is listed."));
        return;
    }
    m_bisecting = true;
    m_bisect->setEnabled(false);
    m_bisectStatus->setText(tr("Bisecting %1 for %2…").arg(counted(m_run->points.size(), tr("checkpoint"), tr("checkpoints")), text.toHtmlEscaped()));
    const quint64 generation = ++m_bisectGeneration;
    auto future = runInBackground([run = m_run, p = *predicate, cancel = m_cancel] {
        markBackgroundThread();
        const Activity activity(tr("bisect of %1").arg(qs(run->dir)));
        Progress progress;
        progress.onProgress = [&activity](double) { activity.tick(); };
        progress.isCancelled = [cancel] { return cancel->load(); };
        return std::make_shared<const Result<BisectResult>>(bisectRun(*run, p, {}, progress, poolParallelFor()));
    });
    m_bisectFuture = QFuture<void>(future);
    whenReady(future, this, [this, generation](std::shared_ptr<const Result<BisectResult>> r) { showBisect(generation, std::move(r)); });
}

void RunPanel::showBisect(quint64 generation, std::shared_ptr<const Result<BisectResult>> result)
{
    if (generation != m_bisectGeneration)
        return;
    m_bisecting = false;
    m_bisect->setEnabled(bool(m_run));
    if (!*result) {
        m_bisectStatus->setText(tr("<span style='color:#b00000'>bisect failed: %1</span>").arg(qs(result->error().message()).toHtmlEscaped()));
        checkIdle();
        return;
    }
    const BisectResult& r = **result;
    size_t openedFiles = 0, allFiles = 0;
    for (const RunPoint& p : r.run.points)
        allFiles += std::max<size_t>(p.files.size(), 1);
    for (size_t i : r.opened)
        if (i < r.run.points.size())
            openedFiles += std::max<size_t>(r.run.points[i].files.size(), 1);
    auto name = [&r](size_t i) -> QString {
        const RunPoint& p = r.run.points[i];
        const QString where = whereText(p);
        return RunCheckpointModel::checkpointName(p) + (where.isEmpty() ? QString() : QStringLiteral(" ") + where);
    };
    const QString opened = tr("opened %1 of %2 files").arg(openedFiles).arg(allFiles);
    QString text;
    m_firstBad = r.firstBad;
    if (r.firstBad) {
        text = tr("<b>first bad:</b> %1, %2 %3")
                   .arg(name(*r.firstBad).toHtmlEscaped(), counted(r.badPaths.size(), tr("tensor"), tr("tensors")),
                       qs(r.predicate.text).toHtmlEscaped());
        text += QStringLiteral("; ") + (r.lastGood ? tr("last good: %1").arg(name(*r.lastGood).toHtmlEscaped()) : tr("no good checkpoint before it"));
        text += QStringLiteral("; ") + opened;
        if (!r.badPaths.empty())
            text += QStringLiteral("<br>") + tr("bad tensors: %1").arg(qs(r.badPaths.front()).toHtmlEscaped())
                + (r.badPaths.size() > 1 ? tr(" and %1 more").arg(r.badPaths.size() - 1) : QString());
        selectCheckpoint(*r.firstBad);
        m_model->setFirstBad(r.firstBad);
        m_heatmap->setFirstBad(r.firstBad, tr("first bad · %1").arg(shortWhere(*r.firstBad)));
        // the first bad tensor's cell, when the timeline has it
        int row = -1;
        if (const Timeline* t = shownTimeline(); t && !r.badPaths.empty())
            for (size_t s = 0; s < t->series.size() && row < 0; ++s)
                if (t->series[s].path == r.badPaths.front())
                    row = m_heatmap->rowOfSeries(s);
        m_heatmap->setCurrentCell(row, r.firstBad);
    } else {
        text = tr("no checkpoint is bad by %1; %2").arg(qs(r.predicate.text).toHtmlEscaped(), opened);
        m_model->setFirstBad(std::nullopt);
        m_heatmap->setFirstBad(std::nullopt);
    }
    if (r.cancelled)
        text += tr(" (cancelled)");
    for (const std::string& w : r.warnings)
        Q_EMIT message(tr("bisect: %1").arg(qs(w)), false);
    m_bisectStatus->setText(text);
    checkIdle();
}


void RunPanel::scanOnCluster()
{
    if (m_cluster->isRunning()) { // the button reads "Cancel cluster scan" meanwhile
        m_cluster->scan()->cancel(); // what merged so far stays shown
        return;
    }
    QSettings settings;
    QStringList slurm;
    for (const ResumeProfile& p : ResumeProfiles::load(settings))
        if (p.launcher == ResumeProfile::Launcher::Slurm)
            slurm << p.name;
    if (slurm.isEmpty()) {
        Q_EMIT message(tr("Cluster scan: no Slurm resume profile (Resume panel ▸ Profiles… makes one)"), true);
        return;
    }
    bool ok = true;
    const QString profile = slurm.size() == 1 ? slurm.front()
                                              : QInputDialog::getItem(this, tr("Scan on cluster"), tr("Slurm profile:"), slurm, 0, false, &ok);
    if (!ok)
        return;
    const int checkpoints = m_run ? int(m_run->points.size()) : 1;
    const int tasks = QInputDialog::getInt(this, tr("Scan on cluster"), tr("Array tasks (shares of the run):"), std::min(checkpoints, 32), 1,
        100000, 1, &ok);
    if (ok)
        startClusterScan(profile, tasks);
}

bool RunPanel::startClusterScan(const QString& profile, int tasks)
{
    if (!m_run || !m_cluster->start(m_dir, profile, tasks))
        return false;
    m_clusterButton->setText(tr("Cancel cluster scan"));
    Q_EMIT message(tr("Cluster scan of %1 submitted through \"%2\"; work directory %3").arg(m_dir, profile, clusterScan()->workDirectory()), false);
    return true;
}

void RunPanel::showClusterTimeline(std::shared_ptr<const Timeline> timeline, bool complete, int shares)
{
    m_timeline = std::move(timeline);
    m_timelineFromCluster = true;
    showTimeline(*m_timeline);
    updateSummary();
    if (complete) {
        Q_EMIT timelineUpdated();
        Q_EMIT clusterScanFinished(true, {});
    } else {
        Q_EMIT clusterScanUpdated(shares);
    }
    checkIdle();
}

} // namespace ckpt::ui
