// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The safetensors family: a file's header on the tape (its tensors in header order and its
// __metadata__), each tensor a view into the mapping. Read-only: a re-save writes the file's own
// bytes; `ckpt export` writes new files from any record.
#include "core/safetensors/safetensorsformat.h"

#include "core/codec/json.h"
#include "core/model/readonlyformat.h"
#include "core/model/statedict.h"
#include "core/model/tensorprecision.h"
#include "core/safetensors/safetensorsfile.h"

namespace ckpt {

namespace {

/** safetensors' dtype names that are Burn's; F8 variants are listed by their name without statistics. */
std::optional<DType> burnDType(std::string_view name)
{
    if (name == "BOOL")
        return DType::Bool;
    if (name.starts_with("F8"))
        return std::nullopt;
    return dtypeFromName(name);
}

const SafetensorsFile& fileOf(const RecordPart& part)
{
    return *static_cast<const SafetensorsFile*>(part.container.get());
}

Result<RecordPtr> recordOf(std::shared_ptr<const SafetensorsFile> file)
{
    auto r = std::make_shared<Record>();
    r->file = file->name;
    r->kind = RecordKind::Safetensors;
    r->recorder = Recorder::Safetensors;
    r->fileSize = r->decodedSize = file->bytes->size();
    TapeBuilder b(file->bytes);
    b.beginMap();
    if (!file->metadata.empty()) {
        b.key("__metadata__");
        b.beginMap();
        for (const auto& [k, v] : file->metadata)
            putStr(b, k, v);
        b.end();
    }
    for (const auto& st : file->tensors) {
        b.key(st.name);
        TensorEntry e;
        e.path = st.name;
        e.node = b.beginMap();
        putStr(b, "dtype", st.dtype);
        b.key("shape");
        b.beginArray();
        for (uint64_t d : st.shape)
            b.uinteger(d);
        b.end();
        b.key("data_offsets");
        e.dataNode = b.beginArray();
        b.uinteger(st.begin);
        b.uinteger(st.end);
        b.end();
        b.end();
        e.shape = st.shape;
        e.bytes = st.data.size();
        e.numel = e.bytes / *safetensorsElementSize(st.dtype);
        e.offset = 8 + file->headerLength + st.begin;
        e.view = st.data;
        const auto dtype = burnDType(st.dtype);
        e.dtype = dtype.value_or(DType::QFloat);
        if (!dtype)
            e.foreignDType = st.dtype;
        // a safetensors file is a state dict: its tensors are parameters, but for the buffers
        if (!isStateDictBuffer(st.name)) {
            e.role = TensorRole::Param;
            e.paramId = st.name;
            r->params.push_back({st.name, std::nullopt, st.name, r->tensors.size()});
        }
        r->tensors.push_back(std::move(e));
    }
    b.end();
    r->tape = std::move(b).finish();
    settleTensorPrecision(*r);
    RecordPart part;
    part.file = file->name;
    part.container = std::move(file);
    r->parts.push_back(std::move(part));
    return RecordPtr(std::move(r));
}

class SafetensorsFormat final : public ReadOnlyRecordFormat {
public:
    std::string_view description() const override { return "a safetensors file"; }
    bool reads(std::span<const uint8_t> decoded) const override { return looksLikeSafetensors(decoded); }
    bool writes(Recorder recorder) const override { return recorder == Recorder::Safetensors; }

    Result<RecordPtr> open(const RecordInput& input, const OpenOptions& /*options*/, const Progress& /*progress*/) const override
    {
        auto file = readSafetensors(input.decoded, input.name);
        if (!file)
            return std::unexpected(std::move(file.error()));
        return recordOf(std::make_shared<const SafetensorsFile>(std::move(*file)));
    }

    Result<void> resave(const Record& record, const std::string& path) const override
    {
        if (record.parts.size() != 1)
            return notWritten("a sharded set is several files: copy them");
        return writeFileAtomic(path, fileOf(record.parts.front()).bytes->span());
    }

    std::string infoText(const Record& record) const override
    {
        std::string out;
        for (const auto& part : record.parts) {
            const SafetensorsFile& f = fileOf(part);
            out += "  safetensors " + part.file + ": " + std::to_string(f.headerLength) + "-byte header, " + std::to_string(f.tensors.size()) + " tensors, "
                + std::to_string(f.metadata.size()) + " metadata entries\n";
        }
        return out;
    }

    std::optional<std::pair<std::string, Tape>> infoMember(const Record& record) const override
    {
        TapeBuilder b;
        b.beginArray();
        for (const auto& part : record.parts) {
            const SafetensorsFile& f = fileOf(part);
            b.beginMap();
            putStr(b, "file", part.file);
            putU(b, "header_bytes", f.headerLength);
            putU(b, "tensors", f.tensors.size());
            b.key("metadata");
            b.beginMap();
            for (const auto& [k, v] : f.metadata)
                putStr(b, k, v);
            b.end();
            b.end();
        }
        b.end();
        return std::pair{std::string("safetensors"), std::move(b).finish()};
    }

private:
    std::string_view instead() const override { return "`ckpt export RECORD OUT.safetensors` writes new ones"; }
};

} // namespace

const RecordFormat& safetensorsFormat()
{
    static const SafetensorsFormat format;
    return format;
}

} // namespace ckpt
