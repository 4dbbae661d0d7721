// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/mainwindow.h"

#include "ui/async/activity.h"
#include "ui/async/continuation.h"
#include "ui/async/deferredpaint.h"
#include "ui/document/checkpointdocument.h"
#include "ui/graph/graphview.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"
#include "ui/models/recordtreemodel.h"
#include "ui/models/tensortablemodel.h"
#include "ui/plots/lossplotwidget.h"
#include "ui/plots/lrcurvewidget.h"
#include "ui/settings/settings.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/optimizerpanel.h"
#include "ui/widgets/resumepanel.h"
#include "ui/widgets/runpanel.h"
#include "ui/widgets/tensordetailwidget.h"

#include "core/edit/edit.h"
#include "core/open/formats.h"
#include "core/open/sniff.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPromise>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ckpt::ui {

namespace {
Setting<QByteArray> s_geometry{"mainwindow/geometry"};
Setting<QByteArray> s_state{"mainwindow/state"};
constexpr int MaxSearchHits = 10000;

/** Size and modification time: tells our own save from someone else's change of an opened file. */
QString fileSignature(const QString& path)
{
    const QFileInfo info(path);
    return QString::number(info.size()) + QLatin1Char('@') + QString::number(info.lastModified().toMSecsSinceEpoch());
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_doc(new CheckpointDocument(this))
    , m_fileWatcher(new QFileSystemWatcher(this))
{
    connect(m_fileWatcher, &QFileSystemWatcher::fileChanged, this, &MainWindow::onOpenedFileChanged);
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createDocks();
    createActions();

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->hide();
    m_status = new QLabel(tr("Open a record, a run directory or drop files here."), this);
    statusBar()->addWidget(m_status, 1);
    m_watchdog = new QLabel(this);
    m_watchdog->setObjectName(QStringLiteral("watchdog"));
    m_watchdog->setStyleSheet(QStringLiteral("QLabel { color: #a05000; font-weight: bold; }"));
    m_watchdog->hide();
    statusBar()->addPermanentWidget(m_watchdog);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    // the watchdog: background work that stops moving is said, not left as a silently incomplete window
    auto* watchdogTimer = new QTimer(this);
    watchdogTimer->setInterval(int(std::clamp<int64_t>(watchdogThresholdMs() / 4, 250, 2000)));
    connect(watchdogTimer, &QTimer::timeout, this, &MainWindow::checkWatchdog);
    watchdogTimer->start();
    connect(m_cancel, &QToolButton::clicked, this, [this] {
        m_loadWatcher.cancel();
        m_statsWatcher.cancel();
    });

    // QProgressBar::setValue repaints at once, painting everything dirty in the window (deferredpaint.h)
    connect(&m_loadWatcher, &QFutureWatcher<Workspace>::progressValueChanged, m_progress, [this](int v) { setProgressDeferred(m_progress, v); });
    connect(&m_loadWatcher, &QFutureWatcher<Workspace>::finished, this, [this] {
        m_loading = false;
        if (m_loadWatcher.isCanceled() || m_loadWatcher.future().resultCount() == 0) {
            m_status->setText(tr("Loading cancelled."));
            m_progress->hide();
            m_cancel->hide();
            checkIdle();
            return;
        }
        onWorkspaceLoaded(m_loadWatcher.result());
    });
    connect(&m_statsWatcher, &QFutureWatcher<StatsBatch>::resultsReadyAt, this, [this](int begin, int end) {
        for (int i = begin; i < end; ++i)
            m_tensorModel->setStats(m_statsWatcher.resultAt(i));
    });
    connect(&m_statsWatcher, &QFutureWatcher<StatsBatch>::progressValueChanged, m_progress, [this](int v) { setProgressDeferred(m_progress, v); });
    connect(&m_statsWatcher, &QFutureWatcher<StatsBatch>::finished, this, [this] {
        m_statsRunning = false;
        m_progress->hide();
        m_cancel->hide();
        m_status->setText(tr("%1 tensors, statistics of %2 computed.")
                              .arg(m_tensorModel->rowCount())
                              .arg(m_tensorModel->statsCount()));
        checkIdle();
    });
    connect(m_detail, &TensorDetailWidget::idle, this, &MainWindow::checkIdle);
    connect(m_optimizer, &OptimizerPanel::idle, this, &MainWindow::checkIdle);
    connect(m_doc, &CheckpointDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &CheckpointDocument::saved, this, [this](const QString& path) {
        if (path.isEmpty()) // saved in place: the change the watcher is about to report is ours
            for (const LoadedRecord& lr : m_doc->workspace().records)
                m_ownWrites.insert(lr.path, fileSignature(lr.path));
        logMessage(path.isEmpty() ? tr("Saved.") : tr("Saved %1.").arg(path));
    });

    resize(1400, 900);
    restoreGeometry(s_geometry.get());
    restoreState(s_state.get());
    updateTitle();
}

MainWindow::~MainWindow()
{
    // no worker may outlive the window it reports to
    m_loadWatcher.cancel();
    m_statsWatcher.cancel();
    m_loadWatcher.waitForFinished();
    m_statsWatcher.waitForFinished();
}

QDockWidget* MainWindow::addPanel(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("dock_") + name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    m_panels.insert(name, dock);
    return dock;
}

QStringList MainWindow::panelNames()
{
    return {QStringLiteral("tree"), QStringLiteral("tensors"), QStringLiteral("optimizer"), QStringLiteral("scheduler"),
        QStringLiteral("state"), QStringLiteral("graph"), QStringLiteral("loss"), QStringLiteral("diff"),
        QStringLiteral("diff-graph"), QStringLiteral("diff-loss"), QStringLiteral("resume"), QStringLiteral("run")};
}

bool MainWindow::raisePanel(const QString& name)
{
    // the Diff panel's graph and loss tabs, for --screenshot --panel diff-graph|diff-loss
    if (name == QLatin1String("diff-graph") || name == QLatin1String("diff-loss")) {
        m_diff->showTab(name == QLatin1String("diff-graph") ? DiffPanel::Tab::Graph : DiffPanel::Tab::Loss);
        return raisePanel(QStringLiteral("diff"));
    }
    QDockWidget* dock = m_panels.value(name);
    if (!dock)
        return false;
    dock->show();
    dock->raise();
    return true;
}

void MainWindow::openPaths(const QStringList& paths, bool lenient)
{
    if (paths.isEmpty() || !maybeSave())
        return;
    addRecent(paths);
    // a run directory: its checkpoints, timeline and live updates in the Run panel (the window shows its newest record)
    for (const QString& p : paths)
        if (QFileInfo(p).isDir() && !isRecordDirectory(p.toStdString())) {
            m_raiseRun = m_raiseRunOnList = true;
            m_run->setRunDirectory(p);
            break;
        }
    m_statsWatcher.cancel();
    m_loadWatcher.cancel();
    m_loading = true;
    m_status->setText(tr("Opening %1…").arg(paths.join(QStringLiteral(", "))));
    setProgressDeferred(m_progress, 0);
    m_progress->show();
    m_cancel->show();
    // setFuture() detaches the watcher from an older load: its result can no longer arrive
    m_loadWatcher.setFuture(runInBackground(
        [](QPromise<Workspace>& promise, QStringList inputs, bool lenient) {
            markBackgroundThread();
            const Activity activity(tr("opening %1").arg(inputs.join(QStringLiteral(", "))));
            promise.setProgressRange(0, 1000);
            int last = -1;
            Progress progress;
            progress.onProgress = [&](double f) {
                activity.tick();
                const int v = int(f * 1000);
                if (v != last) { // throttled to 0.1 % steps
                    last = v;
                    promise.setProgressValue(v);
                }
            };
            progress.isCancelled = [&] { return promise.isCanceled(); };
            Workspace ws = loadWorkspace(inputs, progress, lenient);
            if (!promise.isCanceled())
                promise.addResult(std::move(ws));
        },
        paths, lenient));
}

void MainWindow::showRunPanel()
{
    raisePanel(QStringLiteral("run"));
    // the heatmap and the list want height: two thirds of it, from the Tensor panel below
    QTimer::singleShot(0, this, [this] {
        resizeDocks({m_panels.value(QStringLiteral("run")), m_panels.value(QStringLiteral("detail"))}, {height() * 2 / 3, height() / 3},
            Qt::Vertical);
        // and width: the list and the heatmap side by side need more of it than the record tree beside them
        resizeDocks({m_panels.value(QStringLiteral("tree")), m_panels.value(QStringLiteral("run"))}, {width() / 4, width() * 3 / 4},
            Qt::Horizontal);
    });
}

void MainWindow::compareCheckpoints(const QString& a, const QString& b, const QString& tensorPath)
{
    m_diffSelectPath = tensorPath;
    if (sniffFile(a.toStdString()) == FileFamily::GradientCheckpoint && sniffFile(b.toStdString()) == FileFamily::GradientCheckpoint) {
        m_diff->compareGraphs(a, b);
        raisePanel(QStringLiteral("diff"));
        return;
    }
    m_checkpointDiffLoading = true;
    const quint64 generation = ++m_checkpointDiffGeneration;
    m_status->setText(tr("Opening %1 and %2 to compare them…").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
    struct Pair {
        std::shared_ptr<const Record> a, b;
        QString error;
    };
    whenReady(runInBackground([a, b] {
        markBackgroundThread();
        const Activity activity(tr("opening %1 and %2").arg(a, b));
        Pair p;
        auto ra = openRecord(a.toStdString());
        auto rb = ra ? openRecord(b.toStdString()) : Result<std::shared_ptr<const Record>>(nullptr);
        if (!ra)
            p.error = qs(ra.error().message());
        else if (!rb)
            p.error = qs(rb.error().message());
        else {
            p.a = *ra;
            p.b = *rb;
        }
        return p;
    }), this, [this, generation](Pair p) {
        if (generation != m_checkpointDiffGeneration)
            return;
        m_checkpointDiffLoading = false;
        if (!p.error.isEmpty()) {
            logMessage(tr("Diff: %1").arg(p.error), true);
            m_diffSelectPath.clear();
        } else {
            m_status->setText(tr("Diff of %1 and %2").arg(QFileInfo(qs(p.a->file)).fileName(), QFileInfo(qs(p.b->file)).fileName()));
            m_diff->compare(p.a, p.b);
            raisePanel(QStringLiteral("diff"));
        }
        checkIdle();
    });
}

void MainWindow::openDiff(const QString& a, const QString& b)
{
    m_diffSelectPath.clear();
    openPaths({a, b});
    m_diffPending = true;
    m_diffPaths = {a, b};
}

void MainWindow::onWorkspaceLoaded(Workspace ws)
{
    for (const QString& e : ws.errors)
        logMessage(e, true);
    for (const QString& w : ws.warnings)
        logMessage(tr("warning: ") + w);
    bool damaged = false;
    for (const auto& lr : ws.records)
        damaged = damaged || !lr.record->damage.empty();
    for (const auto& lr : ws.records)
        if (lr.record->kind != RecordKind::GradientCheckpoint) // reported with its graph below
            logMessage(tr("Opened %1%7: %2, %3, %4 precision, %5 tensors (%6)")
                       .arg(lr.path, qs(recordKindName(lr.record->kind)), qs(recorderName(lr.record->recorder)),
                           qs(precisionName(lr.record->precision)))
                       .arg(lr.record->tensors.size())
                       .arg(formatBytes(lr.record->tensorBytes()))
                       .arg(lr.record->damage.empty() ? QString() : tr(" (DAMAGED, partial view)")));
    if (ws.graph)
        logMessage(tr("Graph %1: %2 nodes in %3 groups").arg(ws.graph->path).arg(ws.graph->names.size()).arg(ws.graph->hierarchy.clusters.size() - 1));
    if (ws.loss)
        logMessage(tr("Loss history: %n curve(s) from %1", "", int(ws.loss->curves.size())).arg(ws.loss->directory));
    if (!ws.errors.isEmpty() || damaged)
        raisePanel(QStringLiteral("messages"));
    m_doc->setWorkspace(std::move(ws));
    watchOpenedFiles();
    updateTitle();
    if (m_diffPending) {
        m_diffPending = false;
        // A GradientCheckpoint's fields are in the Record tree, but the record diff is for records.
        std::vector<std::shared_ptr<const Record>> recs;
        for (const LoadedRecord& lr : m_doc->workspace().records)
            if (lr.record->kind != RecordKind::GradientCheckpoint)
                recs.push_back(lr.record);
        const bool graphs = m_diffPaths.size() == 2 && sniffFile(m_diffPaths[0].toStdString()) == FileFamily::GradientCheckpoint
            && sniffFile(m_diffPaths[1].toStdString()) == FileFamily::GradientCheckpoint;
        if (recs.size() == 2) {
            m_diff->compare(recs[0], recs[1]);
            raisePanel(QStringLiteral("diff"));
            // a diff is a table and its plots: it takes two thirds of the height from the Tensor panel below
            QTimer::singleShot(0, this, [this] {
                resizeDocks({m_panels.value(QStringLiteral("diff")), m_panels.value(QStringLiteral("detail"))}, {height() * 2 / 3, height() / 3},
                    Qt::Vertical);
            });
        } else if (graphs) {
            m_diff->compareGraphs(m_diffPaths[0], m_diffPaths[1]);
            raisePanel(QStringLiteral("diff"));
        } else {
            logMessage(tr("Diff needs two readable records; %1 opened.").arg(recs.size()), true);
        }
    }
    // a run directory's Run panel in front of what the records filled (once it is listed; see also runListed)
    if (std::exchange(m_raiseRun, false) && m_run->hasRun())
        showRunPanel();
    // Starting the statistics and selecting the first tensor (which builds the detail and optimizer
    // plots) run in later event-loop turns: each step is short, but together with the model resets
    // above they held the GUI thread for one long stall while a large record opened.
    m_settling = true;
    const quint64 generation = ++m_openGeneration;
    Q_EMIT loadFinished();
    QTimer::singleShot(0, this, [this, generation] {
        if (generation != m_openGeneration)
            return; // another workspace arrived meanwhile; its own steps follow
        startStats();
        QTimer::singleShot(0, this, [this, generation] {
            if (generation != m_openGeneration)
                return;
            selectFirstTensor();
            m_settling = false;
            checkIdle();
        });
    });
}

void MainWindow::selectFirstTensor()
{
    // show something useful right away: the first parameter (or tensor)
    const Workspace& w = m_doc->workspace();
    if (w.records.empty())
        return;
    for (size_t r = 0; r < w.records.size(); ++r)
        if (!w.records[r].record->params.empty()) {
            selectParam(qs(w.records[r].record->params.front().id));
            break;
        }
    if (!m_detail->tensor().valid() && m_tensorModel->rowCount() > 0)
        selectTensor(m_tensorModel->refAt(0));
}

void MainWindow::startStats()
{
    std::vector<StatsRequest> requests;
    const Workspace& ws = m_doc->workspace();
    for (int row = 0; row < m_tensorModel->rowCount(); ++row) {
        const TensorRef ref = m_tensorModel->refAt(row);
        requests.push_back({row, ws.records[size_t(ref.record)].record, size_t(ref.tensor)});
    }
    if (requests.empty()) {
        m_progress->hide();
        m_cancel->hide();
        m_status->setText(tr("Nothing to compute."));
        return;
    }
    m_status->setText(tr("Computing statistics of %1 tensors…").arg(requests.size()));
    setProgressDeferred(m_progress, 0);
    m_progress->show();
    m_cancel->show();
    StatsOptions options;
    options.histogramBins = 0; // the table needs moments only; histograms are computed per selection
    // idle only once the watcher delivered everything: the future may finish before its queued results arrive
    m_statsRunning = true;
    m_statsWatcher.setFuture(startStatsJob(std::move(requests), options));
}

bool MainWindow::isIdle() const
{
    return !m_loading && !m_statsRunning && !m_settling && !m_detail->isBusy()
        && !m_optimizer->isBusy() && !m_diff->isBusy() && !m_run->isBusy() && !m_checkpointDiffLoading;
}

QString MainWindow::watchdogText() const
{
    return m_watchdog->isHidden() ? QString() : m_watchdog->text();
}

void MainWindow::checkWatchdog()
{
    const auto stalled = ActivityBoard::instance().stalled(watchdogThresholdMs());
    // said once per stall: a name that moved again (or ended) may be said again when it next stalls
    QSet<QString> stillStalled;
    for (const auto& s : stalled)
        if (m_stallsReported.contains(s.what))
            stillStalled.insert(s.what);
    m_stallsReported = std::move(stillStalled);
    if (stalled.empty()) {
        if (!m_watchdog->isHidden()) {
            m_watchdog->hide();
            m_watchdog->clear();
        }
        return;
    }
    const auto& worst = stalled.front();
    QString text = tr("No progress for %1 s: %2").arg(worst.idleMs / 1000).arg(worst.what);
    if (stalled.size() > 1)
        text += tr(" (and %n more)", nullptr, int(stalled.size() - 1));
    m_watchdog->setText(text);
    m_watchdog->setToolTip(tr("Background work that has made no progress for %1 s or more. It may be waiting for the disk "
                              "(a network file system), or it may be stuck; cancel it or close the window.")
                               .arg(watchdogThresholdMs() / 1000));
    m_watchdog->show();
    for (const auto& s : stalled)
        if (!m_stallsReported.contains(s.what)) {
            m_stallsReported.insert(s.what);
            logMessage(tr("warning: no progress for %1 s: %2").arg(s.idleMs / 1000).arg(s.what));
        }
}

void MainWindow::checkIdle()
{
    if (isIdle()) {
        reportTruncatedMappings();
        Q_EMIT idle();
    }
}

void MainWindow::watchOpenedFiles()
{
    if (const QStringList watched = m_fileWatcher->files(); !watched.isEmpty())
        m_fileWatcher->removePaths(watched);
    m_changeReported.clear();
    m_zerosReported.clear();
    m_ownWrites.clear();
    for (const LoadedRecord& lr : m_doc->workspace().records)
        if (!lr.path.isEmpty() && QFileInfo(lr.path).isFile())
            m_fileWatcher->addPath(lr.path);
}

void MainWindow::onOpenedFileChanged(const QString& path)
{
    if (m_changeReported.contains(path))
        return;
    if (m_ownWrites.contains(path) && m_ownWrites.value(path) == fileSignature(path)) {
        m_fileWatcher->addPath(path); // a save replaces the file, and the watch went with the old one
        return;
    }
    for (const LoadedRecord& lr : m_doc->workspace().records) {
        if (lr.path != path)
            continue;
        // The window keeps showing the file as it was opened: a replaced file (a run writing its next
        // checkpoint by rename) stays mapped whole; a file cut short in place reads as zeros past its
        // new end (guardMappedFiles), which reportTruncatedMappings says once it happened.
        const QFileInfo now(path);
        m_changeReported.insert(path);
        logMessage(now.exists()
                ? tr("%1 changed on disk since it was opened (%2 then, %3 now): the window shows the file as it was "
                     "opened. Open it again to see the new one.")
                      .arg(path, formatBytes(lr.record->fileSize), formatBytes(uint64_t(now.size())))
                : tr("%1 was removed or replaced on disk since it was opened: the window shows the file as it was opened.").arg(path),
            true);
        raisePanel(QStringLiteral("messages"));
        return;
    }
}

void MainWindow::reportTruncatedMappings()
{
    for (const LoadedRecord& lr : m_doc->workspace().records) {
        const BytesPtr& source = lr.record->tape.source;
        if (!source || !source->truncatedWhileMapped() || m_zerosReported.contains(lr.path))
            continue;
        m_zerosReported.insert(lr.path);
        logMessage(tr("%1 was truncated on disk while open: the values read past its new end are zeros, not the "
                      "record's. Open it again.")
                       .arg(lr.path),
            true);
        raisePanel(QStringLiteral("messages"));
    }
}

void MainWindow::selectTensor(TensorRef ref)
{
    if (m_syncing || !ref.valid())
        return;
    const TensorEntry* t = m_doc->workspace().tensor(ref);
    if (!t)
        return;
    m_syncing = true;
    m_detail->setTensor(ref);
    const int row = m_tensorModel->rowOf(ref);
    if (row >= 0) {
        const QModelIndex idx = m_tensorProxy->mapFromSource(m_tensorModel->index(row, 0));
        if (idx.isValid()) {
            m_tensorView->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_tensorView->scrollTo(idx);
        }
    }
    const QModelIndex node = m_recordProxy->mapFromSource(m_recordModel->indexOfNode(ref.record, t->node));
    if (node.isValid()) {
        m_recordView->selectionModel()->setCurrentIndex(node, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_recordView->scrollTo(node);
    }
    const QString id = qs(t->paramId);
    if (!id.isEmpty() && m_optimizer->selectedParam() != id)
        m_optimizer->selectParam(id);
    // the GradientCheckpoint node whose `weight` metadata names this parameter's module path
    if (!id.isEmpty())
        if (auto p = m_doc->workspace().findParam(t->paramId)) {
            const std::string& modulePath = m_doc->workspace().records[size_t(p->first)].record->params[p->second].modulePath;
            const auto dot = modulePath.find("].");
            m_graph->selectNodeForParameter(qs(dot == std::string::npos ? modulePath : modulePath.substr(dot + 2)));
        }
    m_syncing = false;
}

void MainWindow::selectParam(const QString& id)
{
    if (m_syncing)
        return;
    const auto refs = m_doc->workspace().tensorsOfParam(id.toStdString());
    if (!refs.empty()) {
        selectTensor(refs.front());
        return;
    }
    m_optimizer->selectParam(id);
}

bool MainWindow::find(const QString& text)
{
    if (text.isEmpty())
        return false;
    static std::vector<std::pair<int, uint32_t>> hits;
    if (text != m_lastSearch) {
        m_lastSearch = text;
        m_searchHit = -1;
        hits.clear();
        const QByteArray needle = text.toUtf8().toLower();
        auto matches = [&](std::string_view s) {
            return QByteArray::fromRawData(s.data(), qsizetype(s.size())).toLower().contains(needle);
        };
        const Workspace& ws = m_doc->workspace();
        for (size_t r = 0; r < ws.records.size() && hits.size() < MaxSearchHits; ++r) {
            const Record& rec = *ws.records[r].record;
            if (rec.kind == RecordKind::GradientCheckpoint)
                continue; // its fields are searched through the graph below, which selects the node
            const TapeIndex& ix = *ws.records[r].index;
            for (uint32_t n = 0; n < rec.tape.nodes.size() && hits.size() < MaxSearchHits; ++n) {
                if (ix.keyOf[n] != UINT32_MAX && rec.tape.isStr(ix.keyOf[n]) && matches(rec.tape.str(ix.keyOf[n])))
                    hits.push_back({int(r), n});
                else if (rec.tape[n].kind == Kind::Str && ix.parent[n] != UINT32_MAX && matches(rec.tape.str(n)))
                    hits.push_back({int(r), n});
            }
        }
    }
    if (hits.empty()) { // nothing in the records: a graph node's name, id, metadata or CID
        if (!m_graph->search(text))
            return false;
        raisePanel(QStringLiteral("graph"));
        m_status->setText(tr("Graph node %1").arg(m_graph->nodeDetail().section(QLatin1Char('\n'), 0, 0)));
        return true;
    }
    m_searchHit = (m_searchHit + 1) % int(hits.size());
    const auto [record, node] = hits[size_t(m_searchHit)];
    m_recordProxy->setFilterFixedString(QString());
    const QModelIndex idx = m_recordProxy->mapFromSource(m_recordModel->indexOfNode(record, node));
    raisePanel(QStringLiteral("tree"));
    if (idx.isValid()) {
        m_recordView->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_recordView->scrollTo(idx);
    }
    // a parameter id (as a key or a value) selects the parameter everywhere; a hit inside a tensor
    // selects that tensor
    const Workspace& ws = m_doc->workspace();
    const LoadedRecord& lr = ws.records[size_t(record)];
    const TapeIndex& ix = *lr.index;
    const Tape& tape = lr.record->tape;
    const std::string_view keyText = ix.keyOf[node] != UINT32_MAX && tape.isStr(ix.keyOf[node]) ? tape.str(ix.keyOf[node]) : std::string_view();
    const std::string_view valueText = tape.isStr(node) ? tape.str(node) : std::string_view();
    const std::string matched(qs(keyText).contains(text, Qt::CaseInsensitive) ? keyText : valueText);
    if (!matched.empty() && !ws.tensorsOfParam(matched).empty()) {
        selectParam(qs(matched));
    } else {
        for (uint32_t n = node; n != UINT32_MAX; n = ix.parent[n])
            if (ix.tensorAt[n] >= 0) {
                selectTensor({record, ix.tensorAt[n]});
                break;
            }
    }
    m_status->setText(tr("Match %1 of %2").arg(m_searchHit + 1).arg(hits.size()));
    return true;
}

void MainWindow::logMessage(const QString& text, bool error)
{
    if (error) {
        m_messages->appendHtml(QStringLiteral("<span style='color:#c00000'>") + text.toHtmlEscaped() + QStringLiteral("</span>"));
        m_status->setText(text);
    } else {
        m_messages->appendPlainText(text);
    }
}

void MainWindow::updateTitle()
{
    QStringList names;
    for (const auto& lr : m_doc->workspace().records)
        names << QFileInfo(lr.path).fileName() + (lr.record->damage.empty() ? QString() : tr(" (damaged, partial)"));
    setWindowTitle((names.isEmpty() ? tr("Checkpoint Inspector") : names.join(QStringLiteral(", ")))
        + QStringLiteral("[*] — ") + tr("Checkpoint Inspector"));
    setWindowModified(m_doc->isModified());
}

bool MainWindow::maybeSave()
{
    if (!m_doc->isModified())
        return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved edits"),
        tr("The continuation state has unsaved edits. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save) {
        saveDocument(false);
        return !m_doc->isModified();
    }
    return true;
}

void MainWindow::saveDocument(bool saveAs)
{
    QString error;
    // Surgery never overwrites its source: the source is the provenance (`ckpt patch --replay` starts from it).
    if (saveAs || m_doc->hasSurgery()) {
        QString suggestion = m_doc->editableFile();
        if (const int r = m_doc->exportRecord(); m_doc->hasSurgery() && r >= 0) {
            const QFileInfo source(m_doc->workspace().records[size_t(r)].path);
            suggestion = source.dir().filePath(source.completeBaseName() + QStringLiteral("-patched.") + source.suffix());
        }
        const QString path = QFileDialog::getSaveFileName(this, tr("Save record as"), suggestion);
        if (path.isEmpty())
            return;
        error = m_doc->saveAs(path);
    } else {
        error = m_doc->save();
    }
    if (!error.isEmpty())
        logMessage(tr("Save failed: ") + error, true);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    s_geometry.set(saveGeometry());
    s_state.set(saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    openPaths(paths);
}

} // namespace ckpt::ui
