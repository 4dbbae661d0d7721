// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/diffpanel.h"

#include "ui/async/activity.h"
#include "ui/async/continuation.h"
#include "ui/async/statsjob.h"
#include "ui/graph/graphview.h"
#include "ui/models/diffmodel.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"
#include "ui/plots/histogramplot.h"
#include "ui/run/metriclog.h"
#include "ui/widgets/viewsetup.h"
#include "ui/workspace/workspace.h"

#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/graph/checkpointfiles.h"
#include "core/run/timeline.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRadioButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <unordered_map>

namespace ckpt::ui {

namespace {

constexpr int MaxHeatmapSide = 256;
constexpr uint32_t DetailBins = 64;

} // namespace

/** Both graphs of a GradientCheckpoint diff, ready for the graph view, with each side's status colours. */
struct DiffPanel::GraphSides {
    std::shared_ptr<const GraphData> graph[2];
    QHash<QString, QColor> colours[2];      ///< node key -> status colour, per side (unchanged nodes absent)
    std::vector<std::string> changed[2];    ///< keys of what moved on that side: coloured nodes and the ends of added/removed edges
    uint64_t added = 0, removed = 0, opChanged = 0, tensorsChanged = 0, unchanged = 0;
};

/** A side's loss history (from the metric logs of the run its file belongs to) and where the file lies on it. */
struct DiffPanel::RunLosses {
    QString directory[2];
    LossHistory history[2];
    std::optional<double> at[2];     ///< the checkpoint's position on the x axis (fractional epoch)
    std::optional<double> loss[2];   ///< a GradientCheckpoint's own loss value (its loss block in the CAR)
    std::optional<uint64_t> step[2]; ///< step (record-STEP, graph/step-N) or epoch (model-EPOCH) from the file name
    bool epochIndex[2] = {false, false};
};

namespace {

struct GraphJob {
    std::optional<GraphDiff> diff;
    std::shared_ptr<const CarStore> carA, carB;
    std::shared_ptr<DiffPanel::GraphSides> sides;
    std::optional<double> lossA, lossB;
    QString error;
    QStringList carErrors; ///< a CAR beside a checkpoint that could not be read: that side has no values
};

GraphJob loadAndDiffGraphs(const QString& pa, const QString& pb)
{
    GraphJob job;
    std::optional<GradientCheckpointFiles> files[2];
    const QString paths[2] = {pa, pb};
    for (int i = 0; i < 2; ++i) {
        auto f = openGradientCheckpointFiles(paths[i].toStdString());
        if (!f) {
            job.error = qs(f.error().message());
            return job;
        }
        if (f->carError) // the graph is still worth comparing; the summary says why that side has no values
            job.carErrors << qs(f->carError->message());
        files[i] = std::move(*f);
    }
    const std::shared_ptr<const CarStore> cars[2] = {files[0]->car, files[1]->car};
    job.diff = diffGradientCheckpoints(files[0]->checkpoint, files[1]->checkpoint, cars[0].get(), cars[1].get());
    job.diff->a = pa.toStdString();
    job.diff->b = pb.toStdString();
    job.carA = cars[0];
    job.carB = cars[1];
    job.lossA = lossValueOf(cars[0].get(), job.diff->sideA.lossCid);
    job.lossB = lossValueOf(cars[1].get(), job.diff->sideB.lossCid);

    // the graph tab's data: both graphs laid out for the view (here, off the GUI thread), and the
    // colour of every node that moved, by its key on each side
    auto sides = std::make_shared<DiffPanel::GraphSides>();
    for (const auto& n : job.diff->nodes) {
        QColor colour;
        switch (n.status) {
        case DiffStatus::Added: colour = DiffPanel::addedColour(), ++sides->added; break;
        case DiffStatus::Removed: colour = DiffPanel::removedColour(), ++sides->removed; break;
        case DiffStatus::Unchanged: ++sides->unchanged; break;
        default:
            colour = n.opChanged ? DiffPanel::opChangedColour() : DiffPanel::tensorsChangedColour();
            ++(n.opChanged ? sides->opChanged : sides->tensorsChanged);
        }
        if (!colour.isValid())
            continue;
        for (int side = 0; side < 2; ++side)
            if (const std::string& key = side ? n.keyB : n.keyA; !key.empty()) {
                sides->colours[side].insert(qs(key), colour);
                sides->changed[side].push_back(key);
            }
    }
    for (const auto& [f, t] : job.diff->edgesRemoved)
        sides->changed[0].insert(sides->changed[0].end(), {f, t});
    for (const auto& [f, t] : job.diff->edgesAdded)
        sides->changed[1].insert(sides->changed[1].end(), {f, t});
    for (int i = 0; i < 2; ++i) {
        auto data = graphDataFor(std::move(files[i]->checkpoint), paths[i]);
        if (cars[i]) {
            data->car = cars[i];
            data->carPath = qs(*files[i]->carPath);
        }
        if (files[i]->carError)
            data->carError = qs(files[i]->carError->message());
        sides->graph[i] = std::move(data);
    }
    job.sides = std::move(sides);
    return job;
}

/// Both sides' loss histories and each file's place on them (in a worker: the logs are read here).
DiffPanel::RunLosses loadRunLosses(const QString& a, const QString& b, std::optional<double> lossA, std::optional<double> lossB)
{
    DiffPanel::RunLosses out;
    const QString paths[2] = {a, b};
    out.loss[0] = lossA;
    out.loss[1] = lossB;
    for (int i = 0; i < 2; ++i) {
        const CheckpointPlace place = checkpointPlaceOf(paths[i].toStdString());
        out.step[i] = place.step ? place.step : place.epoch;
        out.epochIndex[i] = place.epoch.has_value();
        if (place.runDirectory.empty())
            continue;
        auto run = openRunDirectory(place.runDirectory);
        if (!run)
            continue;
        out.directory[i] = qs(place.runDirectory);
        out.history[i] = lossHistoryFrom(*run);
        if (!out.step[i])
            continue;
        if (out.epochIndex[i]) {
            out.at[i] = double(*out.step[i]); // the end of epoch N is N on the fractional-epoch axis
            continue;
        }
        // one train/Loss line per step (ckpt-train, burn-train per iteration): step s is line s
        for (const auto& c : out.history[i].curves)
            if (c.split == QLatin1String("train") && c.metric == QLatin1String("Loss") && *out.step[i] >= 1 && *out.step[i] <= uint64_t(c.x.size()))
                out.at[i] = c.x[qsizetype(*out.step[i] - 1)];
    }
    return out;
}

} // namespace

DiffPanel::DiffPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(tr("Start with --diff A B (two records or two GradientCheckpoints) to compare them."), this))
    , m_model(new DiffModel(this))
    , m_rows(new DiffFilterModel(this))
    , m_table(new QTableView(this))
    , m_detailTitle(new QLabel(this))
    , m_histA(new HistogramPlot(this))
    , m_histB(new HistogramPlot(this))
    , m_heatPlot(new QCustomPlot(this))
    , m_changesOnly(new QCheckBox(tr("Only what changed"), this))
    , m_split(new QSplitter(Qt::Vertical, this))
    , m_tabs(new QTabWidget(this))
    , m_graphView(new GraphView(this))
    , m_sideA(new QRadioButton(tr("Graph A"), this))
    , m_sideB(new QRadioButton(tr("Graph B"), this))
    , m_graphChangesOnly(new QCheckBox(tr("Show only what changed (k = 1 neighbours as context)"), this))
    , m_legend(new QLabel(this))
    , m_lossPlot(new QCustomPlot(this))
    , m_lossNote(new QLabel(this))
{
    connect(m_changesOnly, &QCheckBox::toggled, this, &DiffPanel::applyFilter);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_rows->setSourceModel(m_model);
    m_table->setModel(m_rows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(DiffModel::MaxAbsColumn, Qt::DescendingOrder); // the biggest change first
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        showDetail(current.isValid() ? current.row() : -1);
        // a node's row selects it in the graph tab (on the side shown, when it is there)
        // (not the first row picked when the rows arrive: the graph opens fitted, not centred on it)
        if (current.isValid() && m_graphSides && !m_fillingRows)
            if (const QString key = current.data(graphSideB() ? NodeKeyBRole : NodeKeyARole).toString(); !key.isEmpty())
                m_graphView->selectNode(key);
    });

    setupValuesTab();
    setupGraphTab();
    setupLossTab();

    m_tabs->addTab(m_valuesTab, tr("Values"));
    m_tabs->addTab(m_graphTab, tr("Graph"));
    m_tabs->addTab(m_lossTab, tr("Loss"));
    m_tabs->setTabEnabled(1, false);
    m_tabs->setTabEnabled(2, false);
    m_tabs->setTabToolTip(1, tr("Two GradientCheckpoints: their graph coloured by node status"));
    m_tabs->setTabToolTip(2, tr("The loss histories of the runs A and B belong to (their metric logs)"));

    fillSplitter(m_split, {{m_table, 3}, {m_tabs, 2}}); // its sizes follow shareSplit()
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_changesOnly);
    layout->addWidget(m_split, 1);
}

