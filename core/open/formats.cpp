// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The registry's list of families and the dispatch of every verb to the family of a record.
#include "core/open/formats.h"

#include "core/open/shards.h"
#include "core/open/sniff.h"
#include "core/pack/burnpackrecord.h"
#include "core/record/record.h"
#include "core/safetensors/safetensorsformat.h"
#include "core/torch/dcp.h"
#include "core/torch/torchformat.h"

#include <array>

namespace ckpt {

std::span<const RecordFormat* const> recordFormats()
{
    // burnpack, PyTorch and safetensors first: their magic is certain (NRUB; a zip with
    // ARCHIVE/data.pkl, or the legacy format's magic number; a header length that fits, then '{'); the
    // envelope family reads anything else (bincode has no magic)
    static const std::array<const RecordFormat*, 4> formats{&burnpackFormat(), &torchFormat(), &safetensorsFormat(), &envelopeFormat()};
    return formats;
}

const RecordFormat& formatFor(Recorder recorder)
{
    for (const RecordFormat* f : recordFormats())
        if (f->writes(recorder))
            return *f;
    return envelopeFormat();
}

const RecordFormat& formatOf(const Record& record)
{
    return formatFor(record.recorder);
}

Result<std::shared_ptr<const Record>> openRecord(const std::string& path, const OpenOptions& options, const Progress& progress)
{
    if (isShardIndex(path))
        return openShardedSet(path, options, progress);
    if (torch::isDcpDirectory(path))
        return torch::openDcpDirectory(path);
    Result<BytesPtr> bytes = path == "-" ? readStdin() : mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    return openRecordBytes(*bytes, path, options, progress);
}

Result<std::shared_ptr<const Record>> openRecordBytes(const BytesPtr& bytes, const std::string& name, const OpenOptions& options, const Progress& progress)
{
    auto in = recordInputOf(bytes, name, options.limits, progress);
    if (!in)
        return std::unexpected(std::move(in.error()));
    const RecordInput& input = *in;
    if (sniffBytes(input.decoded->span()) == FileFamily::GradientCheckpoint)
        return std::unexpected(Error{ErrorCode::Unsupported, "this is an ipfrs GradientCheckpoint, not a Burn record (use `ckpt graph`)", name});
    if (options.assumeRecorder)
        return formatFor(*options.assumeRecorder).open(input, options, progress);
    for (const RecordFormat* f : recordFormats())
        if (f->reads(input.decoded->span()))
            return f->open(input, options, progress);
    return envelopeFormat().open(input, options, progress);
}

bool isRecordDirectory(const std::string& path)
{
    return torch::isDcpDirectory(path);
}

bool opensWholeCheckpoint(const std::string& path)
{
    for (const RecordFormat* f : recordFormats())
        if (f->opensWhole(path))
            return true;
    return false;
}

Result<std::shared_ptr<const Record>> recordFromTape(const Record& from, Tape edited)
{
    return formatOf(from).edited(from, std::move(edited));
}

Result<void> saveEditedRecord(const Record& record, const Tape& edited, const std::string& path)
{
    return formatOf(record).saveEdited(record, edited, path);
}

Result<void> resaveRecord(const Record& record, const std::string& path)
{
    return formatOf(record).resave(record, path);
}

} // namespace ckpt
