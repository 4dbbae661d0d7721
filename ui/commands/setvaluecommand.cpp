// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/commands/setvaluecommand.h"

#include "ui/document/checkpointdocument.h"

#include <QCoreApplication>

namespace ckpt::ui {

SetValueCommand::SetValueCommand(CheckpointDocument* doc, int record, uint32_t node, QVariant oldValue,
    QVariant newValue, const QString& path)
    : m_doc(doc)
    , m_record(record)
    , m_node(node)
    , m_old(std::move(oldValue))
    , m_new(std::move(newValue))
{
    setText(QCoreApplication::translate("Undo Commands", "Set %1 to %2").arg(path, m_new.toString()));
}

void SetValueCommand::undo()
{
    m_doc->applyValue(m_record, m_node, m_old);
}

void SetValueCommand::redo()
{
    m_doc->applyValue(m_record, m_node, m_new);
}

bool SetValueCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const SetValueCommand*>(other);
    if (o->m_doc != m_doc || o->m_record != m_record || o->m_node != m_node)
        return false;
    m_new = o->m_new;
    setText(o->text());
    setObsolete(m_new == m_old);
    return true;
}

} // namespace ckpt::ui
