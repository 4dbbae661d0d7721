// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diff/pairdetail.h"
#include "core/record/record.h"

#include <QWidget>

#include <functional>
#include <optional>

class QCustomPlot;
class QCPColorMap;
class QCheckBox;
class QLabel;
class QRadioButton;
class QSplitter;
class QTabWidget;
class QTableView;

namespace ckpt {
class CarStore;
}

namespace ckpt::ui {

class DiffFilterModel;
class DiffModel;
class GraphView;
class HistogramPlot;
struct GraphData;
struct LossHistory;

/**
 * Differences of two records or two GradientCheckpoints (core/diff): a summary, a table of every
 * tensor / node / state field coloured by status and sorted by the size of the change, and below it
 * three tabs: for the selected row side-by-side histograms of A and B over one range and a heatmap
 * of b − a; for two GradientCheckpoints the computation graph of A or B coloured by node status,
 * with a legend and a filter to what changed; and the loss histories of both runs overlaid, with
 * where each side's checkpoint lies on them.
 */
class DiffPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DiffPanel(QWidget* parent = nullptr);
    /** Computes the diff in a worker; a newer request drops an older result. */
    void compare(std::shared_ptr<const Record> a, std::shared_ptr<const Record> b);
    /** Loads two GradientCheckpoints (and the .car next to each) in a worker and compares them. */
    void compareGraphs(const QString& a, const QString& b);
    bool isBusy() const { return m_busy || m_detailBusy || m_lossBusy; }
    /** The table of rows (its model is a DiffFilterModel over model()). */
    QTableView* table() const { return m_table; }
    DiffModel* model() const { return m_model; }
    QString summary() const;
    /** Selects the row of \a path (A's tensor path or node key) and shows its detail. */
    bool selectPath(const QString& path);
    /** The title of the detail shown (the selected row's path and its delta's shape). */
    QString detailTitle() const;
    /** Hides the rows that did not move (unchanged tensors and nodes). */
    void setChangesOnly(bool on);
    int visibleRowCount() const;

    enum class Tab { Values, Graph, Loss };
    void showTab(Tab tab);
    Tab currentTab() const;

    /** Node status colours of the graph tab (fills of the boxes; unchanged nodes keep the view's own). */
    static QColor addedColour();
    static QColor removedColour();
    static QColor opChangedColour();
    static QColor tensorsChangedColour();
    GraphView* graphView() const { return m_graphView; }
    /** Shows graph B (true) or A in the graph tab, coloured by status. */
    void showGraphSide(bool b);
    bool graphSideB() const;
    /** The graph tab shows only the nodes that changed (and edges' ends) with their neighbours (k = 1). */
    void setGraphChangesOnly(bool on);
    /** The legend's text (status, colour, count), plain. */
    QString graphLegend() const;

    /** The loss overlay: its plot, and a line on where each side's history came from. */
    QCustomPlot* lossPlot() const { return m_lossPlot; }
    QString lossNote() const;

    /** What the workers hand over (defined in diffpanel.cpp). */
    struct GraphSides;
    struct RunLosses;

Q_SIGNALS:
    void finished(const QString& error);

private:
    void setupValuesTab();
    void setupGraphTab();
    void setupLossTab();
    void showRows(const QString& summaryText);
    void applyFilter();
    /** The detail of the table's row \a row (a row of the view; -1: none). */
    void showDetail(int row);
    void finishDetail(PairValues values, const QString& title);
    void showGraphDiff(std::shared_ptr<const GraphSides> sides);
    /** Gives the table this share of the height between it and the tabs (now, or once the panel has a height). */
    void shareSplit(double tableShare);
    void resizeEvent(QResizeEvent* event) override;
    void applyGraphSide();
    void loadLosses(const QString& a, const QString& b, std::optional<double> lossA, std::optional<double> lossB);
    void showLosses(const RunLosses& losses);

    QLabel* m_summary;
    DiffModel* m_model;
    DiffFilterModel* m_rows;
    QTableView* m_table;
    QLabel* m_detailTitle;
    HistogramPlot* m_histA;
    HistogramPlot* m_histB;
    QCustomPlot* m_heatPlot;
    QCPColorMap* m_heat;
    QCheckBox* m_changesOnly;
    QSplitter* m_split;
    QTabWidget* m_tabs;
    QWidget* m_valuesTab;
    QWidget* m_graphTab;
    QWidget* m_lossTab;
    GraphView* m_graphView;
    QRadioButton* m_sideA;
    QRadioButton* m_sideB;
    QCheckBox* m_graphChangesOnly;
    QLabel* m_legend;
    QCustomPlot* m_lossPlot;
    QLabel* m_lossNote;
    std::shared_ptr<const GraphSides> m_graphSides;
    quint64 m_generation = 0, m_detailGeneration = 0;
    bool m_busy = false, m_detailBusy = false, m_lossBusy = false;
    bool m_fillingRows = false;
    double m_tableShare = 0;  ///< a split waiting for the panel's first real height (0: none)
};

} // namespace ckpt::ui
