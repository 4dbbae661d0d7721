// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * When \a path is a GradientCheckpoint (or, for `show`, a CID looked up with --blocks), runs the
 * GradientCheckpoint flavour of \a command (info, validate, resave, show) and returns its exit code;
 * nullopt when the file is a Burn record and the record command should run.
 */
std::optional<int> graphCommandFor(const std::string& command, const std::string& path, const std::vector<std::string>& argv);

/** `ckpt graph` and `ckpt blocks`. */
int runGraphCommand(const std::string& command, const std::vector<std::string>& argv);

} // namespace ckpt::cli
