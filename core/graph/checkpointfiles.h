// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Opening a GradientCheckpoint together with the CAR file its CIDs resolve in: one way for the CLI,
// the Python module, the app's Diff panel and the run timeline, so all of them take the same CAR and
// name the same file in an error.

#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/util/error.h"

#include <memory>
#include <optional>
#include <string>

namespace ckpt {

/** A CAR file mapped and indexed; an error names the file. */
Result<std::shared_ptr<const CarStore>> openCarFile(const std::string& path);

/** A GradientCheckpoint and the CAR its tensors are in (none when there is no CAR to open). */
struct GradientCheckpointFiles {
    std::string path;
    GradientCheckpoint checkpoint;
    std::optional<std::string> carPath;   ///< the CAR opened, when there is one
    std::shared_ptr<const CarStore> car;  ///< keeps the CAR's mapping alive; null without a CAR
    /** The CAR beside the checkpoint exists but cannot be opened (car is null). The caller decides:
        the CLI and Python stop on it, the app still shows the graph and says why there are no values. */
    std::optional<Error> carError;
};

/**
 * Reads the GradientCheckpoint at \a path (a graph-only store as well) and opens \a carPath when
 * given, else the CAR a trainer writes beside it (carBeside, core/graph/locate.h) when that exists.
 * A given CAR that cannot be opened is an error; the one beside the checkpoint is reported in
 * carError, so a damaged CAR never passes for a missing one. Errors name the file they are about.
 */
Result<GradientCheckpointFiles> openGradientCheckpointFiles(const std::string& path, const std::optional<std::string>& carPath = std::nullopt);

/**
 * The loss a GradientCheckpoint's loss CID names: its block's one f32 (the trainer's scalar loss
 * tensor), when \a car holds that block with exactly four bytes; nullopt otherwise.
 */
std::optional<double> lossValueOf(const CarStore* car, const std::optional<std::string>& lossCid);

} // namespace ckpt
