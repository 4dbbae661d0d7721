// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

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

/** Encodes an envelope tape as bincode with \a schema, or the layout derived from the tape itself. */
Result<void> encodeBincodeRecord(const Tape& envelope, Sink& out, const BincodeSchema* schema);

/** The built-in layouts tried without a schema, with a name each (for messages and tests). */
std::vector<std::pair<std::string, BincodeSchema>> builtinBincodeLayouts(DTypeTable table);

} // namespace ckpt
