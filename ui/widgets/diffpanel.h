// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

#include <QWidget>

#include <functional>

class QCustomPlot;
class QCPColorMap;
class QCheckBox;
class QLabel;
class QTableWidget;

namespace ckpt {
class CarStore;
}

namespace ckpt::ui {

class HistogramPlot;

/**
 * Differences of two records or two GradientCheckpoints (core/diff): a summary, a table of every
 * tensor / node / state field coloured by status and sorted by the size of the change, and for the
 * selected row side-by-side histograms of A and B over one range and a heatmap of b − a.
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
    bool isBusy() const { return m_busy || m_detailBusy; }
    QTableWidget* table() const { return m_table; }
    QString summary() const;
    /** Selects the row of \a path (A's tensor path or node key) and shows its detail. */
    bool selectPath(const QString& path);
    /** The title of the detail shown (the selected row's path and its delta's shape). */
    QString detailTitle() const;
    /** Hides the rows that did not move (unchanged tensors and nodes). */
    void setChangesOnly(bool on);
    int visibleRowCount() const;

    /** Both sides' values of one row, read in a worker (the first MaxDetailValues elements). */
    struct PairValues {
        std::vector<double> a, b;
        std::vector<uint64_t> shape;
    };

Q_SIGNALS:
    void finished(const QString& error);

private:
    void showRows(const QString& summaryText);
    void applyFilter();
    void showDetail(int row);
    void finishDetail(PairValues values, const QString& title);

    QLabel* m_summary;
    QTableWidget* m_table;
    QLabel* m_detailTitle;
    HistogramPlot* m_histA;
    HistogramPlot* m_histB;
    QCustomPlot* m_heatPlot;
    QCPColorMap* m_heat;
    QCheckBox* m_changesOnly;
    /** Per table row (by its row id): how to read both sides' values, empty when there is nothing to show. */
    std::vector<std::function<PairValues()>> m_readers;
    quint64 m_generation = 0, m_detailGeneration = 0;
    bool m_busy = false, m_detailBusy = false;
};

} // namespace ckpt::ui
