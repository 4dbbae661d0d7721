// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint surgery. Every operation works out what changes (the parameters whose optimizer state
// goes, the tensors that take new bytes, a new scheduler item) and lets the record's format family
// build the new record (a new tape, or a container's new tensor list) and index it again, so that the next operation, the resume-readiness check
// and the writer all see exactly the record that will be written.
#include "core/edit/patch.h"

#include "core/codec/json.h"
#include "core/graph/sha256.h"
#include "core/io/bytes.h"
#include "core/model/fieldreader.h"
#include "core/model/schedule.h"
#include "core/open/formats.h"
#include "core/util/text.h"
#include "core/tensor/shape.h"
#include "core/util/paths.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

std::string_view patchOpName(PatchOp::Kind kind)
{
    switch (kind) {
    case PatchOp::Kind::ResetOptimizer: return "reset_optimizer";
    case PatchOp::Kind::ZeroNonFinite: return "zero_nonfinite";
    case PatchOp::Kind::SchedulerStep: return "scheduler_step";
    case PatchOp::Kind::Transplant: return "transplant";
    case PatchOp::Kind::Set: return "set";
    }
    return "set";
}

std::string describePatchOp(const PatchOp& op)
{
    switch (op.kind) {
    case PatchOp::Kind::ResetOptimizer: return "reset the optimizer state of " + op.glob;
    case PatchOp::Kind::ZeroNonFinite: return "zero the non-finite optimizer moments";
    case PatchOp::Kind::SchedulerStep: return "set the scheduler to step " + std::to_string(op.step);
    case PatchOp::Kind::Transplant: return "transplant " + op.glob + " from " + std::filesystem::path(op.from).filename().string();
    case PatchOp::Kind::Set: return "set " + op.path + " = " + op.json;
    }
    return {};
}

