// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/heatmaptimeline.h"
#include "ui/plots/axisscale.h"

#include "ui/async/deferredpaint.h"
#include "ui/models/formatting.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace ckpt::ui {

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/** "item[0].input.weight" -> "input.weight": the module path a researcher reads. */
QString displayOwner(const std::string& owner)
{
    QString s = qs(owner);
    if (s.startsWith(QLatin1String("item.")))
        s = s.mid(5); // a burn-train module record
    if (s.startsWith(QLatin1String("item["))) {
        const qsizetype close = s.indexOf(QLatin1String("]."));
        if (close > 0)
            s = s.mid(close + 2);
    }
    if (s.endsWith(QLatin1String(".param")))
        s.chop(6);
    return s;
}

int roleRank(TensorRole r)
{
    switch (r) {
    case TensorRole::Param: return 0;
    case TensorRole::Optimizer: return 1;
    case TensorRole::Gradient: return 2;
    case TensorRole::Other: return 3;
    }
    return 3;
}

QCPColorGradient viridis()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(68, 1, 84));
    g.setColorStopAt(0.25, QColor(59, 82, 139));
    g.setColorStopAt(0.5, QColor(33, 145, 140));
    g.setColorStopAt(0.75, QColor(94, 201, 98));
    g.setColorStopAt(1.0, QColor(253, 231, 37));
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

double metricValue(TimelineHeatmap::Metric m, const TimelinePoint& p)
{
    switch (m) {
    case TimelineHeatmap::Metric::L2: return p.l2;
    case TimelineHeatmap::Metric::UpdateRatio: return p.updateRatio.value_or(NaN);
    case TimelineHeatmap::Metric::MaxAbs: return p.maxAbs;
    case TimelineHeatmap::Metric::NonFinite: return p.nan + p.inf > 0 ? double(p.nan + p.inf) : NaN;
    }
    return NaN;
}

QString eventName(TimelineEventKind k)
{
    switch (k) {
    case TimelineEventKind::FirstNan: return QObject::tr("first NaN");
    case TimelineEventKind::FirstInf: return QObject::tr("first Inf");
    case TimelineEventKind::Spike: return QObject::tr("spike");
    }
    return {};
}

} // namespace

QString TimelineHeatmap::metricName(Metric m)
{
    switch (m) {
    case Metric::L2: return tr("L2 norm");
    case Metric::UpdateRatio: return tr("update ratio ‖Δw‖ / ‖w‖");
    case Metric::MaxAbs: return tr("max |x|");
    case Metric::NonFinite: return tr("NaN + Inf count");
    }
    return {};
}

TimelineHeatmap::TimelineHeatmap(QWidget* parent)
    : QCustomPlot(parent)
    , m_xTicker(new QCPAxisTickerText)
    , m_yTicker(new QCPAxisTickerText)
{
    deferPlotRefresh(this);
    setNoAntialiasingOnDrag(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    setupLayout(small);
    setupAxes(small);
    setupMaps(small);
    setupMarks(small);
    setupInteraction();
    clearTimeline();
}

void TimelineHeatmap::setupLayout(const QFont& small)
{
    // the curves on the default axis rect, the heatmap in a second one below it, one x unit for both
    m_curveRect = axisRect();
    m_heatRect = new QCPAxisRect(this, true);
    plotLayout()->addElement(1, 0, m_heatRect);
    m_scale = new QCPColorScale(this);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(14);
    plotLayout()->addElement(1, 1, m_scale);
    auto* columns = new QCPMarginGroup(this);
    m_curveRect->setMarginGroup(QCP::msLeft | QCP::msRight, columns);
    m_heatRect->setMarginGroup(QCP::msLeft | QCP::msRight, columns);
    auto* rows = new QCPMarginGroup(this);
    m_heatRect->setMarginGroup(QCP::msTop | QCP::msBottom, rows);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, rows);
    // the legend in a row of its own below: inside the rects it would cover cells or the curves
    auto* legendRow = new QCPLayoutGrid;
    plotLayout()->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 4));
    // between two spacers: a grid's widest is its elements' widest, and the column's is its narrowest
    // element's, so a legend of few entries alone would narrow both rects above it to its own width
    legendRow->addElement(0, 0, new QCPLayoutElement(this));
    legendRow->addElement(0, 1, legend);
    legendRow->addElement(0, 2, new QCPLayoutElement(this));
    legendRow->setColumnStretchFactor(1, 0.001);
    legend->setVisible(true);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(3); // six entries in two rows of three: in one row a panel of half a screen cut their names
    legend->setBorderPen(Qt::NoPen);
    legend->setIconSize(16, 10);
    legend->setFont(small);
    plotLayout()->setRowStretchFactor(0, 1);
    plotLayout()->setRowStretchFactor(1, 2.5);
    plotLayout()->setRowStretchFactor(2, 0.001);
    plotLayout()->setColumnStretchFactor(1, 0.001);
    plotLayout()->setRowSpacing(2);
}

