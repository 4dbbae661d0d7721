// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/diffpanel.h"

#include "ui/models/formatting.h"
#include "ui/plots/histogramplot.h"

#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/io/bytes.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <cmath>
#include <cstring>

namespace ckpt::ui {

namespace {

constexpr uint64_t MaxDetailValues = uint64_t(1) << 22; // 4 Mi elements per side: the detail is a picture, not a second diff
constexpr int MaxHeatmapSide = 256;
constexpr uint32_t DetailBins = 64;
constexpr int MovedRole = Qt::UserRole + 2;

enum Column { ColPath, ColStatus, ColMatch, ColMaxAbs, ColMeanAbs, ColRelL2, ColCosine, ColAbove, ColNote, ColumnCount };

/** Row tints by status: what moved stands out, what did not stays plain. */
QColor tint(std::string_view status, bool renamed = false, bool precision = false)
{
    if (precision)
        return QColor(228, 220, 245);
    if (renamed)
        return QColor(212, 228, 248);
    if (status == "added")
        return QColor(214, 244, 214);
    if (status == "removed")
        return QColor(248, 212, 212);
    if (status == "changed")
        return QColor(251, 232, 192);
    if (status == "shape_changed" || status == "dtype_changed")
        return QColor(246, 210, 178);
    if (status == "state")
        return QColor(236, 236, 236);
    return {};
}

/// One table row before it is put in the table.
struct Row {
    QString path, status, match, note;
    std::optional<double> maxAbs, meanAbs, relL2, cosine, above;
    QColor colour;
    std::function<DiffPanel::PairValues()> reader;
};

std::vector<double> f32Values(std::span<const uint8_t> bytes)
{
    const size_t n = std::min<size_t>(bytes.size() / 4, MaxDetailValues);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        v[i] = f;
    }
    return v;
}

struct GraphJob {
    std::optional<GraphDiff> diff;
    std::shared_ptr<const CarStore> carA, carB;
    QString error;
};

GraphJob loadAndDiffGraphs(const QString& pa, const QString& pb)
{
    GraphJob job;
    GradientCheckpoint cps[2];
    std::shared_ptr<const CarStore> cars[2];
    const QString paths[2] = {pa, pb};
    for (int i = 0; i < 2; ++i) {
        auto bytes = mapFile(paths[i].toStdString());
        if (!bytes) {
            job.error = qs(Error(bytes.error()).withFile(paths[i].toStdString()).message());
            return job;
        }
        auto c = loadGradientCheckpoint(*bytes, true);
        if (!c) {
            job.error = qs(Error(c.error()).withFile(paths[i].toStdString()).message());
            return job;
        }
        cps[i] = std::move(*c);
        const QFileInfo fi(paths[i]);
        const QString car = fi.path() + QLatin1Char('/') + fi.completeBaseName() + QStringLiteral(".car");
        if (QFileInfo::exists(car))
            if (auto cb = mapFile(car.toStdString()))
                if (auto store = CarStore::open(*cb))
                    cars[i] = std::make_shared<const CarStore>(std::move(*store));
    }
    job.diff = diffGradientCheckpoints(cps[0], cps[1], cars[0].get(), cars[1].get());
    job.diff->a = pa.toStdString();
    job.diff->b = pb.toStdString();
    job.carA = cars[0];
    job.carB = cars[1];
    return job;
}

/** A table item that shows a formatted number and sorts by its value (max |d| column: biggest change first). */
class NumericItem : public QTableWidgetItem
{
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& other) const override
    {
        const QVariant x = data(Qt::UserRole + 1), y = other.data(Qt::UserRole + 1);
        if (!x.isValid() || !y.isValid())
            return x.isValid() < y.isValid(); // rows without a number sort below the smallest change
        return x.toDouble() < y.toDouble();
    }
};

QTableWidgetItem* sortableNumber(std::optional<double> v)
{
    auto* item = new NumericItem(v ? formatNumber(*v) : QString());
    if (v)
        item->setData(Qt::UserRole + 1, *v);
    return item;
}

