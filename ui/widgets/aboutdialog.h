// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QWidget;

namespace ckpt::ui {

/**
 * What a bug report needs, one fact per line: version, the git revision the build was configured
 * from, build type, compiler, the Qt it was built with and the Qt it runs on, the platform.
 */
QString buildInformation();

/** Help > About: the program, the formats it reads, and buildInformation() with a Copy button. */
void showAboutDialog(QWidget* parent);

} // namespace ckpt::ui