void TimelineHeatmap::setupAxes(const QFont& small)
{
    QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    m_heatRect->axis(QCPAxis::atTop)->setVisible(false);
    m_heatRect->axis(QCPAxis::atRight)->setVisible(false);
    m_heatRect->setBackground(QBrush(QColor(222, 222, 222)));
    hx->setTicker(m_xTicker);
    hy->setTicker(m_yTicker);
    m_xTicker->setSubTickCount(0);
    m_yTicker->setSubTickCount(0);
    hx->grid()->setVisible(false);
    hy->grid()->setVisible(false);
    hy->setRangeReversed(true);
    hy->setTickLabelFont(small);
    hx->setTickLabelFont(small);
    hy->setLabel(tr("tensor, grouped by parameter"));
    hx->setLabel(tr("checkpoint"));

    // the curves: loss on the left axis, learning rate on the right one; x labels are the heatmap's
    xAxis->setTicker(m_xTicker);
    xAxis->setTickLabels(false);
    xAxis->grid()->setVisible(true);
    yAxis->setLabel(tr("train loss"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("learning rate"));
    yAxis->setTickLabelFont(small);
    yAxis2->setTickLabelFont(small);
    yAxis2->ticker()->setTickCount(3);
    m_loss = addGraph(xAxis, yAxis);
    m_loss->setName(tr("train loss"));
    m_loss->setPen(QPen(QColor(31, 119, 180), 1.4));
    m_lr = addGraph(xAxis, yAxis2);
    m_lr->setName(tr("learning rate"));
    m_lr->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
}

void TimelineHeatmap::setupMaps(const QFont& small)
{
    QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    m_map = new QCPColorMap(hx, hy);
    m_map->setColorScale(m_scale);
    m_map->setGradient(viridis());
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_map->removeFromLegend();
    m_scale->setDataScaleType(QCPAxis::stLogarithmic);
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_scale->axis()->setNumberFormat(QStringLiteral("gb"));
    m_scale->axis()->setNumberPrecision(3);
    m_scale->axis()->setTickLabelFont(small);
    m_scale->axis()->setLabel(metricName(m_metric) + tr(" (log)"));

    m_nonFiniteMap = new QCPColorMap(hx, hy);
    QCPColorGradient solid;
    solid.clearColorStops();
    solid.setColorStopAt(0, nonFiniteColour());
    solid.setColorStopAt(1, nonFiniteColour());
    solid.setNanHandling(QCPColorGradient::nhTransparent);
    m_nonFiniteMap->setGradient(solid);
    m_nonFiniteMap->setInterpolate(false);
    m_nonFiniteMap->setTightBoundary(false);
    m_nonFiniteMap->setDataRange(QCPRange(0, 1));
    m_nonFiniteMap->setName(tr("NaN or Inf in the tensor"));

    m_separators = new QCPCurve(hx, hy);
    m_separators->setPen(QPen(QColor(255, 255, 255), 1));
    m_separators->removeFromLegend();

    const std::pair<QCPScatterStyle, QString> styles[3] = {
        {QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.3), QBrush(Qt::white), 7), eventName(TimelineEventKind::FirstNan)},
        {QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.3), QBrush(QColor(255, 165, 0)), 8), eventName(TimelineEventKind::FirstInf)},
        {QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.1), QBrush(QColor(0, 220, 255)), 7), eventName(TimelineEventKind::Spike)},
    };
    for (int k = 0; k < 3; ++k) {
        m_markers[k] = addGraph(hx, hy);
        m_markers[k]->setLineStyle(QCPGraph::lsNone);
        m_markers[k]->setScatterStyle(styles[k].first);
        m_markers[k]->setName(styles[k].second);
    }
}