/// Puts the rows in the table; each row's reader is kept by an id in the path item (rows move when sorted).
void fillTable(QTableWidget* table, std::vector<Row>& rows, std::vector<std::function<DiffPanel::PairValues()>>& readers)
{
    readers.clear();
    table->setSortingEnabled(false);
    table->clearContents();
    table->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        Row& r = rows[size_t(i)];
        auto* path = new QTableWidgetItem(r.path);
        path->setData(Qt::UserRole, int(readers.size()));
        path->setData(MovedRole, r.colour.isValid()); // tinted rows are the ones that moved
        readers.push_back(std::move(r.reader));
        table->setItem(i, ColPath, path);
        table->setItem(i, ColStatus, new QTableWidgetItem(r.status));
        table->setItem(i, ColMatch, new QTableWidgetItem(r.match));
        table->setItem(i, ColMaxAbs, sortableNumber(r.maxAbs));
        table->setItem(i, ColMeanAbs, sortableNumber(r.meanAbs));
        table->setItem(i, ColRelL2, sortableNumber(r.relL2));
        table->setItem(i, ColCosine, sortableNumber(r.cosine));
        table->setItem(i, ColAbove, sortableNumber(r.above));
        table->setItem(i, ColNote, new QTableWidgetItem(r.note));
        if (r.colour.isValid())
            for (int c = 0; c < ColumnCount; ++c)
                table->item(i, c)->setBackground(r.colour);
    }
}

} // namespace

DiffPanel::DiffPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(tr("Start with --diff A B (two records or two GradientCheckpoints) to compare them."), this))
    , m_table(new QTableWidget(this))
    , m_detailTitle(new QLabel(this))
    , m_histA(new HistogramPlot(this))
    , m_histB(new HistogramPlot(this))
    , m_heatPlot(new QCustomPlot(this))
    , m_changesOnly(new QCheckBox(tr("Only what changed"), this))
{
    connect(m_changesOnly, &QCheckBox::toggled, this, &DiffPanel::applyFilter);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Path"), tr("Status"), tr("Matched by"), tr("max |b−a|"), tr("mean |b−a|"), tr("rel L2"),
        tr("cosine"), tr("above tol."), tr("B / note")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showDetail(row); });

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

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_changesOnly);
    layout->addWidget(split, 1);
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
    QtConcurrent::run([a, b] { return diffRecords(*a, *b); }).then(this, [this, generation, a, b](Result<RecordDiff> d) {
        if (generation != m_generation)
            return;
        m_busy = false;
        if (!d) {
            m_summary->setText(tr("Diff failed: %1").arg(qs(d.error().message())));
            Q_EMIT finished(qs(d.error().message()));
            return;
        }
        std::vector<Row> rows;
        for (const auto& e : d->entries) {
            Row r;
            r.path = qs(e.path);
            r.status = qs(diffStatusName(e.status));
            r.match = qs(matchKindName(e.match));
            if (e.precisionChange)
                r.note = tr("precision change");
            if (e.renamed())
                r.note = tr("renamed → %1").arg(qs(e.pathB));
            else if (e.reinitialised())
                r.note = tr("re-initialised: id %1 → %2").arg(qs(e.paramId), qs(e.paramIdB));
            else if (!e.pathB.empty())
                r.note = qs(e.pathB);
            if (e.byteEqual)
                r.note = r.note.isEmpty() ? tr("same bytes") : r.note + tr(" · same bytes");
            r.maxAbs = e.maxAbs;
            r.meanAbs = e.meanAbs;
            r.relL2 = e.relL2;
            r.cosine = e.cosine;
            if (e.a && e.b)
                r.above = double(e.differing);
            r.colour = tint(diffStatusName(e.status), e.renamed(), e.precisionChange);
            const std::optional<size_t> ia = e.a, ib = e.b;
            r.reader = [a, b, ia, ib] {
                PairValues v;
                if (ia) {
                    const auto& t = a->tensors[*ia];
                    v.a = a->values(t, 0, std::min(t.numel, MaxDetailValues));
                    v.shape = t.shape;
                }
                if (ib) {
                    const auto& t = b->tensors[*ib];
                    v.b = b->values(t, 0, std::min(t.numel, MaxDetailValues));
                    if (!ia)
                        v.shape = t.shape;
                }
                return v;
            };
            rows.push_back(std::move(r));
        }
        for (const auto& s : d->state) {
            Row r;
            r.path = qs(s.path);
            r.status = tr("state");
            r.match = qs(stateSectionName(s.section));
            r.note = tr("%1 → %2").arg(s.a ? qs(*s.a) : tr("(absent)"), s.b ? qs(*s.b) : tr("(absent)"));
            r.colour = tint("state");
            rows.push_back(std::move(r));
        }
        QString precision;
        if (d->precision)
            precision = tr(" · precision %1 → %2%3")
                            .arg(qs(precisionName(d->precision->a)), qs(precisionName(d->precision->b)),
                                d->precision->roundingOnly ? tr(" (rounding only)") : QString());
        fillTable(m_table, rows, m_readers);
        showRows(tr("<b>A</b> %1<br><b>B</b> %2<br>added %3 · removed %4 · changed %5 · unchanged %6 · renamed %7 · "
                    "%8 state difference(s)%9")
                     .arg(qs(d->a).toHtmlEscaped(), qs(d->b).toHtmlEscaped())
                     .arg(d->added).arg(d->removed).arg(d->changed).arg(d->unchanged).arg(d->renamed)
                     .arg(d->state.size())
                     .arg(precision));
    });
}

