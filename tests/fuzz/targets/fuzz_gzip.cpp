// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// gzip inflation under a small output bound (a bomb must stop at the bound, not exhaust memory).
#include "core/io/gzip.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ckpt::InflateLimits limits;
    limits.maxOutputBytes = 1u << 20; // small: each execution stays cheap, the bound is what is tested
    auto out = ckpt::gunzip({data, size}, limits);
    if (out && (*out)->span().size() > limits.maxOutputBytes)
        __builtin_trap();
    return 0;
}