void TimelineHeatmap::setupMarks(const QFont& small)
{
    QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    auto outline = [this, hx, hy](const QPen& pen) {
        auto* r = new QCPItemRect(this);
        r->setClipAxisRect(m_heatRect);
        r->topLeft->setAxes(hx, hy);
        r->bottomRight->setAxes(hx, hy);
        r->setPen(pen);
        r->setBrush(Qt::NoBrush);
        r->setVisible(false);
        return r;
    };
    m_currentRect = outline(QPen(Qt::white, 2));
    // black over white: the outline reads over dark, light and non-finite cells alike
    m_firstBadHalo = outline(QPen(Qt::white, 5));
    m_firstBadRect = outline(QPen(Qt::black, 2));
    m_firstBadLine = new QCPItemStraightLine(this);
    m_firstBadLine->setClipAxisRect(m_curveRect);
    m_firstBadLine->point1->setAxes(xAxis, yAxis);
    m_firstBadLine->point2->setAxes(xAxis, yAxis);
    m_firstBadLine->setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashLine));
    m_firstBadLine->setVisible(false);
    m_firstBadText = new QCPItemText(this);
    m_firstBadText->setClipAxisRect(m_curveRect);
    m_firstBadText->position->setAxes(xAxis, yAxis);
    m_firstBadText->position->setAxisRect(m_curveRect);
    m_firstBadText->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_firstBadText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_firstBadText->setColor(QColor(200, 0, 0));
    m_firstBadText->setBrush(QBrush(QColor(255, 255, 255, 220)));
    m_firstBadText->setFont(small);
    m_firstBadText->setPadding(QMargins(4, 2, 4, 2));
    m_firstBadText->setVisible(false);

    m_noCurves = new QCPItemText(this);
    m_noCurves->setClipAxisRect(m_curveRect);
    m_noCurves->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_noCurves->position->setAxisRect(m_curveRect);
    m_noCurves->position->setCoords(0.5, 0.5);
    m_noCurves->setColor(QColor(110, 110, 110));
    m_noCurves->setText(tr("no train loss logged"));
    m_noCurves->setFont(small);
    m_noCurves->setVisible(false);
}

void TimelineHeatmap::setupInteraction()
{
    QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    // one horizontal range for both rects, whichever is dragged or zoomed
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), hx, qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(hx, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), xAxis, qOverload<const QCPRange&>(&QCPAxis::setRange));
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_curveRect->setRangeDrag(Qt::Horizontal);
    m_curveRect->setRangeZoom(Qt::Horizontal);
    m_heatRect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    m_heatRect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    m_heatRect->setRangeDragAxes(hx, hy);
    m_heatRect->setRangeZoomAxes(hx, hy);
    // tick labels depend on how many pixels a row or a column has: laid out before every replot
    connect(this, &QCustomPlot::beforeReplot, this, &TimelineHeatmap::updateTicks);
    setMouseTracking(true);
}

