// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace ckpt::ui {

/** A tensor of the workspace: which record, which of its tensors. Views exchange these, never pointers. */
struct TensorRef {
    int record = -1;
    int tensor = -1;
    bool valid() const { return record >= 0 && tensor >= 0; }
    friend bool operator==(const TensorRef&, const TensorRef&) = default;
    QString key() const { return QString::number(record) + QLatin1Char(':') + QString::number(tensor); }
    static TensorRef fromKey(const QString& key);
};

} // namespace ckpt::ui
