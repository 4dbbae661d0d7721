// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * `ckpt verify-resume RECORD --against LATER [--profile NAME | -- PROGRAM ARGS...]
 * [--tolerance exact|strict|relaxed] [--json] [--keep]` (cli-contract.md, "Repair and verify"):
 * runs the resumption as a child process (an argument vector, never a shell) into a fresh
 * directory under $TMPDIR, diffs the checkpoint it writes at LATER's step against LATER and judges
 * it (core/run/resumeverify.h). Exit 0 whatever the verdict, 1 when the resumption fails or LATER
 * cannot be read, 2 on a usage error.
 */
int verifyResumeCommand(const std::vector<std::string>& argv);

} // namespace ckpt::cli
