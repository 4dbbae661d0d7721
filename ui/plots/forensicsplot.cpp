// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/forensicsplot.h"
#include "ui/plots/axisscale.h"

#include "ui/models/runcheckpointmodel.h"

#include "core/optim/forensics.h"

#include <algorithm>

namespace ckpt::ui {

RunForensicsPlot::RunForensicsPlot(QWidget* parent)
    : QCustomPlot(parent)
{
    setObjectName(QStringLiteral("optimizerPlot"));
    setMinimumHeight(150);
    setToolTip(tr("Optimizer forensics per checkpoint: the largest first-moment RMS against its parameter's "
                  "(exploded_moments at 1e3) and the largest Adam effective step |m̂|/(√v̂+ε)"));
    setAxisLogScale(yAxis, true);
    yAxis->setNumberFormat(QStringLiteral("eb"));
    yAxis->setNumberPrecision(0);
    yAxis->setLabel(tr("optimizer"));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setLabelFont(small);
        axis->setTickLabelFont(small);
    }
    auto* ratio = addGraph();
    ratio->setName(tr("first moment / parameter, RMS (largest)")); // no m̂ here: the combining hat is lost in many UI fonts
    ratio->setPen(QPen(QColor(31, 119, 180), 1.5));
    ratio->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    auto* step = addGraph();
    step->setName(tr("effective step (largest)"));
    step->setPen(QPen(QColor(255, 127, 14), 1.5));
    step->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    auto* threshold = new QCPItemStraightLine(this);
    threshold->point1->setCoords(0, kExplodedMomentRatio);
    threshold->point2->setCoords(1, kExplodedMomentRatio);
    threshold->setPen(QPen(QColor(200, 0, 0), 1, Qt::DashLine));
    legend->setVisible(true);
    legend->setFont(small);
    legend->setRowSpacing(0);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    setNoAntialiasingOnDrag(true);
}

void RunForensicsPlot::showCheckpoints(const RunCheckpointModel& model)
{
    QVector<double> xs, ratios, steps, xsStep;
    double top = 10, bottom = 0.1;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int n = model.rowCount();
    const int every = std::max(1, n / 8); // at most ~8 labels
    for (int row = 0; row < n; ++row) {
        if (row % every == 0) {
            const RunPoint& p = model.point(row);
            ticker->addTick(row, p.step ? QString::number(*p.step) : p.epoch ? QString::number(*p.epoch) : QString::number(row));
        }
        const RunCheckpointModel::Optimizer* o = model.optimizerOf(row);
        if (!o || !o->available)
            continue;
        if (o->maxMomentRatio && *o->maxMomentRatio > 0) {
            xs << row;
            ratios << *o->maxMomentRatio;
            top = std::max(top, *o->maxMomentRatio);
            bottom = std::min(bottom, *o->maxMomentRatio);
        }
        if (o->maxStep && *o->maxStep > 0) {
            xsStep << row;
            steps << *o->maxStep;
            top = std::max(top, *o->maxStep);
            bottom = std::min(bottom, *o->maxStep);
        }
    }
    graph(0)->setData(xs, ratios, true);
    graph(1)->setData(xsStep, steps, true);
    xAxis->setTicker(ticker);
    bool epochs = n > 0;
    for (int row = 0; row < n && epochs; ++row)
        epochs = !model.point(row).step && model.point(row).epoch;
    xAxis->setLabel(epochs ? tr("checkpoint (by epoch)") : tr("checkpoint (by step)"));
    xAxis->setRange(-0.5, std::max(n, 1) - 0.5);
    // the threshold stays in view: the healthy figures sit decades under it
    yAxis->setRange(std::max(bottom / 3, 1e-6), std::max(top * 3, kExplodedMomentRatio * 10));
    replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ckpt::ui
