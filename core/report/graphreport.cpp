// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/graphreport.h"

#include "core/codec/json.h"
#include "core/io/sink.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

namespace {

// Every JSON document here is a tape written by core's JSON writer (writeJson, serde_json's compact
// layout: its string escaping, its float digits), so the graph reports share one writer with the
// GradientCheckpoints themselves instead of concatenating text.

/** A number as these documents always wrote it: integral values as integers, non-finite ones as null. */
void num(TapeBuilder& b, double v)
{
    if (!std::isfinite(v))
        b.nil();
    else if (v == std::floor(v) && std::abs(v) < 9.007199254740992e15)
        b.integer(static_cast<int64_t>(v));
    else
        b.f64(v);
}

/**
 * The members of one JSON object, a call per member: `Members(b).str("id", n.id).u("len", 4)`.
 * Opens the object on construction; close() (or the destructor) ends it.
 */
class Members {
public:
    explicit Members(TapeBuilder& b)
        : m_b(b)
    {
        m_b.beginMap();
    }
    ~Members() { close(); }
    Members(const Members&) = delete;
    Members& operator=(const Members&) = delete;

    Members& str(std::string_view k, std::string_view v) { return key(k).value(v); }
    Members& u(std::string_view k, uint64_t v)
    {
        key(k).m_b.uinteger(v);
        return *this;
    }
    Members& num(std::string_view k, double v)
    {
        key(k);
        ckpt::num(m_b, v);
        return *this;
    }
    Members& flag(std::string_view k, bool v)
    {
        key(k).m_b.boolean(v);
        return *this;
    }
    Members& opt(std::string_view k, const std::optional<std::string>& v)
    {
        key(k);
        if (v)
            m_b.str(*v);
        else
            m_b.nil();
        return *this;
    }
    Members& strings(std::string_view k, const std::vector<std::string>& v)
    {
        key(k).m_b.beginArray();
        for (const auto& s : v)
            m_b.str(s);
        m_b.end();
        return *this;
    }
    /** The builder, positioned after \a k: the member's value is written by the caller. */
    TapeBuilder& at(std::string_view k) { return key(k).m_b; }
    void close()
    {
        if (m_open)
            m_b.end();
        m_open = false;
    }

private:
    Members& key(std::string_view k)
    {
        m_b.key(k);
        return *this;
    }
    Members& value(std::string_view v)
    {
        m_b.str(v);
        return *this;
    }
    TapeBuilder& m_b;
    bool m_open = true;
};

/** The document as one compact line (serde_json::to_string) and a newline. */
std::string document(TapeBuilder&& b)
{
    const Tape t = std::move(b).finish();
    Sink sink;
    writeJson(t, t.root(), JsonStyle::Compact, sink);
    const auto& bytes = sink.buffer();
    std::string out(bytes.begin(), bytes.end());
    out += '\n';
    return out;
}

std::string fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shortId(const std::string& id) { return id.size() > 8 ? id.substr(0, 8) : id; }

void statsJson(Members& o, const BlobStats& s)
{
    o.u("count", s.count).num("min", s.min).num("max", s.max).num("mean", s.mean).num("std", s.std).num("sum", s.sum).num("l2", s.l2);
    o.u("nan", s.nan).u("inf", s.inf).u("zeros", s.zeros);
}

void valuesJson(TapeBuilder& b, std::span<const uint8_t> bytes, BlobView view, size_t limit)
{
    b.beginArray();
    if (auto v = blobValues(bytes, view, limit))
        for (double x : *v)
            num(b, x);
    b.end();
}

std::string valuesText(std::span<const uint8_t> bytes, BlobView view, size_t limit)
{
    std::string s;
    if (auto v = blobValues(bytes, view, limit)) {
        for (size_t i = 0; i < v->size(); ++i)
            s += (i ? ", " : "") + fmt((*v)[i]);
        if (bytes.size() / blobViewWidth(view) > v->size())
            s += ", ...";
    }
    return s;
}

/** "cid", "codec" and "hash" of a block, as `blocks` and `show` name them. */
void cidFacts(Members& o, const Cid& cid)
{
    o.str("cid", cid.toString()).str("codec", codecName(cid.codec)).str("hash", hashName(cid.hashCode));
}

/** The interpretations §3.2/§5 suggest for a block or blob of this length. */
std::vector<BlobView> plausibleViews(size_t n)
{
    std::vector<BlobView> views;
    if (n % 4 == 0 && n)
        views.push_back(BlobView::F32);
    if (n % 8 == 0 && n)
        views.push_back(BlobView::F64);
    if (n == 8)
        views.push_back(BlobView::U64);
    views.push_back(BlobView::U8);
    return views;
}

std::string magicOf(std::span<const uint8_t> d)
{
    auto starts = [&](std::string_view m) {
        return d.size() >= m.size() && std::equal(m.begin(), m.end(), reinterpret_cast<const char*>(d.data()));
    };
    if (starts("ARROW1"))
        return "arrow_ipc";
    if (starts("GARW"))
        return "garw";
    return "";
}

} // namespace

