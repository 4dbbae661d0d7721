// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/report.h"

#include "core/diff/graphdiff.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

using nlohmann::ordered_json;

namespace ckpt {

namespace {

ordered_json num(double v)
{
    if (!std::isfinite(v))
        return nullptr; // JSON has no NaN/Inf: null, as serde_json writes them
    return v;
}

ordered_json metadataJson(const Metadata& m)
{
    return ordered_json{{"float", m.floatType}, {"int", m.intType}, {"format", m.format}, {"version", m.version}, {"settings", m.settings}};
}

/// Any non-tensor subtree as JSON (numbers exact: u64 stays u64).
ordered_json valueJson(const Tape& t, uint32_t node)
{
    const Node& n = t[node];
    switch (n.kind) {
    case Kind::Nil: return nullptr;
    case Kind::Bool: return t.boolean(node);
    case Kind::UInt: return t.u64(node);
    case Kind::Int: return t.i64(node);
    case Kind::F32:
    case Kind::F64: return num(t.f64(node));
    case Kind::Str: return std::string(t.str(node));
    case Kind::Bin: {
        auto b = t.bin(node);
        return ordered_json(std::vector<uint8_t>(b.begin(), b.end()));
    }
    case Kind::Array: {
        ordered_json a = ordered_json::array();
        t.forEachChild(node, [&](uint32_t c) { a.push_back(valueJson(t, c)); });
        return a;
    }
    case Kind::Map: {
        ordered_json o = ordered_json::object();
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) { o[t.keyText(k)] = valueJson(t, v); });
        return o;
    }
    }
    return nullptr;
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
    ordered_json j;
    j["file"] = r.file;
    j["kind"] = std::string(recordKindName(r.kind));
    j["recorder"] = std::string(recorderName(r.recorder));
    j["precision"] = std::string(precisionName(r.precision));
    j["metadata"] = metadataJson(r.metadata);
    j["params"] = r.params.size();
    j["optimizer_entries"] = r.optimizer.size();
    j["pending_gradients"] = r.gradients.size();
    j["tensors"] = r.tensors.size();
    j["tensor_bytes"] = r.tensorBytes();
    // Extensions beyond the contract's keys.
    j["file_bytes"] = r.fileSize;
    j["decoded_bytes"] = r.decodedSize;
    if (r.scheduler)
        j["scheduler"] = ordered_json{{"kind", r.scheduler->kind}, {"description", r.scheduler->description}};
    else
        j["scheduler"] = nullptr;
    j["partial"] = r.partial;
    if (!r.damage.empty())
        j["damage"] = r.damage; // opened with --lenient although the typed decoders reject it
    if (!r.schemaSource.empty())
        j["schema"] = r.schemaSource;
    j["warnings"] = r.warnings;
    return j.dump(2);
}

