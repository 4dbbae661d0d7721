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
 */
Result<MsgpackReadResult> readMsgpack(const BytesPtr& bytes, const MsgpackReadOptions& options = {},
    const Progress& progress = Progress::none());

/**
 * Encodes the subtree at \a node as rmp-serde's write_named does: minimal integer/str/bin/array/map
 * markers, f32 as ca and f64 as cb, keys and elements in tape order. Non-negative Int nodes use the
 * unsigned markers (as rmp-serde does for signed types). Bin nodes (also those read from JSON integer
 * arrays) are written as bin.
 */
void writeMsgpack(const Tape& tape, uint32_t node, Sink& out);

} // namespace ckpt