void DiffPanel::compareGraphs(const QString& a, const QString& b)
{
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_summary->setText(tr("Comparing…"));
    QtConcurrent::run([a, b] { return loadAndDiffGraphs(a, b); }).then(this, [this, generation](GraphJob job) {
        if (generation != m_generation)
            return;
        m_busy = false;
        if (!job.diff) {
            m_summary->setText(tr("Diff failed: %1").arg(job.error.toHtmlEscaped()));
            Q_EMIT finished(job.error);
            return;
        }
        const GraphDiff& d = *job.diff;
        std::vector<Row> rows;
        for (const auto& n : d.nodes) {
            Row r;
            r.path = qs(n.keyA.empty() ? n.keyB : n.keyA);
            r.status = qs(diffStatusName(n.status));
            r.match = n.match ? qs(nodeMatchName(*n.match)) : QString();
            QStringList notes;
            notes << (n.opChanged ? tr("%1 → %2").arg(qs(n.opA), qs(n.opB)) : qs(n.opA.empty() ? n.opB : n.opA));
            if (n.match == NodeMatch::OpPosition)
                notes << tr("B: %1").arg(qs(n.keyB));
            const CidSlotDiff* shown = nullptr;
            for (const auto& s : n.tensors) {
                if (s.changed())
                    notes << tr("%1 %2").arg(qs(s.slot), qs(cidComparisonName(s.how)));
                if (!shown && s.slot == "output")
                    shown = &s;
            }
            if (shown && shown->values) {
                r.maxAbs = shown->values->maxAbs;
                r.meanAbs = shown->values->meanAbs;
                r.relL2 = shown->values->relL2;
                r.cosine = shown->values->cosine;
                r.above = double(shown->values->differing);
            } else if (shown && !shown->changed()) {
                r.maxAbs = 0.0;
            }
            r.note = notes.join(QStringLiteral(" · "));
            r.colour = tint(diffStatusName(n.status), false, false);
            if (shown && shown->cidA && shown->cidB && job.carA && job.carB) {
                auto carA = job.carA, carB = job.carB;
                const std::string ca = *shown->cidA, cb = *shown->cidB;
                r.reader = [carA, carB, ca, cb] {
                    PairValues v;
                    if (auto x = carA->resolve(ca))
                        v.a = f32Values(*x);
                    if (auto y = carB->resolve(cb))
                        v.b = f32Values(*y);
                    v.shape = {v.a.size()};
                    return v;
                };
            }
            rows.push_back(std::move(r));
        }
        for (const auto& [f, t] : d.edgesRemoved)
            rows.push_back({qs(f) + QStringLiteral(" → ") + qs(t), tr("removed"), tr("edge"), {}, {}, {}, {}, {}, {}, tint("removed"), {}});
        for (const auto& [f, t] : d.edgesAdded)
            rows.push_back({qs(f) + QStringLiteral(" → ") + qs(t), tr("added"), tr("edge"), {}, {}, {}, {}, {}, {}, tint("added"), {}});
        for (const auto& o : d.optimizer) {
            if (o.status == DiffStatus::Unchanged)
                continue;
            Row r{qs(o.key), qs(diffStatusName(o.status)), tr("optimizer_state"), {}, {}, {}, {}, {}, {}, tint(diffStatusName(o.status)), {}};
            if (o.counterA && o.counterB)
                r.note = tr("%1 → %2").arg(*o.counterA).arg(*o.counterB);
            if (o.values) {
                r.maxAbs = o.values->maxAbs;
                r.meanAbs = o.values->meanAbs;
                r.relL2 = o.values->relL2;
                r.cosine = o.values->cosine;
            }
            rows.push_back(std::move(r));
        }
        fillTable(m_table, rows, m_readers);
        auto lossText = [](const std::optional<std::string>& c) { return c ? qs(*c).left(14) + QStringLiteral("…") : QStringLiteral("—"); };
        showRows(tr("<b>A</b> %1 (step %3)<br><b>B</b> %2 (step %4)<br>nodes: added %5 · removed %6 · changed %7 · unchanged %8 "
                    "(%9 matched by op and position) · edges +%10 −%11 · loss %12 → %13 · CARs %14 · %15 block bytes read")
                     .arg(qs(d.a).toHtmlEscaped(), qs(d.b).toHtmlEscaped())
                     .arg(d.stepA).arg(d.stepB)
                     .arg(d.added).arg(d.removed).arg(d.changed).arg(d.unchanged).arg(d.matchedByPosition)
                     .arg(d.edgesAdded.size()).arg(d.edgesRemoved.size())
                     .arg(lossText(d.lossCidA), lossText(d.lossCidB))
                     .arg(d.carA && d.carB ? tr("both") : d.carA || d.carB ? tr("one") : tr("none"))
                     .arg(formatBytes(d.blockBytesRead)));
    });
}

