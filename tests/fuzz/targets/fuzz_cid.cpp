// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// CIDs as text (every multibase spelling parseCid accepts) and as bytes.
#include "core/graph/cid.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    (void)ckpt::parseCid(std::string_view(reinterpret_cast<const char*>(data), size));
    (void)ckpt::classifyCid(std::string_view(reinterpret_cast<const char*>(data), size));
    size_t consumed = 0;
    (void)ckpt::parseCidBytes({data, size}, consumed);
    return 0;
}
