// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/commands/surgerycommand.h"

#include "ui/document/checkpointdocument.h"

namespace ckpt::ui {

SurgeryCommand::SurgeryCommand(CheckpointDocument* doc, Step step, const QString& text)
    : m_doc(doc)
    , m_step(std::move(step))
{
    setText(text);
}

void SurgeryCommand::undo()
{
    m_doc->revertSurgery(m_step);
}

void SurgeryCommand::redo()
{
    m_doc->applySurgery(m_step);
}

} // namespace ckpt::ui
