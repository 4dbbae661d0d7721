// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one file-kind detector: which engine reads a path. The CLI, the app, the trainer and the Python
// module all ask here, so a file opens the same way everywhere; which format family reads a record
// is the registry's (core/open/formats.h).

#include "core/io/bytes.h" // looksLikeText

#include <cstdint>
#include <span>
#include <string>

namespace ckpt {

/** Which engine reads a path: Burn records, ipfrs GradientCheckpoints, CAR block stores or run directories. */
enum class FileFamily { BurnRecord, GradientCheckpoint, CarFile, RunDirectory, Unknown };

/**
 * Decides from the content (the first KiB), not the extension: a JSON object whose first key is a
 * field of GradientCheckpoint or of ComputationGraphStore (graph, step, loss_cid, optimizer_state,
 * timestamp, nodes, edges; serde writes struct fields in declaration order, a record starts with
 * "metadata") is a GradientCheckpoint, graph-only checkpoint() bytes included; a CARv1 header
 * (varint length, then a DAG-CBOR map holding "roots" or "version") is a CAR file; anything else is
 * treated as a Burn record, whose own decoders then say what is wrong with it.
 */
FileFamily sniffBytes(std::span<const uint8_t> head);
/** sniffBytes of the file's first KiB; a run directory (isRunDirectory) is RunDirectory, stdin ("-") a record, a path that cannot be read Unknown. */
FileFamily sniffFile(const std::string& path);

/** True when \a path is a directory with a checkpoint/ folder or train|valid|test/epoch-N folders (a burn-train run), or checkpoint-N/ folders (a Hugging Face Trainer's). */
bool isRunDirectory(const std::string& path);

} // namespace ckpt
