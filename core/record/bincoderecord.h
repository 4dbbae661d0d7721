// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/codec/schema.h"
#include "core/io/sink.h"
#include "core/record/record.h"

namespace ckpt {

/**
 * Decodes a bincode (Bin/BinGz) record into \a record's tape: with the schema of options.schemaFile,
 * or derived from options.schemaFrom, or from the built-in layouts of the known records (optimizer
 * and scheduler records); failing all of them, a structural scan lists the tensors it can prove and
 * marks the record partial. Records the layout used in Record::schemaSource / bincodeSchema.
 */
Result<void> decodeBincodeRecord(const BytesPtr& decoded, const OpenOptions& options, Record& record);

/** A bincode layout and where it came from (for Record::schemaSource and messages). */
struct BincodeLayout {
    BincodeSchema schema;
    std::string source;
    std::vector<std::string> notes; ///< guesses of a derivation (SchemaFromRecordResult::notes)
    /** The self-describing record it was derived from (--schema-from): its values settle two readings that both fit. */
    std::shared_ptr<const Record> twin;
};

/**
 * The layout the options name: options.schemaFile parsed, or derived from the self-describing twin
 * options.schemaFrom (told options.scheduler); nullopt when neither is given. Usage errors for an
 * unknown scheduler name or a bincode twin.
 */
Result<std::optional<BincodeLayout>> bincodeLayoutFromOptions(const OpenOptions& options);

/**
 * The layout to write \a record as bincode (`ckpt convert IN OUT.bin`): the record's own when it was
 * read from bincode, else the one the options name, else core's built-in ckpt-train TrainingRecord
 * layout when the record is one of the trainer's and fits it (without options.scheduler), else derived
 * from the record itself (told options.scheduler), where a caller-state array becomes a Vec and an
 * unsigned scheduler a usize.
 */
Result<BincodeLayout> bincodeTargetLayout(const Record& record, const OpenOptions& options);

/**
 * The layout that says which floats of a JSON record are f32 (JSON carries every float as f64): the
 * one the options name, else core's built-in ckpt-train TrainingRecord layout when the record is one
 * of the trainer's (its scheduler record type from the caller state); nullopt when nothing says.
 */
Result<std::optional<BincodeLayout>> jsonFloatLayout(const Record& record, const OpenOptions& options);

/**
 * \a envelope with every float that \a layout declares `f32` stored as f32 (and every value in the
 * kind the layout gives it), so that MessagePack writes `ca` where rmp-serde writes an f32 field.
 * Goes through the layout's bincode (encode, then decode), which checks that the record fits it.
 */
Result<Tape> withLayoutValueKinds(const Tape& envelope, const BincodeSchema& layout);

/** Encodes an envelope tape as bincode with \a schema, or the layout derived from the tape itself. */
Result<void> encodeBincodeRecord(const Tape& envelope, Sink& out, const BincodeSchema* schema);

/** One layout tried without a schema (Record::schemaSource names it). */
struct BuiltinLayout {
    std::string name;
    BincodeSchema schema;
    std::string schedulerType; ///< the scheduler record type it assumes (schedulerRecordType spelling); empty when none
};

/**
 * The layouts tried, in this order, on a bincode file opened without --schema/--schema-from:
 * ckpt-train's TrainingRecords (Mlp, Adam/AdamW or SGD, each scheduler record, pending gradients,
 * its caller state), the optimizer records of Adam/AdamW (0.21 and <= 0.20), SGD, Muon, AdaGrad,
 * RmsProp, Adan, Fp32Master<Adam/AdamW> and Fp32Master<SGD>, the scheduler records usize, i32,
 * f64, () and ComposedLrSchedulerRecord, GradientsParamsRecord, and ckpt-train's module record.
 * A layout is taken only when it decodes every byte into a consistent envelope.
 */
const std::vector<BuiltinLayout>& builtinBincodeLayouts(DTypeTable table);

/**
 * The reference trainer's own layouts (app/train writes its Bin/BinGz files with them: a layout
 * derived from the values cannot tell that a caller-state field such as `diverge_at: Option<u64>`
 * holding Some(STEP) is an Option). The TrainingRecord for an SGD or Adam/AdamW run and a scheduler
 * record type (schedulerRecordType spelling), nullopt for an unknown type; the module record `Mlp`.
 */
std::optional<BincodeSchema> ckptTrainRecordLayout(bool sgd, std::string_view schedulerType, DTypeTable table);
BincodeSchema ckptTrainModuleLayout(DTypeTable table);

} // namespace ckpt
