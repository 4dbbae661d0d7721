// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `ckpt diff --json` of two records (cli-contract.md); graphs have theirs in graphdiffjson.h.

#include "core/diff/diff.h"
#include "core/record/record.h"
#include "core/value/tape.h"

#include <string>

namespace ckpt {

/**
 * The members every diff document starts with: `a`, `b` and `summary` opened with its four counts.
 * The caller adds its own counts and ends the summary.
 */
void beginDiffSummary(TapeBuilder& b, const DiffCounts& d);

/** `ckpt diff --json`. */
std::string diffJson(const RecordDiff& d, const Record& a, const Record& b);

} // namespace ckpt
