// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// A Bin record decoded with every layout the engine knows (built-in layouts, chosen by the bytes).
#include "core/open/formats.h"
#include "core/record/record.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ckpt::OpenOptions options;
    options.assumeRecorder = ckpt::Recorder::Bin;
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    (void)ckpt::openRecordBytes(bytes, "fuzz-input.bin", options);
    return 0;
}
