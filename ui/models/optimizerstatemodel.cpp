// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/optimizerstatemodel.h"

#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"

#include <QColor>

namespace ckpt::ui {

OptimizerStateModel::OptimizerStateModel(CheckpointDocument* doc, QObject* parent)
    : QAbstractItemModel(parent)
    , m_doc(doc)
{
    connect(doc, &CheckpointDocument::workspaceChanged, this, &OptimizerStateModel::reset);
    reset();
}

void OptimizerStateModel::reset()
{
    beginResetModel();
    m_entries.clear();
    m_names.clear();
    m_forensics.clear();
    const Workspace& ws = m_doc->workspace();
    const auto parameterNames = ws.parameterNames();
    for (size_t r = 0; r < ws.records.size(); ++r)
        for (size_t e = 0; e < ws.records[r].record->optimizer.size(); ++e) {
            m_entries.push_back({int(r), e});
            const OptimizerEntry& oe = ws.records[r].record->optimizer[e];
            const auto name = parameterNames.find(oe.paramId);
            if (oe.paramId.empty()) // a PyTorch optimizer state whose link to the parameters is ambiguous: its own path
                m_names.push_back(tr("%1 (not linked to a parameter)").arg(qs(oe.path)));
            else
                m_names.push_back(name != parameterNames.end() ? name->second : QStringLiteral("param ") + qs(oe.paramId));
        }
    endResetModel();
}

const OptimizerEntry* OptimizerStateModel::entryAt(int row, int* record) const
{
    if (row < 0 || size_t(row) >= m_entries.size())
        return nullptr;
    const auto [r, e] = m_entries[size_t(row)];
    if (record)
        *record = r;
    return &m_doc->workspace().records[size_t(r)].record->optimizer[e];
}

void OptimizerStateModel::setForensics(int record, OptimizerForensics forensics)
{
    m_forensics[record] = std::move(forensics);
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].first == record)
            Q_EMIT dataChanged(index(int(i), FlagsColumn), index(int(i), EffectiveStepColumn));
}

const ParamForensics* OptimizerStateModel::forensicsAt(int row) const
{
    if (row < 0 || size_t(row) >= m_entries.size())
        return nullptr;
    const auto [r, e] = m_entries[size_t(row)];
    const auto it = m_forensics.find(r);
    return it != m_forensics.end() && e < it->second.parameters.size() ? &it->second.parameters[e] : nullptr;
}

int OptimizerStateModel::rowOfParam(const QString& id) const
{
    const std::string s = id.toStdString();
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (entryAt(int(i))->paramId == s)
            return int(i);
    return -1;
}

QModelIndex OptimizerStateModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= NumColumns)
        return {};
    if (!parent.isValid())
        return size_t(row) < m_entries.size() ? createIndex(row, column, quintptr(quint64(row + 1) << 32)) : QModelIndex();
    if (parent.internalId() & 0xffffffffu)
        return {};
    const OptimizerEntry* e = entryAt(parent.row());
    if (!e || size_t(row) >= e->tensors.size())
        return {};
    return createIndex(row, column, quintptr((quint64(parent.row() + 1) << 32) | quint64(row + 1)));
}

QModelIndex OptimizerStateModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || !(child.internalId() & 0xffffffffu))
        return {};
    const int row = int(quint64(child.internalId()) >> 32) - 1;
    return createIndex(row, 0, quintptr(quint64(row + 1) << 32));
}

int OptimizerStateModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_entries.size());
    if (parent.column() != 0 || (parent.internalId() & 0xffffffffu))
        return 0;
    const OptimizerEntry* e = entryAt(parent.row());
    return e ? int(e->tensors.size()) : 0;
}

int OptimizerStateModel::columnCount(const QModelIndex&) const
{
    return NumColumns;
}