void DiffPanel::setupValuesTab()
{
    m_histA->clearStats(tr("A"));
    m_histB->clearStats(tr("B"));
    m_heat = new QCPColorMap(m_heatPlot->xAxis, m_heatPlot->yAxis);
    auto* scale = new QCPColorScale(m_heatPlot);
    m_heatPlot->plotLayout()->addElement(0, 1, scale);
    m_heat->setColorScale(scale);
    scale->axis()->setLabel(tr("b − a"));
    QCPColorGradient diverging; // blue below, white at zero ("did not move"), red above
    diverging.clearColorStops();
    diverging.setColorStopAt(0, QColor(33, 102, 172));
    diverging.setColorStopAt(0.5, Qt::white);
    diverging.setColorStopAt(1, QColor(178, 24, 43));
    m_heat->setGradient(diverging);
    m_heat->setInterpolate(false);
    m_heatPlot->xAxis->setLabel(tr("column"));
    m_heatPlot->yAxis->setLabel(tr("row"));
    m_heatPlot->yAxis->setRangeReversed(true);

    auto* detail = new QWidget(this);
    auto* dl = new QVBoxLayout(detail);
    dl->setContentsMargins(0, 0, 0, 0);
    m_detailTitle->setWordWrap(true);
    dl->addWidget(m_detailTitle);
    auto* plots = new QHBoxLayout;
    plots->addWidget(m_histA, 1);
    plots->addWidget(m_histB, 1);
    plots->addWidget(m_heatPlot, 1);
    dl->addLayout(plots, 1);
    m_valuesTab = detail;
}

