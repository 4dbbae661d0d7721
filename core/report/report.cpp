// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/report.h"

#include "core/codec/json.h"
#include "core/diff/graphdiff.h"
#include "core/open/formats.h"
#include "core/report/graphdiffjson.h"

#include <cstdio>
#include <unordered_map>

namespace ckpt {

namespace {

// Every document here is a tape written by core's JSON writer in the layout the contract has always
// had: two-space pretty form, keys in insertion order, and floats spelled as nlohmann::json::dump spelt
// them (JsonFloats::Nlohmann), since the reports' bytes are an interface. Non-finite floats print as null.

std::string document(TapeBuilder&& b, JsonStyle style = JsonStyle::Pretty)
{
    const Tape t = std::move(b).finish();
    return jsonText(t, t.root(), style, JsonFloats::Nlohmann);
}

void putShape(TapeBuilder& b, std::string_view k, const std::vector<uint64_t>& shape)
{
    b.key(k);
    b.beginArray();
    for (uint64_t d : shape)
        b.uinteger(d);
    b.end();
}

void metadataJson(TapeBuilder& b, const Metadata& m)
{
    b.beginMap();
    putStr(b, "float", m.floatType);
    putStr(b, "int", m.intType);
    putStr(b, "format", m.format);
    putStr(b, "version", m.version);
    putStr(b, "settings", m.settings);
    b.end();
}

/// Any non-tensor subtree as JSON (numbers exact: u64 stays u64).
void copyJsonValue(TapeBuilder& b, const Tape& t, uint32_t node)
{
    const Node& n = t[node];
    switch (n.kind) {
    case Kind::Nil: b.nil(); return;
    case Kind::Bool: b.boolean(t.boolean(node)); return;
    case Kind::UInt: b.uinteger(t.u64(node)); return;
    case Kind::Int: b.integer(t.i64(node)); return;
    case Kind::F32:
    case Kind::F64: b.f64(t.f64(node)); return;
    case Kind::Str: b.str(t.str(node)); return;
    case Kind::Bin: b.bin(t.bin(node)); return; // written as an array of integers
    case Kind::Array:
        b.beginArray();
        t.forEachChild(node, [&](uint32_t c) { copyJsonValue(b, t, c); });
        b.end();
        return;
    case Kind::Map: {
        // A JSON object has one member per key: a repeated key keeps its first place and its last
        // value, as these reports have always shown it.
        std::vector<std::pair<std::string, uint32_t>> members;
        std::unordered_map<std::string, size_t> seen;
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            std::string text = t.keyText(k);
            if (auto it = seen.find(text); it != seen.end()) {
                members[it->second].second = v;
                return;
            }
            seen.emplace(text, members.size());
            members.emplace_back(std::move(text), v);
        });
        b.beginMap();
        for (const auto& [k, v] : members) {
            b.key(k);
            copyJsonValue(b, t, v);
        }
        b.end();
        return;
    }
    }
    b.nil();
}

} // namespace

std::string humanBytes(uint64_t n)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(n);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

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
        metadataJson(b, r.metadata);
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
    if (!r.schemaSource.empty())
        putStr(b, "schema", r.schemaSource);
    putStrings(b, "warnings", r.warnings);
    if (auto member = formatOf(r).infoMember(r)) { // the format's own containers (layout, metadata, scalars)
        b.key(member->first);
        copyJsonValue(b, member->second, 0);
    }
    return document(std::move(b));
}

std::string runInfoJson(const RunDirectory& run)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "file", run.path);
    putStr(b, "kind", "run_directory");
    b.key("checkpoints");
    b.beginArray();
    for (const auto& c : run.checkpoints) {
        b.beginMap();
        putStr(b, "kind", c.kind);
        putU(b, "index", c.index);
        putStr(b, "path", c.path);
        b.end();
    }
    b.end();
    b.key("metrics");
    b.beginArray();
    for (const auto& m : run.series) {
        b.beginMap();
        putStr(b, "split", m.split);
        putStr(b, "metric", m.metric);
        putU(b, "points", m.points.size());
        b.end();
    }
    b.end();
    putStrings(b, "warnings", run.warnings);
    return document(std::move(b));
}

