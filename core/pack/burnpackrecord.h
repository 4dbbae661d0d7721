// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Burn 0.22's record layer on burnpack (format-burnpack.md §8) as a ckpt::Record: a ModuleRecord,
// OptimizerRecord or LrSchedulerRecord file alone, or burn-train's model/optim/scheduler triple of one
// epoch as one record whose optimizer state sits beside each parameter. Everything that reads a
// Record (info, tree, tensors, show, validate, diff, export, the app's panels, Python) reads these.

#include "core/pack/burnpack.h"
#include "core/model/format.h"
#include "core/model/record.h"

#include <memory>
#include <optional>
#include <string>

namespace ckpt {

/** The burnpack family, for the registry (core/open). */
const RecordFormat& burnpackFormat();

/** The parsed file of a part of a burnpack record (its RecordPart::container). */
const pack::BurnpackFile& burnpackFileOf(const RecordPart& part);

/** "model", "optim" or "scheduler": the tape key and the file-name prefix of a part of a triple. */
std::string_view burnpackRoleName(RecordPart::Role role);

/**
 * Opens one burnpack file (the bytes of \a name) as a Record: kind module_record, optimizer_record
 * (tensors `{id}.{state}`, `{id}.__rank` scalars) or scheduler_record (scalars only), recorder
 * Burnpack. Tensor paths are the stored names; payloads stay views into \a bytes.
 */
Result<std::shared_ptr<const Record>> openBurnpackRecord(const BytesPtr& bytes, const std::string& name, const OpenOptions& options = {});

/** The three files of one burn-train 0.22 epoch; optim and scheduler may be missing (empty). */
struct BurnpackTriple {
    std::string model, optim, scheduler;
    std::optional<uint64_t> epoch;
};
/** For `.../model-N.bpk`: its siblings `optim-N.bpk` and `scheduler-N.bpk` where they exist; nullopt for any other name. */
std::optional<BurnpackTriple> burnpackTripleOf(const std::string& modelPath);
/**
 * Opens an epoch's triple as one record (kind burn_train_checkpoint): the model's tensors, each
 * followed by its optimizer state (matched through the parameter ids), optimizer tensors without a
 * parameter after them, the optimizer's and the scheduler's scalars on the tape. A missing optim or
 * scheduler file is a warning, a file that does not read is the error.
 */
Result<std::shared_ptr<const Record>> openBurnpackTriple(const BurnpackTriple& triple, const OpenOptions& options = {});

/** Writes a one-file burnpack record again (byte-identical for files burn-pack wrote). */
Result<void> resaveBurnpack(const Record& record, const std::string& path);
/**
 * Writes a one-file burnpack record with the metadata and scalars of \a edited (applyEdits' tape of
 * that record); tensors are the record's own, in their physical order.
 */
Result<void> saveEditedBurnpack(const Record& record, const Tape& edited, const std::string& path);

/** The record \a content makes, encoded in memory and read back as the file \a name would be. */
Result<std::shared_ptr<const Record>> burnpackRecordOf(const pack::BurnpackContent& content, const std::string& name);

/** The record a one-file burnpack record becomes with the edits of \a edited (encoded in memory and read back). */
Result<std::shared_ptr<const Record>> editedBurnpackRecord(const Record& record, const Tape& edited);

/** The scalars of a one-file burnpack record's tape (`scalars` map of its part), by name. */
std::vector<std::pair<std::string, pack::BurnpackScalar>> burnpackScalarsOf(const Tape& tape, uint32_t scalarsMap);

} // namespace ckpt
