// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Telling a GradientCheckpoint file from a record, and finding its CAR: shared by the CLI and the
// Python module so both open the same files the same way.

#include <optional>
#include <string>

namespace ckpt {

/** True when \a path is a JSON file whose first key is a GradientCheckpoint/ComputationGraphStore field (cheap sniff). */
bool looksLikeGradientCheckpointFile(const std::string& path);

/** The CAR a trainer writes next to a checkpoint (graph/step-N.json -> graph/step-N.car), if it exists. */
std::optional<std::string> carBeside(const std::string& checkpointPath);

} // namespace ckpt
