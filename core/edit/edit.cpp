// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/edit.h"

#include "core/codec/json.h"
#include "core/edit/partialmodule.h"
#include "core/tensor/shape.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ckpt {

namespace {
bool within(const Tape& t, uint32_t outer, uint32_t node)
{
    return node >= outer && node < t[outer].end;
}
} // namespace

EditArea editAreaOf(const Record& r, uint32_t node)
{
    const Tape& t = r.tape;
    for (const auto& te : r.tensors)
        if (within(t, te.node, node))
            return EditArea::Forbidden;
    if (r.stateNode && within(t, *r.stateNode, node))
        return EditArea::CallerState;
    if (r.schedulerNode && within(t, *r.schedulerNode, node))
        return EditArea::Scheduler;
    if (auto m = t.find(0, "metadata"); m && within(t, *m, node) && node != *m)
        return EditArea::Metadata;
    // a container format (Burn >= 0.22): every file's scalars (optimizer counters, scheduler positions) and metadata strings
    for (const auto& part : r.parts) {
        if (part.scalarsNode && within(t, *part.scalarsNode, node) && node != *part.scalarsNode)
            return EditArea::Scheduler;
        if (auto m = t.find(part.node, "metadata"); m && within(t, *m, node) && node != *m)
            return EditArea::Metadata;
    }
    return EditArea::Forbidden;
}

