// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/recordtreemodel.h"

#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"

#include <QFileInfo>
#include <QFont>

namespace ckpt::ui {

namespace {
constexpr uint32_t None = UINT32_MAX;
}

RecordTreeModel::RecordTreeModel(CheckpointDocument* doc, Mode mode, QObject* parent)
    : QAbstractItemModel(parent)
    , m_doc(doc)
    , m_mode(mode)
{
    connect(doc, &CheckpointDocument::workspaceChanged, this, &RecordTreeModel::reset);
    connect(doc, &CheckpointDocument::valueChanged, this, [this](int record, uint32_t node) {
        const QModelIndex i = indexOfNode(record, node);
        if (i.isValid())
            Q_EMIT dataChanged(i.siblingAtColumn(ValueColumn), i.siblingAtColumn(ValueColumn));
    });
    reset();
}

void RecordTreeModel::reset()
{
    beginResetModel();
    m_roots.clear();
    const Workspace& ws = m_doc->workspace();
    for (size_t r = 0; r < ws.records.size(); ++r) {
        const Record& rec = *ws.records[r].record;
        if (rec.tape.empty())
            continue;
        switch (m_mode) {
        case Mode::Records: m_roots.push_back({int(r), rec.tape.root()}); break;
        case Mode::CallerState:
            if (rec.stateNode)
                m_roots.push_back({int(r), *rec.stateNode});
            break;
        case Mode::Scheduler:
            if (rec.schedulerNode)
                m_roots.push_back({int(r), *rec.schedulerNode});
            break;
        }
    }
    endResetModel();
}

int RecordTreeModel::recordOf(const QModelIndex& index)
{
    return int(quint64(index.internalId()) >> 32);
}

uint32_t RecordTreeModel::nodeOf(const QModelIndex& index)
{
    return uint32_t(quint64(index.internalId()) & 0xffffffffu);
}

QModelIndex RecordTreeModel::make(int row, int column, int record, uint32_t node) const
{
    return createIndex(row, column, quintptr((quint64(uint32_t(record)) << 32) | node));
}

int RecordTreeModel::rootRow(int record, uint32_t node) const
{
    for (size_t i = 0; i < m_roots.size(); ++i)
        if (m_roots[i].first == record && m_roots[i].second == node)
            return int(i);
    return -1;
}

QModelIndex RecordTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= NumColumns)
        return {};
    if (!parent.isValid()) {
        if (size_t(row) >= m_roots.size())
            return {};
        return make(row, column, m_roots[size_t(row)].first, m_roots[size_t(row)].second);
    }
    const int rec = recordOf(parent);
    const uint32_t node = nodeOf(parent);
    const TapeIndex& ix = *m_doc->workspace().records[size_t(rec)].index;
    if (ix.firstChild[node] == None || uint32_t(row) >= ix.childCount(node))
        return {};
    return make(row, column, rec, ix.child(node, uint32_t(row)));
}

QModelIndex RecordTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const int rec = recordOf(child);
    const uint32_t node = nodeOf(child);
    if (rootRow(rec, node) >= 0)
        return {};
    const TapeIndex& ix = *m_doc->workspace().records[size_t(rec)].index;
    const uint32_t p = ix.parent[node];
    if (p == None)
        return {};
    const int rr = rootRow(rec, p);
    if (rr >= 0)
        return make(rr, 0, rec, p);
    return make(int(ix.row[p]), 0, rec, p);
}

int RecordTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_roots.size());
    if (parent.column() != 0)
        return 0;
    const TapeIndex& ix = *m_doc->workspace().records[size_t(recordOf(parent))].index;
    const uint32_t node = nodeOf(parent);
    return ix.firstChild[node] == None ? 0 : int(ix.childCount(node));
}

int RecordTreeModel::columnCount(const QModelIndex&) const
{
    return NumColumns;
}

QString RecordTreeModel::nameOf(int record, uint32_t node) const
{
    const LoadedRecord& lr = m_doc->workspace().records[size_t(record)];
    const Record& rec = *lr.record;
    if (rootRow(record, node) >= 0) {
        switch (m_mode) {
        case Mode::Records:
            // a record opened with "Open Damaged File…" says so where the user looks first
            return QFileInfo(lr.path).fileName() + (rec.damage.empty() ? QString() : tr(" — DAMAGED, partial view"));
        case Mode::CallerState: return tr("caller state (%1)").arg(QFileInfo(lr.path).fileName());
        case Mode::Scheduler: return tr("scheduler (%1)").arg(QFileInfo(lr.path).fileName());
        }
    }
    const TapeIndex& ix = *lr.index;
    QString name = ix.keyOf[node] != None ? qs(rec.tape.keyText(ix.keyOf[node]))
                                         : QStringLiteral("[%1]").arg(ix.row[node]);
    if (rec.moduleNode == node)
        name += tr(" (module)");
    else if (rec.optimizerNode == node)
        name += tr(" (optimizer)");
    else if (rec.schedulerNode == node)
        name += tr(" (scheduler)");
    else if (rec.gradientsNode == node)
        name += tr(" (gradients)");
    else if (rec.stateNode == node)
        name += tr(" (caller state)");
    return name;
}

