// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/axisscale.h"

#include <qcustomplot.h>

namespace ckpt::ui {

void setAxisLogScale(QCPAxis* axis, bool log)
{
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    // a linear ticker on a log axis bunches its ticks at the top decade
    if (log)
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

} // namespace ckpt::ui