void TimelineHeatmap::setRun(const RunCheckpoints& run)
{
    const size_t n = run.points.size();
    m_positions.assign(n, 0);
    m_columnLabels.clear();
    const bool steps = n > 0 && std::ranges::all_of(run.points, [](const RunPoint& p) { return p.step.has_value(); });
    const bool epochs = !steps && n > 0 && std::ranges::all_of(run.points, [](const RunPoint& p) { return p.epoch.has_value(); });
    for (size_t i = 0; i < n; ++i) {
        const RunPoint& p = run.points[i];
        m_positions[i] = steps ? double(*p.step) : epochs ? double(*p.epoch) : double(i);
        m_columnLabels << (steps ? QString::number(*p.step) : epochs ? QString::number(*p.epoch) : QString::number(i));
    }
    bool increasing = true;
    for (size_t i = 1; i < n; ++i)
        increasing = increasing && m_positions[i] > m_positions[i - 1];
    m_unit = steps && increasing ? tr("step") : epochs && increasing ? tr("epoch") : tr("index");
    m_heatRect->axis(QCPAxis::atBottom)->setLabel(tr("checkpoint (by %1)").arg(m_unit));

    // piecewise-linear from the unit (step / epoch) to the column coordinate, extrapolated at both ends
    auto columnOf = [this, n](double pos) {
        if (n == 1)
            return m_positions[0] > 0 ? (pos - m_positions[0]) / m_positions[0] : pos - m_positions[0];
        const auto it = std::upper_bound(m_positions.begin(), m_positions.end(), pos);
        size_t hi = size_t(it - m_positions.begin());
        hi = std::clamp<size_t>(hi, 1, n - 1);
        const size_t lo = hi - 1;
        return double(lo) + (pos - m_positions[lo]) / (m_positions[hi] - m_positions[lo]);
    };
    QVector<double> lossX, lossY, lrX, lrY;
    m_curveMinX = 0;
    m_curveMaxX = 0;
    if (n > 0 && increasing && (steps || epochs)) {
        for (const MetricSeries& s : run.logs.series) {
            if (s.split != "train" || (s.metric != "Loss" && s.metric != "Learning_Rate"))
                continue;
            QVector<double>& xs = s.metric == "Loss" ? lossX : lrX;
            QVector<double>& ys = s.metric == "Loss" ? lossY : lrY;
            // lines per epoch, for the fractional epoch of a line
            std::unordered_map<uint32_t, uint64_t> perEpoch;
            for (const MetricPoint& p : s.points)
                perEpoch[p.epoch] = std::max(perEpoch[p.epoch], p.item + 1);
            uint64_t global = 0;
            for (const MetricPoint& p : s.points) {
                ++global; // the global step: lines counted across epochs, from 1
                if (!std::isfinite(p.value))
                    continue;
                const double pos = steps ? double(global) : double(p.epoch) - 1 + double(p.item + 1) / double(perEpoch[p.epoch]);
                xs.push_back(columnOf(pos));
                ys.push_back(p.value);
            }
        }
    }
    for (const QVector<double>* xs : {&lossX, &lrX})
        if (!xs->isEmpty()) {
            m_curveMinX = std::min(m_curveMinX, xs->front());
            m_curveMaxX = std::max(m_curveMaxX, xs->back());
        }
    m_loss->setData(lossX, lossY, true);
    m_lr->setData(lrX, lrY, true);
    if (!lossY.isEmpty()) {
        // a loss that blew up by decades is read on a log axis: linear, everything before it is a flat line
        const auto [lo, hi] = std::ranges::minmax(lossY);
        const bool log = lo > 0 && hi / lo > 1e3;
        setAxisLogScale(yAxis, log);
        yAxis->ticker()->setTickCount(3);
        yAxis->setNumberFormat(log ? QStringLiteral("eb") : QStringLiteral("gb"));
        yAxis->setNumberPrecision(log ? 0 : 3);
        if (log)
            yAxis->setRange(lo / 2, hi * 2);
        else
            yAxis->setRange(lo - 0.05 * (hi - lo + 1e-12), hi + 0.05 * (hi - lo + 1e-12));
    }
    if (!lrY.isEmpty()) {
        const double hi = *std::ranges::max_element(lrY);
        yAxis2->setRange(0, hi > 0 ? hi * 1.1 : 1); // from zero: a warm-up and a decay read as what they are
    }
    m_noCurves->setVisible(lossY.isEmpty() && lrY.isEmpty());
    plotLayout()->setRowStretchFactor(0, m_noCurves->visible() ? 0.3 : 1); // no curves: a line that says so
    // an axis says its numbers only when it has a curve
    for (auto [a, has, label] : {std::tuple{yAxis, !lossY.isEmpty(), tr("train loss")}, std::tuple{yAxis2, !lrY.isEmpty(), tr("learning rate")}}) {
        a->setTickLabels(has);
        a->setTicks(has);
        a->setLabel(has ? label : QString());
    }
    m_loss->setVisible(!lossY.isEmpty());
    m_lr->setVisible(!lrY.isEmpty());
    showInLegend(m_loss, !lossY.isEmpty());
    showInLegend(m_lr, !lrY.isEmpty());
    m_tickKey.clear();
    updateXRange();
    updateOverlays();
    replot(rpQueuedReplot);
}

int TimelineHeatmap::lossPointCount() const
{
    return m_loss->dataCount();
}

void TimelineHeatmap::clearTimeline()
{
    m_rows.clear();
    m_groups.clear();
    m_rowOfSeries.clear();
    m_values.clear();
    m_nonFinite.clear();
    m_markerList.clear();
    m_columns = 0;
    m_map->data()->clear();
    m_nonFiniteMap->data()->clear();
    for (QCPGraph* g : m_markers)
        g->data()->clear();
    m_separators->data()->clear();
    m_heatRect->axis(QCPAxis::atLeft)->setRange(-0.5, 0.5);
    m_tickKey.clear();
    updateXRange();
    updateOverlays();
    replot(rpQueuedReplot);
}

void TimelineHeatmap::setTimeline(const Timeline& timeline)
{
    // rows: groups by owner in order of first appearance; in a group the parameter, its optimizer
    // states, its gradient, then anything else, each in the timeline's order
    const size_t previousRows = m_rows.size();
    // A live refresh of the same series (new checkpoints, no new tensor) keeps its rows: only the cells
    // and overlays change, which keeps the GUI thread's share of a scan of hundreds of tensors short.
    if (timeline.series.size() != m_rowOfSeries.size() || m_rows.empty())
        layoutRows(timeline);
    m_columns = std::max(timeline.checkpoints.size(), m_positions.size());
    fillCells(timeline);
    placeMarkers(timeline);
    if (m_rows.size() != previousRows) // a new set of rows shows them all; a live refill keeps the user's zoom
        m_heatRect->axis(QCPAxis::atLeft)->setRange(-0.5, std::max<double>(0.5, double(m_rows.size()) - 0.5));
    m_tickKey.clear();
    updateXRange();
    updateOverlays();
    replot(rpQueuedReplot);
}

