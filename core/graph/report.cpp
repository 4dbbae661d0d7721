// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/report.h"

#include "core/codec/json.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

namespace {

void q(std::string& out, std::string_view s) { appendJsonQuoted(out, s); }

void num(std::string& out, double v)
{
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    if (v == std::floor(v) && std::abs(v) < 9.007199254740992e15) {
        out += std::to_string(static_cast<long long>(v));
        return;
    }
    out += formatJsonF64(v);
}

void strings(std::string& out, const std::vector<std::string>& v)
{
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
        if (i)
            out += ',';
        q(out, v[i]);
    }
    out += ']';
}

void optStr(std::string& out, const std::optional<std::string>& s)
{
    if (s)
        q(out, *s);
    else
        out += "null";
}

std::string fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shortId(const std::string& id) { return id.size() > 8 ? id.substr(0, 8) : id; }

void statsJson(std::string& out, const BlobStats& s)
{
    out += "\"count\":" + std::to_string(s.count);
    for (auto [name, v] : {std::pair<const char*, double>{"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"std", s.std},
             {"sum", s.sum}, {"l2", s.l2}}) {
        out += ",\"";
        out += name;
        out += "\":";
        num(out, v);
    }
    out += ",\"nan\":" + std::to_string(s.nan) + ",\"inf\":" + std::to_string(s.inf) + ",\"zeros\":" + std::to_string(s.zeros);
}

void valuesJson(std::string& out, std::span<const uint8_t> bytes, BlobView view, size_t limit)
{
    out += '[';
    if (auto v = blobValues(bytes, view, limit))
        for (size_t i = 0; i < v->size(); ++i) {
            if (i)
                out += ',';
            num(out, (*v)[i]);
        }
    out += ']';
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
    std::string o;
    o.reserve(256 + c.graph.nodes.size() * 200);
    o += "{\"node_count\":" + std::to_string(c.graph.nodes.size());
    o += ",\"edge_count\":" + std::to_string(c.graph.edges.size());
    o += ",\"topological_order\":";
    strings(o, a.topologicalOrder);
    o += ",\"cycle\":";
    if (a.cycle.empty())
        o += "null";
    else
        strings(o, a.cycle);
    o += ",\"loss_cid\":";
    optStr(o, c.lossCid);
    o += ",\"loss_provenance_chain\":";
    strings(o, a.lossProvenanceChain);
    o += ",\"step\":" + std::to_string(c.step);
    o += ",\"timestamp\":" + std::to_string(c.timestamp);
    o += ",\"optimizer_state\":[";
    for (size_t i = 0; i < c.optimizerState.size(); ++i) {
        o += i ? ",{\"key\":" : "{\"key\":";
        q(o, c.optimizerState[i].key);
        o += ",\"len\":" + std::to_string(c.optimizerState[i].bytes.size());
        o += ",\"view\":";
        q(o, blobViewName(inferBlobView(c.optimizerState[i].key, c.optimizerState[i].bytes.size())));
        o += '}';
    }
    o += "]";
    // ---- extensions
    o += ",\"blocked\":";
    strings(o, a.blocked);
    o += ",\"phantom_ids\":";
    strings(o, a.phantomIds);
    o += ",\"duplicate_edges\":[";
    for (size_t i = 0; i < a.duplicateEdges.size(); ++i) {
        o += i ? ",{\"from\":" : "{\"from\":";
        q(o, a.duplicateEdges[i].from);
        o += ",\"to\":";
        q(o, a.duplicateEdges[i].to);
        o += ",\"count\":" + std::to_string(a.duplicateEdges[i].count) + "}";
    }
    o += "],\"multiple_producers\":[";
    for (size_t i = 0; i < a.multipleProducers.size(); ++i) {
        o += i ? ",{\"cid\":" : "{\"cid\":";
        q(o, a.multipleProducers[i].cid);
        o += ",\"nodes\":";
        strings(o, a.multipleProducers[i].nodes);
        o += '}';
    }
    o += "],\"notes\":{\"duplicate_map_keys\":" + std::to_string(c.notes.duplicateMapKeys)
        + ",\"unknown_fields\":" + std::to_string(c.notes.unknownFields)
        + ",\"node_key_id_mismatches\":" + std::to_string(c.notes.nodeKeyIdMismatches) + "}";
    o += ",\"nodes\":[";
    for (size_t i = 0; i < c.graph.nodes.size(); ++i) {
        const auto& [key, n] = c.graph.nodes[i];
        o += i ? ",{\"key\":" : "{\"key\":";
        q(o, key);
        o += ",\"id\":";
        q(o, n.id);
        o += ",\"op\":";
        q(o, n.op);
        o += ",\"input_cids\":";
        strings(o, n.inputCids);
        o += ",\"output_cid\":";
        optStr(o, n.outputCid);
        o += ",\"gradient_cid\":";
        optStr(o, n.gradientCid);
        o += ",\"output_cid_kind\":";
        if (n.outputCid)
            q(o, cidClassName(classifyCid(*n.outputCid).kind));
        else
            o += "null";
        o += '}';
    }
    o += ']';
    if (layout) {
        o += ",\"layout\":{\"width\":";
        num(o, layout->width);
        o += ",\"height\":";
        num(o, layout->height);
        o += ",\"layers\":" + std::to_string(layout->layerCount) + ",\"dummies\":" + std::to_string(layout->dummyCount)
            + ",\"crossings\":" + std::to_string(layout->crossings) + ",\"nodes\":[";
        for (size_t i = 0; i < layout->nodes.size(); ++i) {
            const auto& n = layout->nodes[i];
            o += i ? ",{\"id\":" : "{\"id\":";
            q(o, names && i < names->size() ? (*names)[i] : std::to_string(i));
            o += ",\"x\":";
            num(o, n.x);
            o += ",\"y\":";
            num(o, n.y);
            o += ",\"width\":";
            num(o, n.width);
            o += ",\"height\":";
            num(o, n.height);
            o += ",\"layer\":" + std::to_string(n.layer) + "}";
        }
        o += "],\"edges\":[";
        for (size_t i = 0; i < layout->edges.size(); ++i) {
            const auto& e = layout->edges[i];
            o += i ? ",{" : "{";
            o += "\"from\":" + std::to_string(e.from) + ",\"to\":" + std::to_string(e.to) + ",\"points\":[";
            for (size_t k = 0; k < e.points.size(); ++k) {
                o += k ? ",[" : "[";
                num(o, e.points[k].first);
                o += ',';
                num(o, e.points[k].second);
                o += ']';
            }
            o += "],\"back\":";
            o += (e.reversed || e.selfLoop) ? "true" : "false";
            o += '}';
        }
        o += "],\"back_edges\":[";
        for (size_t i = 0; i < layout->backEdges.size(); ++i)
            o += (i ? "," : "") + std::to_string(layout->backEdges[i]);
        o += "],\"groups\":[";
        for (size_t i = 0; i < layout->groups.size(); ++i) {
            const auto& g = layout->groups[i];
            o += i ? ",{\"nodes\":[" : "{\"nodes\":[";
            for (size_t k = 0; k < g.nodes.size(); ++k)
                o += (k ? "," : "") + std::to_string(g.nodes[k]);
            o += "],\"x\":";
            num(o, g.x);
            o += ",\"y\":";
            num(o, g.y);
            o += ",\"width\":";
            num(o, g.width);
            o += ",\"height\":";
            num(o, g.height);
            o += '}';
        }
        o += "]}";
    }
    o += "}\n";
    return o;
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
    std::string o = "{\"kind\":\"gradient_checkpoint\",\"format\":\"ipfrs-tensorlogic 0.2.0 GradientCheckpoint (serde_json)\"";
    o += ",\"step\":" + std::to_string(c.step) + ",\"timestamp\":" + std::to_string(c.timestamp) + ",\"loss_cid\":";
    optStr(o, c.lossCid);
    uint64_t blobBytes = 0;
    for (const auto& b : c.optimizerState)
        blobBytes += b.bytes.size();
    o += ",\"counts\":{\"nodes\":" + std::to_string(c.graph.nodes.size()) + ",\"edges\":" + std::to_string(c.graph.edges.size())
        + ",\"optimizer_entries\":" + std::to_string(c.optimizerState.size()) + ",\"optimizer_bytes\":" + std::to_string(blobBytes)
        + ",\"ordered_nodes\":" + std::to_string(a.topologicalOrder.size()) + "}";
    o += ",\"warnings\":";
    strings(o, checkpointWarnings(c, a));
    return o + "}\n";
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
    std::string o = "{\"version\":" + std::to_string(store.header().version) + ",\"roots\":[";
    for (size_t i = 0; i < store.header().roots.size(); ++i) {
        if (i)
            o += ',';
        q(o, store.header().roots[i].toString());
    }
    o += "],\"header\":{\"roots_zero_prefix\":";
    o += store.header().rootsWithZeroPrefix ? "true" : "false";
    o += ",\"version_key_first\":";
    o += store.header().versionKeyFirst ? "true" : "false";
    o += "},\"blocks\":[";
    uint64_t corrupted = 0;
    for (size_t i = 0; i < store.blocks().size(); ++i) {
        const auto& b = store.blocks()[i];
        const BlockCheck check = store.verify(i);
        corrupted += check == BlockCheck::Corrupted;
        o += i ? ",{\"cid\":" : "{\"cid\":";
        q(o, b.cid.toString());
        o += ",\"codec\":";
        q(o, codecName(b.cid.codec));
        o += ",\"hash\":";
        q(o, hashName(b.cid.hashCode));
        o += ",\"size\":" + std::to_string(b.dataSize) + ",\"offset\":" + std::to_string(b.dataOffset) + ",\"check\":";
        q(o, blockCheckName(check));
        o += '}';
    }
    o += "],\"duplicates\":" + std::to_string(store.duplicateBlocks()) + ",\"corrupted\":" + std::to_string(corrupted) + "}\n";
    return o;
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
    std::string o = "{\"kind\":\"optimizer_blob\",\"key\":";
    q(o, blob.key);
    o += ",\"len\":" + std::to_string(blob.bytes.size()) + ",\"view\":";
    q(o, blobViewName(view));
    if (auto s = blobStats(blob.bytes, view)) {
        o += ',';
        statsJson(o, *s);
        o += ",\"values\":";
        valuesJson(o, blob.bytes, view, limit);
    } else {
        o += ",\"error\":";
        q(o, s.error().what);
    }
    return o + "}\n";
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
    std::string o = "{\"kind\":\"node\",\"id\":";
    q(o, n.id);
    o += ",\"op\":";
    q(o, n.op);
    o += ",\"input_cids\":[";
    for (size_t i = 0; i < n.inputCids.size(); ++i) {
        const auto c = classifyCid(n.inputCids[i]);
        o += i ? ",{\"cid\":" : "{\"cid\":";
        q(o, n.inputCids[i]);
        o += ",\"kind\":";
        q(o, cidClassName(c.kind));
        o += '}';
    }
    o += "],\"output_cid\":";
    optStr(o, n.outputCid);
    o += ",\"gradient_cid\":";
    optStr(o, n.gradientCid);
    o += ",\"metadata\":{";
    for (size_t i = 0; i < n.metadata.size(); ++i) {
        if (i)
            o += ',';
        q(o, n.metadata[i].first);
        o += ':';
        q(o, n.metadata[i].second);
    }
    o += "},\"consumers\":";
    strings(o, n.outputCid ? findConsumers(g, *n.outputCid) : std::vector<std::string>());
    return o + "}\n";
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
    std::string o = "{\"kind\":\"block\",\"cid\":";
    q(o, cid.toString());
    o += ",\"codec\":";
    q(o, codecName(cid.codec));
    o += ",\"hash\":";
    q(o, hashName(cid.hashCode));
    o += ",\"size\":" + std::to_string(data.size()) + ",\"check\":";
    q(o, blockCheckName(check));
    o += ",\"magic\":";
    const auto magic = magicOf(data);
    if (magic.empty())
        o += "null";
    else
        q(o, magic);
    o += ",\"views\":{";
    bool first = true;
    for (BlobView v : plausibleViews(data.size())) {
        if (!first)
            o += ',';
        first = false;
        q(o, blobViewName(v));
        o += ':';
        valuesJson(o, data, v, limit);
    }
    return o + "}}\n";
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