namespace {

Error opError(ErrorCode code, const PatchOp& op, const std::string& what, std::string path = {})
{
    Error e;
    e.code = code;
    e.what = std::string(patchOpName(op.kind)) + ": " + what;
    e.recordPath = std::move(path);
    return e;
}

/// Calls \a f(byte offset, width) for every NaN/±Inf element of a little-endian float payload; returns how many.
template<class F>
uint64_t forEachNonFinite(std::span<const uint8_t> bytes, DType dtype, F&& f)
{
    uint64_t n = 0;
    auto each = [&]<typename Bits>(auto isNonFinite) {
        for (size_t at = 0; at + sizeof(Bits) <= bytes.size(); at += sizeof(Bits)) {
            Bits v;
            std::memcpy(&v, bytes.data() + at, sizeof v);
            if (isNonFinite(v)) {
                f(at, sizeof v);
                ++n;
            }
        }
    };
    switch (dtype) {
    case DType::F64: each.template operator()<uint64_t>([](uint64_t b) { return ((b >> 52) & 0x7ff) == 0x7ff; }); break;
    case DType::F32:
    case DType::Flex32: each.template operator()<uint32_t>([](uint32_t b) { return ((b >> 23) & 0xff) == 0xff; }); break;
    case DType::F16: each.template operator()<uint16_t>([](uint16_t b) { return ((b >> 10) & 0x1f) == 0x1f; }); break;
    case DType::BF16: each.template operator()<uint16_t>([](uint16_t b) { return ((b >> 7) & 0xff) == 0xff; }); break;
    default: break;
    }
    return n;
}

uint64_t countNonFinite(std::span<const uint8_t> bytes, DType dtype)
{
    return forEachNonFinite(bytes, dtype, [](size_t, size_t) {});
}

/// A copy of \a bytes with every NaN/±Inf element set to +0.
std::vector<uint8_t> zeroedCopy(std::span<const uint8_t> bytes, DType dtype, uint64_t& zeroed)
{
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    zeroed = forEachNonFinite(bytes, dtype, [&](size_t at, size_t width) { std::memset(copy.data() + at, 0, width); });
    return copy;
}

bool isNonFiniteNumber(const Tape& t, uint32_t node, DType dtype)
{
    if (dtype == DType::F16 && t[node].kind == Kind::UInt && !t.isWide(node)) // half legacy values are f16 bit patterns
        return ((t.u64(node) >> 10) & 0x1f) == 0x1f;
    auto v = t.asNumber(node);
    return v && !std::isfinite(*v);
}

/// The parameter ids a glob selects: module path, parameter tensor path or id; for a record without a
/// model (an optimizer file) the optimizer entry's id and path.
std::set<std::string> matchingParameters(const Record& r, const std::string& glob)
{
    std::set<std::string> ids;
    for (const auto& p : r.params)
        if (globMatch(glob, p.modulePath) || globMatch(glob, r.tensors[p.tensor].path) || globMatch(glob, p.id))
            ids.insert(p.id);
    for (const auto& oe : r.optimizer)
        if (globMatch(glob, oe.paramId) || globMatch(glob, oe.path))
            ids.insert(oe.paramId);
    return ids;
}

/// A TensorPatch applied by the record's own format family, its errors named after the operation.
Result<std::shared_ptr<const Record>> patchedBy(const Record& r, const PatchOp& op, const TensorPatch& patch, TensorPatchReport& applied)
{
    if (r.parts.size() > 1)
        return std::unexpected(opError(ErrorCode::Unsupported, op, "an epoch's model/optim/scheduler triple is three files: patch one of them"));
    auto out = formatOf(r).patched(r, patch, applied);
    if (!out)
        return std::unexpected(opError(out.error().code, op, out.error().what, out.error().recordPath));
    return out;
}

Result<std::shared_ptr<const Record>> resetOptimizer(const Record& r, const PatchOp& op, PatchOpReport& report)
{
    const auto ids = matchingParameters(r, op.glob);
    if (ids.empty())
        return std::unexpected(opError(ErrorCode::Usage, op, "no parameter matches " + op.glob + " (matched against module paths such as "
            + (r.params.empty() ? std::string("item[0].fc1.weight") : r.params.front().modulePath) + ", tensor paths and ids)"));
    TensorPatch patch;
    patch.dropOptimizerOf = ids;
    TensorPatchReport applied;
    auto out = patchedBy(r, op, patch, applied);
    if (!out)
        return out;
    report.summary = "removed the optimizer state of " + std::to_string(applied.removed.size()) + " of " + std::to_string(ids.size()) + " matching parameters";
    report.paths = std::move(applied.removed);
    return out;
}

Result<std::shared_ptr<const Record>> zeroNonFinite(const Record& r, const PatchOp& op, PatchOpReport& report)
{
    const Tape& t = r.tape;
    TensorPatch patch;
    std::vector<std::vector<uint8_t>> owned; // zeroed payloads, alive until the family has applied them
    std::deque<Tape> lists;                  // zeroed legacy value lists (a deque: PayloadChange points into it)
    owned.reserve(r.tensors.size());
    uint64_t zeroed = 0;
    for (size_t i = 0; i < r.tensors.size(); ++i) {
        const TensorEntry& te = r.tensors[i];
        if (te.role != TensorRole::Optimizer || !isFloat(te.dtype))
            continue;
        uint64_t n = 0;
        if (te.legacy) { // Burn <= 0.13: the values are numbers on the tape
            const uint32_t node = te.dataNode;
            TapeBuilder b(t.source);
            b.beginArray(t[node].srcOffset);
            t.forEachChild(node, [&](uint32_t c) {
                if (!isNonFiniteNumber(t, c, te.dtype)) {
                    b.copy(t, c);
                    return;
                }
                ++n;
                if (t[c].kind == Kind::F32)
                    b.f32(0.0F, t[c].srcOffset);
                else if (t[c].kind == Kind::F64)
                    b.f64(0.0, t[c].srcOffset);
                else
                    b.uinteger(0, t[c].srcOffset);
            });
            b.end();
            if (n > 0) {
                lists.push_back(std::move(b).finish());
                patch.payloads.push_back(PayloadChange{i, {}, &lists.back(), 0});
            }
        } else if (te.view || t[te.dataNode].kind == Kind::Bin) {
            // Most moments are finite: they are scanned in place, and only a payload that needs zeroing is copied.
            auto payload = r.payload(te);
            if (countNonFinite(payload, te.dtype) > 0) {
                owned.push_back(zeroedCopy(payload, te.dtype, n)); // a moved vector keeps its buffer: the span stays valid
                patch.payloads.push_back(PayloadChange{i, owned.back()});
            }
        }
        if (n > 0) {
            zeroed += n;
            report.paths.push_back(te.path);
        }
    }
    report.summary = "zeroed " + std::to_string(zeroed) + " non-finite elements in " + std::to_string(report.paths.size()) + " tensors";
    TensorPatchReport applied;
    return patchedBy(r, op, patch, applied);
}

Result<Tape> schedulerStep(const Record& r, const PatchOp& op, PatchOpReport& report)
{
    if (!r.schedulerNode || !r.scheduler)
        return std::unexpected(opError(ErrorCode::Unsupported, op, "the record has no scheduler state"));
    if (op.step > kMaxScheduleSteps)
        return std::unexpected(opError(ErrorCode::Usage, op, "step " + std::to_string(op.step) + " is above " + std::to_string(kMaxScheduleSteps)));
    const Tape& t = r.tape;
    TapeBuilder b(t.source);
    if (r.scheduler->kind == "constant")
        return std::unexpected(opError(ErrorCode::Unsupported, op, "a constant learning rate has no position to set"));
    auto schedule = learningRateSchedule(r, 0);
    if (schedule) {
        // The trainer's caller state says how the scheduler steps: step a fresh one `step` times, as a run would have.
        LrSchedulerState state = initialLrSchedulerState(schedule->config);
        for (uint64_t i = 0; i < op.step; ++i)
            stepLrScheduler(schedule->config, state);
        report.summary = "scheduler (" + std::string(lrSchedulerName(schedule->config.kind)) + ") at "
            + lrSchedulerPosition(schedule->config, state) + " (was " + lrSchedulerPosition(schedule->config, schedule->state) + ")";
        copyReplacing(b, t, 0, [&](uint32_t node) {
            if (node != *r.schedulerNode)
                return false;
            writeLrSchedulerState(b, schedule->config, state);
            return true;
        });
    } else if (schedule.error().code != ErrorCode::Unsupported) {
        return std::unexpected(schedule.error());
    } else if (r.scheduler->kind == "step" && (t[*r.schedulerNode].kind == Kind::Int || t[*r.schedulerNode].kind == Kind::UInt)) {
        // StepLr keeps only iter_idx (i32, -1 before the first step): the position needs no configuration.
        if (op.step > uint64_t(std::numeric_limits<int32_t>::max()))
            return std::unexpected(opError(ErrorCode::Usage, op, "step " + std::to_string(op.step) + " is out of StepLr's i32 range"));
        const int64_t idx = int64_t(op.step) - 1;
        report.summary = "StepLr iter_idx " + std::to_string(idx);
        copyReplacing(b, t, 0, [&](uint32_t node) {
            if (node != *r.schedulerNode)
                return false;
            b.integer(idx, t[node].srcOffset);
            return true;
        });
    } else {
        return std::unexpected(opError(ErrorCode::Unsupported, op, "the record keeps the " + r.scheduler->description
                + " position but not how the scheduler steps; set the position itself with --set " + (r.kind == RecordKind::SchedulerRecord ? "item" : "item[2]") + "=VALUE",
            r.kind == RecordKind::SchedulerRecord ? "item" : "item[2]"));
    }
    report.paths.emplace_back(r.kind == RecordKind::SchedulerRecord ? "item" : "item[2]");
    return std::move(b).finish();
}

Result<std::shared_ptr<const Record>> transplant(const Record& r, const PatchOp& op, const PatchRecordSource& source, PatchOpReport& report)
{
    auto donorOpened = source(op.from);
    if (!donorOpened)
        return std::unexpected(donorOpened.error());
    const Record& donor = **donorOpened;
    TensorPatch patch;
    for (size_t i = 0; i < r.tensors.size(); ++i) {
        const TensorEntry& te = r.tensors[i];
        if (!globMatch(op.glob, te.path))
            continue;
        auto d = donor.findTensor(te.path);
        if (!d)
            return std::unexpected(opError(ErrorCode::Usage, op, donor.file + " has no tensor " + te.path + " (is it a checkpoint of the same model?)", te.path));
        const TensorEntry& dt = donor.tensors[*d];
        if (dt.shape != te.shape || dt.dtype != te.dtype)
            return std::unexpected(opError(ErrorCode::Usage, op,
                "the donor's tensor is " + dt.dtypeLabel() + " " + shapeString(dt.shape) + ", this one is " + te.dtypeLabel() + " " + shapeString(te.shape),
                te.path));
        if (dt.legacy != te.legacy)
            return std::unexpected(opError(ErrorCode::Unsupported, op, "one record stores the tensor as Burn <= 0.13's value list, the other as bytes", te.path));
        if (te.legacy)
            patch.payloads.push_back(PayloadChange{i, {}, &donor.tape, dt.dataNode});
        else
            patch.payloads.push_back(PayloadChange{i, donor.payload(dt)});
        report.paths.push_back(te.path);
    }
    if (patch.payloads.empty())
        return std::unexpected(opError(ErrorCode::Usage, op, "no tensor matches " + op.glob));
    report.summary = "took " + std::to_string(patch.payloads.size()) + " tensors from " + donor.file;
    TensorPatchReport applied;
    return patchedBy(r, op, patch, applied);
}

} // namespace