QString RecordTreeModel::pathOf(int record, uint32_t node) const
{
    return qs(nodePath(m_doc->workspace().records[size_t(record)], node));
}

QVariant RecordTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const int record = recordOf(index);
    const uint32_t node = nodeOf(index);
    const LoadedRecord& lr = m_doc->workspace().records[size_t(record)];
    const Record& rec = *lr.record;
    const Node& n = rec.tape[node];
    const int tensor = lr.index->tensorAt[node];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case NameColumn: return nameOf(record, node);
        case TypeColumn:
            if (tensor >= 0)
                return tr("tensor");
            return QString::fromLatin1(kindName(n.kind));
        case ValueColumn:
            if (tensor >= 0) {
                const TensorEntry& t = rec.tensors[size_t(tensor)];
                return QString(qs(t.dtypeLabel()) + QLatin1Char(' ') + formatShape(t.shape) + QLatin1Char(' ') + qs(tensorRoleName(t.role))
                    + (t.paramId.empty() ? QString() : QString(QStringLiteral(" id=") + qs(t.paramId))));
            }
            switch (n.kind) {
            case Kind::Map: return tr("{%n entries}", "", int(n.count));
            case Kind::Array: return tr("[%n items]", "", int(n.count));
            case Kind::Bin: return tr("<%1 bytes>").arg(qulonglong(n.count));
            case Kind::Nil: return QStringLiteral("null");
            case Kind::F32:
            case Kind::F64: return formatNumber(m_doc->value(record, node).toDouble());
            case Kind::Bool: return m_doc->value(record, node).toBool() ? QStringLiteral("true") : QStringLiteral("false");
            default: return m_doc->value(record, node).toString();
            }
        }
        return {};
    case Qt::FontRole:
        if (index.column() == ValueColumn && m_mode != Mode::Records && m_doc->isEditable(record, node)) {
            QFont f;
            f.setBold(m_doc->value(record, node) != scalarValue(rec.tape, node));
            return f;
        }
        return {};
    case Qt::ToolTipRole: return pathOf(record, node);
    case RawValueRole: return m_doc->value(record, node);
    case SortRole: return index.column() == NameColumn ? QVariant(nameOf(record, node)) : m_doc->value(record, node);
    case TensorKeyRole: return tensor >= 0 ? TensorRef{record, tensor}.key() : QString();
    case ParamIdRole: return tensor >= 0 ? qs(rec.tensors[size_t(tensor)].paramId) : QString();
    case NodeKeyRole: return QString(QString::number(record) + QLatin1Char(':') + QString::number(node));
    default: return {};
    }
}

QVariant RecordTreeModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case TypeColumn: return tr("Type");
    case ValueColumn: return tr("Value");
    default: return {};
    }
}

Qt::ItemFlags RecordTreeModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (m_mode != Mode::Records && index.column() == ValueColumn
        && m_doc->isEditable(recordOf(index), nodeOf(index)))
        f |= Qt::ItemIsEditable;
    if (rowCount(index) == 0)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

bool RecordTreeModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    // Never mutate here: the document validates and pushes an undo command.
    m_lastError = m_doc->requestEdit(recordOf(index), nodeOf(index), value.toString(),
        pathOf(recordOf(index), nodeOf(index)));
    return m_lastError.isEmpty();
}

QModelIndex RecordTreeModel::indexOfNode(int record, uint32_t node) const
{
    if (record < 0 || size_t(record) >= m_doc->workspace().records.size())
        return {};
    const int rr = rootRow(record, node);
    if (rr >= 0)
        return make(rr, 0, record, node);
    const TapeIndex& ix = *m_doc->workspace().records[size_t(record)].index;
    if (node >= ix.parent.size())
        return {};
    // only nodes below one of our roots are shown
    for (uint32_t p = ix.parent[node]; p != None; p = ix.parent[p])
        if (rootRow(record, p) >= 0)
            return make(int(ix.row[node]), 0, record, node);
    return {};
}

} // namespace ckpt::ui
