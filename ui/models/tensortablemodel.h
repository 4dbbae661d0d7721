// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/async/statsjob.h"
#include "ui/workspace/workspace.h"

#include <QAbstractTableModel>

#include <optional>

namespace ckpt::ui {

class CheckpointDocument;

/** Every tensor of the workspace, one row each, with statistics filled in as they arrive. */
class TensorTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn, RoleColumn, DTypeColumn, ShapeColumn, NumelColumn, BytesColumn,
        MinColumn, MaxColumn, MeanColumn, StdColumn, NanColumn, InfColumn, PathColumn, NumColumns
    };
    explicit TensorTableModel(CheckpointDocument* doc, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    TensorRef refAt(int row) const { return m_rows[size_t(row)]; }
    int rowOf(TensorRef ref) const;
    void setStats(int row, const TensorStats& stats);
    /** Many rows at once: one dataChanged per run of consecutive rows, so views and proxies re-sort once. */
    void setStats(const StatsBatch& batch);
    const std::optional<TensorStats>& statsAt(int row) const { return m_stats[size_t(row)]; }
    int statsCount() const { return m_statsCount; }

private:
    void reset();
    CheckpointDocument* const m_doc;
    std::vector<TensorRef> m_rows;
    std::vector<QString> m_names;   ///< Workspace::tensorNames per row, computed once per workspace
    std::vector<std::optional<TensorStats>> m_stats;
    int m_statsCount = 0;
};

} // namespace ckpt::ui