std::string runInfoJson(const RunDirectory& run)
{
    ordered_json j;
    j["file"] = run.path;
    j["kind"] = "run_directory";
    ordered_json cps = ordered_json::array();
    for (const auto& c : run.checkpoints)
        cps.push_back({{"kind", c.kind}, {"index", c.index}, {"path", c.path}});
    j["checkpoints"] = cps;
    ordered_json ms = ordered_json::array();
    for (const auto& s : run.series)
        ms.push_back({{"split", s.split}, {"metric", s.metric}, {"points", s.points.size()}});
    j["metrics"] = ms;
    j["warnings"] = run.warnings;
    return j.dump(2);
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

std::vector<TensorRow> tensorRows(const Record& r, std::string_view filter, const Progress& progress, const ParallelFor& parallel)
{
    constexpr uint64_t BatchBytes = uint64_t(64) << 20;
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
        while (last < selected.size() && (last == first || batch + r.tensors[selected[last]].bytes <= BatchBytes))
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

std::string tensorsJson(const Record& r, const std::vector<TensorRow>& rows)
{
    (void)r;
    ordered_json a = ordered_json::array();
    for (const auto& row : rows) {
        const auto& t = *row.entry;
        const auto& s = row.stats;
        ordered_json o;
        o["path"] = t.path;
        o["role"] = std::string(tensorRoleName(t.role));
        o["param_id"] = t.paramId.empty() ? ordered_json(nullptr) : ordered_json(t.paramId);
        o["dtype"] = std::string(dtypeName(t.dtype));
        o["shape"] = t.shape;
        o["numel"] = t.numel;
        o["bytes"] = t.bytes;
        o["offset"] = t.offset ? ordered_json(*t.offset) : ordered_json(nullptr);
        o["sum"] = num(s.sum);
        o["l2"] = num(s.l2);
        o["min"] = num(s.min);
        o["max"] = num(s.max);
        o["mean"] = num(s.mean);
        o["std"] = num(s.std);
        o["nan"] = s.nan;
        o["inf"] = s.inf;
        o["zeros"] = s.zeros;
        if (!t.stateName.empty())
            o["state"] = t.stateName;
        a.push_back(std::move(o));
    }
    return a.dump(2);
}

namespace {

const TensorEntry* tensorAtNode(const Record& r, uint32_t node)
{
    for (const auto& t : r.tensors)
        if (t.node == node)
            return &t;
    return nullptr;
}

ordered_json treeNode(const Record& r, uint32_t node, const std::string& key, const std::string& path, int depth)
{
    const Tape& t = r.tape;
    ordered_json o;
    o["key"] = key;
    o["path"] = path;
    if (const auto* te = tensorAtNode(r, node)) {
        o["kind"] = "tensor";
        o["role"] = std::string(tensorRoleName(te->role));
        o["dtype"] = std::string(dtypeName(te->dtype));
        o["shape"] = te->shape;
        o["bytes"] = te->bytes;
        if (!te->paramId.empty())
            o["param_id"] = te->paramId;
        return o;
    }
    const Node& n = t[node];
    o["kind"] = kindName(n.kind);
    if (n.kind == Kind::Map || n.kind == Kind::Array) {
        o["count"] = n.count;
        if (depth == 0)
            return o;
        ordered_json ch = ordered_json::array();
        if (n.kind == Kind::Map) {
            t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
                const std::string kt = t.keyText(k);
                ch.push_back(treeNode(r, v, kt, appendKeyToPath(path, kt), depth - 1));
            });
        } else {
            uint64_t i = 0;
            t.forEachChild(node, [&](uint32_t c) {
                ch.push_back(treeNode(r, c, "[" + std::to_string(i) + "]", appendIndexToPath(path, i), depth - 1));
                ++i;
            });
        }
        o["children"] = std::move(ch);
    } else {
        o["value"] = valueJson(t, node);
    }
    return o;
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
        std::string v = valueJson(t, node).dump();
        if (v.size() > 120)
            v = v.substr(0, 117) + "...";
        out += ": " + v + "\n";
    }
}

} // namespace

std::string treeJson(const Record& r, int depth)
{
    return treeNode(r, 0, "", "", depth).dump(2);
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
    auto steps = parsePath(path);
    if (!steps)
        return std::unexpected(steps.error());
    return resolvePath(r.tape, *steps);
}

ordered_json statsJson(const TensorStats& s)
{
    return ordered_json{{"sum", num(s.sum)}, {"l2", num(s.l2)}, {"min", num(s.min)}, {"max", num(s.max)}, {"mean", num(s.mean)},
        {"std", num(s.std)}, {"nan", s.nan}, {"inf", s.inf}, {"zeros", s.zeros}};
}
} // namespace

Result<std::string> showJson(const Record& r, std::string_view path, uint64_t limit)
{
    auto node = resolve(r, path);
    if (!node)
        return std::unexpected(node.error());
    if (const auto* te = tensorAtNode(r, *node)) {
        ordered_json o;
        o["path"] = te->path;
        o["role"] = std::string(tensorRoleName(te->role));
        o["param_id"] = te->paramId.empty() ? ordered_json(nullptr) : ordered_json(te->paramId);
        o["dtype"] = std::string(dtypeName(te->dtype));
        o["shape"] = te->shape;
        o["numel"] = te->numel;
        o["bytes"] = te->bytes;
        o["offset"] = te->offset ? ordered_json(*te->offset) : ordered_json(nullptr);
        StatsOptions so;
        so.histogramBins = 0;
        o["stats"] = statsJson(r.stats(*te, so));
        ordered_json vals = ordered_json::array();
        for (double v : r.values(*te, 0, limit))
            vals.push_back(num(v));
        o["values"] = vals;
        return o.dump(2);
    }
    return treeNode(r, *node, "", std::string(path), -1).dump(2);
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
    return valueToJson(r.tape, *r.stateNode, true);
}

static ordered_json deltaHistogramJson(const DeltaHistogram& h)
{
    // Non-empty bins only, from the most negative to the most positive; the zero bin is [0, 0].
    ordered_json bins = ordered_json::array();
    for (size_t k = DeltaHistogram::bins; k-- > 0;)
        if (h.negative[k])
            bins.push_back({{"lo", num(-DeltaHistogram::binHigh(k))}, {"hi", num(-DeltaHistogram::binLow(k))}, {"count", h.negative[k]}});
    if (h.zero)
        bins.push_back({{"lo", 0}, {"hi", 0}, {"count", h.zero}});
    for (size_t k = 0; k < DeltaHistogram::bins; ++k)
        if (h.positive[k])
            bins.push_back({{"lo", num(DeltaHistogram::binLow(k))}, {"hi", num(DeltaHistogram::binHigh(k))}, {"count", h.positive[k]}});
    return bins;
}

