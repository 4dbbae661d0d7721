// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Bincode schema files (ckpt schema's JSON), and a decode of a small fixed input with what parsed.
#include "core/codec/bincode.h"
#include "core/codec/schema.h"

#include <cstddef>
#include <cstdint>
#include <vector>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto schema = ckpt::BincodeSchema::fromJson(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!schema)
        return 0;
    static const uint8_t probe[] = {3, 'f', '3', '2', 3, 'i', '3', '2', 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0};
    (void)ckpt::readBincode(ckpt::makeBytes(std::vector<uint8_t>(std::begin(probe), std::end(probe))), *schema);
    return 0;
}
