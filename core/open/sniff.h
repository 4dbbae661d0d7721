// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one format detector: which engine reads a file, and in which wire format a record is. The CLI,
// the app, the trainer and the Python module all ask here, so a file opens the same way everywhere.

#include "core/record/recorder.h"

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

/**
 * True when \a head (a file's first KiB) is plain text: no byte below 0x20 but tab, newline and
 * carriage return, no DEL. No bincode record is: it starts with its metadata's first string, whose
 * one-byte length (3 for "f32", 19 for "half::binary16::f16") is a control byte; a text that is not
 * JSON is therefore not a checkpoint at all (/etc/passwd, a log, a README).
 */
bool looksLikeText(std::span<const uint8_t> head);

/** How a record's (inflated) bytes are encoded. */
enum class RecordWire { Msgpack, Json, Bincode, Burnpack };
/** From the first bytes after gzip: burnpack's magic, a MessagePack map, JSON (or a BOM, which the JSON reader rejects), else bincode. */
RecordWire sniffRecordWire(std::span<const uint8_t> decoded);
/** The recorder that writes this wire format, compressed or not. */
Recorder recorderOf(RecordWire wire, bool gzip);
/** The wire format a recorder writes. */
RecordWire wireOf(Recorder recorder);

} // namespace ckpt
