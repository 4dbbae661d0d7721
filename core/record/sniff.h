// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ckpt {

/** Which engine reads a path: Burn records, ipfrs GradientCheckpoints, CAR block stores or run directories. */
enum class FileFamily { BurnRecord, GradientCheckpoint, CarFile, RunDirectory, Unknown };

/**
 * Decides from the content (the first KiB), not the extension: a JSON object whose first key is
 * "graph" is a GradientCheckpoint (serde writes struct fields in declaration order); a directory with
 * checkpoint/ or train|valid/ is a run; a CARv1 header (varint length + DAG-CBOR map with "roots" or
 * "version") is a CAR file; anything else that exists is treated as a Burn record.
 */
FileFamily sniffFile(const std::string& path);
FileFamily sniffBytes(std::span<const uint8_t> head);

} // namespace ckpt
