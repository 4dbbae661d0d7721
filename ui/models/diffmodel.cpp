// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/diffmodel.h"

#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"

#include "core/diff/diff.h"
#include "core/diff/graphdiff.h"
#include "core/graph/car.h"
#include "core/record/record.h"

#include <QBrush>

namespace ckpt::ui {

DiffModel::DiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

QColor DiffModel::tint(std::string_view status, bool renamed, bool precision)
{
    // what moved stands out, what did not stays plain
    if (precision)
        return QColor(228, 220, 245);
    if (renamed)
        return QColor(212, 228, 248);
    if (status == "added")
        return QColor(214, 244, 214);
    if (status == "removed")
        return QColor(248, 212, 212);
    if (status == "changed")
        return QColor(251, 232, 192);
    if (status == "shape_changed" || status == "dtype_changed")
        return QColor(246, 210, 178);
    if (status == "state")
        return QColor(236, 236, 236);
    return {};
}

void DiffModel::setRows(std::vector<DiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void DiffModel::clear()
{
    setRows({});
}

void DiffModel::setRecordDiff(const RecordDiff& d, std::shared_ptr<const Record> a, std::shared_ptr<const Record> b)
{
    std::vector<DiffRow> rows;
    rows.reserve(d.entries.size() + d.state.size());
    for (const auto& e : d.entries) {
        DiffRow r;
        r.path = qs(e.path);
        r.status = qs(diffStatusName(e.status));
        r.match = qs(matchKindName(e.match));
        if (e.precisionChange)
            r.note = tr("precision change");
        if (e.renamed())
            r.note = tr("renamed → %1").arg(qs(e.pathB));
        else if (e.reinitialised())
            r.note = tr("re-initialised: id %1 → %2").arg(qs(e.paramId), qs(e.paramIdB));
        else if (!e.pathB.empty())
            r.note = qs(e.pathB);
        if (e.byteEqual)
            r.note = r.note.isEmpty() ? tr("same bytes") : r.note + tr(" · same bytes");
        const bool transposed = e.layout == CrossLayout::Transposed;
        if (transposed) // a Linear weight across frameworks: compared, and shown, in A's layout
            r.note = r.note.isEmpty() ? tr("transposed") : r.note + tr(" · transposed");
        r.maxAbs = e.maxAbs;
        r.meanAbs = e.meanAbs;
        r.relL2 = e.relL2;
        r.cosine = e.cosine;
        if (e.a && e.b)
            r.above = double(e.differing);
        r.colour = tint(diffStatusName(e.status), e.renamed(), e.precisionChange);
        const size_t ia = e.a.value_or(size_t(-1)), ib = e.b.value_or(size_t(-1));
        r.reader = [a, b, ia, ib, transposed] {
            return readRecordPair(*a, ia, *b, ib, transposed);
        };
        rows.push_back(std::move(r));
    }
    for (const auto& s : d.state) {
        DiffRow r;
        r.path = qs(s.path);
        r.status = tr("state");
        r.match = qs(stateSectionName(s.section));
        r.note = tr("%1 → %2").arg(s.a ? qs(*s.a) : tr("(absent)"), s.b ? qs(*s.b) : tr("(absent)"));
        r.colour = tint("state");
        rows.push_back(std::move(r));
    }
    setRows(std::move(rows));
}

void DiffModel::setGraphDiff(const GraphDiff& d, std::shared_ptr<const CarStore> carA, std::shared_ptr<const CarStore> carB)
{
    std::vector<DiffRow> rows;
    for (const auto& n : d.nodes) {
        DiffRow r;
        r.path = qs(n.keyA.empty() ? n.keyB : n.keyA);
        r.keyA = qs(n.keyA);
        r.keyB = qs(n.keyB);
        r.status = qs(diffStatusName(n.status));
        r.match = n.match ? qs(nodeMatchName(*n.match)) : QString();
        QStringList notes;
        notes << (n.opChanged ? tr("%1 → %2").arg(qs(n.opA), qs(n.opB)) : qs(n.opA.empty() ? n.opB : n.opA));
        if (n.match == NodeMatch::OpPosition)
            notes << tr("B: %1").arg(qs(n.keyB));
        const CidSlotDiff* shown = nullptr; // the node's output stands for it in the numbers and the detail
        for (const auto& s : n.tensors) {
            if (s.changed())
                notes << tr("%1 %2").arg(qs(s.slot), qs(cidComparisonName(s.how)));
            if (!shown && s.slot == "output")
                shown = &s;
        }
        if (shown && shown->values) {
            r.maxAbs = shown->values->maxAbs;
            r.meanAbs = shown->values->meanAbs;
            r.relL2 = shown->values->relL2;
            r.cosine = shown->values->cosine;
            r.above = double(shown->values->differing);
        } else if (shown && !shown->changed()) {
            r.maxAbs = 0.0;
        }
        r.note = notes.join(QStringLiteral(" · "));
        r.colour = tint(diffStatusName(n.status));
        if (shown && shown->cidA && shown->cidB && carA && carB)
            r.reader = [carA, carB, ca = *shown->cidA, cb = *shown->cidB] { return readCarPair(*carA, ca, *carB, cb); };
        rows.push_back(std::move(r));
    }
    auto edgeRow = [](const std::string& from, const std::string& to, const QString& status) {
        DiffRow r;
        r.path = qs(from) + QStringLiteral(" → ") + qs(to);
        r.status = status;
        r.match = tr("edge");
        r.colour = tint(status.toStdString());
        return r;
    };
    for (const auto& [f, t] : d.edgesRemoved)
        rows.push_back(edgeRow(f, t, QStringLiteral("removed")));
    for (const auto& [f, t] : d.edgesAdded)
        rows.push_back(edgeRow(f, t, QStringLiteral("added")));
    for (const auto& o : d.optimizer) {
        if (o.status == DiffStatus::Unchanged)
            continue;
        DiffRow r;
        r.path = qs(o.key);
        r.status = qs(diffStatusName(o.status));
        r.match = tr("optimizer_state");
        r.colour = tint(diffStatusName(o.status));
        if (o.counterA && o.counterB)
            r.note = tr("%1 → %2").arg(*o.counterA).arg(*o.counterB);
        if (o.values) {
            r.maxAbs = o.values->maxAbs;
            r.meanAbs = o.values->meanAbs;
            r.relL2 = o.values->relL2;
            r.cosine = o.values->cosine;
        }
        rows.push_back(std::move(r));
    }
    setRows(std::move(rows));
}

int DiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const DiffRow& r = m_rows[size_t(index.row())];
    auto number = [&]() -> std::optional<double> {
        switch (index.column()) {
        case MaxAbsColumn: return r.maxAbs;
        case MeanAbsColumn: return r.meanAbs;
        case RelL2Column: return r.relL2;
        case CosineColumn: return r.cosine;
        case AboveColumn: return r.above;
        default: return std::nullopt;
        }
    };
    auto text = [&]() -> QString {
        switch (index.column()) {
        case PathColumn: return r.path;
        case StatusColumn: return r.status;
        case MatchColumn: return r.match;
        case NoteColumn: return r.note;
        default: {
            const auto v = number();
            return v ? formatNumber(*v) : QString();
        }
        }
    };
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        return text();
    case Qt::BackgroundRole:
        return r.colour.isValid() ? QBrush(r.colour) : QVariant();
    case SortRole: {
        // numbers sort by value; a row without one has no sort value (DiffFilterModel puts it below)
        if (index.column() >= MaxAbsColumn && index.column() <= AboveColumn) {
            const auto v = number();
            return v ? QVariant(*v) : QVariant();
        }
        return text();
    }
    case MovedRole:
        return r.colour.isValid(); // tinted rows are the ones that moved
    case NodeKeyARole:
        return r.keyA;
    case NodeKeyBRole:
        return r.keyB;
    default:
        return {};
    }
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case PathColumn: return tr("Path");
    case StatusColumn: return tr("Status");
    case MatchColumn: return tr("Matched by");
    case MaxAbsColumn: return tr("max |b−a|");
    case MeanAbsColumn: return tr("mean |b−a|");
    case RelL2Column: return tr("rel L2");
    case CosineColumn: return tr("cosine");
    case AboveColumn: return tr("above tol.");
    case NoteColumn: return tr("B / note");
    default: return {};
    }
}

DiffFilterModel::DiffFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
}

void DiffFilterModel::setChangesOnly(bool on)
{
    if (on == m_changesOnly)
        return;
    m_changesOnly = on;
    invalidateFilter();
}

bool DiffFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    return !m_changesOnly || sourceModel()->index(sourceRow, 0, sourceParent).data(MovedRole).toBool();
}

bool DiffFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant x = left.data(SortRole), y = right.data(SortRole);
    if (!x.isValid() || !y.isValid())
        return x.isValid() < y.isValid(); // rows without a number sort below the smallest change
    if (x.typeId() == QMetaType::Double && y.typeId() == QMetaType::Double)
        return x.toDouble() < y.toDouble();
    return x.toString() < y.toString(); // as the table sorted its text before it had a model
}

} // namespace ckpt::ui