std::string graphJson(const GradientCheckpoint& c, const GraphAnalysis& a, const LayoutResult* layout,
    const std::vector<std::string>* names)
{
    TapeBuilder b;
    b.reserve(64 + c.graph.nodes.size() * 24 + (layout ? layout->nodes.size() * 14 + layout->edges.size() * 12 : 0));
    Members o(b);
    o.u("node_count", c.graph.nodes.size()).u("edge_count", c.graph.edges.size()).strings("topological_order", a.topologicalOrder);
    if (a.cycle.empty())
        o.at("cycle").nil();
    else
        o.strings("cycle", a.cycle);
    o.opt("loss_cid", c.lossCid).strings("loss_provenance_chain", a.lossProvenanceChain).u("step", c.step).u("timestamp", c.timestamp);
    o.at("optimizer_state").beginArray();
    for (const auto& blob : c.optimizerState)
        Members(b).str("key", blob.key).u("len", blob.bytes.size()).str("view", blobViewName(inferBlobView(blob.key, blob.bytes.size())));
    b.end();
    // ---- extensions
    o.strings("blocked", a.blocked).strings("phantom_ids", a.phantomIds);
    o.at("duplicate_edges").beginArray();
    for (const auto& d : a.duplicateEdges)
        Members(b).str("from", d.from).str("to", d.to).u("count", d.count);
    b.end();
    o.at("multiple_producers").beginArray();
    for (const auto& p : a.multipleProducers)
        Members(b).str("cid", p.cid).strings("nodes", p.nodes);
    b.end();
    Members(o.at("notes"))
        .u("duplicate_map_keys", c.notes.duplicateMapKeys)
        .u("unknown_fields", c.notes.unknownFields)
        .u("node_key_id_mismatches", c.notes.nodeKeyIdMismatches);
    o.at("nodes").beginArray();
    for (const auto& [key, n] : c.graph.nodes) {
        Members node(b);
        node.str("key", key).str("id", n.id).str("op", n.op).strings("input_cids", n.inputCids);
        node.opt("output_cid", n.outputCid).opt("gradient_cid", n.gradientCid);
        node.opt("output_cid_kind", n.outputCid ? std::optional<std::string>(cidClassName(classifyCid(*n.outputCid).kind)) : std::nullopt);
    }
    b.end();
    if (layout) {
        Members l(o.at("layout"));
        l.num("width", layout->width).num("height", layout->height);
        l.u("layers", layout->layerCount).u("dummies", layout->dummyCount).u("crossings", layout->crossings);
        l.at("nodes").beginArray();
        for (size_t i = 0; i < layout->nodes.size(); ++i) {
            const auto& n = layout->nodes[i];
            Members(b)
                .str("id", names && i < names->size() ? (*names)[i] : std::to_string(i))
                .num("x", n.x).num("y", n.y).num("width", n.width).num("height", n.height)
                .u("layer", n.layer);
        }
        b.end();
        l.at("edges").beginArray();
        for (const auto& e : layout->edges) {
            Members edge(b);
            edge.u("from", e.from).u("to", e.to);
            edge.at("points").beginArray();
            for (const auto& [x, y] : e.points) {
                b.beginArray();
                num(b, x);
                num(b, y);
                b.end();
            }
            b.end();
            edge.flag("back", e.reversed || e.selfLoop);
        }
        b.end();
        l.at("back_edges").beginArray();
        for (uint32_t e : layout->backEdges)
            b.uinteger(e);
        b.end();
        l.at("groups").beginArray();
        for (const auto& g : layout->groups) {
            Members group(b);
            group.at("nodes").beginArray();
            for (uint32_t n : g.nodes)
                b.uinteger(n);
            b.end();
            group.num("x", g.x).num("y", g.y).num("width", g.width).num("height", g.height);
        }
        b.end();
    }
    o.close();
    return document(std::move(b));
}