std::string diffJson(const RecordDiff& d, const Record& a, const Record& b)
{
    ordered_json j;
    j["a"] = d.a;
    j["b"] = d.b;
    j["summary"] = {{"added", d.added}, {"removed", d.removed}, {"changed", d.changed}, {"unchanged", d.unchanged}, {"renamed", d.renamed}};
    if (d.precision)
        j["precision"] = {{"a", std::string(precisionName(d.precision->a))}, {"b", std::string(precisionName(d.precision->b))},
            {"rounding_only", d.precision->roundingOnly}};
    else
        j["precision"] = nullptr;
    auto optional = [](const std::string& s) { return s.empty() ? ordered_json(nullptr) : ordered_json(s); };
    ordered_json es = ordered_json::array();
    for (const auto& e : d.entries) {
        ordered_json o;
        o["path"] = e.path;
        o["status"] = std::string(diffStatusName(e.status));
        const ordered_json numbers = ordered_json::parse(tensorNumbersJson(e)); // kept alive: items() refers to it
        for (const auto& [key, value] : numbers.items())
            o[key] = value;
        o["match"] = optional(std::string(matchKindName(e.match)));
        o["path_b"] = optional(e.pathB);
        o["renamed"] = e.renamed();
        o["reinitialised"] = e.reinitialised();
        o["role"] = std::string(tensorRoleName(e.role));
        o["param_id"] = optional(e.paramId);
        o["param_id_b"] = optional(e.paramIdB);
        o["dtype_a"] = e.a ? ordered_json(std::string(dtypeName(a.tensors[*e.a].dtype))) : ordered_json(nullptr);
        o["dtype_b"] = e.b ? ordered_json(std::string(dtypeName(b.tensors[*e.b].dtype))) : ordered_json(nullptr);
        o["byte_equal"] = e.byteEqual;
        o["precision_change"] = e.precisionChange;
        o["histogram"] = e.a && e.b && e.maxAbs ? deltaHistogramJson(e.histogram) : ordered_json(nullptr);
        es.push_back(std::move(o));
    }
    j["entries"] = es;
    ordered_json st = ordered_json::array();
    for (const auto& s : d.state) {
        auto parse = [](const std::optional<std::string>& v) -> ordered_json {
            if (!v)
                return nullptr;
            auto p = ordered_json::parse(*v, nullptr, false);
            return p.is_discarded() ? ordered_json(*v) : p;
        };
        st.push_back({{"path", s.path}, {"a", parse(s.a)}, {"b", parse(s.b)}, {"section", std::string(stateSectionName(s.section))},
            {"path_b", optional(s.pathB)}});
    }
    j["state"] = st;
    return j.dump(2);
}

std::string lossJson(const RunDirectory& run)
{
    ordered_json j;
    j["run"] = run.path;
    ordered_json ss = ordered_json::array();
    for (const auto& s : run.series) {
        ordered_json o;
        o["split"] = s.split;
        o["metric"] = s.metric;
        ordered_json pts = ordered_json::array();
        for (const auto& p : s.points) {
            ordered_json q{{"epoch", p.epoch}, {"item", p.item}, {"value", num(p.value)}, {"count", p.count}};
            if (!p.text.empty())
                q["text"] = p.text;
            pts.push_back(std::move(q));
        }
        o["points"] = pts;
        ordered_json means = ordered_json::array();
        for (auto [e, m] : s.epochMeans())
            means.push_back({{"epoch", e}, {"mean", num(m)}});
        o["epochs"] = means;
        ss.push_back(std::move(o));
    }
    j["series"] = ss;
    j["warnings"] = run.warnings;
    return j.dump(2);
}

std::string checkResumeJson(const Record& r, const std::vector<ResumeCheck>& checks)
{
    ordered_json j;
    j["file"] = r.file;
    bool ready = true;
    ordered_json cs = ordered_json::array();
    for (const auto& c : checks) {
        ready = ready && c.status != ResumeCheck::Status::Error;
        cs.push_back({{"check", c.name}, {"status", std::string(resumeStatusName(c.status))}, {"detail", c.detail}});
    }
    j["ready"] = ready;
    j["checks"] = cs;
    return j.dump(2);
}

} // namespace ckpt
