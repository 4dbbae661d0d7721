// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/histogramplot.h"
#include "ui/plots/axisscale.h"

#include "ui/async/deferredpaint.h"

namespace ckpt::ui {

HistogramPlot::HistogramPlot(QWidget* parent)
    : QCustomPlot(parent)
    , m_bars(new QCPBars(xAxis, yAxis))
    , m_title(new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold)))
{
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, m_title);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(QColor(70, 130, 180));
    m_bars->setWidthType(QCPBars::wtPlotCoords);
    yAxis->setLabel(tr("count"));
    xAxis->ticker()->setTickCount(4); // small plots side by side: fewer, readable ticks
    setMinimumSize(200, 150);
    deferPlotRefresh(this); // replot() paints with the window's next update, not at once
}

int HistogramPlot::barCount() const
{
    return m_bars->data()->size();
}

void HistogramPlot::setStats(const TensorStats& stats, const QString& title, bool logBins)
{
    m_title->setText(title);
    QVector<double> keys, values;
    const size_t n = stats.histogram.size();
    const double width = n ? (stats.histHi - stats.histLo) / double(n) : 0;
    for (size_t i = 0; i < n; ++i) {
        keys << stats.histLo + (double(i) + 0.5) * width;
        // zero counts cannot be drawn on a log axis; they stay empty
        values << (m_logCounts && stats.histogram[i] == 0 ? std::nan("") : double(stats.histogram[i]));
    }
    m_bars->setWidth(width > 0 ? width : 1);
    m_bars->setData(keys, values, true);
    xAxis->setLabel(logBins ? tr("log10 |value|") : tr("value"));
    if (n) {
        xAxis->setRange(stats.histLo - width, stats.histHi + width);
        bool found = false;
        const auto r = m_bars->getValueRange(found);
        yAxis->setRange(m_logCounts ? 0.8 : 0, found ? r.upper * 1.1 : 1);
    } else {
        xAxis->setRange(-1, 1);
        yAxis->setRange(0, 1);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void HistogramPlot::clearStats(const QString& message)
{
    m_title->setText(message);
    m_bars->data()->clear();
    replot(QCustomPlot::rpQueuedReplot);
}

void HistogramPlot::setLogCounts(bool log)
{
    m_logCounts = log;
    setAxisLogScale(yAxis, log);
}

} // namespace ckpt::ui
