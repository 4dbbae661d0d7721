// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QUndoCommand>
#include <QVariant>

namespace ckpt::ui {

class CheckpointDocument;

enum UndoCommandId { Cmd_SetStateValue = 1 };

/** Sets one scalar of the continuation state; consecutive edits of the same node merge into one step. */
class SetValueCommand final : public QUndoCommand
{
public:
    SetValueCommand(CheckpointDocument* doc, int record, uint32_t node, QVariant oldValue, QVariant newValue,
        const QString& path);
    void undo() override;
    void redo() override;
    int id() const override { return Cmd_SetStateValue; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    CheckpointDocument* m_doc;
    int m_record;
    uint32_t m_node;
    QVariant m_old, m_new;
};

} // namespace ckpt::ui
