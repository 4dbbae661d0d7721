// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

/** Base32 (BASE32_DNSSEC, no padding) of a u64's little-endian bytes: Burn's ParamId text. */
std::string paramIdFromU64(uint64_t id);
/** Decodes a 13- or 10-char ParamId text to its u64 (zero-padded little endian). */
std::optional<uint64_t> paramIdToU64(std::string_view id);

} // namespace ckpt
