// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/deferredpaint.h"

#include <QProgressBar>
#include <qcustomplot.h>

namespace ckpt::ui {

void setProgressDeferred(QProgressBar* bar, int value)
{
    if (bar->value() == value)
        return;
    // With updates disabled repaint() does nothing; enabling them again calls update().
    const bool enabled = bar->updatesEnabled();
    bar->setUpdatesEnabled(false);
    bar->setValue(value);
    bar->setUpdatesEnabled(enabled);
    if (enabled)
        bar->update();
}

void deferPlotRefresh(QCustomPlot* plot)
{
    plot->setPlottingHint(QCP::phImmediateRefresh, false);
}

} // namespace ckpt::ui