void DiffPanel::applyFilter()
{
    const bool only = m_changesOnly->isChecked();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const QTableWidgetItem* path = m_table->item(r, ColPath);
        m_table->setRowHidden(r, only && path && !path->data(MovedRole).toBool());
    }
}

int DiffPanel::visibleRowCount() const
{
    int n = 0;
    for (int r = 0; r < m_table->rowCount(); ++r)
        n += !m_table->isRowHidden(r);
    return n;
}

void DiffPanel::setChangesOnly(bool on)
{
    m_changesOnly->setChecked(on);
}

void DiffPanel::showRows(const QString& summaryText)
{
    m_summary->setText(summaryText);
    applyFilter();
    m_table->setSortingEnabled(true);
    m_table->sortItems(ColMaxAbs, Qt::DescendingOrder); // the biggest change first
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(ColPath, std::min(m_table->columnWidth(ColPath), 420));
    if (m_table->rowCount() > 0)
        m_table->setCurrentCell(0, ColPath); // shows the detail of the biggest change
    else
        showDetail(-1);
    Q_EMIT finished({});
}

bool DiffPanel::selectPath(const QString& path)
{
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->item(r, ColPath) && m_table->item(r, ColPath)->text() == path) {
            m_table->setCurrentCell(r, ColPath);
            return true;
        }
    return false;
}

