// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/workspace.h"

#include <QWidget>

class QCheckBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace ckpt::ui {

class CheckpointDocument;
class HistogramPlot;

/**
 * One tensor in detail: statistics, histogram (linear/log counts, linear/log |x| bins), a heatmap of
 * a 2-D slice (leading dimensions picked with spin boxes) and the values of small tensors. All
 * numbers are computed off the GUI thread; a result for a tensor no longer shown is dropped.
 */
class TensorDetailWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TensorDetailWidget(CheckpointDocument* doc, QWidget* parent = nullptr);
    void setTensor(TensorRef ref);
    TensorRef tensor() const { return m_ref; }
    bool isBusy() const { return m_pending > 0; }
    QString summaryText() const;
    HistogramPlot* histogram() const { return m_hist; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* valueTable() const { return m_values; }

Q_SIGNALS:
    void idle();

private:
    void clear();
    void requestStats();
    void requestSlice();
    void rebuildSlicePicker();
    void finishJob();

    CheckpointDocument* const m_doc;
    TensorRef m_ref;
    quint64 m_statsGeneration = 0; ///< latest request wins: older results are dropped
    quint64 m_sliceGeneration = 0;
    int m_pending = 0;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    HistogramPlot* m_hist;
    QCheckBox* m_logCounts;
    QCheckBox* m_logBins;
    QCustomPlot* m_heatPlot;
    QCPColorMap* m_heat;
    QCPColorScale* m_heatScale;
    QHBoxLayout* m_sliceLayout;
    QList<QSpinBox*> m_sliceSpins;
    QLabel* m_sliceInfo;
    QTableWidget* m_values;
};

} // namespace ckpt::ui
