// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The structural bincode scan (what lists a Bin record's tensors without a schema), and the
// bincode metadata reader.
#include "core/codec/bincode.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    (void)ckpt::readBincodeMetadata({data, size});
    (void)ckpt::scanBincode({data, size});
    return 0;
}