void TimelineHeatmap::layoutRows(const Timeline& timeline)
{
    m_rows.clear();
    m_groups.clear();
    std::unordered_map<std::string, size_t> groupOf;
    std::vector<std::vector<size_t>> members;
    for (size_t s = 0; s < timeline.series.size(); ++s) {
        const TimelineSeries& ts = timeline.series[s];
        const std::string& key = ts.owner.empty() ? ts.path : ts.owner;
        auto [it, added] = groupOf.try_emplace(key, members.size());
        if (added)
            members.emplace_back();
        members[it->second].push_back(s);
    }
    m_rowOfSeries.assign(timeline.series.size(), -1);
    for (auto& group : members) {
        std::ranges::stable_sort(group, {}, [&](size_t s) { return roleRank(timeline.series[s].role); });
        const TimelineSeries& first = timeline.series[group.front()];
        Group g;
        g.label = displayOwner(first.owner.empty() ? first.path : first.owner);
        g.firstRow = int(m_rows.size());
        g.rows = int(group.size());
        for (size_t s : group) {
            const TimelineSeries& ts = timeline.series[s];
            Row r;
            r.series = s;
            r.group = int(m_groups.size());
            r.path = qs(ts.path);
            switch (ts.role) {
            case TensorRole::Param:
                // the group's name; a second parameter of the same owner by its own path
                r.label = m_rows.size() == size_t(g.firstRow) ? g.label
                                                             : QStringLiteral("· ")
                        + (r.path.contains(QLatin1Char('/')) ? r.path.section(QLatin1Char('/'), 1) : r.path.section(QLatin1Char('.'), -2));
                break;
            case TensorRole::Optimizer:
                r.label = QStringLiteral("· ") + (ts.stateName.empty() ? r.path.section(QLatin1Char('/'), -1).section(QLatin1Char('.'), -1) : qs(ts.stateName));
                break;
            case TensorRole::Gradient: r.label = QStringLiteral("· ") + tr("gradient"); break;
            case TensorRole::Other:
                // a graph node's tensor by node and slot ("matmul#0/output"), a record's by its last name
                r.label = QStringLiteral("· ")
                    + (r.path.contains(QLatin1Char('/')) ? r.path.section(QLatin1Char('/'), 1) : r.path.section(QLatin1Char('.'), -1));
                break;
            }
            if (ts.role != TensorRole::Param && &ts == &first) // a group without its parameter still says whose it is
                r.label = g.rows == 1 ? g.label : g.label + QLatin1Char(' ') + r.label;
            m_rowOfSeries[s] = int(m_rows.size());
            m_rows.push_back(std::move(r));
        }
        m_groups.push_back(std::move(g));
    }
}

void TimelineHeatmap::placeMarkers(const Timeline& timeline)
{
    // events: markers on their cells, a bounded number of each kind
    m_markerList.clear();
    int perKind[3] = {0, 0, 0};
    QVector<double> mx[3], my[3];
    for (const TimelineEvent& e : timeline.events) {
        const int k = int(e.kind);
        if (e.series >= m_rowOfSeries.size() || perKind[k] >= MaxMarkers)
            continue;
        ++perKind[k];
        const int row = m_rowOfSeries[e.series];
        m_markerList.push_back({e.kind, row, e.checkpoint, qs(e.detail)});
        mx[k].push_back(double(e.checkpoint));
        my[k].push_back(double(row));
    }
    for (int k = 0; k < 3; ++k) {
        m_markers[k]->setData(mx[k], my[k], false);
        showInLegend(m_markers[k], !mx[k].isEmpty());
    }

    // a white line between groups
    QVector<double> t, sx, sy;
    const double left = -0.5, right = double(m_columns) - 0.5;
    for (size_t g = 1; g < m_groups.size(); ++g) {
        const double y = m_groups[g].firstRow - 0.5;
        for (double x : {left, right, NaN}) {
            t.push_back(double(t.size()));
            sx.push_back(x);
            sy.push_back(x == x ? y : NaN);
        }
    }
    m_separators->setData(t, sx, sy, true);
}

void TimelineHeatmap::setMetric(Metric metric, const Timeline& timeline)
{
    m_metric = metric;
    if (m_rows.empty()) {
        m_scale->axis()->setLabel(metricName(m_metric) + tr(" (log)"));
        replot(rpQueuedReplot);
        return;
    }
    fillCells(timeline);
    replot(rpQueuedReplot);
}

