// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace ckpt {

/**
 * SWAR test for JSON string scanning: does any of the 8 bytes in \a w end a plain ASCII run of a
 * string ('"', '\\', a control byte below 0x20, or a byte >= 0x80)? Shared by the general JSON
 * reader and the GradientCheckpoint fast reader.
 */
inline bool jsonWordNeedsAttention(uint64_t w)
{
    constexpr uint64_t ones = 0x0101010101010101ull;
    constexpr uint64_t highs = 0x8080808080808080ull;
    const uint64_t below0x20 = (w - ones * 0x20) & ~w;
    const uint64_t quote = w ^ (ones * '"');
    const uint64_t backslash = w ^ (ones * '\\');
    const uint64_t isQuote = (quote - ones) & ~quote;
    const uint64_t isBackslash = (backslash - ones) & ~backslash;
    // Bytes >= 0x80 are caught by the high bit of w itself.
    return ((below0x20 | isQuote | isBackslash | w) & highs) != 0;
}

} // namespace ckpt
