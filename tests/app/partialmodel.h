// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace testing {

/**
 * Writes \a out: the burnpack module record \a whole without its last parameter, as Burn 0.22's
 * into_record_group writes a group of a model. Returns that parameter's module path ("" on failure).
 * Its own file because tst_cli's `ckpt(...)` runner and core's namespace share a name.
 */
QString writeModelWithoutLastParameter(const QString& whole, const QString& out);

} // namespace testing
