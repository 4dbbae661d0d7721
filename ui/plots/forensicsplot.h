// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

namespace ckpt::ui {

class RunCheckpointModel;

/**
 * The Run panel's optimizer forensics per checkpoint (x: its row in the list), on a log scale since
 * both figures span decades: graph 0 the largest m̂ RMS / max(‖w‖ RMS, 1) with exploded_moments'
 * threshold as a dashed line, graph 1 the largest effective step.
 */
class RunForensicsPlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit RunForensicsPlot(QWidget* parent = nullptr);
    /** Plots the forensics the list has so far, its steps or epochs as the x labels. */
    void showCheckpoints(const RunCheckpointModel& model);
};

} // namespace ckpt::ui
