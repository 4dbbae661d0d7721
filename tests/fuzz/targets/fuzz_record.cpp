// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The record interpreter: sniffing, gzip, every decoder, indexing, then statistics of every tensor
// and a re-save of what opened (what the app and ckpt do with a file).
#include "core/open/formats.h"
#include "core/record/record.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ckpt::OpenOptions options;
    options.limits.maxOutputBytes = 1u << 20; // bombs stop at 1 MiB: cheap executions, the same bound code
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    auto record = ckpt::openRecordBytes(bytes, "fuzz-input", options);
    if (!record)
        return 0;
    for (const ckpt::TensorEntry& t : (*record)->tensors)
        (void)(*record)->stats(t);
    (void)ckpt::encodeRecord((*record)->tape, (*record)->recorder, (*record)->bincodeSchema.get());
    return 0;
}
