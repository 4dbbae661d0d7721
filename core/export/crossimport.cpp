// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Import across frameworks: a PyTorch (or safetensors) checkpoint's weights, and with --optimizer its
// Adam moments and step counts, into a Burn record of the same model.
#include "core/export/pieces.h"

#include "core/open/formats.h"
#include "core/tensor/shape.h"

#include <unordered_map>

namespace ckpt {

using namespace export_detail;

namespace {

/// What the import changes: new payloads (by target tensor path) and new step counts (by time node).
struct CrossPlan {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> payloads;
    std::unordered_map<uint32_t, uint64_t> times;
};

Error sourceError(const Record& source, const TensorEntry& t, ErrorCode code, std::string what)
{
    Error e{code, std::move(what), source.file};
    e.recordPath = t.path;
    return e;
}

/// The source tensor's values in the target's dtype and layout.
Result<std::vector<uint8_t>> convertedPayload(const Record& source, const TensorEntry& s, const TensorEntry& t, CrossLayout layout)
{
    std::vector<uint8_t> bytes;
    const auto raw = source.payload(s);
    const bool floats = isFloat(s.elementType()) == isFloat(t.elementType());
    if (s.dtype == DType::QFloat || t.dtype == DType::QFloat || t.legacy || !floats || (t.dtype == DType::Bool) != (s.dtype == DType::Bool))
        return std::unexpected(sourceError(source, s, ErrorCode::Unsupported,
            "a " + s.dtypeLabel() + " tensor cannot become the target's " + t.dtypeLabel() + " (" + t.path + ")"));
    if (s.elementType() == t.elementType() && raw.size() == s.numel * dtypeSize(s.elementType()))
        bytes.assign(raw.begin(), raw.end());
    else
        bytes = encodeValues(source.values(s, 0, s.numel), t.elementType());
    if (layout == CrossLayout::Transposed)
        bytes = transposedMatrix(bytes, s.shape[0], s.shape[1], dtypeSize(t.elementType()));
    return bytes;
}

/// The `time` field of a Burn optimizer entry (AdaptiveMomentumState's and its kin's), at most three maps down.
std::optional<uint32_t> timeNode(const Tape& tape, uint32_t node, int depth)
{
    if (!tape.isMap(node) || depth < 0)
        return std::nullopt;
    if (auto t = tape.find(node, "time"); t && tape[*t].kind == Kind::UInt)
        return t;
    std::optional<uint32_t> found;
    tape.forEachEntry(node, [&](uint32_t, uint32_t v) {
        if (!found)
            found = timeNode(tape, v, depth - 1);
    });
    return found;
}

const OptimizerEntry* optimizerEntryOf(const Record& r, std::string_view paramId)
{
    for (const auto& oe : r.optimizer)
        if (oe.paramId == paramId)
            return &oe;
    return nullptr;
}

/// The step count of each parameter, put into its target entry's `time`.
Result<void> planTimes(const Record& target, const Record& source, const CrossMatch& m, CrossPlan& plan)
{
    for (size_t i = 0; i < source.tensors.size(); ++i) {
        const TensorEntry& s = source.tensors[i];
        if (s.role != TensorRole::Param || !m.burnOf[i])
            continue;
        const OptimizerEntry* from = optimizerEntryOf(source, s.paramId);
        if (!from || !from->time)
            continue;
        const TensorEntry& t = target.tensors[m.burnOf[i]->first];
        const OptimizerEntry* to = optimizerEntryOf(target, t.paramId);
        const auto node = to ? timeNode(target.tape, to->stateNode, 3) : std::nullopt;
        if (!node)
            return std::unexpected(sourceError(source, s, ErrorCode::Unsupported,
                "the target keeps no optimizer step count for " + t.path + ": import --optimizer into a record whose optimizer has taken a step"));
        plan.times[*node] = *from->time;
    }
    return {};
}

Result<CrossPlan> planImport(const Record& target, const Record& source, const CrossImportOptions& o, ImportSummary& summary)
{
    if (target.partial)
        return fail(ErrorCode::Unsupported, "the target record was only scanned or opened leniently: import needs a record that opens strictly");
    if (followsPyTorchConventions(target) || !followsPyTorchConventions(source))
        return fail(ErrorCode::Usage, "import across frameworks takes a Burn record and a PyTorch or safetensors checkpoint");
    if (target.parts.size() > 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: import into one of them");
    if (o.optimizer && !target.parts.empty())
        return fail(ErrorCode::Unsupported, "import --optimizer writes step counts into an envelope record (Burn <= 0.21); a burnpack file is not supported");
    auto m = matchAcrossFrameworks(source, target, o.rewrites);
    if (!m)
        return std::unexpected(std::move(m.error()));
    CrossPlan plan;
    std::vector<bool> named(target.tensors.size(), false);
    for (size_t i = 0; i < source.tensors.size(); ++i) {
        const TensorEntry& s = source.tensors[i];
        if (m->noCounterpart[i] || (s.role == TensorRole::Optimizer && !o.optimizer))
            continue;
        if (s.role == TensorRole::Optimizer && s.paramId.empty()) // the link by order and shape failed (ckpt info says why)
            return std::unexpected(sourceError(source, s, ErrorCode::Unsupported,
                "this optimizer state is linked to no parameter, so --optimizer cannot tell whose moments it is"));
        if (!m->torchKeys[i].matchable)
            continue;
        if (!m->burnOf[i])
            return std::unexpected(sourceError(source, s, ErrorCode::Invalid,
                "the target record has no " + std::string(s.role == TensorRole::Optimizer ? "optimizer state " + m->torchKeys[i].state + " of " : "tensor ")
                    + m->torchKeys[i].name + " (rename with --map FROM=TO)"));
        const auto [j, layout] = *m->burnOf[i];
        const TensorEntry& t = target.tensors[j];
        if (!layout)
            return std::unexpected(sourceError(source, s, ErrorCode::Invalid,
                "shape " + shapeString(s.shape) + " fits neither the target's " + shapeString(t.shape) + " (" + t.path + ") nor its transpose"));
        auto bytes = convertedPayload(source, s, t, *layout);
        if (!bytes)
            return std::unexpected(std::move(bytes.error()));
        named[j] = true;
        const auto old = target.payload(t);
        if (old.size() == bytes->size() && std::equal(old.begin(), old.end(), bytes->begin()))
            ++summary.unchanged;
        else
            plan.payloads.emplace_back(t.path, std::move(*bytes));
    }
    summary.replaced = plan.payloads.size();
    std::vector<std::string> untouched;
    for (size_t j = 0; j < target.tensors.size(); ++j)
        if (!named[j] && (target.tensors[j].role == TensorRole::Param || (o.optimizer && target.tensors[j].role == TensorRole::Optimizer)))
            untouched.push_back(target.tensors[j].path);
    summary.untouched = untouched.size();
    if (!untouched.empty())
        summary.warnings.push_back(
            std::to_string(untouched.size()) + " tensors of the target are not in the source and keep their values, first " + untouched.front());
    if (o.optimizer)
        if (auto t = planTimes(target, source, *m, plan); !t)
            return std::unexpected(std::move(t.error()));
    return plan;
}

/// The import worked out: the plan (owning the new bytes), the target with its step counts edited, and the payload patch against it.
struct Prepared {
    CrossPlan plan;
    RecordPtr edited; ///< null when no step count changes: the target itself
    TensorPatch patch;
};

Result<Prepared> prepare(const Record& target, const Record& source, const CrossImportOptions& o, ImportSummary& summary)
{
    auto plan = planImport(target, source, o, summary);
    if (!plan)
        return std::unexpected(std::move(plan.error()));
    Prepared p{std::move(*plan), nullptr, {}};
    if (!p.plan.times.empty()) {
        TapeBuilder b(target.tape.source);
        copyReplacing(b, target.tape, 0, [&](uint32_t node) {
            auto it = p.plan.times.find(node);
            if (it == p.plan.times.end())
                return false;
            b.uinteger(it->second, target.tape[node].srcOffset);
            return true;
        });
        auto edited = formatOf(target).edited(target, std::move(b).finish());
        if (!edited)
            return std::unexpected(std::move(edited.error()));
        p.edited = std::move(*edited);
    }
    const Record& r = p.edited ? *p.edited : target;
    for (const auto& [path, bytes] : p.plan.payloads) {
        const auto index = r.findTensor(path);
        if (!index)
            return fail(ErrorCode::Invalid, "the edited record lost tensor " + path);
        p.patch.payloads.push_back(PayloadChange{*index, bytes});
    }
    return p;
}

} // namespace

Result<std::shared_ptr<const Record>> importedAcrossFrameworks(const Record& target, const Record& source, const CrossImportOptions& options,
    ImportSummary& summary)
{
    auto p = prepare(target, source, options, summary);
    if (!p)
        return std::unexpected(std::move(p.error()));
    const Record& r = p->edited ? *p->edited : target;
    TensorPatchReport report;
    return formatOf(r).patched(r, p->patch, report);
}

Result<ImportSummary> importAcrossFrameworks(const Record& target, const Record& source, const CrossImportOptions& options, const std::string& outPath)
{
    ImportSummary summary;
    auto p = prepare(target, source, options, summary);
    if (!p)
        return std::unexpected(std::move(p.error()));
    const Record& r = p->edited ? *p->edited : target;
    if (auto w = formatOf(r).savePatched(r, p->patch, outPath); !w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

} // namespace ckpt
