// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/timeline.h"

#include <QAbstractTableModel>

#include <optional>
#include <unordered_map>
#include <vector>

namespace ckpt::ui {

/**
 * The checkpoints of a run (the Run panel's list): one row per checkpoint as listed, in training
 * order, with its step or epoch, the train loss logged there, its size and whether the timeline could
 * read it (the error as tooltip). Rows come from the cheap listing; the state of each row follows the
 * timeline as it is computed (matched by file, so a listing that grew keeps what was read). The
 * optimizer column gives the optimizer forensics of each checkpoint (core/optim/forensics):
 * "ok", or the number of suspect parameters and the worst flag among them, tinted; its figures in the
 * tooltip. It is filled as the Run panel computes them, matched by file as well.
 */
class RunCheckpointModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IndexColumn, StepColumn, LossColumn, SizeColumn, TensorsColumn, OptimizerColumn, StatusColumn, ColumnCount };
    /** Qt::UserRole on any column: the row's index into the run's points. */
    static constexpr int PointRole = Qt::UserRole;

    explicit RunCheckpointModel(QObject* parent = nullptr);

    /** The listed checkpoints; known states are kept for files still listed. */
    void setPoints(const std::vector<RunPoint>& points);
    /** The timeline's view of the checkpoints (all or those read so far). */
    void setStates(const std::vector<TimelineCheckpoint>& checkpoints);
    void setFirstBad(std::optional<size_t> index);

    /** One checkpoint's optimizer forensics, reduced to what the list shows. */
    struct Optimizer {
        bool available = false;        ///< false: no optimizer state, or it could not be read (why: error)
        QString error;
        size_t parameters = 0;
        size_t suspects = 0;
        QString worstFlag;             ///< the worst flag of any parameter (flagSeverity), empty when none
        QString worstParam;            ///< the path of the first suspect (the worst, ranked as ckpt optimizer ranks)
        QStringList flags;             ///< every flag that occurs, worst first
        std::optional<double> maxStep;        ///< the largest effective step of any parameter (Adam family)
        std::optional<double> maxMomentRms;   ///< the largest RMS of m̂ (or the SGD velocity)
        std::optional<double> maxMomentRatio; ///< the largest m̂ RMS / max(parameter RMS, 1)
    };
    /** The forensics of the checkpoint whose file is \a file (RunPoint::file); unknown files are ignored. */
    void setOptimizer(const std::string& file, const Optimizer& optimizer);
    /** Computed (not necessarily available) for that row. */
    const Optimizer* optimizerOf(int row) const;
    void clear();

    const RunPoint& point(int row) const { return m_points.at(size_t(row)); }
    int pointCount() const { return int(m_points.size()); }
    /** Read and valid (true), read and invalid (false), not read yet (nullopt). */
    std::optional<bool> isValid(int row) const;
    QString errorOf(int row) const;
    /** "record-800" (the file name without its extension) */
    static QString checkpointName(const RunPoint& p);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static QVariant optimizerData(const Optimizer* o, int role);
    struct State {
        bool valid = true;
        bool fromCache = false;
        uint64_t tensors = 0;
        QString error;
    };
    std::vector<RunPoint> m_points;
    std::vector<std::optional<State>> m_states;
    std::unordered_map<std::string, Optimizer> m_optimizer; ///< by RunPoint::file
    std::optional<size_t> m_firstBad;
    bool m_epochs = false;   ///< the step column shows epochs (burn-train checkpoints)
};

} // namespace ckpt::ui