void DiffPanel::setupGraphTab()
{
    // the graph tab: A or B (A holds the removed nodes, B the added ones), a legend, the filter
    m_graphTab = new QWidget(this);
    auto* gl = new QVBoxLayout(m_graphTab);
    gl->setContentsMargins(0, 0, 0, 0);
    auto* sideBar = new QHBoxLayout;
    auto* sides = new QButtonGroup(this);
    sides->addButton(m_sideA);
    sides->addButton(m_sideB);
    m_sideB->setChecked(true);
    m_sideA->setToolTip(tr("A's graph: removed nodes are here"));
    m_sideB->setToolTip(tr("B's graph: added nodes are here"));
    m_graphChangesOnly->setToolTip(tr("The nodes that were added, removed or changed and the ends of added or removed edges, "
                                      "with their direct neighbours; the breadcrumbs lead back to the whole graph"));
    sideBar->addWidget(m_sideA);
    sideBar->addWidget(m_sideB);
    sideBar->addWidget(m_graphChangesOnly);
    sideBar->addStretch(1);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    gl->addLayout(sideBar);
    gl->addWidget(m_legend);
    gl->addWidget(m_graphView, 1);
    m_graphView->setProvenanceShown(false);
    connect(m_sideB, &QRadioButton::toggled, this, &DiffPanel::applyGraphSide);
    connect(m_graphChangesOnly, &QCheckBox::toggled, this, &DiffPanel::applyGraphSide);
}

