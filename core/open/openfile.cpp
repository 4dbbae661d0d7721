// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/openfile.h"

#include "core/open/formats.h"
#include "core/open/shards.h"

namespace ckpt {

Result<OpenedFile> openFile(const std::string& path, const OpenOptions& options, const Progress& progress)
{
    OpenedFile out;
    if (isRecordDirectory(path) || isShardIndex(path)) {
        // a Distributed Checkpoint directory, a sharded set's index: records of several files, opened by path
        auto record = openRecord(path, options, progress);
        if (!record)
            return std::unexpected(std::move(record.error()));
        out.family = FileFamily::BurnRecord;
        out.record = std::move(*record);
        return out;
    }
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    out.family = sniffBytes((*bytes)->span());
    if (out.family == FileFamily::GradientCheckpoint) {
        auto checkpoint = loadGradientCheckpoint(*bytes, true);
        if (!checkpoint)
            return std::unexpected(std::move(checkpoint.error()).withFile(path));
        out.checkpoint = std::move(*checkpoint);
        return out;
    }
    auto record = openRecordBytes(*bytes, path, options, progress);
    if (!record)
        return std::unexpected(std::move(record.error()));
    out.family = FileFamily::BurnRecord;
    out.record = std::move(*record);
    return out;
}

} // namespace ckpt