Result<std::shared_ptr<const Record>> applyPatchOp(const Record& r, const PatchOp& op, const PatchRecordSource& source, PatchOpReport* reportOut)
{
    PatchOpReport report;
    if (r.partial)
        return std::unexpected(opError(ErrorCode::Unsupported, op, "the record was only partly decoded (a bincode record without a schema, or a damaged file): "
                                                                   "pass --schema-from or --schema, or repair it first"));
    Result<std::shared_ptr<const Record>> out;
    switch (op.kind) {
    case PatchOp::Kind::ResetOptimizer: out = resetOptimizer(r, op, report); break;
    case PatchOp::Kind::ZeroNonFinite: out = zeroNonFinite(r, op, report); break;
    case PatchOp::Kind::Transplant: out = transplant(r, op, source, report); break;
    case PatchOp::Kind::SchedulerStep: {
        if (auto why = formatOf(r).schedulerStepUnsupported())
            return std::unexpected(opError(ErrorCode::Unsupported, op, *why));
        auto tape = schedulerStep(r, op, report);
        if (!tape)
            return std::unexpected(tape.error());
        out = recordFromTape(r, std::move(*tape));
        break;
    }
    case PatchOp::Kind::Set: {
        auto tape = applyEdits(r, {Edit {op.path, op.json}});
        if (auto steps = parsePath(op.path))
            if (auto node = resolvePath(r.tape, *steps))
                report.summary = "was " + jsonText(r.tape, *node, JsonStyle::Compact);
        report.paths.push_back(op.path);
        if (!tape)
            return std::unexpected(tape.error());
        out = recordFromTape(r, std::move(*tape));
        break;
    }
    }
    if (out && reportOut)
        *reportOut = std::move(report);
    return out;
}