void DiffPanel::setupLossTab()
{
    // the loss tab: both runs' histories on one axis
    m_lossTab = new QWidget(this);
    auto* ll = new QVBoxLayout(m_lossTab);
    ll->setContentsMargins(0, 0, 0, 0);
    m_lossNote->setWordWrap(true);
    m_lossNote->setTextFormat(Qt::RichText);
    ll->addWidget(m_lossNote);
    ll->addWidget(m_lossPlot, 1);
    m_lossPlot->legend->setVisible(true);
    // the legend in a row of its own below the axes: inside them it would cover curves or a marker
    auto* legendRow = new QCPLayoutGrid;
    m_lossPlot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, m_lossPlot->legend);
    m_lossPlot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_lossPlot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_lossPlot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_lossPlot->xAxis->setLabel(tr("epoch"));
    m_lossPlot->yAxis->setLabel(tr("loss"));
}

QColor DiffPanel::addedColour() { return QColor(140, 214, 140); }
QColor DiffPanel::removedColour() { return QColor(238, 140, 140); }
QColor DiffPanel::opChangedColour() { return QColor(206, 150, 236); }
QColor DiffPanel::tensorsChangedColour() { return QColor(250, 214, 110); }

void DiffPanel::shareSplit(double tableShare)
{
    m_tableShare = tableShare;
    // a panel in a dock tab behind another has no height yet: the share waits for its first real one
    const int h = m_split->height();
    if (m_tableShare <= 0 || !isVisible() || h < 150)
        return;
    m_split->setSizes({int(h * m_tableShare), h - int(h * m_tableShare)});
    m_tableShare = 0;
}

void DiffPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_tableShare > 0)
        QTimer::singleShot(0, this, [this] { shareSplit(m_tableShare); }); // once the layout has sized the splitter
}

void DiffPanel::showTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}

DiffPanel::Tab DiffPanel::currentTab() const
{
    return Tab(m_tabs->currentIndex());
}

QString DiffPanel::summary() const
{
    return m_summary->text();
}

QString DiffPanel::detailTitle() const
{
    return m_detailTitle->text();
}

void DiffPanel::compare(std::shared_ptr<const Record> a, std::shared_ptr<const Record> b)
{
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_summary->setText(tr("Comparing…"));
    showGraphDiff(nullptr);
    showTab(Tab::Values);
    loadLosses(qs(a->file), qs(b->file), std::nullopt, std::nullopt);
    whenReady(runInBackground([a, b] {
        markBackgroundThread();
        const Activity activity(tr("diff of %1 and %2").arg(QFileInfo(qs(a->file)).fileName(), QFileInfo(qs(b->file)).fileName()));
        Progress progress;
        progress.onProgress = [&activity](double) { activity.tick(); };
        return diffRecords(*a, *b, {}, progress, poolParallelFor());
    }), this, [this, generation, a, b](Result<RecordDiff> d) {
        if (generation != m_generation)
            return;
        m_busy = false;
        if (!d) {
            m_summary->setText(tr("Diff failed: %1").arg(qs(d.error().message())));
            Q_EMIT finished(qs(d.error().message()));
            return;
        }
        m_model->setRecordDiff(*d, a, b);
        QString precision;
        if (d->precision)
            precision = tr(" · precision %1 → %2%3")
                            .arg(qs(precisionName(d->precision->a)), qs(precisionName(d->precision->b)),
                                d->precision->roundingOnly ? tr(" (rounding only)") : QString());
        // the table as tall as the plots (left alone, the plots' minimum squeezes it to two rows)
        shareSplit(0.5);
        QString notes; // across frameworks: how the two sides were matched and what was left out
        for (const auto& n : d->notes)
            notes += QStringLiteral("<br>") + qs(n).toHtmlEscaped();
        showRows(tr("<b>A</b> %1<br><b>B</b> %2<br>added %3 · removed %4 · changed %5 · unchanged %6 · renamed %7 · "
                    "%8 state difference(s)%9")
                     .arg(qs(d->a).toHtmlEscaped(), qs(d->b).toHtmlEscaped())
                     .arg(d->added)
                     .arg(d->removed)
                     .arg(d->changed)
                     .arg(d->unchanged)
                     .arg(d->renamed)
                     .arg(d->state.size())
                     .arg(precision)
            + notes);
    });
}

