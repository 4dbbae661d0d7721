// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/report.h"

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

void strings(TapeBuilder& b, const std::vector<std::string>& v)
{
    b.beginArray();
    for (const auto& s : v)
        b.str(s);
    b.end();
}

void optStr(TapeBuilder& b, const std::optional<std::string>& s)
{
    if (s)
        b.str(*s);
    else
        b.nil();
}

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

void statsJson(TapeBuilder& b, const BlobStats& s)
{
    b.key("count");
    b.uinteger(s.count);
    for (auto [name, v] : {std::pair<const char*, double>{"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"std", s.std},
             {"sum", s.sum}, {"l2", s.l2}}) {
        b.key(name);
        num(b, v);
    }
    b.key("nan");
    b.uinteger(s.nan);
    b.key("inf");
    b.uinteger(s.inf);
    b.key("zeros");
    b.uinteger(s.zeros);
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
void cidFacts(TapeBuilder& b, const Cid& cid)
{
    b.key("cid");
    b.str(cid.toString());
    b.key("codec");
    b.str(codecName(cid.codec));
    b.key("hash");
    b.str(hashName(cid.hashCode));
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
    b.beginMap();
    b.key("node_count");
    b.uinteger(c.graph.nodes.size());
    b.key("edge_count");
    b.uinteger(c.graph.edges.size());
    b.key("topological_order");
    strings(b, a.topologicalOrder);
    b.key("cycle");
    if (a.cycle.empty())
        b.nil();
    else
        strings(b, a.cycle);
    b.key("loss_cid");
    optStr(b, c.lossCid);
    b.key("loss_provenance_chain");
    strings(b, a.lossProvenanceChain);
    b.key("step");
    b.uinteger(c.step);
    b.key("timestamp");
    b.uinteger(c.timestamp);
    b.key("optimizer_state");
    b.beginArray();
    for (const auto& blob : c.optimizerState) {
        b.beginMap();
        b.key("key");
        b.str(blob.key);
        b.key("len");
        b.uinteger(blob.bytes.size());
        b.key("view");
        b.str(blobViewName(inferBlobView(blob.key, blob.bytes.size())));
        b.end();
    }
    b.end();
    // ---- extensions
    b.key("blocked");
    strings(b, a.blocked);
    b.key("phantom_ids");
    strings(b, a.phantomIds);
    b.key("duplicate_edges");
    b.beginArray();
    for (const auto& d : a.duplicateEdges) {
        b.beginMap();
        b.key("from");
        b.str(d.from);
        b.key("to");
        b.str(d.to);
        b.key("count");
        b.uinteger(d.count);
        b.end();
    }
    b.end();
    b.key("multiple_producers");
    b.beginArray();
    for (const auto& p : a.multipleProducers) {
        b.beginMap();
        b.key("cid");
        b.str(p.cid);
        b.key("nodes");
        strings(b, p.nodes);
        b.end();
    }
    b.end();
    b.key("notes");
    b.beginMap();
    b.key("duplicate_map_keys");
    b.uinteger(c.notes.duplicateMapKeys);
    b.key("unknown_fields");
    b.uinteger(c.notes.unknownFields);
    b.key("node_key_id_mismatches");
    b.uinteger(c.notes.nodeKeyIdMismatches);
    b.end();
    b.key("nodes");
    b.beginArray();
    for (const auto& [key, n] : c.graph.nodes) {
        b.beginMap();
        b.key("key");
        b.str(key);
        b.key("id");
        b.str(n.id);
        b.key("op");
        b.str(n.op);
        b.key("input_cids");
        strings(b, n.inputCids);
        b.key("output_cid");
        optStr(b, n.outputCid);
        b.key("gradient_cid");
        optStr(b, n.gradientCid);
        b.key("output_cid_kind");
        if (n.outputCid)
            b.str(cidClassName(classifyCid(*n.outputCid).kind));
        else
            b.nil();
        b.end();
    }
    b.end();
    if (layout) {
        auto box = [&b](double x, double y, double width, double height) {
            b.key("x");
            num(b, x);
            b.key("y");
            num(b, y);
            b.key("width");
            num(b, width);
            b.key("height");
            num(b, height);
        };
        b.key("layout");
        b.beginMap();
        b.key("width");
        num(b, layout->width);
        b.key("height");
        num(b, layout->height);
        b.key("layers");
        b.uinteger(layout->layerCount);
        b.key("dummies");
        b.uinteger(layout->dummyCount);
        b.key("crossings");
        b.uinteger(layout->crossings);
        b.key("nodes");
        b.beginArray();
        for (size_t i = 0; i < layout->nodes.size(); ++i) {
            const auto& n = layout->nodes[i];
            b.beginMap();
            b.key("id");
            b.str(names && i < names->size() ? (*names)[i] : std::to_string(i));
            box(n.x, n.y, n.width, n.height);
            b.key("layer");
            b.uinteger(n.layer);
            b.end();
        }
        b.end();
        b.key("edges");
        b.beginArray();
        for (const auto& e : layout->edges) {
            b.beginMap();
            b.key("from");
            b.uinteger(e.from);
            b.key("to");
            b.uinteger(e.to);
            b.key("points");
            b.beginArray();
            for (const auto& [x, y] : e.points) {
                b.beginArray();
                num(b, x);
                num(b, y);
                b.end();
            }
            b.end();
            b.key("back");
            b.boolean(e.reversed || e.selfLoop);
            b.end();
        }
        b.end();
        b.key("back_edges");
        b.beginArray();
        for (uint32_t e : layout->backEdges)
            b.uinteger(e);
        b.end();
        b.key("groups");
        b.beginArray();
        for (const auto& g : layout->groups) {
            b.beginMap();
            b.key("nodes");
            b.beginArray();
            for (uint32_t n : g.nodes)
                b.uinteger(n);
            b.end();
            box(g.x, g.y, g.width, g.height);
            b.end();
        }
        b.end();
        b.end();
    }
    b.end();
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
    b.beginMap();
    b.key("kind");
    b.str("gradient_checkpoint");
    b.key("format");
    b.str("ipfrs-tensorlogic 0.2.0 GradientCheckpoint (serde_json)");
    b.key("step");
    b.uinteger(c.step);
    b.key("timestamp");
    b.uinteger(c.timestamp);
    b.key("loss_cid");
    optStr(b, c.lossCid);
    b.key("counts");
    b.beginMap();
    for (auto [name, n] : {std::pair<const char*, uint64_t>{"nodes", c.graph.nodes.size()}, {"edges", c.graph.edges.size()},
             {"optimizer_entries", c.optimizerState.size()}, {"optimizer_bytes", blobBytes}, {"ordered_nodes", a.topologicalOrder.size()}}) {
        b.key(name);
        b.uinteger(n);
    }
    b.end();
    b.key("warnings");
    strings(b, checkpointWarnings(c, a));
    b.end();
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
    b.beginMap();
    b.key("version");
    b.uinteger(store.header().version);
    b.key("roots");
    b.beginArray();
    for (const auto& root : store.header().roots)
        b.str(root.toString());
    b.end();
    b.key("header");
    b.beginMap();
    b.key("roots_zero_prefix");
    b.boolean(store.header().rootsWithZeroPrefix);
    b.key("version_key_first");
    b.boolean(store.header().versionKeyFirst);
    b.end();
    b.key("blocks");
    b.beginArray();
    uint64_t corrupted = 0;
    for (size_t i = 0; i < store.blocks().size(); ++i) {
        const auto& block = store.blocks()[i];
        const BlockCheck check = store.verify(i);
        corrupted += check == BlockCheck::Corrupted;
        b.beginMap();
        cidFacts(b, block.cid);
        b.key("size");
        b.uinteger(block.dataSize);
        b.key("offset");
        b.uinteger(block.dataOffset);
        b.key("check");
        b.str(blockCheckName(check));
        b.end();
    }
    b.end();
    b.key("duplicates");
    b.uinteger(store.duplicateBlocks());
    b.key("corrupted");
    b.uinteger(corrupted);
    b.end();
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
    b.beginMap();
    b.key("kind");
    b.str("optimizer_blob");
    b.key("key");
    b.str(blob.key);
    b.key("len");
    b.uinteger(blob.bytes.size());
    b.key("view");
    b.str(blobViewName(view));
    if (auto s = blobStats(blob.bytes, view)) {
        statsJson(b, *s);
        b.key("values");
        valuesJson(b, blob.bytes, view, limit);
    } else {
        b.key("error");
        b.str(s.error().what);
    }
    b.end();
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
    b.beginMap();
    b.key("kind");
    b.str("node");
    b.key("id");
    b.str(n.id);
    b.key("op");
    b.str(n.op);
    b.key("input_cids");
    b.beginArray();
    for (const auto& cid : n.inputCids) {
        b.beginMap();
        b.key("cid");
        b.str(cid);
        b.key("kind");
        b.str(cidClassName(classifyCid(cid).kind));
        b.end();
    }
    b.end();
    b.key("output_cid");
    optStr(b, n.outputCid);
    b.key("gradient_cid");
    optStr(b, n.gradientCid);
    b.key("metadata");
    b.beginMap();
    for (const auto& [k, v] : n.metadata) {
        b.key(k);
        b.str(v);
    }
    b.end();
    b.key("consumers");
    strings(b, n.outputCid ? findConsumers(g, *n.outputCid) : std::vector<std::string>());
    b.end();
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
        o += "  " + k + " = " + v + "\n";
    if (n.outputCid)
        for (const auto& id : findConsumers(g, *n.outputCid))
            o += "  consumed by " + id + "\n";
    return o;
}

std::string blockJson(const Cid& cid, std::span<const uint8_t> data, BlockCheck check, size_t limit)
{
    TapeBuilder b;
    b.beginMap();
    b.key("kind");
    b.str("block");
    cidFacts(b, cid);
    b.key("size");
    b.uinteger(data.size());
    b.key("check");
    b.str(blockCheckName(check));
    b.key("magic");
    if (const auto magic = magicOf(data); magic.empty())
        b.nil();
    else
        b.str(magic);
    b.key("views");
    b.beginMap();
    for (BlobView v : plausibleViews(data.size())) {
        b.key(blobViewName(v));
        valuesJson(b, data, v, limit);
    }
    b.end();
    b.end();
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
