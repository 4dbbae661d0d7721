// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The format registry: the one place that knows every format family of records (core/model/format.h),
// sniffs which one reads a file and dispatches each verb to it. Opening, re-saving and saving an
// edited record go through here, from the CLI, the app, the Python module, the trainer and the run
// timeline alike.

#include "core/model/format.h"
#include "core/model/record.h"

#include <memory>
#include <span>
#include <string>

namespace ckpt {

/** Every family, in the order they are asked whether they read a file (the last one reads any bytes). */
std::span<const RecordFormat* const> recordFormats();
/** The family that writes \a recorder. */
const RecordFormat& formatFor(Recorder recorder);
/** The family a record was read from (by its recorder). */
const RecordFormat& formatOf(const Record& record);

/**
 * Opens a record file: maps it (stdin for "-"), inflates gzip (sniffed from content, not from the
 * extension), and hands the bytes to the family that reads them, which decodes and indexes tensors,
 * parameters, optimizer entries, pending gradients, scheduler and caller state. Tensor payloads are
 * not read.
 */
Result<std::shared_ptr<const Record>> openRecord(const std::string& path, const OpenOptions& options = {},
    const Progress& progress = Progress::none());
/** The same for bytes already in memory; \a name is used in messages. */
Result<std::shared_ptr<const Record>> openRecordBytes(const BytesPtr& bytes, const std::string& name,
    const OpenOptions& options = {}, const Progress& progress = Progress::none());
/** True when \a path is a directory that is one record (a PyTorch Distributed Checkpoint), not a run of checkpoints. */
bool isRecordDirectory(const std::string& path);
/** True when \a path is the first file of a checkpoint written as several files (OpenOptions::wholeCheckpoint opens them as one). */
bool opensWholeCheckpoint(const std::string& path);

/**
 * The record an edited tape of \a from (applyEdits', a patch's) makes, in memory, in \a from's
 * format: an envelope keeps its bincode layout and file size, a container file its tensors.
 */
Result<std::shared_ptr<const Record>> recordFromTape(const Record& from, Tape edited);
/** Writes applyEdits()' tape of \a record in the record's own format (a container file keeps its tensors). */
Result<void> saveEditedRecord(const Record& record, const Tape& edited, const std::string& path);
/** Writes a record again in its own format and precision (byte-identical for files real recorders wrote). */
Result<void> resaveRecord(const Record& record, const std::string& path);

} // namespace ckpt
