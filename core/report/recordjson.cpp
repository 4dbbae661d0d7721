// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/recordjson.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"
#include "core/edit/edit.h"
#include "core/edit/partialmodule.h"
#include "core/model/recorder.h"
#include "core/open/formats.h"
#include "core/report/document.h"
#include "core/util/text.h"

#include <cstdio>

namespace ckpt {

namespace {

/// ckpt info's `partial_module` member.
void putPartialModule(TapeBuilder& b, const PartialModule& partial)
{
    b.beginMap();
    putStr(b, "summary", partialModuleSummary(partial));
    putU(b, "held", partial.held);
    putU(b, "of", partial.whole);
    putStr(b, "basis", partial.basis);
    putStrings(b, "missing", partial.missing);
    b.end();
}

} // namespace

std::string infoJson(const Record& r)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "file", r.file);
    putStr(b, "kind", recordKindName(r.kind));
    putStr(b, "recorder", recorderName(r.recorder));
    putStr(b, "precision", r.precisionText());
    if (r.parts.empty()) {
        b.key("metadata");
        putMetadata(b, r.metadata);
    } else {
        putNil(b, "metadata"); // Burn >= 0.22 writes no recorder metadata: the file's own is under the format's member
    }
    putU(b, "params", r.params.size());
    putU(b, "optimizer_entries", r.optimizer.size());
    putU(b, "pending_gradients", r.gradients.size());
    putU(b, "tensors", r.tensors.size());
    putU(b, "tensor_bytes", r.tensorBytes());
    // Extensions beyond the contract's keys.
    putU(b, "file_bytes", r.fileSize);
    putU(b, "decoded_bytes", r.decodedSize);
    if (r.scheduler) {
        b.key("scheduler");
        b.beginMap();
        putStr(b, "kind", r.scheduler->kind);
        putStr(b, "description", r.scheduler->description);
        b.end();
    } else {
        putNil(b, "scheduler");
    }
    putBool(b, "partial", r.partial);
    if (!r.damage.empty())
        putStr(b, "damage", r.damage); // opened with --lenient although the typed decoders reject it
    // a module record of some of the model's parameters is not damaged ("partial" above stays false)
    if (auto partialModule = partialModuleOf(r)) {
        b.key("partial_module");
        putPartialModule(b, *partialModule);
    }
    if (!r.schemaSource.empty())
        putStr(b, "schema", r.schemaSource);
    putStrings(b, "warnings", r.warnings);
    if (auto member = formatOf(r).infoMember(r)) { // the format's own containers (layout, metadata, scalars)
        b.key(member->first);
        copyJsonValue(b, member->second, 0);
    }
    return reportDocument(std::move(b));
}

std::vector<TensorRow> tensorRows(const Record& r, std::string_view filter, const Progress& progress, const ParallelFor& parallel, uint64_t batchBytes)
{
    std::vector<size_t> selected;
    for (size_t i = 0; i < r.tensors.size(); ++i)
        if (filter.empty() || globMatch(filter, r.tensors[i].path))
            selected.push_back(i);
    std::vector<TensorRow> rows;
    rows.reserve(selected.size());
    StatsOptions so;
    so.histogramBins = 0;
    const uint64_t total = r.tensorBytes();
    uint64_t done = 0;
    for (size_t first = 0; first < selected.size();) {
        if (progress.cancelled())
            break;
        size_t last = first;
        uint64_t batch = 0;
        while (last < selected.size() && (last == first || batch + r.tensors[selected[last]].bytes <= batchBytes))
            batch += r.tensors[selected[last++]].bytes;
        const std::span<const size_t> indices(selected.data() + first, last - first);
        auto stats = r.stats(indices, so, parallel);
        for (size_t k = 0; k < indices.size(); ++k)
            rows.push_back({&r.tensors[indices[k]], std::move(stats[k])});
        done += batch;
        if (total)
            progress.report(double(done) / double(total));
        first = last;
    }
    return rows;
}

