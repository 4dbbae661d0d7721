// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/loadedrecord.h"

#include "core/edit/patch.h"

#include <QHash>
#include <QUndoCommand>
#include <QVariant>

namespace ckpt::ui {

class CheckpointDocument;

/**
 * One step of checkpoint surgery (core/edit/patch.h) on an opened record: redo puts the patched
 * record in the workspace, undo the one before it, with the value edits it had. The patch itself was
 * computed in the background before the command was pushed (CheckpointDocument::requestSurgery);
 * both records are kept, so undo and redo only swap pointers.
 */
class SurgeryCommand final : public QUndoCommand
{
public:
    struct Step {
        int record = -1;
        LoadedRecord before, after;
        QHash<quint64, QVariant> editsBefore; ///< the value edits of \a record that were baked into the patch
        std::vector<PatchOp> ops;            ///< those edits as `set` operations, then the surgery
        std::vector<std::string> donorSha256; ///< per operation ("" except for transplants)
        std::string sourceSha256;            ///< the file's digest when this is the record's first surgery, else ""
    };
    SurgeryCommand(CheckpointDocument* doc, Step step, const QString& text);
    void undo() override;
    void redo() override;

private:
    CheckpointDocument* m_doc;
    Step m_step;
};

} // namespace ckpt::ui
