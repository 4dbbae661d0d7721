// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/cli/args.h"

#include <optional>
#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * `ckpt diff A B` when A and B are GradientCheckpoints: nodes, edges, tensors by CID (then by CAR
 * blocks: `--blocks-a`/`--blocks-b`, or the `.car` next to each file), loss, step and optimizer
 * state. Returns nullopt when neither file is a GradientCheckpoint, so the record diff runs.
 */
std::optional<int> graphDiffCommand(const std::vector<std::string>& argv);

/** `--tolerance X` of both diffs: 0 when absent, nullopt when X is not a number. */
std::optional<double> toleranceArg(const Args& a);

} // namespace ckpt::cli
