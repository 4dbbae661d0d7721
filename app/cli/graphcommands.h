// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * `ckpt graph FILE [--json | --dot] [--layout]`: the computation graph of a GradientCheckpoint (or of
 * graph-only checkpoint() bytes). \a argv are the arguments after the command name. Exit codes as
 * cli-contract.md: 0 ok, 1 invalid input (one `ckpt: FILE: line L:C: what` line on stderr), 2 usage.
 */
int cmdGraph(const std::vector<std::string>& argv);

/** `ckpt blocks FILE.car [--json]`: CID, codec, size, offset and hash check of every block. Exit 1 if any block is corrupted. */
int cmdBlocks(const std::vector<std::string>& argv);

/**
 * The GradientCheckpoint flavour of `info`, `validate`, `resave` and `show` (\a argv: the command's
 * arguments, as the record commands get them). Returns nullopt when \a path is not a
 * GradientCheckpoint (nor, for `show`, a CAR file), so the record command runs instead.
 * - info [--json]; validate (exit 1 when the file does not load; warnings on stdout);
 * - resave IN OUT: re-encodes as GradientCheckpoint::save does (byte-identical for crate files);
 * - show FILE WHAT [--json] [--limit N] [--blocks FILE.car] [--view f32|f64|...]: WHAT is a node id,
 *   an optimizer_state key, or a CID resolved through --blocks (or FILE itself when it is a CAR).
 */
std::optional<int> gradientCheckpointCommand(const std::string& command, const std::string& path, const std::vector<std::string>& argv);

} // namespace ckpt::cli