void DiffPanel::compareGraphs(const QString& a, const QString& b)
{
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_summary->setText(tr("Comparing…"));
    showGraphDiff(nullptr);
    whenReady(runInBackground([a, b] {
        markBackgroundThread();
        const Activity activity(tr("diff of the graphs %1 and %2").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
        return loadAndDiffGraphs(a, b);
    }), this, [this, generation, a, b](GraphJob job) {
        if (generation != m_generation)
            return;
        m_busy = false;
        if (!job.diff) {
            m_summary->setText(tr("Diff failed: %1").arg(job.error.toHtmlEscaped()));
            Q_EMIT finished(job.error);
            return;
        }
        showGraphDiff(job.sides);
        showTab(Tab::Graph);
        loadLosses(a, b, job.lossA, job.lossB);
        const GraphDiff& d = *job.diff;
        m_model->setGraphDiff(d, job.carA, job.carB);
        auto lossText = [](const std::optional<std::string>& c) { return c ? qs(*c).left(14) + QStringLiteral("…") : QStringLiteral("—"); };
        showRows(tr("<b>A</b> %1 (step %3)<br><b>B</b> %2 (step %4)<br>nodes: added %5 · removed %6 · changed %7 · unchanged %8 "
                    "(%9 matched by op and position) · edges +%10 −%11 · loss %12 → %13 · CARs %14 · %15 block bytes read")
                     .arg(qs(d.a).toHtmlEscaped(), qs(d.b).toHtmlEscaped())
                     .arg(d.sideA.step)
                     .arg(d.sideB.step)
                     .arg(d.added)
                     .arg(d.removed)
                     .arg(d.changed)
                     .arg(d.unchanged)
                     .arg(d.matchedByPosition)
                     .arg(d.edgesAdded.size())
                     .arg(d.edgesRemoved.size())
                     .arg(lossText(d.sideA.lossCid), lossText(d.sideB.lossCid))
                     .arg(d.sideA.hasCar && d.sideB.hasCar      ? tr("both")
                             : d.sideA.hasCar || d.sideB.hasCar ? tr("one")
                                                                : tr("none"))
                     .arg(formatBytes(d.blockBytesRead))
            + (job.carErrors.isEmpty() ? QString() : QStringLiteral("<br>") + job.carErrors.join(QStringLiteral("<br>")).toHtmlEscaped()));
    });
}

void DiffPanel::applyFilter()
{
    m_rows->setChangesOnly(m_changesOnly->isChecked());
}

int DiffPanel::visibleRowCount() const
{
    return m_rows->rowCount();
}

void DiffPanel::setChangesOnly(bool on)
{
    m_changesOnly->setChecked(on);
}

void DiffPanel::showRows(const QString& summaryText)
{
    m_summary->setText(summaryText);
    applyFilter();
    m_table->sortByColumn(DiffModel::MaxAbsColumn, Qt::DescendingOrder); // the biggest change first
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(DiffModel::PathColumn, std::min(m_table->columnWidth(DiffModel::PathColumn), 420));
    m_fillingRows = true;
    if (m_rows->rowCount() > 0)
        m_table->setCurrentIndex(m_rows->index(0, DiffModel::PathColumn)); // shows the detail of the biggest change
    else
        showDetail(-1);
    m_fillingRows = false;
    Q_EMIT finished({});
}

void DiffPanel::showGraphDiff(std::shared_ptr<const GraphSides> sides)
{
    m_graphSides = std::move(sides);
    m_tabs->setTabEnabled(int(Tab::Graph), bool(m_graphSides));
    if (!m_graphSides) {
        m_graphView->setGraph(nullptr);
        m_legend->clear();
        if (currentTab() == Tab::Graph)
            showTab(Tab::Values);
        return;
    }
    // the graph is what a GradientCheckpoint diff is about: it gets most of the panel's height
    shareSplit(1.0 / 3);
    applyGraphSide();
}

void DiffPanel::applyGraphSide()
{
    if (!m_graphSides)
        return;
    const int side = m_sideB->isChecked() ? 1 : 0;
    const GraphSides& g = *m_graphSides;
    m_graphView->setGraph(g.graph[side]);
    m_graphView->setNodeStatus(g.colours[side]);
    if (m_graphChangesOnly->isChecked()) {
        std::vector<int> seeds;
        seeds.reserve(g.changed[side].size());
        std::unordered_map<std::string_view, int> index;
        const auto& names = g.graph[side]->names;
        index.reserve(names.size() * 2);
        for (size_t i = 0; i < names.size(); ++i)
            index.try_emplace(names[i], int(i));
        for (const auto& key : g.changed[side])
            if (const auto it = index.find(key); it != index.end())
                seeds.push_back(it->second);
        std::sort(seeds.begin(), seeds.end());
        seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end()); // a node and its edges' ends count once
        // nothing moved on this side (no seed): the whole graph stays
        m_graphView->showNodes(tr("What changed in %1 (%n node(s), with their neighbours)", "", int(seeds.size())).arg(side ? tr("B") : tr("A")), seeds, 1);
    }
    auto swatch = [](const QColor& c, const QString& text) {
        return QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2").arg(c.name(), text);
    };
    QStringList parts{swatch(addedColour(), tr("added %1%2").arg(g.added).arg(side == 0 && g.added ? tr(" (in B)") : QString())),
        swatch(removedColour(), tr("removed %1%2").arg(g.removed).arg(side == 1 && g.removed ? tr(" (in A)") : QString())),
        swatch(opChangedColour(), tr("operation changed %1").arg(g.opChanged)),
        swatch(tensorsChangedColour(), tr("tensors or metadata changed %1").arg(g.tensorsChanged)),
        swatch(QColor(225, 235, 245), tr("unchanged %1").arg(g.unchanged))};
    m_legend->setText(tr("Showing %1 — ").arg(side ? tr("B") : tr("A")) + parts.join(QStringLiteral(" &nbsp;&nbsp; "))
        + tr(" &nbsp;&nbsp; (a group takes the colour of its first member that moved)"));
}