Result<std::shared_ptr<const Record>> applyPatch(const Record& record, const std::vector<PatchOp>& ops, const PatchRecordSource& source,
    std::vector<PatchOpReport>* reports)
{
    std::shared_ptr<const Record> current;
    for (const auto& op : ops) {
        PatchOpReport report;
        auto next = applyPatchOp(current ? *current : record, op, source, &report);
        if (!next)
            return std::unexpected(next.error());
        current = std::move(*next);
        if (reports)
            reports->push_back(std::move(report));
    }
    if (!current) // no operation: the record as it is, re-indexed so that the caller owns a fresh one
        return recordFromTape(record, Tape(record.tape));
    return current;
}

Result<void> savePatchedRecord(const Record& patched, const std::string& path)
{
    return saveEditedRecord(patched, patched.tape, path);
}

Result<std::string> fileSha256(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(bytes.error());
    const auto digest = sha256(std::span<const uint8_t>((*bytes)->data(), (*bytes)->size()));
    return toHex(digest);
}

std::string_view resumeReadiness(const std::vector<ResumeCheck>& checks)
{
    auto worst = ResumeCheck::Status::Ok;
    for (const auto& c : checks)
        if (c.status == ResumeCheck::Status::Error || (c.status == ResumeCheck::Status::Warning && worst == ResumeCheck::Status::Ok))
            worst = c.status;
    return resumeStatusName(worst);
}

// ---------------------------------------------------------------------------------------------
// Patching files

