// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QAbstractItemModel;
class QAbstractItemView;
class QLineEdit;
class QSortFilterProxyModel;

namespace ckpt::ui {

/**
 * The one place views get their model, a filtering/sorting proxy (recursive for trees, sorted by
 * SortRole) and a filter line edit, so every panel behaves the same.
 */
void setupTreeView(QAbstractItemView* view, QAbstractItemModel* model, QSortFilterProxyModel* proxy, QLineEdit* filter);

} // namespace ckpt::ui
