// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

/** A shape as messages and tables print it: "[8, 16]", "[]" for a rank-0 tensor. */
inline std::string shapeString(const std::vector<uint64_t>& shape)
{
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

} // namespace ckpt
