// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ckpt::cli {

/** A subcommand: takes the arguments after its name, returns the exit code (0, 1, 2). */
using Command = std::function<int(const std::vector<std::string>&)>;

/** Every subcommand of `ckpt`, by name. */
const std::map<std::string, Command>& commandTable();

} // namespace ckpt::cli
