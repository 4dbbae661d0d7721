// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `ckpt migrate`: a Burn <= 0.21 checkpoint (one record, or burn-train's three files) written as Burn
// 0.22's files of the family that holds them. The registry picks both families; the mapping itself is
// the target family's own (its import of records of the envelope family).

#include "core/model/checkpointrecords.h"
#include "core/model/format.h"

#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/** Whether records of \a format are what `ckpt migrate` reads (Burn <= 0.21 records). */
bool isMigrationSource(const RecordFormat& format);
/** The same for a file, judged by its name's extension (a run directory's checkpoints). */
bool isMigrationSource(const std::string& path);

struct MigrateCheckpointOptions {
    std::optional<uint64_t> epoch;   ///< default: the sources' epoch, else 1
    /** linear, cosine or noam: what a usize scheduler record is, where the record cannot tell (default: the caller state's config). */
    std::string scheduler;
};
struct MigrateCheckpointResult {
    std::vector<std::string> written; ///< the files written, model first
    std::vector<std::string> lost;    ///< one line per thing not carried over
};
/** Writes \a sources into OUT_DIR (created) as Burn 0.22's files, atomically each. */
Result<MigrateCheckpointResult> migrateCheckpoint(const MigrateSources& sources, const std::string& outDir, const MigrateCheckpointOptions& options);

} // namespace ckpt
