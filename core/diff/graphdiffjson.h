// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace ckpt {

struct GraphDiff;
struct TensorDiff;

/** `ckpt diff --json` for two GradientCheckpoints (`"kind": "gradient_checkpoint"`). */
std::string graphDiffJson(const GraphDiff& d);

/** The JSON object of one tensor's numbers, as in the record diff's entries (shared with `diffJson`). */
std::string tensorNumbersJson(const TensorDiff& t);

} // namespace ckpt