bool DiffPanel::graphSideB() const
{
    return m_sideB->isChecked();
}

void DiffPanel::showGraphSide(bool b)
{
    (b ? m_sideB : m_sideA)->setChecked(true);
}

void DiffPanel::setGraphChangesOnly(bool on)
{
    m_graphChangesOnly->setChecked(on);
}

QString DiffPanel::graphLegend() const
{
    QTextDocument doc;
    doc.setHtml(m_legend->text());
    return doc.toPlainText().simplified();
}

QString DiffPanel::lossNote() const
{
    QTextDocument doc;
    doc.setHtml(m_lossNote->text());
    return doc.toPlainText().simplified();
}

void DiffPanel::loadLosses(const QString& a, const QString& b, std::optional<double> lossA, std::optional<double> lossB)
{
    const quint64 generation = m_generation;
    m_lossBusy = true;
    whenReady(runInBackground([a, b, lossA, lossB] {
        markBackgroundThread();
        const Activity activity(tr("loss curves beside %1 and %2").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
        return loadRunLosses(a, b, lossA, lossB);
    }), this, [this, generation](RunLosses losses) {
        if (generation != m_generation)
            return;
        showLosses(losses);
        m_lossBusy = false;
        Q_EMIT finished({});
    });
}

void DiffPanel::showLosses(const RunLosses& l)
{
    m_lossPlot->clearGraphs();
    m_lossPlot->clearItems();
    const QColor sideColour[2] = {QColor(31, 119, 180), QColor(230, 110, 0)};
    const QString sideName[2] = {tr("A"), tr("B")};
    // two files of one run share its history: drawn once, in grey, with both checkpoints marked on it
    const bool sameRun = !l.directory[0].isEmpty() && l.directory[0] == l.directory[1];
    int curves = 0;
    // validation curves first and pale (their per-batch lines zigzag), training on top in full colour
    for (const bool training : {false, true})
        for (int side = 0; side < (sameRun ? 1 : 2); ++side)
            for (const LossCurve& c : l.history[side].curves) {
                if (!c.metric.contains(QLatin1String("Loss"), Qt::CaseInsensitive))
                    continue; // other metrics live on other scales
                if ((c.split == QLatin1String("train")) != training)
                    continue;
                auto* g = m_lossPlot->addGraph();
                g->setName((sameRun ? tr("A and B") : sideName[side]) + QLatin1Char(' ') + c.split + QLatin1Char('/') + c.metric);
                QColor colour = sameRun ? QColor(90, 90, 90) : sideColour[side];
                if (!training)
                    colour.setAlpha(110);
                g->setPen(QPen(colour, training ? 1.8 : 1.0));
                g->setData(c.x, c.y, true);
                ++curves;
            }
    // where each checkpoint lies on its history (and a GradientCheckpoint's own loss)
    const bool byStep = curves == 0; // no logs: the checkpoints' own losses by their step
    int marks = 0;
    for (int side = 0; side < 2; ++side) {
        const std::optional<double> x = byStep ? (l.step[side] && !l.epochIndex[side] ? std::optional<double>(double(*l.step[side])) : std::nullopt)
                                               : l.at[side];
        if (!x)
            continue;
        if (!byStep) {
            auto* line = new QCPItemStraightLine(m_lossPlot);
            line->point1->setCoords(*x, 0);
            line->point2->setCoords(*x, 1);
            QPen pen(sideColour[side], 1.5, Qt::DotLine);
            line->setPen(pen);
            auto* label = new QCPItemText(m_lossPlot);
            label->position->setTypeX(QCPItemPosition::ptPlotCoords);
            label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            // centred over its line, A a little lower than B: two checkpoints at one step stay readable
            label->position->setCoords(*x, side ? 0.02 : 0.09);
            label->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
            label->setBrush(QBrush(QColor(255, 255, 255, 220)));
            label->setText(QStringLiteral(" %1 ").arg(sideName[side]));
            label->setColor(sideColour[side]);
            label->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
            ++marks;
        }
        if (l.loss[side]) {
            auto* g = m_lossPlot->addGraph();
            g->setName(tr("%1 checkpoint loss").arg(sideName[side]));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, sideColour[side], sideColour[side], 9));
            g->addData(*x, *l.loss[side]);
            ++marks;
        }
    }
    m_lossPlot->xAxis->setLabel(byStep ? tr("step") : tr("epoch"));
    m_tabs->setTabEnabled(int(Tab::Loss), curves > 0 || marks > 0);
    auto where = [&](int side) {
        QString text = l.directory[side].isEmpty() ? tr("no run directory with metric logs") : l.directory[side].toHtmlEscaped();
        if (l.step[side])
            text += (l.epochIndex[side] ? tr(", epoch %1") : tr(", step %1")).arg(*l.step[side]);
        if (l.loss[side])
            text += tr(", loss %1").arg(formatNumber(*l.loss[side]));
        return QStringLiteral("<b>%1</b> %2").arg(sideName[side], text);
    };
    m_lossNote->setText(where(0) + QStringLiteral(" &nbsp; · &nbsp; ") + where(1) + (sameRun ? tr(" &nbsp; (one run: its history is drawn once)") : QString()));
    m_lossPlot->rescaleAxes();
    // a little room around the curves, so the markers at the ends stay visible
    m_lossPlot->xAxis->scaleRange(1.08);
    m_lossPlot->yAxis->scaleRange(1.08);
    m_lossPlot->replot(QCustomPlot::rpQueuedReplot);
}