void DiffPanel::showDetail(int row)
{
    const QTableWidgetItem* item = row >= 0 ? m_table->item(row, ColPath) : nullptr;
    const int id = item ? item->data(Qt::UserRole).toInt() : -1;
    const quint64 generation = ++m_detailGeneration;
    if (id < 0 || size_t(id) >= m_readers.size() || !m_readers[size_t(id)]) {
        m_detailTitle->setText(item ? tr("%1: no values to compare").arg(item->text()) : QString());
        m_histA->clearStats(tr("A"));
        m_histB->clearStats(tr("B"));
        m_heat->data()->clear();
        m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_detailBusy = true;
    const QString title = item->text();
    m_detailTitle->setText(tr("%1: reading…").arg(title));
    QtConcurrent::run(m_readers[size_t(id)]).then(this, [this, generation, title](PairValues v) {
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
    double lo = INFINITY, hi = -INFINITY;
    for (const auto* side : {&v.a, &v.b})
        for (double x : *side)
            if (std::isfinite(x)) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
    auto histogram = [&](const std::vector<double>& values) {
        TensorStats s;
        s.count = values.size();
        if (!(lo <= hi))
            return s;
        const double width = hi > lo ? (hi - lo) / DetailBins : 1.0;
        s.histLo = lo;
        s.histHi = hi > lo ? hi : lo + 1.0;
        s.histogram.assign(DetailBins, 0);
        for (double x : values)
            if (std::isfinite(x))
                ++s.histogram[std::min<size_t>(DetailBins - 1, size_t((x - lo) / width))];
        return s;
    };
    if (v.a.empty())
        m_histA->clearStats(tr("A: absent"));
    else
        m_histA->setStats(histogram(v.a), tr("A (%1 values)").arg(formatCount(v.a.size())));
    if (v.b.empty())
        m_histB->clearStats(tr("B: absent"));
    else
        m_histB->setStats(histogram(v.b), tr("B (%1 values)").arg(formatCount(v.b.size())));

    // The delta as an image: the last dimension across, the rest down, blocks of cells folded to
    // their largest change (a mean would hide a single moved weight).
    const size_t n = std::min(v.a.size(), v.b.size());
    if (n == 0 || v.a.size() != v.b.size()) {
        m_detailTitle->setText(v.a.size() != v.b.size() && n ? tr("%1: element counts differ (%2 vs %3), no delta")
                                                                  .arg(title).arg(v.a.size()).arg(v.b.size())
                                                            : title);
        m_heat->data()->clear();
        m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    uint64_t cols = v.shape.size() >= 2 ? std::max<uint64_t>(1, v.shape.back()) : 0;
    if (cols < 4 || n / cols < 4) // a vector or a sliver ([32, 1]) reads better wrapped into a square
        cols = uint64_t(std::ceil(std::sqrt(double(n))));
    const uint64_t rows = (n + cols - 1) / cols;
    const uint64_t fold = std::max<uint64_t>(1, (std::max(rows, cols) + MaxHeatmapSide - 1) / MaxHeatmapSide);
    const int gw = int((cols + fold - 1) / fold), gh = int((rows + fold - 1) / fold);
    std::vector<double> grid(size_t(gw) * size_t(gh), 0.0);
    double maxAbs = 0;
    for (size_t i = 0; i < n; ++i) {
        const double d = v.b[i] - v.a[i];
        if (!std::isfinite(d))
            continue;
        double& cell = grid[size_t((i / cols) / fold) * size_t(gw) + size_t((i % cols) / fold)];
        if (std::fabs(d) > std::fabs(cell))
            cell = d;
        maxAbs = std::max(maxAbs, std::fabs(d));
    }
    m_heat->data()->setSize(gw, gh);
    m_heat->data()->setRange(QCPRange(0, double(cols) - 1), QCPRange(0, double(rows) - 1));
    for (int r = 0; r < gh; ++r)
        for (int c = 0; c < gw; ++c)
            m_heat->data()->setCell(c, r, grid[size_t(r) * size_t(gw) + size_t(c)]);
    const double m = maxAbs > 0 ? maxAbs : 1.0;
    m_heat->setDataRange(QCPRange(-m, m)); // symmetric: white is "did not move"
    m_heatPlot->rescaleAxes();
    m_heatPlot->replot(QCustomPlot::rpQueuedReplot);
    m_detailTitle->setText(tr("%1 — delta %2 × %3%4, max |b−a| %5")
                               .arg(title).arg(rows).arg(cols)
                               .arg(fold > 1 ? tr(" (blocks of %1×%1 shown by their largest change)").arg(fold) : QString())
                               .arg(formatNumber(maxAbs)));
}

} // namespace ckpt::ui
