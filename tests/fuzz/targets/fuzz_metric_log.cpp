// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// burn-train metric logs (value,count lines, Rust f64 Display, free text).
#include "core/run/run.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<std::string> warnings;
    (void)ckpt::parseMetricLog(std::string_view(reinterpret_cast<const char*>(data), size), "train", "Loss", 1, &warnings);
    return 0;
}
