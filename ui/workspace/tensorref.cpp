// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/workspace/tensorref.h"

#include <QStringList>

namespace ckpt::ui {

TensorRef TensorRef::fromKey(const QString& key)
{
    const auto parts = key.split(QLatin1Char(':'));
    if (parts.size() != 2)
        return {};
    return {parts[0].toInt(), parts[1].toInt()};
}

} // namespace ckpt::ui
