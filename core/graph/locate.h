// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Finding a GradientCheckpoint's CAR: shared by the CLI and the Python module so both open the same
// files the same way (which file is a GradientCheckpoint: sniffFile, core/open/sniff.h).

#include <optional>
#include <string>

namespace ckpt {

/** Where a trainer writes the CAR of a checkpoint: graph/step-N.json -> graph/step-N.car (it need not exist). */
std::string carPathFor(const std::string& checkpointPath);
/** carPathFor(), if that file exists. */
std::optional<std::string> carBeside(const std::string& checkpointPath);

} // namespace ckpt
