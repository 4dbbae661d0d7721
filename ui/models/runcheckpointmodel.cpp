// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/runcheckpointmodel.h"

#include <cmath>

#include "ui/models/formatting.h"

#include "core/model/recorder.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>
#include <QFont>

#include <algorithm>
#include <unordered_map>

namespace ckpt::ui {

RunCheckpointModel::RunCheckpointModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

QString RunCheckpointModel::checkpointName(const RunPoint& p)
{
    const std::string name = QFileInfo(qs(p.file)).fileName().toStdString();
    return qs(withoutRecordExtension(name));
}

void RunCheckpointModel::setPoints(const std::vector<RunPoint>& points)
{
    std::unordered_map<std::string, std::optional<State>> known;
    for (size_t i = 0; i < m_points.size(); ++i)
        if (m_states[i])
            known.emplace(m_points[i].file, m_states[i]);
    const bool epochs = !points.empty() && std::ranges::all_of(points, [](const RunPoint& p) { return !p.step && p.epoch; });
    // a listing that only grew keeps the rows: appended rows, not a reset (the selection stays)
    bool grew = points.size() >= m_points.size() && epochs == m_epochs;
    for (size_t i = 0; grew && i < m_points.size(); ++i)
        grew = points[i].file == m_points[i].file;
    if (grew) {
        const int before = int(m_points.size());
        for (size_t i = 0; i < m_points.size(); ++i)
            m_points[i] = points[i];
        if (before > 0)
            Q_EMIT dataChanged(index(0, 0), index(before - 1, ColumnCount - 1));
        if (points.size() > m_points.size()) {
            beginInsertRows({}, before, int(points.size()) - 1);
            m_points.insert(m_points.end(), points.begin() + before, points.end());
            m_states.resize(m_points.size());
            endInsertRows();
        }
        return;
    }
    beginResetModel();
    m_points = points;
    m_epochs = epochs;
    m_states.assign(m_points.size(), std::nullopt);
    for (size_t i = 0; i < m_points.size(); ++i)
        if (auto it = known.find(m_points[i].file); it != known.end())
            m_states[i] = it->second;
    endResetModel();
}

void RunCheckpointModel::setStates(const std::vector<TimelineCheckpoint>& checkpoints)
{
    std::unordered_map<std::string, size_t> rowOf;
    for (size_t i = 0; i < m_points.size(); ++i)
        rowOf.emplace(m_points[i].file, i);
    for (const TimelineCheckpoint& c : checkpoints) {
        if (c.point.file.empty())
            continue; // not read yet
        auto it = rowOf.find(c.point.file);
        if (it == rowOf.end())
            continue;
        m_states[it->second] = State{c.valid, c.fromCache, c.tensors, qs(c.error)};
    }
    if (!m_points.empty())
        Q_EMIT dataChanged(index(0, TensorsColumn), index(rowCount() - 1, StatusColumn));
}

void RunCheckpointModel::setOptimizer(const std::string& file, const Optimizer& optimizer)
{
    m_optimizer[file] = optimizer;
    for (size_t i = 0; i < m_points.size(); ++i)
        if (m_points[i].file == file)
            Q_EMIT dataChanged(index(int(i), OptimizerColumn), index(int(i), OptimizerColumn));
}

const RunCheckpointModel::Optimizer* RunCheckpointModel::optimizerOf(int row) const
{
    if (row < 0 || size_t(row) >= m_points.size())
        return nullptr;
    auto it = m_optimizer.find(m_points[size_t(row)].file);
    return it == m_optimizer.end() ? nullptr : &it->second;
}

void RunCheckpointModel::setFirstBad(std::optional<size_t> index)
{
    m_firstBad = index;
    if (!m_points.empty())
        Q_EMIT dataChanged(this->index(0, 0), this->index(rowCount() - 1, ColumnCount - 1));
}

void RunCheckpointModel::clear()
{
    beginResetModel();
    m_points.clear();
    m_states.clear();
    m_optimizer.clear();
    m_firstBad.reset();
    endResetModel();
}

std::optional<bool> RunCheckpointModel::isValid(int row) const
{
    if (row < 0 || size_t(row) >= m_states.size() || !m_states[size_t(row)])
        return std::nullopt;
    return m_states[size_t(row)]->valid;
}

QString RunCheckpointModel::errorOf(int row) const
{
    return row >= 0 && size_t(row) < m_states.size() && m_states[size_t(row)] ? m_states[size_t(row)]->error : QString();
}

int RunCheckpointModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_points.size());
}

int RunCheckpointModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunCheckpointModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_points.size())
        return {};
    const RunPoint& p = m_points[size_t(index.row())];
    const std::optional<State>& st = m_states[size_t(index.row())];
    const bool bad = m_firstBad && *m_firstBad == size_t(index.row());
    if (index.column() == OptimizerColumn && role != PointRole)
        return optimizerData(optimizerOf(index.row()), role);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn: return QString::number(p.index);
        case StepColumn:
            if (m_epochs)
                return p.epoch ? QString::number(*p.epoch) : QString();
            return p.step ? QString::number(*p.step) : p.epoch ? tr("epoch %1").arg(*p.epoch) : QString();
        case LossColumn: // four digits fit the column; the tooltip and the plot have the rest
            return p.loss ? (std::isfinite(*p.loss) ? QString::number(*p.loss, 'g', 4) : formatNumber(*p.loss)) : QString();
        case SizeColumn: return formatBytes(p.bytes);
        case TensorsColumn: return st && st->valid ? QString::number(st->tensors) : QString();
        case StatusColumn:
            if (!st)
                return tr("…");
            return QString((st->valid ? tr("valid") : tr("INVALID")) + (bad ? tr(" · first bad") : QString()));
        }
        break;
    case Qt::ToolTipRole: {
        QString t = qs(p.file);
        if (st && !st->valid)
            t += QLatin1Char('\n') + st->error;
        else if (st)
            t += QLatin1Char('\n') + (st->fromCache ? tr("statistics from the timeline cache") : tr("read now"));
        else
            t += QLatin1Char('\n') + tr("not read yet");
        if (bad)
            t += QLatin1Char('\n') + tr("the first bad checkpoint (bisect)");
        return t;
    }
    case Qt::ForegroundRole:
        if (st && !st->valid)
            return QBrush(QColor(170, 0, 0));
        if (!st)
            return QBrush(QColor(130, 130, 130));
        break;
    case Qt::BackgroundRole:
        if (bad)
            return QBrush(QColor(255, 214, 214));
        if (st && !st->valid)
            return QBrush(QColor(255, 236, 236));
        break;
    case Qt::FontRole:
        if (bad) {
            QFont f;
            f.setBold(true);
            return f;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != StatusColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case PointRole: return int(p.index);
    default: break;
    }
    return {};
}

QVariant RunCheckpointModel::optimizerData(const Optimizer* o, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        if (!o)
            return tr("…");
        if (!o->available)
            return tr("–");
        if (o->suspects == 0)
            return tr("ok");
        return tr("%1 · %2").arg(o->suspects).arg(o->worstFlag);
    case Qt::ToolTipRole: {
        if (!o)
            return tr("optimizer forensics: not computed yet");
        if (!o->available)
            return tr("optimizer forensics: %1").arg(o->error);
        QStringList lines;
        lines << tr("optimizer forensics (ckpt optimizer): %1 of %2 parameters suspect").arg(o->suspects).arg(o->parameters);
        if (o->suspects > 0) {
            lines << tr("worst: %1 (%2)").arg(o->worstFlag, o->worstParam);
            lines << tr("flags: %1").arg(o->flags.join(QStringLiteral(", ")));
        }
        if (o->maxStep)
            lines << tr("largest effective step |m̂|/(√v̂+ε): %1").arg(formatNumber(*o->maxStep));
        if (o->maxMomentRms)
            lines << tr("largest first-moment RMS: %1").arg(formatNumber(*o->maxMomentRms));
        if (o->maxMomentRatio)
            lines << tr("largest first-moment RMS / max(parameter RMS, 1): %1").arg(formatNumber(*o->maxMomentRatio));
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::ForegroundRole:
        if (!o || !o->available)
            return QBrush(QColor(130, 130, 130));
        if (o->suspects > 0)
            return QBrush(QColor(150, 0, 0));
        break;
    case Qt::BackgroundRole:
        if (o && o->available && o->suspects > 0)
            return QBrush(QColor(255, 226, 200));
        break;
    case Qt::TextAlignmentRole: return int(Qt::AlignLeft | Qt::AlignVCenter);
    default: break;
    }
    return {};
}

QVariant RunCheckpointModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IndexColumn: return tr("#");
    case StepColumn: return m_epochs ? tr("epoch") : tr("step");
    case LossColumn: return tr("train loss");
    case SizeColumn: return tr("size");
    case TensorsColumn: return tr("tensors");
    case OptimizerColumn: return tr("optimizer");
    case StatusColumn: return tr("status");
    }
    return {};
}

} // namespace ckpt::ui
