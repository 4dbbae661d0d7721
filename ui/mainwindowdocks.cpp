// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's docks: the panels built and placed, linked to each other, and filled when a
// workspace is loaded.
#include "ui/mainwindow.h"

#include "ui/document/checkpointdocument.h"
#include "ui/graph/graphview.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"
#include "ui/models/recordtreemodel.h"
#include "ui/models/tensortablemodel.h"
#include "ui/plots/lossplotwidget.h"
#include "ui/plots/lrcurvewidget.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/optimizerpanel.h"
#include "ui/widgets/resumepanel.h"
#include "ui/widgets/runpanel.h"
#include "ui/widgets/tensordetailwidget.h"
#include "ui/widgets/viewsetup.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <QUndoView>
#include <QVBoxLayout>

#include <algorithm>

namespace ckpt::ui {

namespace {

QWidget* withHeader(QWidget* header, QWidget* body, QWidget* parent)
{
    auto* w = new QWidget(parent);
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(2, 2, 2, 2);
    if (header)
        l->addWidget(header);
    l->addWidget(body, 1);
    return w;
}

} // namespace

void MainWindow::createDocks()
{
    createRecordDocks();
    createStateDocks();
    createRunDocks();
    QDockWidget* tensorsDock = m_panels.value(QStringLiteral("tensors"));
    for (const char* name : {"optimizer", "scheduler", "state", "loss", "graph", "diff", "resume", "run"})
        tabifyDockWidget(tensorsDock, m_panels.value(QLatin1String(name)));
    tensorsDock->raise();
    createBottomDocks();
    connectCrossLinks();
    connect(m_doc, &CheckpointDocument::workspaceChanged, this, &MainWindow::showWorkspace);
}

void MainWindow::createRecordDocks()
{
    // Record tree
    m_recordModel = new RecordTreeModel(m_doc, RecordTreeModel::Mode::Records, this);
    m_recordProxy = new QSortFilterProxyModel(this);
    m_recordView = new QTreeView(this);
    auto* recordFilter = new QLineEdit(this);
    recordFilter->setPlaceholderText(tr("Filter names…"));
    setupTreeView(m_recordView, m_recordModel, m_recordProxy, recordFilter);
    m_recordProxy->setFilterKeyColumn(RecordTreeModel::NameColumn);
    m_recordView->header()->resizeSection(0, 260);
    addPanel(QStringLiteral("tree"), tr("Record"), withHeader(recordFilter, m_recordView, this), Qt::LeftDockWidgetArea);

    // Tensor table
    m_tensorModel = new TensorTableModel(m_doc, this);
    m_tensorProxy = new QSortFilterProxyModel(this);
    m_tensorView = new QTableView(this);
    auto* tensorFilter = new QLineEdit(this);
    tensorFilter->setPlaceholderText(tr("Filter tensors by path, role or id…"));
    setupTreeView(m_tensorView, m_tensorModel, m_tensorProxy, tensorFilter);
    m_tensorProxy->setFilterKeyColumn(-1);
    m_tensorView->horizontalHeader()->resizeSection(0, 320);
    addPanel(QStringLiteral("tensors"), tr("Tensors"), withHeader(tensorFilter, m_tensorView, this), Qt::RightDockWidgetArea);
}

void MainWindow::createStateDocks()
{
    m_optimizer = new OptimizerPanel(m_doc, this);
    addPanel(QStringLiteral("optimizer"), tr("Optimizer"), m_optimizer, Qt::RightDockWidgetArea);

    m_schedulerModel = new RecordTreeModel(m_doc, RecordTreeModel::Mode::Scheduler, this);
    m_schedulerView = new QTreeView(this);
    m_schedulerInfo = new QLabel(this);
    m_schedulerInfo->setWordWrap(true);
    setupTreeView(m_schedulerView, m_schedulerModel, new QSortFilterProxyModel(this), nullptr);
    m_schedulerView->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_lrCurve = new LearningRateCurveWidget(this);
    auto* schedulerSplit = makeSplitter(Qt::Vertical, this, {{withHeader(m_schedulerInfo, m_schedulerView, this), 1, 110}, {m_lrCurve, 3, 400}});
    addPanel(QStringLiteral("scheduler"), tr("Scheduler"), schedulerSplit, Qt::RightDockWidgetArea);
    // an edit of the scheduler position or of the caller state's configuration moves the curve
    connect(m_doc, &CheckpointDocument::valueChanged, this, [this](int record) {
        if (record == m_doc->workspace().schedulerRecord())
            updateLearningRateCurve();
    });

    m_stateModel = new RecordTreeModel(m_doc, RecordTreeModel::Mode::CallerState, this);
    m_stateView = new QTreeView(this);
    m_stateInfo = new QLabel(this);
    m_stateInfo->setWordWrap(true);
    setupTreeView(m_stateView, m_stateModel, new QSortFilterProxyModel(this), nullptr);
    m_stateView->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::SelectedClicked);
    m_stateView->header()->resizeSection(0, 260);
    addPanel(QStringLiteral("state"), tr("Caller state"), withHeader(m_stateInfo, m_stateView, this), Qt::RightDockWidgetArea);
    for (RecordTreeModel* model : {m_stateModel, m_schedulerModel})
        connect(model, &QAbstractItemModel::dataChanged, this, [this, model] {
            if (!model->lastError().isEmpty())
                logMessage(model->lastError(), true);
        });
}