void TimelineHeatmap::fillCells(const Timeline& timeline)
{
    const size_t nx = m_columns, ny = m_rows.size();
    m_values.assign(nx * ny, NaN);
    m_nonFinite.assign(nx * ny, 0);
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (size_t r = 0; r < ny; ++r) {
        const TimelineSeries& ts = timeline.series[m_rows[r].series];
        for (const TimelinePoint& p : ts.points) {
            if (p.checkpoint >= nx)
                continue;
            const double v = metricValue(m_metric, p);
            m_values[r * nx + p.checkpoint] = v;
            m_nonFinite[r * nx + p.checkpoint] = p.nan + p.inf;
            if (std::isfinite(v) && v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    }
    if (!(lo <= hi)) {
        lo = 1e-3;
        hi = 1;
    }
    if (hi <= lo)
        hi = lo * 10;
    // one fill of the colour map's data: no item per cell
    QCPColorMapData* data = m_map->data();
    QCPColorMapData* mask = m_nonFiniteMap->data();
    data->setSize(int(nx), int(ny));
    mask->setSize(int(nx), int(ny));
    // a size of 1 has no spacing to derive the cell from: the range is the cell itself
    const QCPRange keys = nx > 1 ? QCPRange(0, double(nx) - 1) : QCPRange(-0.5, 0.5);
    const QCPRange values = ny > 1 ? QCPRange(0, double(ny) - 1) : QCPRange(-0.5, 0.5);
    data->setRange(keys, values);
    mask->setRange(keys, values);
    const bool overlay = m_metric != Metric::NonFinite; // the count metric is itself the non-finite view
    for (size_t r = 0; r < ny; ++r)
        for (size_t c = 0; c < nx; ++c) {
            double v = m_values[r * nx + c];
            // log colours need a positive value: zero (and anything below the range) is the lowest colour
            if (v == v)
                v = std::clamp(v, lo, hi);
            data->setCell(int(c), int(r), v);
            mask->setCell(int(c), int(r), overlay && m_nonFinite[r * nx + c] ? 1.0 : NaN);
        }
    m_map->setDataRange(QCPRange(lo, hi));
    showInLegend(m_nonFiniteMap, overlay && std::ranges::any_of(m_nonFinite, [](uint64_t n) { return n > 0; }));
    m_scale->axis()->setLabel(metricName(m_metric) + tr(" (log)"));
}

void TimelineHeatmap::showInLegend(QCPAbstractPlottable* p, bool show)
{
    if (show == legend->hasItemWithPlottable(p))
        return;
    if (!show) {
        p->removeFromLegend();
        return;
    }
    p->addToLegend();
    // taken out and put back in the one order: an entry that came late moves to its place
    const std::array<QCPAbstractPlottable*, 6> order = {m_loss, m_lr, m_nonFiniteMap, m_markers[0], m_markers[1], m_markers[2]};
    for (QCPAbstractPlottable* q : order)
        if (legend->hasItemWithPlottable(q)) {
            q->removeFromLegend();
            q->addToLegend();
        }
}

void TimelineHeatmap::updateXRange()
{
    const double lo = std::min(-0.5, m_curveMinX);
    const size_t columns = std::max({m_columns, m_positions.size(), size_t(1)});
    const double hi = std::max(double(columns) - 0.5, m_curveMaxX);
    m_heatRect->axis(QCPAxis::atBottom)->setRange(lo, hi);
}

void TimelineHeatmap::updateOverlays()
{
    const double bottom = std::max<double>(0.5, double(m_rows.size()) - 0.5);
    if (m_firstBad && *m_firstBad < std::max(m_columns, m_positions.size())) {
        const double c = double(*m_firstBad);
        m_firstBadRect->topLeft->setCoords(c - 0.5, -0.5);
        m_firstBadRect->bottomRight->setCoords(c + 0.5, bottom);
        m_firstBadRect->setVisible(!m_rows.empty());
        m_firstBadHalo->topLeft->setCoords(c - 0.5, -0.5);
        m_firstBadHalo->bottomRight->setCoords(c + 0.5, bottom);
        m_firstBadHalo->setVisible(!m_rows.empty());

        m_firstBadLine->point1->setCoords(c, 0);
        m_firstBadLine->point2->setCoords(c, 1);
        m_firstBadLine->setVisible(true);
        m_firstBadText->position->setCoords(c, 0);
        m_firstBadText->setVisible(true);
    } else {
        m_firstBadRect->setVisible(false);
        m_firstBadHalo->setVisible(false);
        m_firstBadLine->setVisible(false);
        m_firstBadText->setVisible(false);
    }
    if (m_currentColumn && !m_rows.empty()) {
        const double c = double(*m_currentColumn);
        const bool cell = m_currentRow >= 0 && m_currentRow < int(m_rows.size());
        m_currentRect->topLeft->setCoords(c - 0.5, cell ? m_currentRow - 0.5 : -0.5);
        m_currentRect->bottomRight->setCoords(c + 0.5, cell ? m_currentRow + 0.5 : bottom);
        m_currentRect->setVisible(true);
    } else {
        m_currentRect->setVisible(false);
    }
}

void TimelineHeatmap::setFirstBad(std::optional<size_t> checkpoint, const QString& why)
{
    m_firstBad = checkpoint;
    if (checkpoint)
        m_firstBadText->setText(why.isEmpty() ? tr("first bad") : why);
    updateOverlays();
    replot(rpQueuedReplot);
}

void TimelineHeatmap::setCurrentCell(int row, std::optional<size_t> checkpoint)
{
    m_currentRow = row;
    m_currentColumn = checkpoint;
    updateOverlays();
    replot(rpQueuedReplot);
}

void TimelineHeatmap::updateTicks()
{
    QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    const QCPRange xr = hx->range(), yr = hy->range();
    const int width = std::max(1, m_heatRect->width()), height = std::max(1, m_heatRect->height());
    // the first bad label on the side of its line that has room for it
    if (m_firstBadText->visible()) {
        const double px = xAxis->coordToPixel(m_firstBadText->position->key());
        const int w = QFontMetrics(m_firstBadText->font()).horizontalAdvance(m_firstBadText->text()) + 12;
        const bool right = px + w <= m_curveRect->right() || px - w < m_curveRect->left();
        m_firstBadText->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
    }
    const QString key = QStringLiteral("%1 %2 %3 %4 %5 %6").arg(xr.lower).arg(xr.upper).arg(yr.lower).arg(yr.upper).arg(width).arg(height);
    if (key == m_tickKey)
        return;
    m_tickKey = key;
    const QFontMetrics fm(hy->tickLabelFont());

    // columns: every k-th checkpoint with k in 1, 2, 5, 10, 20, ... so that labels do not touch
    QMap<double, QString> xt;
    const size_t n = size_t(m_columnLabels.size());
    if (n > 0) {
        int widest = 0;
        for (const QString& l : std::as_const(m_columnLabels))
            widest = std::max(widest, fm.horizontalAdvance(l));
        const double pxPerColumn = double(width) / std::max(xr.size(), 1e-9);
        size_t k = 0;
        for (size_t m = 1; k == 0 && m <= 10 * n; m *= 10)
            for (size_t f : {size_t(1), size_t(2), size_t(5)})
                if (k == 0 && double(f * m) * pxPerColumn >= widest + 14)
                    k = f * m;
        k = std::max<size_t>(k == 0 ? n : k, 1);
        // start where the step (or epoch) is roundest: 50, 100, 150 rather than 1, 51, 101
        auto roundness = [](double v) {
            auto x = static_cast<long long>(std::llround(std::abs(v)));
            if (x == 0)
                return 0;
            int score = 0;
            for (; x % 10 == 0; x /= 10)
                score += 2;
            return score + (x % 10 == 5 ? 1 : 0);
        };
        size_t first = 0;
        for (size_t o = 1; o < std::min(k, m_positions.size()); ++o)
            if (roundness(m_positions[o]) > roundness(m_positions[first]))
                first = o;
        for (size_t c = first; c < n; c += k)
            xt.insert(double(c), m_columnLabels[qsizetype(c)]);
    }
    m_xTicker->setTicks(xt);

    // rows: every row's name when a row has the height of a line, else the groups' names, spaced
    QMap<double, QString> yt;
    const double pxPerRow = double(height) / std::max(yr.size(), 1e-9);
    const int line = fm.height();
    if (pxPerRow >= line) {
        for (size_t r = 0; r < m_rows.size(); ++r)
            yt.insert(double(r), m_rows[r].label);
    } else {
        double lastPx = -1e9;
        for (const Group& g : m_groups) {
            const double px = double(g.firstRow) * pxPerRow;
            if (px - lastPx < line)
                continue;
            yt.insert(double(g.firstRow), g.label);
            lastPx = px;
        }
    }
    m_yTicker->setTicks(yt);
    // separators only where a group is tall enough to tell its line from its cells
    int smallest = INT_MAX;
    for (const Group& g : m_groups)
        smallest = std::min(smallest, g.rows);
    m_separators->setVisible(m_groups.size() > 1 && double(smallest) * pxPerRow >= 6);
}

int TimelineHeatmap::columnCount() const
{
    return m_rows.empty() ? 0 : m_map->data()->keySize();
}

int TimelineHeatmap::rowCount() const
{
    return m_rows.empty() ? 0 : m_map->data()->valueSize();
}

int TimelineHeatmap::rowOfSeries(size_t series) const
{
    return series < m_rowOfSeries.size() ? m_rowOfSeries[series] : -1;
}

QString TimelineHeatmap::rowLabel(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? m_rows[size_t(row)].label : QString();
}

QStringList TimelineHeatmap::groupLabels() const
{
    QStringList l;
    for (const Group& g : m_groups)
        l << g.label;
    return l;
}

double TimelineHeatmap::cellValue(int row, size_t checkpoint) const
{
    if (row < 0 || size_t(row) >= m_rows.size() || checkpoint >= m_columns)
        return NaN;
    return m_values[size_t(row) * m_columns + checkpoint];
}

uint64_t TimelineHeatmap::cellNonFinite(int row, size_t checkpoint) const
{
    if (row < 0 || size_t(row) >= m_rows.size() || checkpoint >= m_columns)
        return 0;
    return m_nonFinite[size_t(row) * m_columns + checkpoint];
}

int TimelineHeatmap::markerCount() const
{
    return m_markers[0]->dataCount() + m_markers[1]->dataCount() + m_markers[2]->dataCount();
}

QPoint TimelineHeatmap::cellCentre(int row, size_t checkpoint) const
{
    const QCPAxis* hx = m_heatRect->axis(QCPAxis::atBottom);
    const QCPAxis* hy = m_heatRect->axis(QCPAxis::atLeft);
    return QPointF(hx->coordToPixel(double(checkpoint)), hy->coordToPixel(double(row))).toPoint();
}

std::optional<std::pair<int, size_t>> TimelineHeatmap::cellAt(const QPointF& pixel) const
{
    if (m_rows.empty() || !m_heatRect->rect().contains(pixel.toPoint()))
        return std::nullopt;
    const double x = m_heatRect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x());
    const double y = m_heatRect->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y());
    const long c = std::lround(x), r = std::lround(y);
    if (c < 0 || size_t(c) >= m_columns || r < 0 || size_t(r) >= m_rows.size())
        return std::nullopt;
    return std::pair{int(r), size_t(c)};
}

