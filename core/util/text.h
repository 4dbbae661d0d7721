// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small text utilities every layer uses (filters, sizes in messages): kept at the bottom of core so
// that matching a tensor path or printing a size does not pull in the reports.

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt {

/** Glob with `*` and `?` only; every other character (brackets and dots of paths included) is literal. */
bool globMatch(std::string_view pattern, std::string_view text);

/** A byte count for people: "512 B", "1.5 KiB", … "2.0 TiB" (binary units, one decimal). */
std::string humanBytes(uint64_t n);

/** \a s with ASCII letters in lower case (file extensions, names compared without case); other bytes as they are. */
std::string asciiLower(std::string_view s);

} // namespace ckpt
