// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/stats.h"

#include <qcustomplot.h>

namespace ckpt::ui {

/** A tensor's histogram as bars, with a linear or logarithmic count axis. */
class HistogramPlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit HistogramPlot(QWidget* parent = nullptr);
    void setStats(const TensorStats& stats, const QString& title, bool logBins = false);
    void clearStats(const QString& message);
    void setLogCounts(bool log);
    bool logCounts() const { return m_logCounts; }
    int barCount() const;

private:
    QCPBars* m_bars;
    QCPTextElement* m_title;
    bool m_logCounts = false;
};

} // namespace ckpt::ui
