// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// burnpack files (core/pack): the header, the ciborium-exact metadata decoder, the limits, the layout
// detection and the range checks; then what it accepts is re-encoded and must read back to the same
// tensors (names, dtypes, shapes, bytes), and a canonical file must re-save byte for byte.
#include "core/pack/burnpack.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace ckpt::pack;
    const auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    for (bool ranges : {true, false}) {
        BurnpackReadOptions options;
        options.checkTensorRanges = ranges;
        auto file = readBurnpack(bytes, options);
        if (!file) {
            if (!file.error().offset || *file.error().offset > size)
                std::abort(); // every rejection names a byte offset inside the input (or its end)
            continue;
        }
        // Every view must lie inside the input: read each byte (ASan reports one that does not).
        volatile uint64_t sum = 0;
        for (const auto& t : file->tensors)
            for (uint8_t byte : t.data)
                sum = sum + byte;
        for (const auto& w : file->warnings)
            if (w.offset > size)
                std::abort();
        auto again = encodeBurnpack(contentOf(*file));
        if (!again)
            continue; // e.g. a repeated name cannot be written (Burn's writer refuses it too)
        auto back = readBurnpack(ckpt::makeBytes(*again), options);
        if (!back || back->tensors.size() != file->tensors.size() || back->scalars.size() != file->scalars.size()
            || back->metadata != file->metadata || !back->canonicalMetadata)
            std::abort();
        for (size_t i = 0; i < file->tensors.size(); ++i) {
            const auto& a = file->tensors[i];
            const auto& b = back->tensors[i];
            if (a.name != b.name || !(a.dtype == b.dtype) || a.shape != b.shape || a.paramId != b.paramId
                || !std::equal(a.data.begin(), a.data.end(), b.data.begin(), b.data.end()))
                std::abort();
        }
        // a file exactly as burn-pack writes it re-saves byte for byte
        if (file->canonicalMetadata && file->warnings.empty() && ranges
            && !std::equal(again->begin(), again->end(), data, data + size))
            std::abort();
    }
    return 0;
}