void MainWindow::createRunDocks()
{
    m_loss = new LossPlotWidget(this);
    addPanel(QStringLiteral("loss"), tr("Loss"), m_loss, Qt::RightDockWidgetArea);

    m_graph = new GraphView(this);
    addPanel(QStringLiteral("graph"), tr("Graph"), m_graph, Qt::RightDockWidgetArea);

    m_diff = new DiffPanel(this);
    addPanel(QStringLiteral("diff"), tr("Diff"), m_diff, Qt::RightDockWidgetArea);
    connect(m_diff, &DiffPanel::finished, this, [this](const QString& error) {
        if (!error.isEmpty())
            logMessage(error, true);
        // a diff asked for from the Run panel's heatmap selects its tensor once the rows are there
        if (!m_diffSelectPath.isEmpty() && m_diff->selectPath(m_diffSelectPath))
            m_diffSelectPath.clear();
        checkIdle();
    });

    m_run = new RunPanel(this);
    addPanel(QStringLiteral("run"), tr("Run"), m_run, Qt::RightDockWidgetArea);
    connect(m_run, &RunPanel::idle, this, &MainWindow::checkIdle);
    connect(m_run, &RunPanel::message, this, &MainWindow::logMessage);
    connect(m_run, &RunPanel::openCheckpointRequested, this, [this](const QStringList& files) { openPaths(files); });
    connect(m_run, &RunPanel::diffRequested, this, &MainWindow::compareCheckpoints);
    connect(m_run, &RunPanel::runListed, this, [this](bool ok) {
        if (std::exchange(m_raiseRunOnList, false) && ok)
            showRunPanel();
    });

    m_resume = new ResumePanel(this);
    addPanel(QStringLiteral("resume"), tr("Resume"), m_resume, Qt::RightDockWidgetArea);
    connect(m_doc, &CheckpointDocument::workspaceChanged, m_resume, [this] { m_resume->setWorkspace(m_doc->workspace()); });
    connect(m_resume, &ResumePanel::message, this, &MainWindow::logMessage);
    connect(m_resume, &ResumePanel::runStarted, this, [this] {
        m_loss->beginLiveCurve(tr("resumed train/Loss (live)"));
    });
    // the loss history's x axis is the fractional epoch: a step is 1/stepsPerEpoch of one
    connect(m_resume, &ResumePanel::stepReported, this, [this](quint64 step, double loss) {
        const quint64 perEpoch = m_resume->stepsPerEpoch();
        m_loss->appendLivePoint(perEpoch ? double(step) / double(perEpoch) : double(step), loss);
    });
    connect(m_resume, &ResumePanel::runFinished, this, [this](const QString& outDir) {
        if (QFileInfo(outDir).isDir()) {
            logMessage(tr("Reloading %1 for the new checkpoints.").arg(outDir));
            openPaths({outDir});
        }
    });
}

void MainWindow::createBottomDocks()
{
    m_detail = new TensorDetailWidget(m_doc, this);
    auto* detailDock = addPanel(QStringLiteral("detail"), tr("Tensor"), m_detail, Qt::BottomDockWidgetArea);
    m_messages = new QPlainTextEdit(this);
    m_messages->setReadOnly(true);
    m_messages->setObjectName(QStringLiteral("messages"));
    auto* messagesDock = addPanel(QStringLiteral("messages"), tr("Messages"), m_messages, Qt::BottomDockWidgetArea);
    auto* undoView = new QUndoView(m_doc->undoStack(), this);
    auto* undoDock = addPanel(QStringLiteral("undo"), tr("Undo history"), undoView, Qt::BottomDockWidgetArea);
    tabifyDockWidget(detailDock, messagesDock);
    tabifyDockWidget(detailDock, undoDock);
    detailDock->raise();
    QDockWidget* tensorsDock = m_panels.value(QStringLiteral("tensors"));
    resizeDocks({m_panels.value(QStringLiteral("tree")), tensorsDock}, {380, 1000}, Qt::Horizontal);
    resizeDocks({tensorsDock, detailDock}, {480, 380}, Qt::Vertical);
}

