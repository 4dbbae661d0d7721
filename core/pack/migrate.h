// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Burn <= 0.21 records to Burn 0.22's burnpack triple and back (format-burnpack.md §10): the mapping
// of the module tree, the optimizer adaptor map and the scheduler item onto burnpack names, scalars
// and parameter ids, and a list of everything a direction cannot carry.

#include "core/model/checkpointrecords.h"
#include "core/pack/burnpackrecord.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

struct MigrateResult {
    BurnpackTriple written;          ///< the files written (optim/scheduler empty when there was nothing to write)
    uint64_t epoch = 0;
    std::vector<std::string> lost;   ///< one line per thing not carried over
};

struct MigrateOptions {
    std::optional<uint64_t> epoch;   ///< default: the sources' epoch, else 1
    /** linear, cosine or noam: what a usize scheduler record is, where the record cannot tell (default: the caller state's config). */
    std::string scheduler;
};

/** The burnpack content of each file (tensors borrowed from the sources; \a owned holds widened copies). */
struct MigratedTriple {
    std::optional<pack::BurnpackContent> model, optim, scheduler;
    std::vector<std::string> lost;
    std::shared_ptr<std::vector<std::vector<uint8_t>>> owned;
};
Result<MigratedTriple> migrateContent(const MigrateSources& sources, const MigrateOptions& options);

/** migrateContent, written atomically as OUT_DIR/{model,optim,scheduler}-EPOCH.bpk (OUT_DIR is created). */
Result<MigrateResult> migrateToBurnpack(const MigrateSources& sources, const std::string& outDir, const MigrateOptions& options = {});

/**
 * The Burn 0.21 envelope of a one-file burnpack record (module, optimizer or scheduler), in
 * NamedMpk's tree: module paths back to nested maps (index segments of a run 0, 1, ... to arrays),
 * ParamSerde {id, param} with the base32 id, optimizer state under {id: {V1: {RankN: state}}}, the
 * scheduler's `0.` scalar as the item. \a lost says what 0.21 cannot hold.
 */
Result<Tape> burnpackToEnvelope(const Record& record, Recorder recorder, Precision precision, std::vector<std::string>& lost);

} // namespace ckpt
