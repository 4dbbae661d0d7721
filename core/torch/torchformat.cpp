// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The PyTorch family behind the format interface. Its files are read (every reading verb, the app,
// Python, runs); re-saving writes the file's own bytes again; edits, patches and conversions into a
// torch.save file are not written yet (ckpt export writes safetensors and .npz from any record).
#include "core/torch/torchformat.h"

#include "core/codec/json.h"
#include "core/model/readonlyformat.h"
#include "core/torch/dcp.h"
#include "core/torch/torchrecord.h"

namespace ckpt {

namespace {

std::string dcpInfoText(const Record& record)
{
    const torch::DcpCheckpoint& d = torch::dcpCheckpointOf(record);
    size_t chunks = 0, read = 0, tensors = 0;
    for (const auto& e : d.entries) {
        chunks += e.chunks.size();
        tensors += e.tensor ? 1 : 0;
        read += e.tensor && e.unread.empty() ? 1 : 0;
    }
    std::string out = "  dcp         " + std::to_string(d.entries.size()) + " entries (" + std::to_string(tensors) + " tensors) in " + std::to_string(chunks)
        + " chunks over " + std::to_string(d.files.size()) + " shard files; values read for " + std::to_string(read) + " of " + std::to_string(tensors)
        + " tensors\n";
    for (const auto& w : record.warnings)
        out += "  note        " + w + "\n";
    return out;
}

std::pair<std::string, Tape> dcpInfoMember(const Record& record)
{
    const torch::DcpCheckpoint& d = torch::dcpCheckpointOf(record);
    TapeBuilder b;
    b.beginMap();
    std::vector<std::string> notTensors;
    for (const auto& e : d.entries)
        if (!e.tensor)
            notTensors.push_back(e.fqn);
    putStrings(b, "not_tensors", notTensors);
    putStrings(b, "notes", record.warnings);
    b.end();
    return {std::string("dcp"), std::move(b).finish()};
}

class TorchFormat final : public ReadOnlyRecordFormat {
public:
    std::string_view description() const override { return "a PyTorch file (torch.save)"; }

    bool reads(std::span<const uint8_t> decoded) const override { return torch::looksLikeTorch(decoded); }

    bool writes(Recorder recorder) const override { return recorder == Recorder::PyTorch || recorder == Recorder::PyTorchLegacy || recorder == Recorder::DCP; }

    Result<RecordPtr> open(const RecordInput& input, const OpenOptions& /*options*/, const Progress& /*progress*/) const override
    {
        auto file = torch::readTorchFile(input.decoded);
        if (!file)
            return std::unexpected(std::move(file.error()).withFile(input.name));
        return torch::torchRecordOf(*file, input.name);
    }

    Result<void> resave(const Record& record, const std::string& path) const override
    {
        // nothing of a record of this family can change in memory: its own bytes are its re-save
        if (record.parts.size() != 1 || record.recorder == Recorder::DCP)
            return notWritten("a sharded set or a Distributed Checkpoint is several files: copy them");
        return writeFileAtomic(path, torch::torchFileOf(record.parts.front()).bytes->span());
    }

    std::string infoText(const Record& record) const override
    {
        if (record.recorder == Recorder::DCP)
            return dcpInfoText(record);
        std::string out;
        for (const auto& part : record.parts) {
            const torch::TorchFile& f = torch::torchFileOf(part);
            out += "  pytorch     " + std::string(record.parts.size() > 1 ? part.file + ": " : "") + (f.legacy ? "legacy format" : "zip format")
                + ", pickle protocol " + std::to_string(f.pickled.protocol) + ", " + std::to_string(f.pickled.storages.size()) + " storages, "
                + std::to_string(f.pickled.tensors.size()) + " tensors\n";
        }
        for (const auto& w : record.warnings)
            out += "  note        " + w + "\n";
        return out;
    }

    std::optional<std::pair<std::string, Tape>> infoMember(const Record& record) const override
    {
        if (record.recorder == Recorder::DCP)
            return dcpInfoMember(record);
        // the first file's members; a sharded set lists every shard under "files"
        const torch::TorchFile& f = torch::torchFileOf(record.parts.front());
        TapeBuilder b;
        b.beginMap();
        putStr(b, "format", f.legacy ? "legacy" : "zip");
        putStr(b, "pickle", f.pickleName);
        putU(b, "protocol", f.pickled.protocol);
        putU(b, "storages", f.pickled.storages.size());
        putStrings(b, "notes", record.warnings);
        if (record.parts.size() > 1) {
            std::vector<std::string> files;
            files.reserve(record.parts.size());
            for (const auto& part : record.parts)
                files.push_back(part.file);
            putStrings(b, "files", files);
        }
        b.end();
        return std::pair{std::string("pytorch"), std::move(b).finish()};
    }

private:
    std::string_view instead() const override { return "export the tensors with `ckpt export FILE OUT.safetensors`"; }
};

} // namespace

const RecordFormat& torchFormat()
{
    static const TorchFormat format;
    return format;
}

} // namespace ckpt
