// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The JSON documents of a run directory (cli-contract.md): what `ckpt info` and `ckpt loss` show of it.

#include "core/run/run.h"

#include <string>

namespace ckpt {

/** `ckpt info --json` of a run directory. */
std::string runInfoJson(const RunDirectory& run);
/** `ckpt loss --json`. */
std::string lossJson(const RunDirectory& run);

} // namespace ckpt