namespace {

bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

/// \a file must still hash to \a expected: a replay starts from the same bytes or not at all.
Result<void> checkDigest(const std::string& file, const std::string& expected, std::string_view role)
{
    auto digest = fileSha256(file);
    if (!digest)
        return std::unexpected(Error(digest.error()).withFile(file));
    if (*digest != expected)
        return std::unexpected(Error {ErrorCode::Invalid, std::string(role) + " has changed since the patch was made: SHA-256 " + *digest
                + ", the sidecar records " + (expected.empty() ? std::string("none") : expected)}
                .withFile(file));
    return {};
}

} // namespace

Result<std::vector<ResumeCheck>> finishPatchSidecar(PatchProvenance& p, const std::string& output, const OpenOptions& options)
{
    p.output = absoluteNormalPath(output);
    auto digest = fileSha256(output);
    if (!digest)
        return std::unexpected(Error(digest.error()).withFile(output));
    p.outputSha256 = *digest;
    // The verdict of the file as written, read back as the next reader will read it.
    auto written = openRecord(output, options);
    if (!written)
        return std::unexpected(Error(written.error()).withFile(output));
    auto checks = checkResume(**written);
    p.readiness = std::string(resumeReadiness(checks));
    const std::string json = patchProvenanceJson(p);
    const std::string sidecar = patchSidecarPath(output);
    if (auto w = writeFileAtomic(sidecar, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size())); !w)
        return std::unexpected(Error(w.error()).withFile(sidecar));
    return checks;
}

Result<PatchFileResult> patchFile(const std::string& input, const std::string& output, std::vector<PatchOp> ops, const OpenOptions& options,
    const std::string& tool)
{
    if (sameFile(input, output))
        return std::unexpected(Error {ErrorCode::Usage, "OUT must not be IN: the unpatched file is the patch's provenance (write OUT beside it)"});
    auto in = openRecord(input, options);
    if (!in)
        return std::unexpected(in.error());
    PatchFileResult result;
    PatchProvenance& prov = result.provenance;
    prov.source = absoluteNormalPath(input);
    prov.schemaFrom = options.schemaFrom.empty() ? "" : absoluteNormalPath(options.schemaFrom);
    prov.schemaFile = options.schemaFile.empty() ? "" : absoluteNormalPath(options.schemaFile);
    prov.scheduler = options.scheduler;
    prov.tool = tool;
    auto sourceDigest = fileSha256(input);
    if (!sourceDigest)
        return std::unexpected(Error(sourceDigest.error()).withFile(input));
    prov.sourceSha256 = *sourceDigest;
    // Donors are named by absolute path, so that a replay from elsewhere finds them.
    for (auto& op : ops) {
        std::string donorDigest;
        if (op.kind == PatchOp::Kind::Transplant) {
            auto d = fileSha256(op.from);
            if (!d)
                return std::unexpected(Error(d.error()).withFile(op.from));
            donorDigest = *d;
            op.from = absoluteNormalPath(op.from);
        }
        prov.donorSha256.push_back(std::move(donorDigest));
    }
    prov.operations = std::move(ops);
    OpenOptions donorOptions = options;
    donorOptions.lenient = false;
    const PatchRecordSource donors = [&](const std::string& file) { return openRecord(file, donorOptions); };
    auto patched = applyPatch(**in, prov.operations, donors, &result.reports);
    if (!patched)
        return std::unexpected(Error(patched.error()).withFile(input));
    if (auto w = savePatchedRecord(**patched, output); !w)
        return std::unexpected(Error(w.error()).withFile(output));
    auto checks = finishPatchSidecar(prov, output, options);
    if (!checks)
        return std::unexpected(checks.error());
    result.checks = std::move(*checks);
    return result;
}

Result<PatchFileResult> replayPatch(const std::string& sidecar, const std::string& output, const std::string& tool)
{
    auto prov = readPatchProvenance(sidecar);
    if (!prov)
        return std::unexpected(prov.error());
    if (auto ok = checkDigest(prov->source, prov->sourceSha256, "the patch's source"); !ok)
        return std::unexpected(ok.error());
    for (size_t i = 0; i < prov->operations.size(); ++i)
        if (prov->operations[i].kind == PatchOp::Kind::Transplant)
            if (auto ok = checkDigest(prov->operations[i].from, i < prov->donorSha256.size() ? prov->donorSha256[i] : "", "a transplant's donor"); !ok)
                return std::unexpected(ok.error());
    OpenOptions options;
    options.schemaFrom = prov->schemaFrom;
    options.schemaFile = prov->schemaFile;
    options.scheduler = prov->scheduler;
    return patchFile(prov->source, output, std::move(prov->operations), options, tool);
}

