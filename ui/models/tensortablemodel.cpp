// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/tensortablemodel.h"

#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"

#include <QBrush>
#include <QFileInfo>

#include <iterator>

namespace ckpt::ui {

TensorTableModel::TensorTableModel(CheckpointDocument* doc, QObject* parent)
    : QAbstractTableModel(parent)
    , m_doc(doc)
{
    connect(doc, &CheckpointDocument::workspaceChanged, this, &TensorTableModel::reset);
    reset();
}

void TensorTableModel::reset()
{
    beginResetModel();
    m_rows.clear();
    m_names.clear();
    const Workspace& ws = m_doc->workspace();
    for (size_t r = 0; r < ws.records.size(); ++r) {
        for (size_t t = 0; t < ws.records[r].record->tensors.size(); ++t)
            m_rows.push_back({int(r), int(t)});
        std::vector<QString> names = ws.tensorNames(int(r));
        std::move(names.begin(), names.end(), std::back_inserter(m_names));
    }
    m_stats.assign(m_rows.size(), std::nullopt);
    m_statsCount = 0;
    endResetModel();
}

int TensorTableModel::rowOf(TensorRef ref) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i] == ref)
            return int(i);
    return -1;
}

void TensorTableModel::setStats(int row, const TensorStats& stats)
{
    setStats(StatsBatch{{row, stats}});
}

void TensorTableModel::setStats(const StatsBatch& batch)
{
    int runFirst = -1, runLast = -1;
    const auto flush = [&] {
        if (runFirst >= 0)
            Q_EMIT dataChanged(index(runFirst, MinColumn), index(runLast, InfColumn));
    };
    for (const StatsItem& item : batch) {
        if (item.row < 0 || size_t(item.row) >= m_stats.size())
            continue;
        if (!m_stats[size_t(item.row)])
            ++m_statsCount;
        m_stats[size_t(item.row)] = item.stats;
        if (item.row != runLast + 1 || runFirst < 0) {
            flush();
            runFirst = item.row;
        }
        runLast = item.row;
    }
    flush();
}

int TensorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const Workspace& ws = m_doc->workspace();
    const TensorRef ref = m_rows[size_t(index.row())];
    const TensorEntry& t = *ws.tensor(ref);
    const auto& st = m_stats[size_t(index.row())];
    const bool statColumn = index.column() >= MinColumn && index.column() <= InfColumn;
    if (role == Qt::DisplayRole || role == SortRole || role == RawValueRole) {
        const bool display = role == Qt::DisplayRole;
        switch (index.column()) {
        case NameColumn: return m_names[size_t(index.row())];
        case PathColumn: {
            QString p = qs(t.path);
            if (display && ws.records.size() > 1)
                p = QFileInfo(ws.records[size_t(ref.record)].path).fileName() + QStringLiteral(": ") + p;
            return p;
        }
        case RoleColumn: return qs(tensorRoleName(t.role)); // the state's name is part of NameColumn
        case DTypeColumn: return qs(t.dtypeLabel());
        case ShapeColumn: return display ? QVariant(formatShape(t.shape)) : QVariant(qulonglong(t.shape.size()));
        case NumelColumn: return display ? QVariant(formatCount(t.numel)) : QVariant(qulonglong(t.numel));
        case BytesColumn: return display ? QVariant(formatBytes(t.bytes)) : QVariant(qulonglong(t.bytes));
        default: break;
        }
        if (!statColumn)
            return {};
        if (!st)
            return display ? QVariant(QStringLiteral("…")) : QVariant();
        double v = 0;
        switch (index.column()) {
        case MinColumn: v = st->min; break;
        case MaxColumn: v = st->max; break;
        case MeanColumn: v = st->mean; break;
        case StdColumn: v = st->std; break;
        case NanColumn: return display ? QVariant(formatCount(st->nan)) : QVariant(qulonglong(st->nan));
        case InfColumn: return display ? QVariant(formatCount(st->inf)) : QVariant(qulonglong(st->inf));
        default: return {};
        }
        return display ? QVariant(formatNumber(v)) : QVariant(v);
    }
    switch (role) {
    case Qt::TextAlignmentRole:
        return index.column() >= NumelColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        if (statColumn && st && (st->nan > 0 || st->inf > 0))
            return QBrush(Qt::red);
        return {};
    case Qt::ToolTipRole: return QString(QFileInfo(ws.records[size_t(ref.record)].path).fileName() + QStringLiteral(": ") + qs(t.path));
    case TensorKeyRole: return ref.key();
    case ParamIdRole: return qs(t.paramId);
    default: return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {
        QT_TR_NOOP("Name"), QT_TR_NOOP("Role"), QT_TR_NOOP("DType"), QT_TR_NOOP("Shape"), QT_TR_NOOP("Numel"),
        QT_TR_NOOP("Bytes"), QT_TR_NOOP("Min"), QT_TR_NOOP("Max"), QT_TR_NOOP("Mean"), QT_TR_NOOP("Std"),
        QT_TR_NOOP("NaN"), QT_TR_NOOP("Inf"), QT_TR_NOOP("Path")};
    return section >= 0 && section < NumColumns ? tr(names[section]) : QVariant();
}

} // namespace ckpt::ui
