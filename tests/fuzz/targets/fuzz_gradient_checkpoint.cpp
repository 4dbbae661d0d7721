// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// GradientCheckpoint JSON: typed decoding, then what the app computes from it (layout, analysis).
#include "core/graph/analysis.h"
#include "core/graph/checkpoint.h"
#include "core/graph/layout.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto bytes = ckpt::makeBytes(std::vector<uint8_t>(data, data + size));
    auto checkpoint = ckpt::loadGradientCheckpoint(bytes, true);
    if (!checkpoint)
        return 0;
    (void)ckpt::analyzeGraph(*checkpoint);
    (void)ckpt::layoutGraph(ckpt::layoutInputFor(checkpoint->graph, nullptr), {}, ckpt::Progress::none());
    return 0;
}
