// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCPAxis;

namespace ckpt::ui {

/** Puts \a axis on a logarithmic or a linear scale with the ticker that suits it: one place for every plot. */
void setAxisLogScale(QCPAxis* axis, bool log);

} // namespace ckpt::ui
