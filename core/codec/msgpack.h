// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/sink.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <optional>
#include <string_view>

namespace ckpt {

struct MsgpackReadOptions {
    uint32_t maxDepth = 1024;       ///< deeper nesting is refused (ErrorCode::Limit), never a stack overflow
    uint64_t startOffset = 0;       ///< decode the value that starts here
    /**
     * Strings as rmp-serde hands them to serde (how Burn reads NamedMpk): a bin map key with UTF-8
     * bytes is a key like a str (serde matches field and variant names by bytes; a String key takes
     * UTF-8 bytes), and a str that is not UTF-8 as the value of a `bytes` key (a TensorData payload)
     * is a Bin, since rmp-serde falls back to bytes and serde_bytes takes them. Anywhere else such a
     * str stays an error (a String refuses the bytes). Off: a bin key stays Bin.
     */
    bool serdeStrings = false;
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

/**
 * The text serde's String and identifier visitors see in \a node: a str, or a bin whose bytes are
 * UTF-8 (rmp-serde hands a bin to them as bytes); nullopt for anything else.
 */
inline std::optional<std::string_view> serdeText(const Tape& t, uint32_t node)
{
    if (t.isStr(node))
        return t.str(node);
    if (t[node].kind == Kind::Bin && !(t[node].flags & FromJsonArray)) { // a JSON array is no string to serde_json
        const auto b = t.bin(node);
        if (firstInvalidUtf8(b.data(), b.size()) == b.size())
            return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
    }
    return std::nullopt;
}

} // namespace ckpt