std::vector<std::string> checkpointWarnings(const GradientCheckpoint& c, const GraphAnalysis& a)
{
    std::vector<std::string> w;
    if (!a.cycle.empty()) {
        std::string path;
        for (const auto& id : a.cycle)
            path += id + " -> ";
        w.push_back("cycle: " + path + a.cycle.front() + " (topological_order() silently drops " + std::to_string(a.blocked.size())
            + " nodes)");
    } else if (!a.blocked.empty()) {
        w.push_back(std::to_string(a.blocked.size()) + " nodes wait on edges from ids that are not nodes and are missing from topological_order()");
    }
    if (!a.phantomIds.empty())
        w.push_back(std::to_string(a.phantomIds.size()) + " edge endpoints are not node ids (first: " + a.phantomIds.front() + ")");
    for (const auto& d : a.duplicateEdges)
        w.push_back("edge " + d.from + " -> " + d.to + " stored " + std::to_string(d.count) + " times");
    for (const auto& p : a.multipleProducers)
        w.push_back("CID " + p.cid + " has " + std::to_string(p.nodes.size()) + " producers: provenance depends on map order");
    if (c.notes.duplicateMapKeys)
        w.push_back(std::to_string(c.notes.duplicateMapKeys) + " repeated map keys (the last value was kept, as serde does)");
    if (c.notes.nodeKeyIdMismatches)
        w.push_back(std::to_string(c.notes.nodeKeyIdMismatches) + " nodes are stored under a key different from their id");
    if (c.lossCid && a.lossProvenanceChain.empty())
        w.push_back("loss_cid " + *c.lossCid + " is produced by no node");
    return w;
}

std::string graphText(const GradientCheckpoint& c, const GraphAnalysis& a)
{
    std::string o;
    o += "GradientCheckpoint: step " + std::to_string(c.step) + ", timestamp " + std::to_string(c.timestamp) + "\n";
    o += "  nodes: " + std::to_string(c.graph.nodes.size()) + ", edges: " + std::to_string(c.graph.edges.size()) + "\n";
    o += "  loss_cid: " + (c.lossCid ? *c.lossCid : std::string("(none)")) + "\n";
    std::unordered_map<std::string_view, const ComputationNode*> byKey;
    for (const auto& [k, n] : c.graph.nodes)
        byKey.emplace(k, &n);
    o += "  topological order (" + std::to_string(a.topologicalOrder.size()) + "):\n";
    size_t i = 0;
    for (const auto& id : a.topologicalOrder) {
        auto it = byKey.find(id);
        char line[64];
        std::snprintf(line, sizeof line, "    %5zu  ", ++i);
        o += line + id + "  " + (it == byKey.end() ? std::string("(not a node)") : it->second->op) + "\n";
    }
    if (!a.lossProvenanceChain.empty()) {
        o += "  loss provenance:";
        for (const auto& id : a.lossProvenanceChain) {
            auto it = byKey.find(id);
            o += " " + (it == byKey.end() ? id : it->second->op + "(" + shortId(id) + ")");
        }
        o += "\n";
    }
    o += "  optimizer_state: " + std::to_string(c.optimizerState.size()) + " blobs\n";
    for (const auto& b : c.optimizerState) {
        const BlobView v = inferBlobView(b.key, b.bytes.size());
        o += "    " + b.key + "  " + std::to_string(b.bytes.size()) + " bytes as " + blobViewName(v) + ": "
            + valuesText(b.bytes, v, 4) + "\n";
    }
    for (const auto& w : checkpointWarnings(c, a))
        o += "  warning: " + w + "\n";
    return o;
}

std::string graphDot(const GradientCheckpoint& c, const GraphAnalysis& a)
{
    std::string o = "digraph computation_graph {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
    auto dotQuoted = [](const std::string& s) {
        std::string r = "\"";
        for (char ch : s) {
            if (ch == '"' || ch == '\\')
                r += '\\';
            if (ch == '\n')
                r += "\\n";
            else
                r += ch;
        }
        return r + "\"";
    };
    for (const auto& [key, n] : c.graph.nodes)
        o += "  " + dotQuoted(key) + " [label=" + dotQuoted(n.op + "\n" + shortId(n.id)) + "];\n";
    for (const auto& p : a.phantomIds)
        o += "  " + dotQuoted(p) + " [style=dashed, label=" + dotQuoted("?\n" + shortId(p)) + "];\n";
    std::unordered_set<std::string> onCycle(a.cycle.begin(), a.cycle.end());
    for (const auto& [from, to] : c.graph.edges) {
        o += "  " + dotQuoted(from) + " -> " + dotQuoted(to);
        if (onCycle.contains(from) && onCycle.contains(to))
            o += " [color=red]";
        o += ";\n";
    }
    return o + "}\n";
}

