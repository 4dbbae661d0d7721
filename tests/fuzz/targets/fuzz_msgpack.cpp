// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// MessagePack decoding (rmp-serde rules), and re-encoding what decoded.
#include "core/codec/msgpack.h"
#include "core/io/sink.h"

#include <vector>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    auto tape = ckpt::readMsgpack(bytes);
    if (tape) {
        ckpt::Sink out; // in memory
        ckpt::writeMsgpack(tape->tape, tape->tape.root(), out);
    }
    return 0;
}