namespace {
constexpr JsonField<TensorStats> kStatsFields[] = {{"sum", &TensorStats::sum}, {"l2", &TensorStats::l2}, {"min", &TensorStats::min}, {"max", &TensorStats::max},
    {"mean", &TensorStats::mean}, {"std", &TensorStats::std}, {"nan", &TensorStats::nan}, {"inf", &TensorStats::inf}, {"zeros", &TensorStats::zeros}};

/** The tensor members `tensors --json` and `show --json` share, in the contract's order. */
void tensorMembers(TapeBuilder& b, const Record& r, const TensorEntry& t)
{
    putStr(b, "path", t.path);
    putStr(b, "role", tensorRoleName(t.role));
    putOptStr(b, "param_id", t.paramId);
    putStr(b, "dtype", t.dtypeLabel());
    putShape(b, "shape", t.shape);
    putU(b, "numel", t.numel);
    putU(b, "bytes", t.bytes);
    putOptU(b, "offset", t.offset);
    if (r.sharedStorages)
        putOptStr(b, "shares_storage_with", t.sharesStorageWith.value_or(""));
    if (auto chunks = r.chunkedTensors ? r.tape.find(t.node, "chunks") : std::nullopt) {
        b.key("chunks");
        b.copy(r.tape, *chunks);
    }
}

/** The statistics' members; null for a tensor of a dtype without values here (PyTorch's complex64, quint8, ...). */
void statsMembers(TapeBuilder& b, const TensorEntry& t, const TensorStats& stats)
{
    if (t.foreignDType.empty()) {
        putFields(b, stats, kStatsFields);
        return;
    }
    for (const auto& field : kStatsFields) {
        b.key(field.key);
        b.nil();
    }
}

/** A QFloat's `"quant"`: its scheme as stored, after the contract's members (nothing for other dtypes). */
void putQuant(TapeBuilder& b, const TensorEntry& t)
{
    if (t.quant.empty())
        return;
    auto scheme = readJson(makeBytes(t.quant));
    b.key("quant");
    if (scheme)
        copyJsonValue(b, *scheme, 0);
    else
        b.nil(); // not reached: the text is ours, written from a tape or by nlohmann
}
} // namespace

std::string tensorsJson(const Record& r, const std::vector<TensorRow>& rows)
{
    TapeBuilder b;
    b.beginArray();
    for (const auto& row : rows) {
        b.beginMap();
        tensorMembers(b, r, *row.entry);
        statsMembers(b, *row.entry, row.stats);
        if (!row.entry->stateName.empty())
            putStr(b, "state", row.entry->stateName);
        putQuant(b, *row.entry);
        b.end();
    }
    return reportDocument(std::move(b));
}

namespace {

const TensorEntry* tensorAtNode(const Record& r, uint32_t node)
{
    for (const auto& t : r.tensors)
        if (t.node == node)
            return &t;
    return nullptr;
}

void treeNode(TapeBuilder& b, const Record& r, uint32_t node, const std::string& key, const std::string& path, int depth)
{
    const Tape& t = r.tape;
    b.beginMap();
    putStr(b, "key", key);
    putStr(b, "path", path);
    if (const auto* te = tensorAtNode(r, node)) {
        putStr(b, "kind", "tensor");
        putStr(b, "role", tensorRoleName(te->role));
        putStr(b, "dtype", te->dtypeLabel());
        putShape(b, "shape", te->shape);
        putU(b, "bytes", te->bytes);
        if (!te->paramId.empty())
            putStr(b, "param_id", te->paramId);
        putQuant(b, *te);
        b.end();
        return;
    }
    const Node& n = t[node];
    putStr(b, "kind", kindName(n.kind));
    if (n.kind == Kind::Map || n.kind == Kind::Array) {
        putU(b, "count", n.count);
        if (depth != 0) {
            b.key("children");
            b.beginArray();
            if (n.kind == Kind::Map) {
                t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
                    const std::string kt = t.keyText(k);
                    treeNode(b, r, v, kt, appendKeyToPath(path, kt), depth - 1);
                });
            } else {
                uint64_t i = 0;
                t.forEachChild(node, [&](uint32_t c) {
                    treeNode(b, r, c, "[" + std::to_string(i) + "]", appendIndexToPath(path, i), depth - 1);
                    ++i;
                });
            }
            b.end();
        }
    } else {
        b.key("value");
        copyJsonValue(b, t, node);
    }
    b.end();
}

/** One scalar or subtree as one compact line of JSON. */
std::string compactValue(const Tape& t, uint32_t node)
{
    TapeBuilder b;
    copyJsonValue(b, t, node);
    return reportDocument(std::move(b), JsonStyle::Compact);
}

void treeLines(const Record& r, uint32_t node, const std::string& label, int indent, int depth, std::string& out)
{
    const Tape& t = r.tape;
    out += std::string(size_t(indent) * 2, ' ') + label;
    if (const auto* te = tensorAtNode(r, node)) {
        out += ": " + te->dtypeLabel() + " " + shapeString(te->shape) + " (" + humanBytes(te->bytes) + ")";
        if (te->role == TensorRole::Param)
            out += " param " + te->paramId;
        out += "\n";
        return;
    }
    const Node& n = t[node];
    if (n.kind == Kind::Map || n.kind == Kind::Array) {
        out += (n.kind == Kind::Map ? " {" : " [") + std::to_string(n.count) + (n.kind == Kind::Map ? "}" : "]") + "\n";
        if (depth == 0)
            return;
        if (n.kind == Kind::Map) {
            t.forEachEntry(node, [&](uint32_t k, uint32_t v) { treeLines(r, v, t.keyText(k), indent + 1, depth - 1, out); });
        } else {
            // Long arrays of scalars (legacy payloads, loss histories) are summarised.
            if (n.end == node + 1 + n.count && n.count > 16) {
                out += std::string(size_t(indent + 1) * 2, ' ') + "(" + std::to_string(n.count) + " scalars)\n";
                return;
            }
            uint64_t i = 0;
            t.forEachChild(node, [&](uint32_t c) { treeLines(r, c, "[" + std::to_string(i++) + "]", indent + 1, depth - 1, out); });
        }
    } else {
        std::string v = compactValue(t, node);
        if (v.size() > 120)
            v = v.substr(0, 117) + "...";
        out += ": " + v + "\n";
    }
}

} // namespace

