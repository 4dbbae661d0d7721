// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The serde envelope family behind the format interface: every verb on a MessagePack, JSON or
// bincode record (plain or gzip) is an edit of its tape, written again by the recorder's encoder.
#include "core/record/record.h"

#include "core/codec/schema.h"
#include "core/record/bincoderecord.h"

#include <unordered_map>
#include <unordered_set>

namespace ckpt {

Tape envelopeWithPayloads(const Record& record, std::span<const PayloadChange> changes)
{
    uint64_t poolBytes = 0;
    for (const auto& c : changes)
        poolBytes += c.legacyTape ? 0 : c.bytes.size();
    Tape out = record.tape;
    out.pool.reserve(out.pool.size() + poolBytes);
    for (const auto& c : changes) {
        if (c.legacyTape)
            continue;
        Node& n = out.nodes[record.tensors[c.tensor].dataNode];
        n.flags |= InPool;
        n.payload = out.pool.size();
        n.count = c.bytes.size();
        out.pool.insert(out.pool.end(), c.bytes.begin(), c.bytes.end());
    }
    return out;
}

namespace {

/// The tape \a patch makes: new payloads in place, then the optimizer entries and legacy value lists rewritten.
Result<Tape> patchedTape(const Record& r, const TensorPatch& patch, TensorPatchReport& report)
{
    Tape t = envelopeWithPayloads(r, patch.payloads);
    std::unordered_map<uint32_t, const PayloadChange*> legacy; // data node -> its new value list
    for (const auto& c : patch.payloads)
        if (c.legacyTape)
            legacy.emplace(r.tensors[c.tensor].dataNode, &c);
    std::unordered_set<uint32_t> removed;
    if (!patch.dropOptimizerOf.empty()) {
        if (!r.optimizerNode || !r.tape.isMap(*r.optimizerNode))
            return fail(ErrorCode::Unsupported, "the record has no optimizer map {param id: state}");
        for (const auto& oe : r.optimizer)
            if (patch.dropOptimizerOf.contains(oe.paramId)) {
                removed.insert(oe.node);
                report.removed.push_back(oe.path);
            }
    }
    if (legacy.empty() && removed.empty())
        return t;
    TapeBuilder b(t.source);
    copyReplacing(b, t, 0, [&](uint32_t node) {
        if (auto it = legacy.find(node); it != legacy.end()) {
            b.copy(*it->second->legacyTape, it->second->legacyNode);
            return true;
        }
        if (removed.empty() || node != *r.optimizerNode)
            return false;
        b.beginMap(t[node].srcOffset);
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            if (removed.contains(v))
                return;
            b.copy(t, k);
            b.copy(t, v);
        });
        b.end();
        return true;
    });
    return std::move(b).finish();
}

class EnvelopeFormat final : public RecordFormat {
public:
    std::string_view description() const override { return "a Burn <= 0.21 record"; }

    // Bincode has no magic: the envelope family reads whatever no other family claims (the registry asks it last).
    bool reads(std::span<const uint8_t> /*decoded*/) const override { return true; }

    bool writes(Recorder recorder) const override
    {
        switch (recorder) {
        case Recorder::NamedMpk:
        case Recorder::NamedMpkGz:
        case Recorder::PrettyJson:
        case Recorder::JsonGz:
        case Recorder::Bin:
        case Recorder::BinGz: return true;
        default: return false;
        }
    }

    Result<RecordPtr> open(const RecordInput& input, const OpenOptions& options, const Progress& progress) const override
    {
        return openEnvelope(input, options, progress);
    }

    Result<void> resave(const Record& record, const std::string& path) const override
    {
        if (record.partial)
            return fail(ErrorCode::Unsupported, "the bincode record was only scanned (no schema): pass --schema-from or --schema to re-save it");
        return saveRecord(record.tape, record.recorder, path, record.bincodeSchema.get());
    }