std::string checkpointInfoJson(const GradientCheckpoint& c, const GraphAnalysis& a)
{
    uint64_t blobBytes = 0;
    for (const auto& blob : c.optimizerState)
        blobBytes += blob.bytes.size();
    TapeBuilder b;
    Members o(b);
    o.str("kind", "gradient_checkpoint").str("format", "ipfrs-tensorlogic 0.2.0 GradientCheckpoint (serde_json)");
    o.u("step", c.step).u("timestamp", c.timestamp).opt("loss_cid", c.lossCid);
    Members(o.at("counts"))
        .u("nodes", c.graph.nodes.size())
        .u("edges", c.graph.edges.size())
        .u("optimizer_entries", c.optimizerState.size())
        .u("optimizer_bytes", blobBytes)
        .u("ordered_nodes", a.topologicalOrder.size());
    o.strings("warnings", checkpointWarnings(c, a));
    o.close();
    return document(std::move(b));
}

std::string checkpointInfoText(const std::string& file, const GradientCheckpoint& c, const GraphAnalysis& a)
{
    uint64_t blobBytes = 0;
    for (const auto& b : c.optimizerState)
        blobBytes += b.bytes.size();
    std::string o = file + ": ipfrs GradientCheckpoint\n";
    o += "  step: " + std::to_string(c.step) + "\n  timestamp: " + std::to_string(c.timestamp) + "\n";
    o += "  loss_cid: " + (c.lossCid ? *c.lossCid : std::string("(none)")) + "\n";
    o += "  nodes: " + std::to_string(c.graph.nodes.size()) + ", edges: " + std::to_string(c.graph.edges.size()) + "\n";
    o += "  optimizer_state: " + std::to_string(c.optimizerState.size()) + " blobs, " + std::to_string(blobBytes) + " bytes\n";
    for (const auto& w : checkpointWarnings(c, a))
        o += "  warning: " + w + "\n";
    return o;
}

std::string blocksJson(const CarStore& store)
{
    TapeBuilder b;
    Members o(b);
    o.u("version", store.header().version);
    o.at("roots").beginArray();
    for (const auto& root : store.header().roots)
        b.str(root.toString());
    b.end();
    Members(o.at("header")).flag("roots_zero_prefix", store.header().rootsWithZeroPrefix).flag("version_key_first", store.header().versionKeyFirst);
    o.at("blocks").beginArray();
    uint64_t corrupted = 0;
    for (size_t i = 0; i < store.blocks().size(); ++i) {
        const auto& block = store.blocks()[i];
        const BlockCheck check = store.verify(i);
        corrupted += check == BlockCheck::Corrupted;
        Members entry(b);
        cidFacts(entry, block.cid);
        entry.u("size", block.dataSize).u("offset", block.dataOffset).str("check", blockCheckName(check));
    }
    b.end();
    o.u("duplicates", store.duplicateBlocks()).u("corrupted", corrupted);
    o.close();
    return document(std::move(b));
}

std::string blocksText(const std::string& file, const CarStore& store)
{
    std::string o = file + ": CARv1, " + std::to_string(store.blocks().size()) + " blocks, roots:";
    for (const auto& r : store.header().roots)
        o += " " + r.toString();
    o += store.header().rootsWithZeroPrefix ? "\n" : " (ipfrs header: no 0x00 before root CIDs)\n";
    for (size_t i = 0; i < store.blocks().size(); ++i) {
        const auto& b = store.blocks()[i];
        char line[128];
        std::snprintf(line, sizeof line, "  %-9s %10llu bytes  at %-10llu  %s", codecName(b.cid.codec).c_str(),
            static_cast<unsigned long long>(b.dataSize), static_cast<unsigned long long>(b.dataOffset), blockCheckName(store.verify(i)));
        o += line + std::string("  ") + b.cid.toString() + "\n";
    }
    return o;
}

