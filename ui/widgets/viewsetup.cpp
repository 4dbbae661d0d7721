// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/viewsetup.h"

#include "ui/models/modelroles.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>

namespace ckpt::ui {

void setupTreeView(QAbstractItemView* view, QAbstractItemModel* model, QSortFilterProxyModel* proxy, QLineEdit* filter)
{
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setRecursiveFilteringEnabled(true);
    proxy->setDynamicSortFilter(true);
    view->setModel(proxy);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    if (auto* tree = qobject_cast<QTreeView*>(view)) {
        tree->setUniformRowHeights(true);
        tree->header()->setStretchLastSection(true);
    }
    if (auto* table = qobject_cast<QTableView*>(view)) {
        table->setSortingEnabled(true);
        table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // file order until the user sorts
        table->setTextElideMode(Qt::ElideMiddle); // long optimizer paths keep both ends readable
        table->verticalHeader()->setDefaultSectionSize(20);
        table->verticalHeader()->hide();
    }
    if (filter) {
        filter->setClearButtonEnabled(true);
        QObject::connect(filter, &QLineEdit::textChanged, proxy, [proxy](const QString& text) {
            proxy->setFilterFixedString(text);
        });
    }
}

QSplitter* fillSplitter(QSplitter* split, std::initializer_list<SplitPane> panes)
{
    QList<int> sizes;
    bool sized = false;
    for (const SplitPane& pane : panes) {
        split->addWidget(pane.widget);
        split->setStretchFactor(split->count() - 1, pane.stretch);
        sizes << pane.size;
        sized = sized || pane.size > 0;
    }
    if (sized)
        split->setSizes(sizes);
    return split;
}

QSplitter* makeSplitter(Qt::Orientation orientation, QWidget* parent, std::initializer_list<SplitPane> panes)
{
    return fillSplitter(new QSplitter(orientation, parent), panes);
}

} // namespace ckpt::ui