bool globMatch(std::string_view p, std::string_view t)
{
    size_t pi = 0, ti = 0, starP = std::string_view::npos, starT = 0;
    while (ti < t.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
            ++pi;
            ++ti;
        } else if (pi < p.size() && p[pi] == '*') {
            starP = pi++;
            starT = ti;
        } else if (starP != std::string_view::npos) {
            pi = starP + 1;
            ti = ++starT;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*')
        ++pi;
    return pi == p.size();
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
void statsMembers(TapeBuilder& b, const TensorStats& s)
{
    putF(b, "sum", s.sum);
    putF(b, "l2", s.l2);
    putF(b, "min", s.min);
    putF(b, "max", s.max);
    putF(b, "mean", s.mean);
    putF(b, "std", s.std);
    putU(b, "nan", s.nan);
    putU(b, "inf", s.inf);
    putU(b, "zeros", s.zeros);
}

/** The tensor members `tensors --json` and `show --json` share, in the contract's order. */
void tensorMembers(TapeBuilder& b, const TensorEntry& t)
{
    putStr(b, "path", t.path);
    putStr(b, "role", tensorRoleName(t.role));
    putOptStr(b, "param_id", t.paramId);
    putStr(b, "dtype", dtypeName(t.dtype));
    putShape(b, "shape", t.shape);
    putU(b, "numel", t.numel);
    putU(b, "bytes", t.bytes);
    putOptU(b, "offset", t.offset);
}
} // namespace

std::string tensorsJson(const Record& r, const std::vector<TensorRow>& rows)
{
    (void)r;
    TapeBuilder b;
    b.beginArray();
    for (const auto& row : rows) {
        b.beginMap();
        tensorMembers(b, *row.entry);
        statsMembers(b, row.stats);
        if (!row.entry->stateName.empty())
            putStr(b, "state", row.entry->stateName);
        b.end();
    }
    return document(std::move(b));
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
        putStr(b, "dtype", dtypeName(te->dtype));
        putShape(b, "shape", te->shape);
        putU(b, "bytes", te->bytes);
        if (!te->paramId.empty())
            putStr(b, "param_id", te->paramId);
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
    return document(std::move(b), JsonStyle::Compact);
}

void treeLines(const Record& r, uint32_t node, const std::string& label, int indent, int depth, std::string& out)
{
    const Tape& t = r.tape;
    out += std::string(size_t(indent) * 2, ' ') + label;
    if (const auto* te = tensorAtNode(r, node)) {
        out += ": " + std::string(dtypeName(te->dtype)) + " " + shapeString(te->shape) + " (" + humanBytes(te->bytes) + ")";
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
    return document(std::move(b));
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
        tensorMembers(b, *te);
        StatsOptions so;
        so.histogramBins = 0;
        b.key("stats");
        b.beginMap();
        statsMembers(b, r.stats(*te, so));
        b.end();
        b.key("values");
        b.beginArray();
        for (double v : r.values(*te, 0, limit))
            b.f64(v);
        b.end();
        b.end();
        return document(std::move(b));
    }
    treeNode(b, r, *node, "", std::string(path), -1);
    return document(std::move(b));
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
        std::snprintf(buf, sizeof buf, "%s\n  role %s%s%s\n  %s %s, %llu elements, %s\n  min %.6g  max %.6g  mean %.6g  std %.6g\n  sum %.6g  l2 %.6g  nan %llu  inf %llu  zeros %llu\n",
            te->path.c_str(), std::string(tensorRoleName(te->role)).c_str(), te->paramId.empty() ? "" : ", param ", te->paramId.c_str(),
            std::string(dtypeName(te->dtype)).c_str(), shapeString(te->shape).c_str(), static_cast<unsigned long long>(te->numel),
            humanBytes(te->bytes).c_str(), s.min, s.max, s.mean, s.std, s.sum, s.l2, static_cast<unsigned long long>(s.nan),
            static_cast<unsigned long long>(s.inf), static_cast<unsigned long long>(s.zeros));
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

namespace {
void deltaHistogramJson(TapeBuilder& b, const DeltaHistogram& h)
{
    // Non-empty bins only, from the most negative to the most positive; the zero bin is [0, 0].
    auto bin = [&](double lo, double hi, uint64_t count) {
        b.beginMap();
        putF(b, "lo", lo);
        putF(b, "hi", hi);
        putU(b, "count", count);
        b.end();
    };
    b.beginArray();
    for (size_t k = DeltaHistogram::bins; k-- > 0;)
        if (h.negative[k])
            bin(-DeltaHistogram::binHigh(k), -DeltaHistogram::binLow(k), h.negative[k]);
    if (h.zero) {
        b.beginMap();
        putU(b, "lo", 0);
        putU(b, "hi", 0);
        putU(b, "count", h.zero);
        b.end();
    }
    for (size_t k = 0; k < DeltaHistogram::bins; ++k)
        if (h.positive[k])
            bin(DeltaHistogram::binLow(k), DeltaHistogram::binHigh(k), h.positive[k]);
    b.end();
}

/** A state value's JSON text as a value of the document (text that is not JSON stays a string). */
void stateValueJson(TapeBuilder& b, const std::optional<std::string>& v)
{
    if (!v) {
        b.nil();
        return;
    }
    JsonReadOptions options;
    options.packByteArrays = false;
    options.maxDepth = UINT32_MAX; // the text is core's own writing of a decoded value: any depth it has is valid
    auto parsed = readJson(makeBytes(*v), options);
    if (parsed)
        copyJsonValue(b, *parsed, parsed->root());
    else
        b.str(*v);
}
} // namespace

std::string diffJson(const RecordDiff& d, const Record& a, const Record& b)
{
    TapeBuilder j;
    j.beginMap();
    putStr(j, "a", d.a);
    putStr(j, "b", d.b);
    j.key("summary");
    j.beginMap();
    putU(j, "added", d.added);
    putU(j, "removed", d.removed);
    putU(j, "changed", d.changed);
    putU(j, "unchanged", d.unchanged);
    putU(j, "renamed", d.renamed);
    j.end();
    if (d.precision) {
        j.key("precision");
        j.beginMap();
        putStr(j, "a", precisionName(d.precision->a));
        putStr(j, "b", precisionName(d.precision->b));
        putBool(j, "rounding_only", d.precision->roundingOnly);
        j.end();
    } else {
        putNil(j, "precision");
    }
    j.key("entries");
    j.beginArray();
    for (const auto& e : d.entries) {
        j.beginMap();
        putStr(j, "path", e.path);
        putStr(j, "status", diffStatusName(e.status));
        tensorNumbersMembers(j, e);
        putOptStr(j, "match", matchKindName(e.match));
        putOptStr(j, "path_b", e.pathB);
        putBool(j, "renamed", e.renamed());
        putBool(j, "reinitialised", e.reinitialised());
        putStr(j, "role", tensorRoleName(e.role));
        putOptStr(j, "param_id", e.paramId);
        putOptStr(j, "param_id_b", e.paramIdB);
        putOptStr(j, "dtype_a", e.a ? dtypeName(a.tensors[*e.a].dtype) : std::string_view());
        putOptStr(j, "dtype_b", e.b ? dtypeName(b.tensors[*e.b].dtype) : std::string_view());
        putBool(j, "byte_equal", e.byteEqual);
        putBool(j, "precision_change", e.precisionChange);
        j.key("histogram");
        if (e.a && e.b && e.maxAbs)
            deltaHistogramJson(j, e.histogram);
        else
            j.nil();
        j.end();
    }
    j.end();
    j.key("state");
    j.beginArray();
    for (const auto& s : d.state) {
        j.beginMap();
        putStr(j, "path", s.path);
        j.key("a");
        stateValueJson(j, s.a);
        j.key("b");
        stateValueJson(j, s.b);
        putStr(j, "section", stateSectionName(s.section));
        putOptStr(j, "path_b", s.pathB);
        j.end();
    }
    j.end();
    return document(std::move(j));
}

std::string lossJson(const RunDirectory& run)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "run", run.path);
    b.key("series");
    b.beginArray();
    for (const auto& s : run.series) {
        b.beginMap();
        putStr(b, "split", s.split);
        putStr(b, "metric", s.metric);
        b.key("points");
        b.beginArray();
        for (const auto& p : s.points) {
            b.beginMap();
            putU(b, "epoch", p.epoch);
            putU(b, "item", p.item);
            putF(b, "value", p.value);
            putU(b, "count", p.count);
            if (!p.text.empty())
                putStr(b, "text", p.text);
            b.end();
        }
        b.end();
        b.key("epochs");
        b.beginArray();
        for (auto [e, m] : s.epochMeans()) {
            b.beginMap();
            putU(b, "epoch", e);
            putF(b, "mean", m);
            b.end();
        }
        b.end();
        b.end();
    }
    b.end();
    putStrings(b, "warnings", run.warnings);
    return document(std::move(b));
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
        b.end();
    }
    b.end();
    return document(std::move(b));
}

} // namespace ckpt
