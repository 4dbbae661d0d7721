// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which records make the checkpoint `ckpt migrate IN` reads: run policy, next to the run directories.

#include "core/model/checkpointrecords.h"

#include <optional>
#include <string>

namespace ckpt {

/**
 * What `ckpt migrate IN` reads: a TrainingRecord; a module, optimizer or scheduler record with its
 * burn-train siblings (`{model,optim,scheduler}-N.<ext>` beside it); or a burn-train run directory
 * (epoch \a epoch, default its newest).
 */
Result<MigrateSources> migrateSourcesOf(const std::string& in, const OpenOptions& options, std::optional<uint64_t> epoch = {});

} // namespace ckpt
