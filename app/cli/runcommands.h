// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * `ckpt timeline RUN [--json] [--filter GLOB] [--no-cache] [--spike-threshold Z]`: every checkpoint's tensors across the run;
 * `--shard I/N --partial OUT` computes one share into a partial, `--merge PARTIAL...` the timeline from all of them.
 */
int cmdTimeline(const std::vector<std::string>& argv);
/** `ckpt bisect RUN --until PRED [--filter GLOB] [--scan] [--json]`: the first bad checkpoint. */
int cmdBisect(const std::vector<std::string>& argv);

} // namespace ckpt::cli