std::string treeJson(const Record& r, int depth)
{
    TapeBuilder b;
    treeNode(b, r, 0, "", "", depth);
    return reportDocument(std::move(b));
}

std::string treeText(const Record& r, int depth)
{
    std::string out;
    treeLines(r, 0, "<record>", 0, depth, out);
    return out;
}

namespace {
Result<uint32_t> resolve(const Record& r, std::string_view path)
{
    if (path.empty() || path == "." || path == "<root>")
        return uint32_t(0);
    // a container format's tensor by its stored name ("conv1.weight", "1433….momentum.moment_1")
    if (!r.parts.empty())
        if (auto t = r.findTensor(path))
            return r.tensors[*t].node;
    auto steps = parsePath(path);
    if (!steps)
        return std::unexpected(steps.error());
    return resolvePath(r.tape, *steps);
}

} // namespace

Result<std::string> showJson(const Record& r, std::string_view path, uint64_t limit)
{
    auto node = resolve(r, path);
    if (!node)
        return std::unexpected(node.error());
    TapeBuilder b;
    if (const auto* te = tensorAtNode(r, *node)) {
        b.beginMap();
        tensorMembers(b, r, *te);
        StatsOptions so;
        so.histogramBins = 0;
        b.key("stats");
        b.beginMap();
        putFields(b, r.stats(*te, so), kStatsFields);
        b.end();
        b.key("values");
        b.beginArray();
        for (double v : r.values(*te, 0, limit))
            b.f64(v);
        b.end();
        putQuant(b, *te);
        b.end();
        return reportDocument(std::move(b));
    }
    treeNode(b, r, *node, "", std::string(path), -1);
    return reportDocument(std::move(b));
}

Result<std::string> showText(const Record& r, std::string_view path, uint64_t limit)
{
    auto node = resolve(r, path);
    if (!node)
        return std::unexpected(node.error());
    if (const auto* te = tensorAtNode(r, *node)) {
        StatsOptions so;
        so.histogramBins = 0;
        const auto s = r.stats(*te, so);
        char buf[512];
        std::snprintf(buf, sizeof buf,
            "%s\n  role %s%s%s\n  %s %s, %llu elements, %s\n  min %.6g  max %.6g  mean %.6g  std %.6g\n  sum %.6g  l2 %.6g  nan %llu  inf %llu  zeros %llu\n",
            te->path.c_str(), std::string(tensorRoleName(te->role)).c_str(), te->paramId.empty() ? "" : ", param ", te->paramId.c_str(),
            te->dtypeLabel().c_str(), shapeString(te->shape).c_str(), static_cast<unsigned long long>(te->numel), humanBytes(te->bytes).c_str(), s.min, s.max,
            s.mean, s.std, s.sum, s.l2, static_cast<unsigned long long>(s.nan), static_cast<unsigned long long>(s.inf),
            static_cast<unsigned long long>(s.zeros));
        std::string out = buf;
        auto vals = r.values(*te, 0, limit);
        if (!vals.empty()) {
            out += "  values:";
            for (double v : vals) {
                std::snprintf(buf, sizeof buf, " %.7g", v);
                out += buf;
            }
            if (vals.size() < te->numel)
                out += " ...";
            out += "\n";
        }
        return out;
    }
    std::string out;
    treeLines(r, *node, std::string(path), 0, 3, out);
    return out;
}

Result<std::string> stateJson(const Record& r)
{
    if (!r.stateNode)
        return fail(ErrorCode::Invalid, std::string("a ") + std::string(recordKindName(r.kind)) + " has no continuation state (only TrainingRecords carry item[4])");
    return jsonText(r.tape, *r.stateNode, JsonStyle::Pretty);
}

std::string checkResumeJson(const Record& r, const std::vector<ResumeCheck>& checks)
{
    bool ready = true;
    for (const auto& c : checks)
        ready = ready && c.status != ResumeCheck::Status::Error;
    TapeBuilder b;
    b.beginMap();
    putStr(b, "file", r.file);
    putBool(b, "ready", ready);
    b.key("checks");
    b.beginArray();
    for (const auto& c : checks) {
        b.beginMap();
        putStr(b, "check", c.name);
        putStr(b, "status", resumeStatusName(c.status));
        putStr(b, "detail", c.detail);
        if (!c.missing.empty())
            putStrings(b, "missing", c.missing); // partial-module: every parameter a resumption lacks, by module path
        b.end();
    }
    b.end();
    return reportDocument(std::move(b));
}

} // namespace ckpt
