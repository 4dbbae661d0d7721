// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/timeline.h"

#include <qcustomplot.h>

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace ckpt::ui {

/**
 * A run's timeline as one picture (the Run panel): above, the train loss and the learning rate of the
 * metric logs; below, a heatmap with one row per tensor series and one column per checkpoint.
 *
 * Both share one horizontal axis whose unit is the checkpoint: column i is centred on x = i and its
 * tick says the checkpoint's step (or epoch). A loss line is put at its own step, mapped piecewise
 * linearly between the steps of the checkpoints around it, so the loss logged at a checkpoint's step
 * lies exactly above that checkpoint's column, and cells keep one width when checkpoints are not
 * evenly spaced (a resumed run, a final checkpoint). Rows are grouped by the parameter they belong to
 * (TimelineSeries::owner): the parameter, then its optimizer states, then its gradient, with the
 * group's name on the axis and a line between groups. The colour scale is logarithmic; cells holding
 * NaN or Inf are painted in nonFiniteColour() over the metric, absent cells leave the grey background.
 * Events are markers on their cells; the first bad checkpoint's column is outlined.
 */
class TimelineHeatmap : public QCustomPlot
{
    Q_OBJECT
public:
    enum class Metric { L2, UpdateRatio, MaxAbs, NonFinite };
    static QString metricName(Metric m);

    explicit TimelineHeatmap(QWidget* parent = nullptr);

    /** The checkpoints (the columns and their ticks) and the loss / learning-rate curves of the run's logs. */
    void setRun(const RunCheckpoints& run);
    /** Fills the heatmap from \a timeline (the rows, every cell of the current metric, the events). */
    void setTimeline(const Timeline& timeline);
    void clearTimeline();
    /** Redraws the cells for another metric: needs the timeline again (the plot keeps only what it shows). */
    void setMetric(Metric metric, const Timeline& timeline);
    Metric metric() const { return m_metric; }

    /** Outlines the first bad checkpoint's column (and marks it above the loss); none removes it. */
    void setFirstBad(std::optional<size_t> checkpoint, const QString& why = {});
    std::optional<size_t> firstBad() const { return m_firstBad; }
    /** Outlines one cell (a bisect result's tensor, the last clicked cell); row -1 outlines a column. */
    void setCurrentCell(int row, std::optional<size_t> checkpoint);

    int columnCount() const;
    int rowCount() const;
    /** The series (index into Timeline::series) drawn in \a row, and the row of a series (-1: none). */
    size_t seriesOfRow(int row) const { return m_rows.at(size_t(row)).series; }
    int rowOfSeries(size_t series) const;
    QString rowLabel(int row) const;
    /** The group (owner) label of each group, top to bottom. */
    QStringList groupLabels() const;
    /** The cell's value under the current metric (NaN: none), and its NaN + Inf count. */
    double cellValue(int row, size_t checkpoint) const;
    uint64_t cellNonFinite(int row, size_t checkpoint) const;
    /** The pixel at the centre of a cell, in this widget's coordinates (tests click it). */
    QPoint cellCentre(int row, size_t checkpoint) const;
    /** The cell under a pixel, if any. */
    std::optional<std::pair<int, size_t>> cellAt(const QPointF& pixel) const;
    /** Markers drawn for events (at most MaxMarkers per kind). */
    int markerCount() const;
    QCPColorMap* colorMap() const { return m_map; }
    QCPColorScale* colorScale() const { return m_scale; }
    QCPAxisRect* curveRect() const { return m_curveRect; }
    QCPAxisRect* heatRect() const { return m_heatRect; }
    int lossPointCount() const;

    static QColor nonFiniteColour() { return QColor(230, 0, 110); }
    static constexpr int MaxMarkers = 200;

Q_SIGNALS:
    /** A click (not a drag) on a cell. */
    void cellClicked(size_t series, size_t checkpoint);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    // the constructor's parts, in this order: rects and legend, axes and curves, the two colour maps
    // and the event markers, the outlines and texts over them, the shared range and the mouse
    void setupLayout(const QFont& small);
    void setupAxes(const QFont& small);
    void setupMaps(const QFont& small);
    void setupMarks(const QFont& small);
    void setupInteraction();
    struct Row {
        size_t series = 0;
        int group = 0;
        QString label;       ///< what the axis says when every row has room
        QString path;        ///< the tensor path (tooltip)
    };
    struct Group {
        QString label;
        int firstRow = 0, rows = 0;
    };
    struct Marker {
        TimelineEventKind kind;
        int row;
        size_t checkpoint;
        QString text;
    };
    void layoutRows(const Timeline& timeline);   ///< rows grouped by owner, their labels
    void placeMarkers(const Timeline& timeline); ///< event markers and group separators
    void fillCells(const Timeline& timeline);
    void updateTicks();
    void updateXRange();
    void updateOverlays();
    /**
     * Shows or hides \a p's legend entry, keeping the entries in one order (curves, the NaN/Inf mask,
     * the event markers) whatever order the scan's results arrive in.
     */
    void showInLegend(QCPAbstractPlottable* p, bool show);
    QString cellToolTip(int row, size_t checkpoint) const;

    QCPAxisRect* m_curveRect;
    QCPAxisRect* m_heatRect;
    QCPColorMap* m_map;
    QCPColorMap* m_nonFiniteMap;   ///< one colour where a cell holds NaN or Inf, transparent elsewhere
    QCPColorScale* m_scale;
    QCPGraph* m_loss;
    QCPGraph* m_lr;
    QCPCurve* m_separators;
    QCPGraph* m_markers[3];        ///< by TimelineEventKind
    QCPItemRect* m_firstBadRect;
    QCPItemRect* m_firstBadHalo;
    QCPItemStraightLine* m_firstBadLine;
    QCPItemText* m_firstBadText;
    QCPItemText* m_noCurves;
    QCPItemRect* m_currentRect;
    QSharedPointer<QCPAxisTickerText> m_xTicker;
    QSharedPointer<QCPAxisTickerText> m_yTicker;

    Metric m_metric = Metric::L2;
    std::vector<double> m_positions;     ///< per checkpoint: its step or epoch
    QStringList m_columnLabels;
    QString m_unit;
    double m_curveMinX = 0, m_curveMaxX = 0;
    size_t m_columns = 0;
    std::vector<Row> m_rows;
    std::vector<Group> m_groups;
    std::vector<int> m_rowOfSeries;
    std::vector<double> m_values;        ///< row-major [row * m_columns + checkpoint]
    std::vector<uint64_t> m_nonFinite;
    std::vector<Marker> m_markerList;
    std::optional<size_t> m_firstBad;
    int m_currentRow = -1;
    std::optional<size_t> m_currentColumn;
    QPoint m_pressPos;
    bool m_pressed = false;
    QString m_tickKey;                   ///< what the ticks were last laid out for
};

} // namespace ckpt::ui
