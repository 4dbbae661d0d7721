// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QApplication;

namespace ckpt::ui {

/**
 * Parses the command line (cli-contract.md, `checkpoint-inspector`), shows the window and runs the
 * event loop: `[FILE|RUN_DIR ...]`, `--diff A B`, `--demo`, `--screenshot OUT.png [--panel NAME]`.
 */
int runInspector(QApplication& app);

} // namespace ckpt::ui
