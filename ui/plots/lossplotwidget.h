// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/run/metriclog.h"

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLabel;
class QListWidget;
class QSlider;
class QTimer;
class QCPGraph;

namespace ckpt::ui {

/**
 * Loss and metric history of a run: one curve per (split, metric), overlaid on a shared axis of
 * fractional epochs; EMA smoothing, log scale, hover read-out, PNG/SVG/CSV export.
 */
class LossPlotWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LossPlotWidget(QWidget* parent = nullptr);
    void setHistory(const LossHistory& history);
    int curveCount() const;
    int visibleCurveCount() const;
    QString exportPng(const QString& path);
    QString exportSvg(const QString& path);
    QString exportCsv(const QString& path) const;
    QCustomPlot* plot() const { return m_plot; }
    void setSmoothing(int percent);
    /**
     * Starts a live curve (e.g. a resumption's `step=N loss=X` lines) drawn over the history until the
     * next beginLiveCurve(); points arrive with appendLivePoint() and are replotted at most every 100 ms.
     */
    void beginLiveCurve(const QString& name);
    void appendLivePoint(double x, double y);
    int livePointCount() const { return int(m_live.x.size()); }
    void setLogScale(bool on);

private:
    void rebuild();
    void showHover(QMouseEvent* event);
    LossHistory m_history;
    LossCurve m_live;             ///< empty name = none
    QCPGraph* m_liveGraph = nullptr;
    QCustomPlot* m_plot;
    QListWidget* m_curves;
    QSlider* m_smoothing;
    QCheckBox* m_log;
    QLabel* m_hover;
    QTimer* m_replotTimer;
};

} // namespace ckpt::ui
