// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Qt>

namespace ckpt::ui {

/** Item data roles shared by every model: views sort by SortRole, never by display text. */
enum Role {
    SortRole = Qt::UserRole + 1, ///< numbers as double/qulonglong, text otherwise
    RawValueRole,                ///< the unformatted value (QVariant of the scalar)
    TensorKeyRole,               ///< "record:tensor" key of a tensor (cross-links exchange keys, never pointers)
    ParamIdRole,                 ///< the parameter id a row belongs to ("" if none)
    NodeKeyRole,                 ///< "record:node" key of a tape node
    DiffStatusRole,
    MovedRole,                   ///< a diff row that moved (added, removed, changed; bool)
    NodeKeyARole,                ///< a graph diff row's node key in A ("" when absent there)
    NodeKeyBRole,                ///< a graph diff row's node key in B ("" when absent there)
};

} // namespace ckpt::ui
