// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace ckpt {

struct GradientCheckpoint;

/**
 * The fast path loadGradientCheckpoint tries first (checkpointreader.cpp): typed decoding straight
 * from the bytes for the common shape of a checkpoint (the crate's field names in any order, each
 * once; plain printable-ASCII strings; unsigned integers). Returns nullopt for anything else, valid or
 * not, which the general reader then decides with serde_json's message and position. When it returns
 * a value, it equals what the general reader returns (tests/core/tst_graph_fast.cpp).
 */
std::optional<GradientCheckpoint> readGradientCheckpointFast(std::span<const uint8_t> json);

} // namespace ckpt
