// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/value/tape.h"

#include <string>

namespace ckpt {

struct GraphDiff;
struct TensorDiff;

/** `ckpt diff --json` for two GradientCheckpoints (`"kind": "gradient_checkpoint"`). */
std::string graphDiffJson(const GraphDiff& d);

/**
 * The members of one tensor's numbers (max_abs, rel_l2, cosine, mean_abs, above_tolerance), written
 * into the map \a b has open: the record diff's entries (`diffJson`) and the graph diff share them.
 */
void tensorNumbersMembers(TapeBuilder& b, const TensorDiff& t);

} // namespace ckpt
