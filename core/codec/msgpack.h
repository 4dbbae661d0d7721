// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/sink.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

namespace ckpt {

struct MsgpackReadOptions {
    uint32_t maxDepth = 1024;       ///< deeper nesting is refused (ErrorCode::Limit), never a stack overflow
    uint64_t startOffset = 0;       ///< decode the value that starts here
};

struct MsgpackReadResult {
    Tape tape;
    uint64_t consumed = 0;          ///< bytes of the first value; rmp-serde ignores what follows
};

/**
 * Decodes the first MessagePack value of \a bytes into a tape. bin/str payloads are referenced in
 * place (the tape's source is \a bytes), so tensor payloads are never copied or touched. Every
 * declared length is checked against the bytes that remain before anything is reserved; errors give
 * the byte offset and what was expected. Accepts everything rmp-serde's decoder accepts.
 *
 * Kinds: positive fixint and uint8..64 give UInt; negative fixint and int8..64 give Int (also for a
 * non-negative value in an int marker, which rmp-serde never writes); float32 gives F32, float64 F64.
 * Each node's srcOffset is the offset of its marker. The decoder is iterative (no recursion), and
 * the tape grows only with values actually present, so memory stays proportional to the input.
 *
 * Errors (offset = the marker of the offending value unless stated; recordPath = the path of the value
 * being decoded, e.g. `item.fc1.weight.param.bytes`):
 * - Truncated: the input ends inside a marker's fixed-size part (length or scalar bytes), inside a
 *   str/bin payload, or before a container has all its elements (offset = end of input).
 * - Limit: an array/map header declares more elements than the remaining bytes could hold (every
 *   element takes at least one byte), nesting deeper than options.maxDepth, or more than 2^32-1 nodes.
 * - Malformed: marker 0xc1, invalid UTF-8 in a str (offset = the first invalid byte, as Rust's
 *   `Utf8Error::valid_up_to` counts).
 * - Unsupported: ext and fixext values (Burn records never contain them).
 * - Usage: null \a bytes or options.startOffset beyond the end. Cancelled: \a progress asked to stop.
 */
Result<MsgpackReadResult> readMsgpack(const BytesPtr& bytes, const MsgpackReadOptions& options = {},
    const Progress& progress = Progress::none());

/**
 * Encodes the subtree at \a node as rmp-serde's write_named does: minimal integer/str/bin/array/map
 * markers, f32 as ca and f64 as cb, keys and elements in tape order. Non-negative Int nodes use the
 * unsigned markers (as rmp-serde does for signed types). Bin nodes (also those read from JSON integer
 * arrays) are written as bin; an Array flagged FromBinArray whose elements are all integers 0..255 is
 * written back as the bin it came from. Payloads go to Sink::put(span), so large ones stream without
 * a copy. Runs in a single pass over the tape (pre-order is the wire order): no recursion, any depth.
 * Downstream write errors are collected by the sink (Sink::finish()).
 */
void writeMsgpack(const Tape& tape, uint32_t node, Sink& out);

/**
 * Index of the first byte that is not part of valid UTF-8, or n when all of \a s is valid (the rules
 * of Rust's str::from_utf8, which serde's String visitor applies to bytes).
 */
size_t firstInvalidUtf8(const uint8_t* s, size_t n);

} // namespace ckpt
