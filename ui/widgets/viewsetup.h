// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Qt>

#include <initializer_list>

class QAbstractItemModel;
class QAbstractItemView;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QWidget;

namespace ckpt::ui {

/**
 * The one place views get their model, a filtering/sorting proxy (recursive for trees, sorted by
 * SortRole) and a filter line edit, so every panel behaves the same.
 */
void setupTreeView(QAbstractItemView* view, QAbstractItemModel* model, QSortFilterProxyModel* proxy, QLineEdit* filter);

/** One pane of a splitter: its widget, its stretch factor and its first size (0: the splitter's own choice). */
struct SplitPane {
    QWidget* widget = nullptr;
    int stretch = 0;
    int size = 0;
};

/**
 * The one splitter set-up of the panels: adds \a panes to \a split in order with their stretch factors,
 * and gives them their first sizes when any pane has one. Returns \a split.
 */
QSplitter* fillSplitter(QSplitter* split, std::initializer_list<SplitPane> panes);

/** A new splitter of \a orientation under \a parent holding \a panes (fillSplitter). */
QSplitter* makeSplitter(Qt::Orientation orientation, QWidget* parent, std::initializer_list<SplitPane> panes);

} // namespace ckpt::ui
