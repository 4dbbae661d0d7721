// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The serde envelope family (Burn <= 0.21 and Ruda recorders): MessagePack, JSON and bincode, each
// plain or gzip. Its RecordFormat is envelopeFormat(); the functions below are the envelope's own
// encoders, which the trainer, the tests and the other families' conversions write through.

#include "core/model/format.h"
#include "core/model/record.h"
#include "core/record/typecheck.h"

#include <memory>
#include <string>
#include <vector>

namespace ckpt {

/** The serde envelope family, for the registry (core/open). */
const RecordFormat& envelopeFormat();

/** The family's open: decodes (MessagePack, JSON or bincode, sniffed from content) and indexes an envelope record. */
Result<std::shared_ptr<const Record>> openEnvelope(const RecordInput& input, const OpenOptions& options, const Progress& progress);
/** A file (stdin for "-") opened by this family alone (a bincode record's --schema-from twin). */
Result<std::shared_ptr<const Record>> openEnvelopeFile(const std::string& path, const OpenOptions& options);
/**
 * \a record's tape with the new bytes of \a changes (Bin payloads replaced in place, appended to the
 * pool; legacy value lists are not bytes and are left alone): an import's envelope.
 */
Tape envelopeWithPayloads(const Record& record, std::span<const PayloadChange> changes);

/** Indexes an envelope tape built in memory (the trainer, tests). */
Result<std::shared_ptr<const Record>> indexRecord(Tape tape, Recorder recorder, const std::string& name);

/**
 * Encodes an envelope tape in a recorder's wire format (gzip included for the .gz recorders). Bincode
 * needs the Rust type layout: \a schema if given, else the layout derived from the tape itself.
 */
Result<std::vector<uint8_t>> encodeRecord(const Tape& envelope, Recorder recorder, const BincodeSchema* schema = nullptr);
/** Encodes and writes atomically (temporary file, fsync, rename): the target survives any failure. */
Result<void> saveRecord(const Tape& envelope, Recorder recorder, const std::string& path, const BincodeSchema* schema = nullptr);

struct ConvertResult {
    std::vector<std::string> warnings;   ///< precision loss, non-representable values, ...
    uint64_t tensorsConverted = 0;
};
/**
 * Builds the record's envelope in another precision (float tensors converted as Burn converts them,
 * metadata strings of the target settings/recorder) and writes it in \a recorder. Warns when values
 * are rounded, overflow to infinity, or integers are narrowed.
 */
Result<ConvertResult> convertRecord(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const BincodeSchema* bincodeTarget = nullptr); ///< bincodeTarget: the record's Rust layout, to write Bin/BinGz with (default: the record's own, else derived) and to type a JSON record's floats written as MessagePack
/** The converted envelope tape without writing it. */
Result<Tape> convertedEnvelope(const Record& record, Recorder recorder, Precision precision, ConvertResult& report);

} // namespace ckpt
