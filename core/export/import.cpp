// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Import: a safetensors file's tensors put into a record (its envelope, or a burnpack file's payloads).
#include "core/export/pieces.h"

#include "core/codec/json.h"
#include "core/io/bytes.h"
#include "core/pack/burnpackrecord.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <unordered_map>

namespace ckpt {

using namespace export_detail;

namespace {
/// Which tensors of \a target take which bytes of \a file (checked), and the summary of the import.
Result<std::vector<std::pair<size_t, std::span<const uint8_t>>>> importPlan(const Record& target, const SafetensorsFile& file,
    ImportSummary& summary)
{
    if (target.partial)
        return fail(ErrorCode::Unsupported, "the target record was only scanned or opened leniently: import needs a record that opens strictly");
    std::unordered_map<std::string_view, size_t> byPath;
    for (size_t i = 0; i < target.tensors.size(); ++i)
        byPath.emplace(target.tensors[i].path, i);
    auto bad = [&](ErrorCode code, const std::string& tensor, std::string what) {
        Error e{code, std::move(what), file.name};
        e.recordPath = tensor;
        return std::unexpected(std::move(e));
    };
    std::vector<std::pair<size_t, std::span<const uint8_t>>> replace;
    std::vector<bool> named(target.tensors.size(), false);
    for (const auto& st : file.tensors) {
        auto it = byPath.find(st.name);
        if (it == byPath.end())
            return bad(ErrorCode::Invalid, st.name, "the target record has no tensor of this path");
        const TensorEntry& t = target.tensors[it->second];
        named[it->second] = true;
        auto dtype = safetensorsDtypeFor(t);
        if (!dtype)
            return std::unexpected(Error(dtype.error()).withFile(file.name));
        if (st.dtype != *dtype)
            return bad(ErrorCode::Invalid, st.name, "expected dtype " + *dtype + " (the record's " + std::string(dtypeName(t.dtype)) + "), found " + st.dtype);
        if (st.shape != t.shape)
            return bad(ErrorCode::Invalid, st.name, "expected shape " + shapeString(t.shape) + ", found " + shapeString(st.shape));
        if (t.legacy) {
            const auto old = encodeLegacy(target, t);
            if (old.size() != st.data.size() || !std::equal(old.begin(), old.end(), st.data.begin()))
                return bad(ErrorCode::Unsupported, st.name, "a legacy {value, shape} tensor (Burn <= 0.13) cannot take new values; convert the record first");
            ++summary.unchanged;
            continue;
        }
        const auto old = target.payload(t);
        if (old.size() == st.data.size() && std::equal(old.begin(), old.end(), st.data.begin())) {
            ++summary.unchanged;
            continue;
        }
        if (!t.view && target.tape[t.dataNode].kind != Kind::Bin)
            return bad(ErrorCode::Unsupported, st.name, "the payload is not a byte string on the tape");
        replace.emplace_back(it->second, st.data);
    }
    for (bool n : named)
        summary.untouched += n ? 0 : 1;
    summary.replaced = replace.size();
    // The file's record metadata, when it has ours, should describe the same continuation.
    for (const auto& [key, value] : file.metadata) {
        if (key != "ckpt")
            continue;
        auto meta = readJson(makeBytes(std::string_view(value)), JsonReadOptions{128, false, true});
        if (!meta || !meta->isMap(0)) {
            summary.warnings.emplace_back("the file's ckpt metadata is not a JSON object; ignored");
            break;
        }
        if (auto kind = meta->find(0, "kind"); kind && meta->isStr(*kind) && meta->str(*kind) != recordKindName(target.kind))
            summary.warnings.push_back("the file was exported from a " + std::string(meta->str(*kind)) + ", the target is a " +
                std::string(recordKindName(target.kind)));
        if (auto state = meta->find(0, "state"); state && target.stateNode
            && jsonText(*meta, *state, JsonStyle::Compact) != jsonText(target.tape, *target.stateNode, JsonStyle::Compact))
            summary.warnings.emplace_back("the file's continuation state differs from the target's; the target's is kept (change it with ckpt edit)");
    }
    return replace;
}

/// A burnpack target: its file with the new payloads (spans into \a file), in its physical order.
Result<pack::BurnpackContent> importedBurnpackContent(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.burnpack.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: import into one of them");
    auto plan = importPlan(target, file, summary);
    if (!plan)
        return std::unexpected(plan.error());
    pack::BurnpackContent content = pack::contentOf(*target.burnpack.front().pack);
    std::unordered_map<std::string_view, size_t> entryOf;
    for (size_t i = 0; i < content.tensors.size(); ++i)
        entryOf.emplace(content.tensors[i].name, i);
    for (const auto& [tensor, data] : *plan)
        content.tensors[entryOf.at(target.tensors[tensor].path)].data = data;
    return content;
}
} // namespace

Result<Tape> importedEnvelope(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.recorder == Recorder::Burnpack)
        return fail(ErrorCode::Unsupported, "a burnpack record has no envelope: importedRecord() reads its new bytes back");
    auto plan = importPlan(target, file, summary);
    if (!plan)
        return std::unexpected(plan.error());
    uint64_t poolBytes = 0;
    for (const auto& [tensor, data] : *plan)
        poolBytes += data.size();
    Tape out = target.tape;
    out.pool.reserve(out.pool.size() + poolBytes);
    for (const auto& [tensor, data] : *plan) {
        Node& n = out.nodes[target.tensors[tensor].dataNode];
        n.flags |= InPool;
        n.payload = out.pool.size();
        n.count = data.size();
        out.pool.insert(out.pool.end(), data.begin(), data.end());
    }
    return out;
}

Result<std::shared_ptr<const Record>> importedRecord(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.recorder == Recorder::Burnpack) {
        auto content = importedBurnpackContent(target, file, summary);
        if (!content)
            return std::unexpected(content.error());
        return burnpackRecordOf(*content, target.file);
    }
    auto tape = importedEnvelope(target, file, summary);
    if (!tape)
        return std::unexpected(tape.error());
    return recordFromTape(target, std::move(*tape));
}

Result<ImportSummary> importSafetensors(const Record& target, const SafetensorsFile& file, const std::string& outPath)
{
    ImportSummary summary;
    if (target.recorder == Recorder::Burnpack) {
        auto content = importedBurnpackContent(target, file, summary);
        if (!content)
            return std::unexpected(std::move(content.error()));
        if (auto w = pack::writeBurnpack(outPath, *content); !w)
            return std::unexpected(Error(w.error()).withFile(outPath));
        return summary;
    }
    auto tape = importedEnvelope(target, file, summary);
    if (!tape)
        return std::unexpected(std::move(tape.error()));
    if (auto w = saveRecord(*tape, target.recorder, outPath, target.bincodeSchema.get()); !w)
        return std::unexpected(Error(w.error()).withFile(outPath));
    return summary;
}

} // namespace ckpt
