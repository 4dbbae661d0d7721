// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/formatting.h"

#include "core/util/text.h"

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
    return QString::fromStdString(humanBytes(v)); // the CLI's spelling: one place for it
}

QString formatShape(const std::vector<uint64_t>& shape)
{
    QStringList parts;
    for (auto d : shape)
        parts << QString::number(qulonglong(d));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace ckpt::ui
