// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/run.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

namespace ckpt::ui {

/** One metric of one split as plot data. */
struct LossCurve {
    QString split;          ///< "train", "valid", ...
    QString metric;         ///< "Loss", "Accuracy", ...
    QVector<double> x;      ///< fractional epoch: epoch-1 + (i+1)/n for the i-th of n lines of an epoch
    QVector<double> y;      ///< the logged value (NaN for text lines)
};

struct LossHistory {
    QString directory;
    QList<LossCurve> curves;
    QStringList warnings;
};

/** Converts core's run directory (core/run) into plot curves. */
LossHistory lossHistoryFrom(const RunDirectory& run);

/** Exponential moving average; \a alpha in [0, 1) is the weight of the previous smoothed value (0 = none). */
QVector<double> smoothEma(const QVector<double>& y, double alpha);

} // namespace ckpt::ui