bool DiffPanel::selectPath(const QString& path)
{
    for (int r = 0; r < m_rows->rowCount(); ++r)
        if (const QModelIndex index = m_rows->index(r, DiffModel::PathColumn); index.data().toString() == path) {
            m_table->setCurrentIndex(index);
            return true;
        }
    return false;
}

void DiffPanel::showDetail(int row)
{
    const QModelIndex source = row >= 0 ? m_rows->mapToSource(m_rows->index(row, DiffModel::PathColumn)) : QModelIndex();
    const quint64 generation = ++m_detailGeneration;
    if (!source.isValid() || !m_model->row(source.row()).reader) {
        m_detailTitle->setText(source.isValid() ? tr("%1: no values to compare").arg(m_model->row(source.row()).path) : QString());
        m_histA->clearStats(tr("A"));
        m_histB->clearStats(tr("B"));
        m_heat->data()->clear();
        m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_detailBusy = true;
    const DiffRow& r = m_model->row(source.row());
    const QString title = r.path;
    m_detailTitle->setText(tr("%1: reading…").arg(title));
    whenReady(runInBackground([reader = r.reader, title] {
        markBackgroundThread();
        const Activity activity(tr("values of %1").arg(title));
        return reader();
    }), this, [this, generation, title](PairValues v) {
        if (generation != m_detailGeneration)
            return;
        finishDetail(std::move(v), title);
        m_detailBusy = false;
        Q_EMIT finished({});
    });
}

void DiffPanel::finishDetail(PairValues v, const QString& title)
{
    // Both histograms over one range, so that a shift or a widening is visible at a glance.
    const SharedHistograms histograms = sharedRangeHistograms(v, DetailBins);
    if (v.a.empty())
        m_histA->clearStats(tr("A: absent"));
    else
        m_histA->setStats(histograms.a, tr("A (%1 values)").arg(formatCount(v.a.size())));
    if (v.b.empty())
        m_histB->clearStats(tr("B: absent"));
    else
        m_histB->setStats(histograms.b, tr("B (%1 values)").arg(formatCount(v.b.size())));

    // The delta as an image: the last dimension across, the rest down, blocks folded to their largest change.
    const DeltaImage image = deltaImage(v, MaxHeatmapSide);
    if (image.width == 0) {
        const size_t n = std::min(v.a.size(), v.b.size());
        m_detailTitle->setText(v.a.size() != v.b.size() && n ? tr("%1: element counts differ (%2 vs %3), no delta")
                                                                  .arg(title).arg(v.a.size()).arg(v.b.size())
                                                            : title);
        m_heat->data()->clear();
        m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_heat->data()->setSize(image.width, image.height);
    m_heat->data()->setRange(QCPRange(0, double(image.cols) - 1), QCPRange(0, double(image.rows) - 1));
    for (int r = 0; r < image.height; ++r)
        for (int c = 0; c < image.width; ++c)
            m_heat->data()->setCell(c, r, image.cells[size_t(r) * size_t(image.width) + size_t(c)]);
    const double m = image.maxAbs > 0 ? image.maxAbs : 1.0;
    m_heat->setDataRange(QCPRange(-m, m)); // symmetric: white is "did not move"
    m_heatPlot->rescaleAxes();
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
    m_detailTitle->setText(tr("%1 — delta %2 × %3%4, max |b−a| %5")
                               .arg(title).arg(image.rows).arg(image.cols)
                               .arg(image.fold > 1 ? tr(" (blocks of %1×%1 shown by their largest change)").arg(image.fold) : QString())
                               .arg(formatNumber(image.maxAbs)));
}

} // namespace ckpt::ui
