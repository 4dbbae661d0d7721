// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/run/metriclog.h"

#include <QMap>

#include <cmath>

namespace ckpt::ui {

LossHistory lossHistoryFrom(const RunDirectory& run)
{
    LossHistory h;
    h.directory = QString::fromStdString(run.path);
    for (const auto& w : run.warnings)
        h.warnings << QString::fromStdString(w);
    for (const auto& s : run.series) {
        LossCurve c;
        c.split = QString::fromStdString(s.split);
        c.metric = QString::fromStdString(s.metric);
        QMap<uint32_t, uint64_t> linesPerEpoch;
        for (const auto& p : s.points)
            linesPerEpoch[p.epoch] = std::max<uint64_t>(linesPerEpoch.value(p.epoch), p.item + 1);
        for (const auto& p : s.points) {
            const double n = double(linesPerEpoch.value(p.epoch, 1));
            c.x << (double(p.epoch) - 1.0) + double(p.item + 1) / n;
            c.y << p.value;
        }
        h.curves << c;
    }
    return h;
}

QVector<double> smoothEma(const QVector<double>& y, double alpha)
{
    if (alpha <= 0 || y.isEmpty())
        return y;
    QVector<double> out(y.size());
    double acc = std::numeric_limits<double>::quiet_NaN();
    for (qsizetype i = 0; i < y.size(); ++i) {
        if (std::isfinite(y[i]))
            acc = std::isnan(acc) ? y[i] : alpha * acc + (1 - alpha) * y[i];
        out[i] = acc;
    }
    return out;
}

} // namespace ckpt::ui
