// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// JSON with serde_json's accept/reject rules, and writing back what parsed.
#include "core/codec/json.h"
#include "core/io/sink.h"

#include <vector>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    auto tape = ckpt::readJson(bytes);
    if (tape && !tape->empty()) {
        ckpt::Sink out; // in memory
        ckpt::writeJson(*tape, tape->root(), ckpt::JsonStyle::Pretty, out);
    }
    return 0;
}