std::string blobJson(const OptimizerBlob& blob, BlobView view, size_t limit)
{
    TapeBuilder b;
    Members o(b);
    o.str("kind", "optimizer_blob").str("key", blob.key).u("len", blob.bytes.size()).str("view", blobViewName(view));
    if (auto s = blobStats(blob.bytes, view)) {
        statsJson(o, *s);
        valuesJson(o.at("values"), blob.bytes, view, limit);
    } else {
        o.str("error", s.error().what);
    }
    o.close();
    return document(std::move(b));
}

std::string blobText(const OptimizerBlob& blob, BlobView view, size_t limit)
{
    std::string o = "optimizer_state[" + blob.key + "]: " + std::to_string(blob.bytes.size()) + " bytes as " + blobViewName(view) + "\n";
    auto s = blobStats(blob.bytes, view);
    if (!s)
        return o + "  " + s.error().what + "\n";
    o += "  count " + std::to_string(s->count) + "  min " + fmt(s->min) + "  max " + fmt(s->max) + "  mean " + fmt(s->mean) + "  std "
        + fmt(s->std) + "  sum " + fmt(s->sum) + "  l2 " + fmt(s->l2) + "  nan " + std::to_string(s->nan) + "  inf "
        + std::to_string(s->inf) + "  zeros " + std::to_string(s->zeros) + "\n";
    o += "  values: " + valuesText(blob.bytes, view, limit) + "\n";
    return o;
}

std::string nodeJson(const ComputationNode& n, const ComputationGraphStore& g)
{
    TapeBuilder b;
    Members o(b);
    o.str("kind", "node").str("id", n.id).str("op", n.op);
    o.at("input_cids").beginArray();
    for (const auto& cid : n.inputCids)
        Members(b).str("cid", cid).str("kind", cidClassName(classifyCid(cid).kind));
    b.end();
    o.opt("output_cid", n.outputCid).opt("gradient_cid", n.gradientCid);
    Members metadata(o.at("metadata"));
    for (const auto& [k, v] : n.metadata)
        metadata.str(k, v);
    metadata.close();
    o.strings("consumers", n.outputCid ? findConsumers(g, *n.outputCid) : std::vector<std::string>());
    o.close();
    return document(std::move(b));
}

std::string nodeText(const ComputationNode& n, const ComputationGraphStore& g)
{
    std::string o = "node " + n.id + ": " + n.op + "\n";
    for (const auto& c : n.inputCids)
        o += "  input    " + c + "  (" + cidClassName(classifyCid(c).kind) + ")\n";
    o += "  output   " + (n.outputCid ? *n.outputCid : std::string("(none)")) + "\n";
    o += "  gradient " + (n.gradientCid ? *n.gradientCid : std::string("(none)")) + "\n";
    for (const auto& [k, v] : n.metadata)
        o.append("  ").append(k).append(" = ").append(v).append("\n");
    if (n.outputCid)
        for (const auto& id : findConsumers(g, *n.outputCid))
            o += "  consumed by " + id + "\n";
    return o;
}

std::string blockJson(const Cid& cid, std::span<const uint8_t> data, BlockCheck check, size_t limit)
{
    TapeBuilder b;
    Members o(b);
    o.str("kind", "block");
    cidFacts(o, cid);
    const auto magic = magicOf(data);
    o.u("size", data.size()).str("check", blockCheckName(check)).opt("magic", magic.empty() ? std::nullopt : std::optional<std::string>(magic));
    Members views(o.at("views"));
    for (BlobView v : plausibleViews(data.size()))
        valuesJson(views.at(blobViewName(v)), data, v, limit);
    views.close();
    o.close();
    return document(std::move(b));
}

std::string blockText(const Cid& cid, std::span<const uint8_t> data, BlockCheck check, size_t limit)
{
    std::string o = "block " + cid.toString() + "\n  " + codecName(cid.codec) + "/" + hashName(cid.hashCode) + ", "
        + std::to_string(data.size()) + " bytes, hash " + blockCheckName(check) + "\n";
    if (auto m = magicOf(data); !m.empty())
        o += "  content: " + m + "\n";
    for (BlobView v : plausibleViews(data.size()))
        o += std::string("  as ") + blobViewName(v) + ": " + valuesText(data, v, limit) + "\n";
    return o;
}

} // namespace ckpt
