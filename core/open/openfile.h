// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/checkpoint.h"
#include "core/open/sniff.h"
#include "core/model/record.h"

#include <memory>
#include <optional>
#include <string>

namespace ckpt {

/** A file opened as what its content is. */
struct OpenedFile {
    FileFamily family = FileFamily::Unknown;
    std::shared_ptr<const Record> record;         ///< a Burn record (FileFamily::BurnRecord)
    std::optional<GradientCheckpoint> checkpoint; ///< a GradientCheckpoint, graph-only checkpoint() bytes included
};

/**
 * Maps \a path once, sniffs the mapping (sniffBytes) and hands it to the decoder of its family:
 * openRecordBytes for a record, loadGradientCheckpoint for a GradientCheckpoint. A CAR file or
 * anything else unknown goes to the record decoders, which say what is wrong. Errors carry the file.
 */
Result<OpenedFile> openFile(const std::string& path, const OpenOptions& options = {}, const Progress& progress = Progress::none());

} // namespace ckpt
