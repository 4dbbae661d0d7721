// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Whether a value decoded from bincode is the one its self-describing twin shows, for the readings of
// a layout the bytes alone cannot choose between.

#include "core/value/tape.h"

#include <cstdint>

namespace ckpt {

/**
 * True when the subtree \a na of \a a holds what the twin's subtree \a nb of \a b holds: the same
 * kinds, lengths, keys, strings, bools and integers. Floats and byte payloads are not compared: a twin
 * may be of another precision than the bincode file (same layout, other values there).
 */
bool agreesWithTwin(const Tape& a, uint32_t na, const Tape& b, uint32_t nb);

} // namespace ckpt
