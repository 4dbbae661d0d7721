// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QString;

namespace ckpt::ui {

class MainWindow;

/**
 * Waits until the window is idle (loaded, statistics and selections computed), raises \a panel,
 * grabs the window to \a outPng and quits the application (exit 0, or 1 if writing failed or the
 * wait timed out).
 */
void scheduleScreenshot(MainWindow* window, const QString& outPng, const QString& panel, bool expectLoad);

} // namespace ckpt::ui
