// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/formatting.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace ckpt::ui {

QString formatNumber(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QString::number(v, 'g', 6);
}

QString formatCount(uint64_t v)
{
    return QLocale::c().toString(qulonglong(v));
}

QString formatBytes(uint64_t v)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = double(v);
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        ++u;
    }
    if (u == 0)
        return QString::number(v) + QStringLiteral(" B");
    return QString::number(d, 'f', 1) + QLatin1Char(' ') + QLatin1String(units[u]);
}

QString formatShape(const std::vector<uint64_t>& shape)
{
    QStringList parts;
    for (auto d : shape)
        parts << QString::number(qulonglong(d));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace ckpt::ui
