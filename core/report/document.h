// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every JSON document of the CLI contract is written with: the tape becomes text in the layout
// the contract has always had (two-space pretty form, keys in insertion order, floats spelled as
// nlohmann::json::dump spelt them, JsonFloats::Nlohmann), since the reports' bytes are an interface.
// Non-finite floats print as null.

#include "core/codec/json.h"
#include "core/record/record.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** The finished tape \a b as a report's text. */
std::string reportDocument(TapeBuilder&& b, JsonStyle style = JsonStyle::Pretty);
/** `"k": [d0, d1, ...]`. */
void putShape(TapeBuilder& b, std::string_view k, const std::vector<uint64_t>& shape);
/** Any non-tensor subtree as JSON (numbers exact: u64 stays u64, a u128 / i128 keeps its digits; a repeated key keeps its first place
 *  and its last value). */
void copyJsonValue(TapeBuilder& b, const Tape& t, uint32_t node);

} // namespace ckpt
