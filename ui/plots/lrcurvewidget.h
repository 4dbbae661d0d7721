// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/schedule.h"

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLabel;

namespace ckpt::ui {

/**
 * The learning-rate curve a record's scheduler follows from the record's position (core's
 * learningRateSchedule): the reconstructed steps before the record in grey, the steps ahead in blue,
 * the record's position marked. For records that do not store the scheduler configuration the
 * plot is hidden and core's sentence is shown instead.
 */
class LearningRateCurveWidget : public QWidget
{
    Q_OBJECT
public:
    explicit LearningRateCurveWidget(QWidget* parent = nullptr);
    /** Computes and shows the schedule of \a record (nullptr clears). */
    void setRecord(const Record* record);
    /** What the header says: the schedule's summary or the core's error. */
    QString message() const;
    bool hasCurve() const { return m_hasCurve; }
    QCustomPlot* plot() const { return m_plot; }
    /** Steps predicted ahead of the record and reconstructed before it. */
    int aheadCount() const;
    int behindCount() const;

    /** How far the curve reaches when the record does not say where the run stops. */
    static constexpr uint64_t DefaultAhead = 1000;
    /** Point budget for either side (the computation is cheap; the plot is what gets slow). */
    static constexpr uint64_t MaxPoints = 200000;

private:
    void rebuild();
    QLabel* m_summary;
    QCheckBox* m_log;
    QCustomPlot* m_plot;
    bool m_hasCurve = false;
    std::optional<LearningRateSchedule> m_schedule;
};

} // namespace ckpt::ui
