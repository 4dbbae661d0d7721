// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCustomPlot;
class QProgressBar;

namespace ckpt::ui {

/*
 * Two Qt calls paint synchronously: QProgressBar::setValue (repaint() once the bar moved a pixel)
 * and QCustomPlot::replot() (repaint() under its default hint phImmediateRefresh). A repaint of one
 * widget syncs the whole window's backing store, so every region made dirty since the last paint
 * (a table that just received statistics, a dock laid out again) is painted there and then, inside
 * the progress signal or the replot, instead of once per event-loop turn. While a large record
 * opened, these synchronous paints were a fifth of the GUI thread's work and chained its events
 * into the longest stall. These helpers keep the value or the plot but leave painting to the
 * next UpdateRequest, where Qt coalesces it with everything else.
 */

/** Sets the bar's value and schedules its paint (update()), never painting synchronously. */
void setProgressDeferred(QProgressBar* bar, int value);

/** Makes the plot's replot() schedule its paint (update()) instead of repainting at once. */
void deferPlotRefresh(QCustomPlot* plot);

} // namespace ckpt::ui
