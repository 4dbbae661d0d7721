// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Import: a safetensors file's tensors put into a record, by the record's own format family.
#include "core/export/pieces.h"

#include "core/codec/json.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h" // envelopeWithPayloads
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
            return bad(ErrorCode::Invalid, st.name, "expected dtype " + *dtype + " (the record's " + t.dtypeLabel() + "), found " + st.dtype);
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

/// The import as a patch of \a target's tensors (spans into \a file), for the target's format family to apply.
Result<TensorPatch> importPatch(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.parts.size() > 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: import into one of them");
    auto plan = importPlan(target, file, summary);
    if (!plan)
        return std::unexpected(plan.error());
    TensorPatch patch;
    for (const auto& [tensor, data] : *plan)
        patch.payloads.push_back(PayloadChange{tensor, data});
    return patch;
}
} // namespace

Result<Tape> importedEnvelope(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (!target.parts.empty())
        return fail(ErrorCode::Unsupported, "a record read from container files has no envelope: importedRecord() reads its new bytes back");
    auto patch = importPatch(target, file, summary);
    if (!patch)
        return std::unexpected(patch.error());
    return envelopeWithPayloads(target, patch->payloads);
}

Result<std::shared_ptr<const Record>> importedRecord(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    auto patch = importPatch(target, file, summary);
    if (!patch)
        return std::unexpected(patch.error());
    TensorPatchReport applied;
    return formatOf(target).patched(target, *patch, applied);
}

Result<ImportSummary> importSafetensors(const Record& target, const SafetensorsFile& file, const std::string& outPath)
{
    ImportSummary summary;
    auto patch = importPatch(target, file, summary);
    if (!patch)
        return std::unexpected(std::move(patch.error()));
    if (auto w = formatOf(target).savePatched(target, *patch, outPath); !w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

} // namespace ckpt
