// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// CARv1 block stores: header, block index, verification and resolution of every root.
#include "core/graph/car.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    auto store = ckpt::CarStore::open(bytes);
    if (!store)
        return 0;
    for (size_t i = 0; i < store->blocks().size(); ++i) {
        (void)store->verify(i);
        (void)store->data(store->blocks()[i]);
    }
    return 0;
}