QString TimelineHeatmap::cellToolTip(int row, size_t checkpoint) const
{
    const Row& r = m_rows[size_t(row)];
    QString text = r.path;
    text += QLatin1Char('\n') + tr("checkpoint %1").arg(checkpoint);
    if (checkpoint < size_t(m_columnLabels.size()))
        text += QStringLiteral(" (%1 %2)").arg(m_unit, m_columnLabels[qsizetype(checkpoint)]);
    const double v = cellValue(row, checkpoint);
    text += QLatin1Char('\n') + metricName(m_metric) + QStringLiteral(": ")
        + (v == v ? formatNumber(v) : m_metric == Metric::NonFinite ? QStringLiteral("0") : tr("none"));
    if (const uint64_t bad = cellNonFinite(row, checkpoint); bad && m_metric != Metric::NonFinite)
        text += QLatin1Char('\n') + tr("%1 NaN or Inf values").arg(formatCount(bad));
    for (const Marker& m : m_markerList)
        if (m.row == row && m.checkpoint == checkpoint)
            text += QLatin1Char('\n') + eventName(m.kind) + QStringLiteral(": ") + m.text;
    if (checkpoint > 0)
        text += QLatin1Char('\n') + tr("Click: diff with the checkpoint before");
    return text;
}

void TimelineHeatmap::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    m_pressed = event->button() == Qt::LeftButton;
    QCustomPlot::mousePressEvent(event);
}

void TimelineHeatmap::mouseReleaseEvent(QMouseEvent* event)
{
    const bool click = m_pressed && event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() < 5;
    m_pressed = false;
    QCustomPlot::mouseReleaseEvent(event);
    if (!click)
        return;
    if (const auto cell = cellAt(event->position())) {
        setCurrentCell(cell->first, cell->second);
        Q_EMIT cellClicked(m_rows[size_t(cell->first)].series, cell->second);
    }
}

void TimelineHeatmap::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    if (!event->buttons() && !cellAt(event->position()))
        QToolTip::hideText();
}

bool TimelineHeatmap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto cell = cellAt(help->pos()))
            QToolTip::showText(help->globalPos(), cellToolTip(cell->first, cell->second), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QCustomPlot::event(event);
}

} // namespace ckpt::ui