namespace {

Error editError(const Edit& e, std::string what)
{
    Error err;
    err.code = ErrorCode::Usage;
    err.recordPath = e.path;
    err.what = std::move(what);
    return err;
}

/**
 * An integer where the integer \a o stands. Without a schema the old value's width is all there is:
 * a 128-bit value (Wide128) takes any integer of its sign class within 128 bits, any other one stays
 * within 64 bits, so a u64 field is never given a value its program cannot read.
 */
std::optional<std::string> integerMismatch(const Tape& ot, uint32_t o, const Tape& nt, uint32_t n, bool i32Range)
{
    const Kind ok = ot[o].kind, nk = nt[n].kind;
    const bool wideField = ot.isWide(o);
    if (ok == Kind::UInt) {
        if (nk != Kind::UInt)
            return "expected a non-negative integer, found a " + std::string(kindName(nk)) + (nk == Kind::Int ? " (negative)" : "");
        const UInt128 v = nt.u128(n);
        if (i32Range && v > UInt128(std::numeric_limits<int32_t>::max()))
            return "value " + decimalText(v) + " is out of the i32 range of StepLr's iter_idx";
        if (!wideField && v > std::numeric_limits<uint64_t>::max())
            return "value " + decimalText(v) + " is out of the u64 range (only a value that already is a 128-bit integer takes one)";
        return std::nullopt;
    }
    if (nk != Kind::Int && nk != Kind::UInt)
        return "expected an integer, found a " + std::string(kindName(nk));
    if (nk == Kind::UInt && nt.u128(n) > static_cast<UInt128>(kInt128Max))
        return "value " + nt.integerText(n) + " is out of the i128 range";
    const Int128 v = nk == Kind::UInt ? static_cast<Int128>(nt.u128(n)) : nt.i128(n);
    if (i32Range && (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
        return "value " + decimalText(v) + " is out of the i32 range of StepLr's iter_idx";
    if (!wideField && (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()))
        return "value " + decimalText(v) + " is out of the i64 range (only a value that already is a 128-bit integer takes one)";
    return std::nullopt;
}

/// Is the new value (tape \a nv, node \a n) acceptable where \a old (node \a o) stands?
std::optional<std::string> typeMismatch(const Tape& ot, uint32_t o, const Tape& nt, uint32_t n, bool i32Range)
{
    const Kind ok = ot[o].kind, nk = nt[n].kind;
    auto describe = [&](const Tape& t, uint32_t i) { return std::string(kindName(t[i].kind)); };
    switch (ok) {
    case Kind::Nil: return std::nullopt; // Option None: anything goes (Some(x) or None)
    case Kind::Bool: if (nk != Kind::Bool) return "expected a bool, found a " + describe(nt, n); return std::nullopt;
    case Kind::UInt:
    case Kind::Int: return integerMismatch(ot, o, nt, n, i32Range);
    case Kind::F32:
    case Kind::F64: {
        auto v = nt.asNumber(n);
        if (!v)
            return "expected a number, found a " + describe(nt, n);
        if (ok == Kind::F32 && std::isfinite(*v) && !std::isfinite(static_cast<float>(*v)))
            return "value " + std::to_string(*v) + " does not fit an f32";
        return std::nullopt;
    }
    case Kind::Str: if (nk != Kind::Str) return "expected a string, found a " + describe(nt, n); return std::nullopt;
    case Kind::Bin: return "binary payloads cannot be edited";
    case Kind::Array: {
        if (nk != Kind::Array)
            return "expected an array, found a " + describe(nt, n);
        if (ot[o].count != nt[n].count && ot[o].count > 0) {
            // A Vec may change length; a tuple may not. Without a schema, keep element kinds uniform.
            uint32_t first = o + 1;
            std::optional<std::string> bad;
            nt.forEachChild(n, [&](uint32_t c) {
                if (!bad)
                    bad = typeMismatch(ot, first, nt, c, false);
            });
            if (bad)
                return "element: " + *bad;
            return std::nullopt;
        }
        uint32_t a = o + 1, b = n + 1;
        while (a < ot[o].end && b < nt[n].end) {
            if (auto m = typeMismatch(ot, a, nt, b, false))
                return m;
            a = ot[a].end;
            b = nt[b].end;
        }
        return std::nullopt;
    }
    case Kind::Map: {
        if (nk != Kind::Map)
            return "expected an object, found a " + describe(nt, n);
        std::optional<std::string> bad;
        ot.forEachEntry(o, [&](uint32_t k, uint32_t v) {
            if (bad)
                return;
            auto nv = nt.find(n, ot.keyText(k));
            if (!nv)
                bad = "missing field `" + ot.keyText(k) + "`";
            else
                bad = typeMismatch(ot, v, nt, *nv, false);
        });
        if (!bad && nt[n].count != ot[o].count)
            bad = "the object has fields the record's type does not have";
        return bad;
    }
    }
    return std::nullopt;
}

struct Replacement {
    const Tape* tape;
    uint32_t node;
    Kind oldKind;
};

void emitReplacement(TapeBuilder& b, const Replacement& r)
{
    const Tape& t = *r.tape;
    const Node& n = t[r.node];
    // Keep the old numeric kind so the wire encoding keeps its type (f32 stays ca, i32 stays signed).
    if ((r.oldKind == Kind::F32 || r.oldKind == Kind::F64) && (n.kind == Kind::UInt || n.kind == Kind::Int || n.kind == Kind::F64)) {
        const double v = *t.asNumber(r.node);
        if (r.oldKind == Kind::F32)
            b.f32(static_cast<float>(v));
        else
            b.f64(v);
        return;
    }
    if (r.oldKind == Kind::Int && n.kind == Kind::UInt) {
        b.integer128(static_cast<Int128>(t.u128(r.node))); // typeMismatch kept it within the field's range
        return;
    }
    b.copy(t, r.node);
}

Result<std::pair<uint32_t, Tape>> parseEdit(const Record& r, const Edit& e)
{
    auto steps = parsePath(e.path);
    if (!steps)
        return std::unexpected(steps.error());
    auto node = resolvePath(r.tape, *steps);
    if (!node)
        return std::unexpected(std::move(node.error()).withPath(e.path));
    const EditArea area = editAreaOf(r, *node);
    if (area == EditArea::Forbidden)
        return std::unexpected(editError(e, "only the continuation state (item[4]), the scheduler state and the metadata can be edited; "
                                            "tensors and the module/optimizer structure cannot"));
    JsonReadOptions jo;
    jo.packByteArrays = false;
    auto value = readJson(makeBytes(e.json), jo);
    if (!value) {
        Error err = value.error();
        err.code = ErrorCode::Usage;
        err.what = "the new value is not valid JSON: " + err.what;
        err.recordPath = e.path;
        err.line.reset();
        err.column.reset();
        err.offset.reset();
        return std::unexpected(err);
    }
    const bool stepLr = area == EditArea::Scheduler && r.scheduler && (r.scheduler->kind == "step" || r.scheduler->kind == "usize")
        && (r.tape[*node].kind == Kind::Int);
    if (auto m = typeMismatch(r.tape, *node, *value, 0, stepLr))
        return std::unexpected(editError(e, *m));
    return std::pair{*node, std::move(*value)};
}

} // namespace

Result<void> checkEdit(const Record& r, const Edit& e)
{
    auto p = parseEdit(r, e);
    if (!p)
        return std::unexpected(p.error());
    return {};
}

Result<Tape> applyEdits(const Record& r, const std::vector<Edit>& edits)
{
    std::vector<std::pair<uint32_t, Tape>> parsed;
    parsed.reserve(edits.size());
    for (const auto& e : edits) {
        auto p = parseEdit(r, e);
        if (!p)
            return std::unexpected(p.error());
        parsed.push_back(std::move(*p));
    }
    std::unordered_map<uint32_t, Replacement> rep;
    for (const auto& [node, tape] : parsed)
        rep[node] = Replacement{&tape, 0, r.tape[node].kind};
    TapeBuilder b(r.tape.source);
    copyReplacing(b, r.tape, 0, [&](uint32_t node) {
        auto it = rep.find(node);
        if (it == rep.end())
            return false;
        emitReplacement(b, it->second);
        return true;
    });
    return std::move(b).finish();
}

std::string_view resumeStatusName(ResumeCheck::Status s)
{
    switch (s) {
    case ResumeCheck::Status::Ok: return "ok";
    case ResumeCheck::Status::Warning: return "warning";
    case ResumeCheck::Status::Error: return "error";
    }
    return "error";
}

namespace {

/// The optimizer's lines of the checklist: its entries against the parameters, step counters, coverage.
void checkOptimizer(const Record& r, const std::map<std::string, const ParamEntry*>& params, const std::set<std::string>& outsidePartial, bool training,
    std::vector<ResumeCheck>& out)
{
    using S = ResumeCheck::Status;
    auto add = [&](std::string name, S s, std::string detail) { out.push_back({std::move(name), s, std::move(detail)}); };
    if (r.optimizerNode) {
        size_t unknown = 0, shapeBad = 0, dtypeBad = 0, outside = 0;
        std::set<uint64_t> times;
        std::string firstProblem;
        std::pair<std::string, uint32_t> where;
        for (const auto& oe : r.optimizer) {
            if (oe.time)
                times.insert(*oe.time);
            auto it = params.find(oe.paramId);
            if (it == params.end()) {
                if (outsidePartial.contains(oe.paramId)) {
                    ++outside; // state of a parameter the partial module record leaves to its starting module
                } else if (!r.params.empty()) {
                    ++unknown;
                    if (firstProblem.empty()) {
                        firstProblem = "optimizer entry " + oe.paramId + " has no parameter in the model";
                        where = {oe.path, oe.node};
                    }
                }
                continue;
            }
            const auto& pt = r.tensors[it->second->tensor];
            for (size_t ti : oe.tensors) {
                const auto& st = r.tensors[ti];
                if (st.shape != pt.shape) {
                    ++shapeBad;
                    if (firstProblem.empty()) {
                        firstProblem = st.path + " has shape " + shapeString(st.shape) + " but its parameter has " + shapeString(pt.shape);
                        where = {st.path, st.node};
                    }
                }
                if (isFloat(st.dtype) != isFloat(pt.dtype)) {
                    ++dtypeBad;
                    if (firstProblem.empty()) {
                        firstProblem = st.path + " is " + st.dtypeLabel() + " but its parameter is " + pt.dtypeLabel();
                        where = {st.path, st.node};
                    }
                }
            }
            if (oe.rank != 0 && oe.rank != pt.shape.size()) {
                ++shapeBad;
                if (firstProblem.empty()) {
                    firstProblem = "optimizer entry " + oe.paramId + " is Rank" + std::to_string(oe.rank) + " but the parameter has rank " + std::to_string(pt.shape.size());
                    where = {oe.path, oe.node};
                }
            }
        }
        const S s = (unknown || shapeBad || dtypeBad) ? S::Error : S::Ok;
        add("optimizer", s,
            std::to_string(r.optimizer.size()) + " optimizer entries" + (r.params.empty() ? "" : " for " + std::to_string(r.params.size()) + " parameters")
                + (outside ? ", " + std::to_string(outside) + " of them for parameters outside this partial module record" : "")
                + (firstProblem.empty() ? "" : "; " + firstProblem));
        out.back().path = where.first;
        out.back().node = where.second;
        if (times.size() > 1)
            add("optimizer-steps", S::Warning, "optimizer entries disagree on the step counter (" + std::to_string(*times.begin()) + " .. "
                + std::to_string(*times.rbegin()) + "): parameters were frozen or added during training");
        else if (times.size() == 1)
            add("optimizer-steps", S::Ok, "every entry is at step " + std::to_string(*times.begin()));
        std::set<std::string> stepped;
        for (const auto& oe : r.optimizer)
            stepped.insert(oe.paramId);
        size_t missing = 0;
        const ParamEntry* firstMissing = nullptr;
        for (const auto& p : r.params)
            if (!stepped.contains(p.id) && missing++ == 0)
                firstMissing = &p;
        // Burn 0.22's ModuleOptimizer re-initialises a parameter without state silently at the next step
        if (missing > 0 && (!r.optimizer.empty() || r.kind == RecordKind::BurnTrainCheckpoint)) {
            add("optimizer-coverage", S::Warning, std::to_string(missing) + " of " + std::to_string(r.params.size())
                + " parameters have no optimizer state (never stepped, frozen, or lost), first " + firstMissing->modulePath
                + ": they restart from zero moments" + (r.parts.empty() ? "" : ", and Burn 0.22 does not say so"));
            out.back().path = firstMissing->modulePath;
            out.back().node = r.tensors[firstMissing->tensor].node;
        }
    } else if (training) {
        add("optimizer", S::Error, "no optimizer record");
    }
}

} // namespace

std::vector<ResumeCheck> checkResume(const Record& r, const Record* whole)
{
    using S = ResumeCheck::Status;
    std::vector<ResumeCheck> out;
    auto add = [&](std::string name, S s, std::string detail) {
        out.push_back({std::move(name), s, std::move(detail)});
    };

    const bool training = r.kind == RecordKind::TrainingRecord || r.kind == RecordKind::ModelStateTrainingRecord || r.kind == RecordKind::BurnTrainCheckpoint;
    if (r.kind == RecordKind::BurnTrainCheckpoint)
        add("kind", S::Ok,
            std::string(recordKindName(r.kind)) + ": the model, optimizer and scheduler files of "
                + (r.epoch ? "epoch " + std::to_string(*r.epoch) : std::string("one epoch")) + " (Burn 0.22 keeps no pending gradients or caller state)");
    else if (training)
        add("kind", S::Ok, std::string(recordKindName(r.kind)) + ": model, optimizer, scheduler, pending gradients and continuation state in one record");
    else
        add("kind", S::Warning,
            std::string(recordKindName(r.kind))
                + ": a resumption needs the other parts from separate files (burn-train keeps model-N, optim-N and scheduler-N side by side)");

    if (r.kind != RecordKind::OptimizerRecord && r.kind != RecordKind::SchedulerRecord)
        add("model", r.params.empty() ? S::Error : S::Ok, std::to_string(r.params.size()) + " parameters");

    const auto partial = partialModuleOf(r, whole);
    std::set<std::string> outsidePartial;
    if (partial) {
        outsidePartial.insert(partial->missingIds.begin(), partial->missingIds.end());
        add("partial-module", S::Warning, partialModuleDetail(*partial));
        out.back().missing = partial->missing;
    }

    std::map<std::string, const ParamEntry*> params;
    for (const auto& p : r.params)
        params[p.id] = &p;
    checkOptimizer(r, params, outsidePartial, training, out);

    if (r.schedulerNode && r.scheduler)
        add("scheduler", S::Ok, r.scheduler->description);
    else if (training)
        add("scheduler", S::Error, "no scheduler record");

    if (r.gradientsNode) {
        size_t bad = 0;
        std::string first;
        const TensorEntry* firstTensor = nullptr;
        for (const auto& g : r.gradients) {
            auto it = params.find(g.paramId);
            const auto& gt = r.tensors[g.tensor];
            if (!bad)
                firstTensor = &gt; // the entry the first problem is reported at
            if (it == params.end()) {
                ++bad;
                if (first.empty())
                    first = "pending gradient for id " + std::to_string(g.id) + " has no parameter";
            } else if (r.tensors[it->second->tensor].shape != gt.shape) {
                ++bad;
                if (first.empty())
                    first = gt.path + " does not have its parameter's shape";
            } else if (!isFloat(gt.dtype)) {
                ++bad;
                if (first.empty())
                    first = gt.path + " is not a float tensor";
            }
        }
        add("pending-gradients", bad ? S::Error : S::Ok,
            r.gradients.empty() ? "no pending gradients (the checkpoint was taken at an optimizer step boundary)"
                                : std::to_string(r.gradients.size()) + " pending gradients will be restored into the accumulator" + (first.empty() ? "" : "; " + first));
        if (bad && firstTensor) {
            out.back().path = firstTensor->path;
            out.back().node = firstTensor->node;
        }
    }
    if (r.stateNode) {
        const auto& n = r.tape[*r.stateNode];
        add("continuation-state", n.kind == Kind::Nil ? S::Warning : S::Ok,
            n.kind == Kind::Nil ? "the caller state is empty: epoch and iteration must come from elsewhere"
                                : std::string("caller state present (") + kindName(n.kind) + " with " + std::to_string(n.count) + " entries)");
    }
    if (r.precision == Precision::Half && !r.mixedPrecision)
        add("precision", S::Warning, "half-precision record: parameters and optimizer moments were rounded to f16; resumption is not bit-exact");
    else
        add("precision", S::Ok, std::string(r.precisionText()) + " precision");
    for (const auto& w : r.warnings)
        add("file", S::Warning, w);
    return out;
}

Result<void> validateRecord(const Record& r)
{
    // Parts that are merely absent make a record less resumable, not invalid; parts that contradict
    // each other (optimizer state or pending gradients that do not fit their parameters) are invalid.
    for (const auto& c : checkResume(r))
        if (c.status == ResumeCheck::Status::Error && (c.name == "optimizer" || c.name == "pending-gradients") && !r.params.empty()) {
            Error e{ErrorCode::Invalid, c.name + ": " + c.detail};
            e.recordPath = c.path;
            if (!c.path.empty())
                e.offset = r.tape[c.node].srcOffset;
            return std::unexpected(std::move(e));
        }
    return {};
}

} // namespace ckpt