// ---------------------------------------------------------------------------------------------
// The provenance sidecar

std::string patchSidecarPath(const std::string& patchedFile)
{
    return patchedFile + ".patch.json";
}

std::string patchProvenanceJson(const PatchProvenance& p)
{
    TapeBuilder b;
    b.beginMap();
    b.key("source");
    b.beginMap();
    putStr(b, "file", p.source);
    putStr(b, "sha256", p.sourceSha256);
    b.end();
    if (!p.schemaFrom.empty() || !p.schemaFile.empty() || !p.scheduler.empty()) {
        b.key("open");
        b.beginMap();
        putOptStr(b, "schema_from", p.schemaFrom);
        putOptStr(b, "schema", p.schemaFile);
        putOptStr(b, "scheduler", p.scheduler);
        b.end();
    }
    b.key("operations");
    b.beginArray();
    for (size_t i = 0; i < p.operations.size(); ++i) {
        const PatchOp& op = p.operations[i];
        b.beginMap();
        putStr(b, "op", patchOpName(op.kind));
        switch (op.kind) {
        case PatchOp::Kind::ResetOptimizer: putStr(b, "glob", op.glob); break;
        case PatchOp::Kind::ZeroNonFinite: break;
        case PatchOp::Kind::SchedulerStep: putU(b, "step", op.step); break;
        case PatchOp::Kind::Transplant:
            putStr(b, "from", op.from);
            putStr(b, "from_sha256", i < p.donorSha256.size() ? p.donorSha256[i] : std::string());
            putStr(b, "glob", op.glob);
            break;
        case PatchOp::Kind::Set: {
            putStr(b, "path", op.path);
            b.key("value");
            auto v = readJson(makeBytes(std::vector<uint8_t>(op.json.begin(), op.json.end())));
            if (v)
                b.copy(*v, 0);
            else
                b.str(op.json); // unreachable for an applied edit (its JSON was parsed); kept as text rather than lost
            break;
        }
        }
        b.end();
    }
    b.end();
    b.key("output");
    b.beginMap();
    putStr(b, "file", p.output);
    putStr(b, "sha256", p.outputSha256);
    b.end();
    putStr(b, "readiness", p.readiness);
    putStr(b, "tool", p.tool);
    b.end();
    const Tape t = std::move(b).finish();
    return jsonText(t, 0, JsonStyle::Pretty) + "\n";
}

namespace {

/// One operation object of a sidecar (or of `import ckpt`'s list) at \a node; \a at names it in errors.
Result<PatchOp> patchOpAt(const Tape& tape, uint32_t node, const std::string& at, std::string& donorSha)
{
    if (!tape.isMap(node))
        return std::unexpected(Error {ErrorCode::Invalid, "expected an operation object {\"op\": ...}", {}, {}, {}, {}, at});
    const FieldReader f(tape, node, at);
    auto name = f.str("op");
    if (!name)
        return std::unexpected(name.error());
    PatchOp op;
    Result<void> bad;
    auto need = [&](Result<std::string> v, std::string& into) {
        if (!v && bad)
            bad = std::unexpected(v.error());
        else if (v)
            into = *v;
    };
    if (*name == "reset_optimizer") {
        op.kind = PatchOp::Kind::ResetOptimizer;
        need(f.str("glob"), op.glob);
    } else if (*name == "zero_nonfinite") {
        op.kind = PatchOp::Kind::ZeroNonFinite;
    } else if (*name == "scheduler_step") {
        op.kind = PatchOp::Kind::SchedulerStep;
        auto step = f.u64("step");
        if (!step)
            return std::unexpected(step.error());
        op.step = *step;
    } else if (*name == "transplant") {
        op.kind = PatchOp::Kind::Transplant;
        need(f.str("from"), op.from);
        need(f.str("glob"), op.glob);
        if (tape.find(node, "from_sha256"))
            need(f.str("from_sha256"), donorSha);
    } else if (*name == "set") {
        op.kind = PatchOp::Kind::Set;
        need(f.str("path"), op.path);
        auto v = f.get("value");
        if (!v)
            return std::unexpected(v.error());
        op.json = jsonText(tape, *v, JsonStyle::Compact);
    } else {
        return std::unexpected(Error {ErrorCode::Invalid, "unknown operation \"" + *name + "\" (reset_optimizer, zero_nonfinite, scheduler_step, transplant, set)",
            {}, {}, {}, {}, at + ".op"});
    }
    if (!bad)
        return std::unexpected(bad.error());
    return op;
}

} // namespace

