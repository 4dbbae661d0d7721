// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/codec/schema.h"
#include "core/io/sink.h"
#include "core/tensor/dtype.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ckpt {

/**
 * Burn's Bin/BinGz/BinBytes recorders: bincode 2 `config::standard()` through serde, which is
 * wire-identical to bincode 1.3 `DefaultOptions::new()` (little endian, varints, zigzag signed
 * integers, u32 varint enum indices, `00`/`01` option tags). The format has no names and no struct
 * lengths, so everything here is driven by a BincodeSchema.
 */

struct BincodeReadOptions {
    uint64_t startOffset = 0;            ///< decode the value that starts here
    /** Trial decodes of ambiguous schema nodes allowed before giving up (bounds backtracking). */
    uint32_t maxTrials = 100000;
    /**
     * The self-describing record the schema was derived from, if any. Where two readings of the layout
     * both decode the whole record, the one whose values the twin shows is kept and no ambiguity is
     * reported (a tuple (true, false) is no Vec of one false when the twin shows two elements).
     */
    const Tape* twin = nullptr;
};

struct BincodeReadResult {
    /** The same tape the NamedMpk file of the same record would give (structs as maps, variant names, ...). */
    Tape tape;
    uint64_t consumed = 0;               ///< bytes of the value; bincode's decode_from_std_read ignores the rest
    /**
     * The schema with every ambiguous node the bytes settled made definite (an Option that turned out
     * to be a bare T becomes T, a maybe-tuple Seq that was a tuple becomes a Tuple). Encoding the tape
     * with this schema reproduces the input.
     */
    BincodeSchema resolved;
    /** Varints written longer than needed (bincode 1.3 accepts them; re-encoding shortens them). */
    uint64_t nonCanonicalVarints = 0;
    /** Choices of the layout where another reading also decodes the whole record (one line each). */
    std::vector<std::string> ambiguities;
};

/**
 * Decodes one value of type schema.root from \a bytes at options.startOffset. Str payloads are UTF-8
 * checked and, like Bytes, referenced in place (zero copy; the tape's source is \a bytes). Every
 * declared count is checked against the remaining bytes (times the element type's minimum size)
 * before anything is reserved. Errors carry the byte offset and the record path
 * (`item[0].conv1.weight.param.shape[1]`): truncation, invalid bool (not 0/1), invalid Option tag,
 * enum index out of range, varint markers fe/ff (u128 / reserved, as bincode 1.3), integers out of
 * range of their type, invalid UTF-8, unsupported DType variants (QFloat payloads).
 */
Result<BincodeReadResult> readBincode(const BytesPtr& bytes, const BincodeSchema& schema, const BincodeReadOptions& options = {});

/**
 * Encodes the subtree \a node of \a tape as the schema's root type (the exact inverse of readBincode:
 * decoding and re-encoding a file gives identical bytes when its varints are canonical). Struct fields
 * are looked up by name (any order; a missing Option field is None); enum variants by name; DType by
 * name. Bin payloads are handed to the sink as one span each. Nothing is written past the first error
 * that can be detected before writing a value's first byte; on error the sink content is unspecified.
 */
Result<void> writeBincode(const Tape& tape, uint32_t node, const BincodeSchema& schema, Sink& out);

/** The five metadata strings at the start of every bincode Burn envelope. */
struct BincodeMetadata {
    std::string float_, int_, format, version, settings;
    uint64_t consumed = 0; ///< bytes of the five strings: the item starts here
};
/** Reads the envelope metadata without a schema. */
Result<BincodeMetadata> readBincodeMetadata(std::span<const uint8_t> bytes);

/** One tensor found by scanBincode. */
struct ScannedTensor {
    uint64_t offset = 0;                 ///< of the TensorData (its byte-length varint)
    uint64_t payloadOffset = 0;          ///< of the first payload byte
    uint64_t length = 0;                 ///< payload bytes
    std::vector<uint64_t> shape;
    DType dtype = DType::F32;
    uint64_t end = 0;                    ///< one past the dtype index
    std::string paramId;                 ///< the ParamSerde id right before it, if there is one
};

struct BincodeScanResult {
    std::optional<BincodeMetadata> metadata;
    DTypeTable table = DTypeTable::Burn017;
    std::vector<ScannedTensor> tensors;
    /** Always true: the scan proves tensors, it cannot see the rest of the layout (or tensors it cannot prove). */
    bool partial = true;
};

/**
 * Schema-less structural scan: reports every TensorData it can prove, i.e. a varint length L ≥ 1,
 * L bytes, a rank r ≤ 8, r varint dims whose product × dtype size == L and a valid DType index of the
 * table chosen from the metadata version (or, without readable metadata, the 0.17 table). The bytes
 * of a proven tensor are skipped, so nothing inside a payload is reported. QFloat/Bool(BoolStore)
 * tensors are not proven, nor float tensors of another type than the metadata's float (a recorder
 * converts every float tensor to it). \a progress may cancel (ErrorCode::Cancelled).
 */
Result<BincodeScanResult> scanBincode(std::span<const uint8_t> bytes, const Progress& progress = Progress::none());

} // namespace ckpt
