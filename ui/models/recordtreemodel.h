// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>

namespace ckpt::ui {

class CheckpointDocument;

/**
 * The order-preserving value tree of every opened record (Mode::Records), or the caller's
 * continuation state only (Mode::CallerState, editable: setData pushes an undo command). Each index
 * carries (record, node) in its internal id.
 */
class RecordTreeModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum class Mode { Records, CallerState, Scheduler };
    enum Column { NameColumn, TypeColumn, ValueColumn, NumColumns };

    RecordTreeModel(CheckpointDocument* doc, Mode mode, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /** The index of a tape node (invalid if it is not shown by this model). */
    QModelIndex indexOfNode(int record, uint32_t node) const;
    static int recordOf(const QModelIndex& index);
    static uint32_t nodeOf(const QModelIndex& index);
    /** The ckpt path of a node (item[0].fc1.weight). */
    QString pathOf(int record, uint32_t node) const;
    QString lastError() const { return m_lastError; }

private:
    void reset();
    QModelIndex make(int row, int column, int record, uint32_t node) const;
    QString nameOf(int record, uint32_t node) const;
    int rootRow(int record, uint32_t node) const;

    CheckpointDocument* const m_doc;
    const Mode m_mode;
    std::vector<std::pair<int, uint32_t>> m_roots; ///< top-level rows: (record, node)
    QString m_lastError;
};

} // namespace ckpt::ui