QVariant OptimizerStateModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const bool isChild = index.internalId() & 0xffffffffu;
    const int entryRow = isChild ? int(quint64(index.internalId()) >> 32) - 1 : index.row();
    int record = -1;
    const OptimizerEntry* e = entryAt(entryRow, &record);
    if (!e)
        return {};
    const Workspace& ws = m_doc->workspace();
    if (role == ParamIdRole)
        return qs(e->paramId);
    if (isChild) {
        const size_t t = e->tensors[size_t(index.row())];
        const TensorEntry& te = ws.records[size_t(record)].record->tensors[t];
        if (role == TensorKeyRole)
            return TensorRef{record, int(t)}.key();
        if (role != Qt::DisplayRole && role != SortRole)
            return {};
        switch (index.column()) {
        case NameColumn: return te.stateName.empty() ? qs(te.path) : qs(te.stateName);
        case DetailColumn: return QString(qs(te.dtypeLabel()) + QLatin1Char(' ') + formatShape(te.shape));
        default: return {};
        }
    }
    if (role == TensorKeyRole) {
        const auto tensors = ws.tensorsOfParam(e->paramId);
        return tensors.empty() ? QString() : tensors.front().key();
    }
    if (role == Qt::ToolTipRole && index.column() == NameColumn) {
        if (!e->paramId.empty())
            return tr("parameter id %1").arg(qs(e->paramId));
        // why the state is not linked: the record says so (a PyTorch file's order-and-shape link)
        QStringList why;
        for (const auto& w : ws.records[size_t(record)].record->warnings)
            why << qs(w);
        return why.isEmpty() ? tr("no parameter id") : why.join(QLatin1Char('\n'));
    }
    const ParamForensics* f = forensicsAt(entryRow);
    if (index.column() == FlagsColumn && f) {
        if (role == Qt::BackgroundRole && !f->flags.empty())
            return QColor(248, 212, 212); // a suspect stands out as a removed diff row does
        if (role == Qt::ToolTipRole)
            return tr("dead moments %1 · v at the ε² floor %2 · non-finite elements %3 · mean g²/v̂ %4")
                .arg(f->deadFraction ? formatNumber(*f->deadFraction) : tr("—"), f->vFloorFraction ? formatNumber(*f->vFloorFraction) : tr("—"))
                .arg(f->nonfinite)
                .arg(f->g2OverV ? formatNumber(*f->g2OverV) : tr("—"));
    }
    if (index.column() == EffectiveStepColumn && f && f->effectiveStep && role == Qt::ToolTipRole)
        return tr("|m̂/(√v̂+ε)|: mean %1, max %2, saturated (≥ 0.99) %3 of the elements")
            .arg(formatNumber(f->effectiveStep->mean), formatNumber(f->effectiveStep->max), formatNumber(f->effectiveStep->saturated));
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case NameColumn: return m_names[size_t(entryRow)];
    case ModuleColumn: {
        if (auto p = ws.findParam(e->paramId))
            return qs(ws.records[size_t(p->first)].record->params[p->second].modulePath);
        return tr("(no parameter in the opened files)");
    }
    case OptimizerColumn: return QString(qs(e->optimizer) + QStringLiteral(" rank ") + QString::number(e->rank));
    case TimeColumn: return e->time ? QVariant(qulonglong(*e->time)) : QVariant();
    case FlagsColumn: {
        if (!f)
            return {};
        QStringList flags;
        for (const auto& flag : f->flags)
            flags << qs(flag);
        return flags.isEmpty() ? tr("ok") : flags.join(QStringLiteral(", "));
    }
    case EffectiveStepColumn:
        if (!f || !f->effectiveStep)
            return {};
        if (role == SortRole)
            return f->effectiveStep->mean;
        return tr("%1 (max %2)").arg(formatNumber(f->effectiveStep->mean), formatNumber(f->effectiveStep->max));
    case DetailColumn: return e->amsgrad ? tr("AMSGrad (max_moment_2)") : QString();
    case IdColumn: return qs(e->paramId);
    default: return {};
    }
}

QVariant OptimizerStateModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Parameter / state");
    case ModuleColumn: return tr("Module path");
    case OptimizerColumn: return tr("Optimizer");
    case TimeColumn: return tr("Step (time)");
    case FlagsColumn: return tr("Forensics");
    case EffectiveStepColumn: return tr("Effective step");
    case DetailColumn: return tr("Detail");
    case IdColumn: return tr("Parameter id");
    default: return {};
    }
}

} // namespace ckpt::ui
