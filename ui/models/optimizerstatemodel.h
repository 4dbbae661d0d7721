// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/workspace.h"

#include "core/optim/forensics.h"

#include <QAbstractItemModel>

#include <map>

namespace ckpt::ui {

class CheckpointDocument;

/**
 * Optimizer entries (one per parameter) with their state tensors as children, and what the
 * optimizer forensics (core/optim/forensics) says of each once it has been computed.
 */
class OptimizerStateModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    // the forensics right after the name: what a researcher looking for a bad parameter reads first
    enum Column { NameColumn, FlagsColumn, EffectiveStepColumn, ModuleColumn, OptimizerColumn, TimeColumn, DetailColumn, IdColumn, NumColumns };
    explicit OptimizerStateModel(CheckpointDocument* doc, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    /** Top-level row of the entry for a parameter id, -1 if the optimizer has none. */
    int rowOfParam(const QString& id) const;
    const OptimizerEntry* entryAt(int row, int* record = nullptr) const;
    /** The forensics of one open record (its parameters in the record's optimizer order). */
    void setForensics(int record, OptimizerForensics forensics);
    /** The forensics of a top-level row, when computed. */
    const ParamForensics* forensicsAt(int row) const;

private:
    void reset();
    CheckpointDocument* const m_doc;
    std::vector<std::pair<int, size_t>> m_entries; ///< (record, index into Record::optimizer)
    std::vector<QString> m_names;                  ///< the parameter's module name per entry
    std::map<int, OptimizerForensics> m_forensics; ///< by record, as computed
};

} // namespace ckpt::ui