void MainWindow::connectCrossLinks()
{
    // Cross-links
    connect(m_recordView->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
        const auto ref = TensorRef::fromKey(i.data(TensorKeyRole).toString());
        if (ref.valid())
            selectTensor(ref);
    });
    connect(m_tensorView->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
        const auto ref = TensorRef::fromKey(i.data(TensorKeyRole).toString());
        if (ref.valid())
            selectTensor(ref);
    });
    connect(m_optimizer, &OptimizerPanel::paramSelected, this, &MainWindow::selectParam);
    connect(m_optimizer, &OptimizerPanel::tensorActivated, this, &MainWindow::selectTensor);
}

void MainWindow::showWorkspace()
{
    const Workspace& ws = m_doc->workspace();
    const int s = ws.schedulerRecord();
    if (s < 0) {
        m_schedulerInfo->setText(tr("No scheduler record is open."));
    } else {
        const auto& sch = ws.records[size_t(s)].record->scheduler;
        m_schedulerInfo->setText(tr("<b>%1</b> — %2 (double-click the value to edit it)")
                                     .arg(sch ? qs(sch->kind) : tr("scheduler"), sch ? qs(sch->description).toHtmlEscaped() : QString()));
    }
    updateLearningRateCurve();
    const int st = ws.stateRecord();
    m_stateInfo->setText(st < 0 ? tr("No opened record has a caller continuation state (TrainingRecord item 5).")
                                : tr("Continuation state of %1 — double-click a value to edit; Ctrl+Z undoes; "
                                     "Ctrl+S re-encodes the record atomically.")
                                      .arg(QFileInfo(ws.records[size_t(st)].path).fileName()));
    m_stateView->expandToDepth(1);
    m_schedulerView->expandToDepth(1);
    m_recordView->expandToDepth(0);
    m_graph->setGraph(ws.graph);
    // a GradientCheckpoint alone: its graph is what there is to see. The panels below (tensor,
    // messages, undo) have next to nothing to show and cannot shrink below the tensor plot, so
    // they step aside until records are open again (View lists them meanwhile; an error still
    // raises the messages).
    // (the Record tree lists a GradientCheckpoint's own fields as a record: those do not count)
    const bool graphOnly = ws.graph && std::ranges::all_of(ws.records, [](const LoadedRecord& lr) { return lr.record->kind == RecordKind::GradientCheckpoint; });
    if (graphOnly && m_hiddenForGraph.isEmpty()) {
        for (const QString& name : {QStringLiteral("detail"), QStringLiteral("messages"), QStringLiteral("undo")})
            if (QDockWidget* dock = m_panels.value(name); dock && dock->isVisible()) {
                dock->hide();
                m_hiddenForGraph << name;
            }
    } else if (!graphOnly) {
        for (const QString& name : std::as_const(m_hiddenForGraph))
            m_panels.value(name)->show();
        m_hiddenForGraph.clear();
    }
    if (graphOnly) {
        raisePanel(QStringLiteral("graph"));
        QTimer::singleShot(0, this, [this] { // once the raised dock is laid out
            // both neighbours named: a dock resized alone gives its share back to the others
            resizeDocks({m_panels.value(QStringLiteral("tree")), m_panels.value(QStringLiteral("graph"))}, {width() / 6, width() * 5 / 6},
                Qt::Horizontal);
        });
    }
    if (ws.loss)
        m_loss->setHistory(*ws.loss);
    else
        m_loss->setHistory({});
}

void MainWindow::updateLearningRateCurve()
{
    const Workspace& ws = m_doc->workspace();
    const int s = ws.schedulerRecord();
    if (s < 0) {
        m_lrCurve->setRecord(nullptr);
        return;
    }
    const LoadedRecord& lr = ws.records[size_t(s)];
    const std::vector<int> edits = m_doc->editedRecords();
    if (std::ranges::find(edits, s) == edits.end()) {
        m_lrCurve->setRecord(lr.record.get());
        return;
    }
    // edits are overrides until saved: the curve follows the edited record
    auto tape = m_doc->editedTape(s);
    auto edited = tape ? indexRecord(std::move(*tape), lr.record->recorder, lr.record->file)
                       : Result<std::shared_ptr<const Record>>(std::unexpected(tape.error()));
    if (!edited) {
        logMessage(qs(edited.error().message()), true);
        m_lrCurve->setRecord(lr.record.get());
        return;
    }
    m_lrCurve->setRecord(edited->get());
}

} // namespace ckpt::ui
