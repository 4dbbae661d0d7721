// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diff/pairdetail.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QSortFilterProxyModel>

#include <functional>
#include <memory>
#include <optional>

namespace ckpt {
class CarStore;
class Record;
struct GraphDiff;
struct RecordDiff;
} // namespace ckpt

namespace ckpt::ui {

/** One row of the Diff panel's table: a tensor, a graph node or edge, a state field. */
struct DiffRow {
    QString path, status, match, note;
    std::optional<double> maxAbs, meanAbs, relL2, cosine, above;
    QColor colour;                          ///< the status tint; invalid for rows that did not move
    QString keyA, keyB;                     ///< a graph node's key on each side (empty for records and on the absent side)
    std::function<PairValues()> reader;     ///< reads both sides' values for the detail; empty when there are none
};

/**
 * The rows of a record diff or a GradientCheckpoint diff (core/diff), one per tensor, node, edge,
 * optimizer blob or state field, tinted by status. Numbers sort by SortRole (the value); MovedRole
 * tells the rows that moved, NodeKeyA/BRole a node's key on each side.
 */
class DiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { PathColumn, StatusColumn, MatchColumn, MaxAbsColumn, MeanAbsColumn, RelL2Column, CosineColumn, AboveColumn, NoteColumn, ColumnCount };

    explicit DiffModel(QObject* parent = nullptr);

    /** The rows of \a d; the records stay shared so that a row's values can be read later. */
    void setRecordDiff(const RecordDiff& d, std::shared_ptr<const Record> a, std::shared_ptr<const Record> b);
    /** The rows of \a d; a node's output values are read from the CARs when both sides have one. */
    void setGraphDiff(const GraphDiff& d, std::shared_ptr<const CarStore> carA, std::shared_ptr<const CarStore> carB);
    void clear();

    const DiffRow& row(int r) const { return m_rows.at(size_t(r)); }
    /** Status tints of the table's rows (status as diffStatusName spells it, or "state"). */
    static QColor tint(std::string_view status, bool renamed = false, bool precision = false);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void setRows(std::vector<DiffRow> rows);
    std::vector<DiffRow> m_rows;
};

/**
 * The Diff panel's view of a DiffModel: sorted by SortRole with the rows without a number below the
 * smallest change, and optionally only the rows that moved.
 */
class DiffFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit DiffFilterModel(QObject* parent = nullptr);
    void setChangesOnly(bool on);
    bool changesOnly() const { return m_changesOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    bool m_changesOnly = false;
};

} // namespace ckpt::ui