    Result<RecordPtr> edited(const Record& from, Tape edited) const override
    {
        auto indexed = indexRecord(std::move(edited), from.recorder, from.file);
        if (!indexed)
            return std::unexpected(indexed.error());
        auto copy = std::make_shared<Record>(**indexed);
        copy->bincodeSchema = from.bincodeSchema;
        copy->schemaSource = from.schemaSource;
        copy->fileSize = from.fileSize;
        return RecordPtr(std::move(copy));
    }

    Result<void> saveEdited(const Record& record, const Tape& edited, const std::string& path) const override
    {
        return saveRecord(edited, record.recorder, path, record.bincodeSchema.get());
    }

    Result<RecordPtr> patched(const Record& record, const TensorPatch& patch, TensorPatchReport& report) const override
    {
        auto tape = patchedTape(record, patch, report);
        if (!tape)
            return std::unexpected(tape.error());
        return edited(record, std::move(*tape));
    }

    Result<void> savePatched(const Record& record, const TensorPatch& patch, const std::string& path) const override
    {
        TensorPatchReport report;
        auto tape = patchedTape(record, patch, report);
        if (!tape)
            return std::unexpected(tape.error());
        if (auto w = saveRecord(*tape, record.recorder, path, record.bincodeSchema.get()); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        return {};
    }

    Result<SaveAsResult> saveAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
        const OpenOptions& layoutOptions) const override
    {
        SaveAsResult result;
        // Writing bincode needs the exact Rust layout: the input's own, or the one --schema /
        // --schema-from / --scheduler name (tuples stay tuples, i32 stays i32), else derived from the input.
        std::optional<BincodeLayout> target;
        if (recorder == Recorder::Bin || recorder == Recorder::BinGz) {
            auto layout = bincodeTargetLayout(record, layoutOptions);
            if (!layout)
                return std::unexpected(std::move(layout.error()));
            result.notes = layout->notes;
            target = std::move(*layout);
        } else if ((recorder == Recorder::NamedMpk || recorder == Recorder::NamedMpkGz)
            && (record.recorder == Recorder::PrettyJson || record.recorder == Recorder::JsonGz)) {
            // JSON floats are all f64: the record's layout (named, or ckpt-train's own) says which are f32.
            auto layout = jsonFloatLayout(record, layoutOptions);
            if (!layout)
                return std::unexpected(std::move(layout.error()));
            if (*layout)
                target = std::move(**layout);
        }
        auto res = convertRecord(record, recorder, precision, path, target ? &target->schema : nullptr);
        if (!res)
            return std::unexpected(Error(res.error()).withFile(path));
        result.warnings = std::move(res->warnings);
        return result;
    }

    Result<Tape> toEnvelope(const Record& record, std::vector<std::string>& lost) const override
    {
        ConvertResult report;
        auto env = convertedEnvelope(record, Recorder::NamedMpk, Precision::Full, report);
        lost.insert(lost.end(), report.warnings.begin(), report.warnings.end());
        return env;
    }

    Result<SaveAsResult> importFrom(const RecordFormat& from, const Record& record, Recorder recorder, Precision precision,
        const std::string& path, const OpenOptions& layoutOptions) const override
    {
        // the other family's record as Burn 0.21's envelope, then the usual conversion to the recorder and precision asked for
        std::vector<std::string> lost;
        auto envelope = from.toEnvelope(record, lost);
        if (!envelope)
            return std::unexpected(Error(envelope.error()).withFile(record.file));
        auto indexed = indexRecord(std::move(*envelope), Recorder::NamedMpk, record.file);
        if (!indexed)
            return std::unexpected(indexed.error());
        auto res = saveAs(**indexed, recorder, precision, path, layoutOptions);
        if (!res)
            return res;
        lost.insert(lost.end(), res->warnings.begin(), res->warnings.end());
        res->warnings = std::move(lost);
        return res;
    }

    std::string infoText(const Record& /*record*/) const override { return {}; }
    std::optional<std::pair<std::string, Tape>> infoMember(const Record& /*record*/) const override { return std::nullopt; }
};

} // namespace

const RecordFormat& envelopeFormat()
{
    static const EnvelopeFormat format;
    return format;
}

} // namespace ckpt