Result<std::vector<PatchOp>> parsePatchOperations(std::string_view json)
{
    auto tape = readJson(makeBytes(std::vector<uint8_t>(json.begin(), json.end())));
    if (!tape)
        return std::unexpected(tape.error());
    if (!tape->isArray(0))
        return std::unexpected(Error {ErrorCode::Usage, "expected a list of operations [{\"op\": \"reset_optimizer\", \"glob\": ...}, ...]"});
    std::vector<PatchOp> ops;
    Result<void> bad;
    uint64_t index = 0;
    tape->forEachChild(0, [&](uint32_t o) {
        if (!bad)
            return;
        std::string donorSha; // a donor is checked when a replay reads it from a sidecar, not here
        auto op = patchOpAt(*tape, o, "[" + std::to_string(index++) + "]", donorSha);
        if (!op)
            bad = std::unexpected(op.error());
        else
            ops.push_back(std::move(*op));
    });
    if (!bad)
        return std::unexpected(bad.error());
    return ops;
}

Result<PatchProvenance> readPatchProvenance(const std::string& sidecarFile)
{
    auto bytes = mapFile(sidecarFile);
    if (!bytes)
        return std::unexpected(bytes.error());
    auto tape = readJson(*bytes);
    if (!tape)
        return std::unexpected(Error(tape.error()).withFile(sidecarFile));
    auto withFile = [&](Error e) { return std::unexpected(std::move(e).withFile(sidecarFile)); };
    if (!tape->isMap(0))
        return withFile(Error {ErrorCode::Invalid, "expected a patch sidecar object {source, operations, output, ...}"});
    const FieldReader root(*tape, 0, "");
    PatchProvenance p;
    auto src = root.sub("source");
    if (!src)
        return withFile(src.error());
    auto file = src->str("file");
    auto sha = src->str("sha256");
    if (!file || !sha)
        return withFile(!file ? file.error() : sha.error());
    p.source = *file;
    p.sourceSha256 = *sha;
    if (tape->find(0, "open")) {
        auto open = root.sub("open");
        if (!open)
            return withFile(open.error());
        auto optional = [&](std::string_view key) {
            auto v = open->get(key);
            return v && tape->isStr(*v) ? std::string(tape->str(*v)) : std::string();
        };
        p.schemaFrom = optional("schema_from");
        p.schemaFile = optional("schema");
        p.scheduler = optional("scheduler");
    }
    auto ops = root.get("operations");
    if (!ops)
        return withFile(ops.error());
    if (!tape->isArray(*ops))
        return withFile(Error {ErrorCode::Invalid, "expected an array of operations", {}, {}, {}, {}, "operations"});
    uint64_t index = 0;
    Result<void> bad;
    tape->forEachChild(*ops, [&](uint32_t o) {
        if (!bad)
            return;
        std::string donorSha;
        auto op = patchOpAt(*tape, o, "operations[" + std::to_string(index++) + "]", donorSha);
        if (!op) {
            bad = std::unexpected(op.error());
            return;
        }
        p.operations.push_back(std::move(*op));
        p.donorSha256.push_back(std::move(donorSha));
    });
    if (!bad)
        return withFile(bad.error());
    if (auto out = root.sub("output")) {
        p.output = out->str("file").value_or("");
        p.outputSha256 = out->str("sha256").value_or("");
    }
    if (auto r = root.str("readiness"))
        p.readiness = *r;
    if (auto t = root.str("tool"))
        p.tool = *t;
    return p;
}

} // namespace ckpt
