// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Finding a GradientCheckpoint's CAR: shared by the CLI and the Python module so both open the same
// files the same way (which file is a GradientCheckpoint: sniffFile, core/record/sniff.h).

#include <optional>
#include <string>

namespace ckpt {

/** The CAR a trainer writes next to a checkpoint (graph/step-N.json -> graph/step-N.car), if it exists. */
std::optional<std::string> carBeside(const std::string& checkpointPath);

} // namespace ckpt
