// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/sink.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <string>

namespace ckpt {

struct JsonReadOptions {
    uint32_t maxDepth = 128;        ///< serde_json's recursion limit: deeper input is rejected as it would be
    /**
     * Pack arrays of integers 0..255 that are the value of a "bytes" key into one Bin node
     * (flag FromJsonArray): that is how serde_bytes payloads (TensorData.bytes) look in JSON, and it
     * keeps a PrettyJson record's tape as small as its MessagePack twin.
     */
    bool packByteArrays = true;
    bool rejectTrailing = true;     ///< serde_json::from_slice rejects trailing non-whitespace
};

/**
 * Parses JSON with serde_json's accept/reject rules (RFC 8259 strictly: no comments, no trailing
 * commas, no leading zeros, no NaN, control characters in strings rejected, invalid UTF-8 and lone
 * surrogates rejected, a BOM rejected) into a tape. Integers: non-negative -> UInt (full u64 range,
 * exact), negative -> Int (i64), beyond those -> F64 as serde_json does; floats -> F64. Duplicate
 * keys are kept in order (typed decoding decides about them). Errors carry line and column exactly as
 * serde_json reports them.
 */
Result<Tape> readJson(const BytesPtr& bytes, const JsonReadOptions& options = {}, const Progress& progress = Progress::none());

enum class JsonStyle { Pretty, Compact };

/**
 * Writes the subtree as serde_json::to_writer_pretty (2-space indent, "key": value, one array element
 * per line, empty containers as [] / {}, no trailing newline) or serde_json::to_writer (compact).
 * F32 nodes print with the shortest digits that round-trip as f32, F64 as f64, laid out as ryu does
 * (1.0, 1e-7, 1.2345678901234568e20); non-finite floats as null; Bin as an array of integers; strings
 * escaped as serde_json escapes them.
 */
void writeJson(const Tape& tape, uint32_t node, JsonStyle style, Sink& out);

/** serde_json's text for one float (ryu layout). */
std::string formatJsonF32(float v);
std::string formatJsonF64(double v);

/** Appends \a s as a JSON string literal with serde_json's escaping. */
void appendJsonQuoted(std::string& out, std::string_view s);

} // namespace ckpt
