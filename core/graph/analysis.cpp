// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/analysis.h"

#include "core/graph/csr.h"
#include "core/util/stringindex.h"

#include <algorithm>
#include <deque>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

namespace {

/** The crate's Kahn run, kept with its leftovers so cycles can be found. */
struct KahnRun {
    StringIndex ids;            ///< node keys first (file order), then phantom edge ends (first seen)
    size_t keyCount = 0;
    std::vector<uint8_t> hasInDegree;  // entry exists in the crate's in_degree map
    std::vector<uint64_t> inDegree;
    Csr successorsOf;           ///< successors of id i, in edge order
    std::vector<uint32_t> order;
    std::vector<std::pair<uint32_t, uint32_t>> edges; ///< the graph's edges as (from, to) ids, in edge order

    std::span<const uint32_t> successors(uint32_t i) const { return successorsOf.of(i); }
    std::string_view name(uint32_t i) const { return ids.name(i); }
};

KahnRun runKahn(const ComputationGraphStore& g)
{
    KahnRun k;
    // Keys first, then edge ends in edge order: the ids' indices are the crate's first-seen order.
    std::vector<std::string_view> names;
    names.reserve(g.nodes.size() + 2 * g.edges.size());
    for (const auto& [key, node] : g.nodes)
        names.push_back(key);
    for (const auto& [from, to] : g.edges) {
        names.push_back(from);
        names.push_back(to);
    }
    const std::vector<uint32_t> index = k.ids.insertAll(names);
    // Indices are handed out in first-seen order, so the distinct keys are 0 .. keyCount - 1.
    for (size_t i = 0; i < g.nodes.size(); ++i)
        k.keyCount = std::max<size_t>(k.keyCount, index[i] + 1);
    auto& edges = k.edges;
    edges.reserve(g.edges.size());
    for (size_t e = 0, i = g.nodes.size(); e < g.edges.size(); ++e, i += 2)
        edges.emplace_back(index[i], index[i + 1]);
    const size_t n = k.ids.size();
    k.hasInDegree.assign(n, 0);
    std::fill_n(k.hasInDegree.begin(), k.keyCount, 1);
    k.inDegree.assign(n, 0);
    for (const auto& [f, t] : edges) {
        k.hasInDegree[t] = 1;
        ++k.inDegree[t];
    }
    k.successorsOf = Csr::build(n, edges);
    auto byName = [&](uint32_t a, uint32_t b) { return k.name(a) < k.name(b); };
    std::vector<uint32_t> initial;
    for (uint32_t i = 0; i < n; ++i)
        if (k.hasInDegree[i] && k.inDegree[i] == 0)
            initial.push_back(i);
    std::sort(initial.begin(), initial.end(), byName);
    std::deque<uint32_t> queue(initial.begin(), initial.end());
    std::vector<uint32_t> ready;
    k.order.reserve(n);
    while (!queue.empty()) {
        const uint32_t u = queue.front();
        queue.pop_front();
        k.order.push_back(u);
        ready.clear();
        for (uint32_t s : k.successors(u)) {
            if (!k.hasInDegree[s])
                continue;
            // saturating_sub, as the crate does: a node at 0 is not pushed twice.
            if (k.inDegree[s] == 0)
                continue;
            if (--k.inDegree[s] == 0)
                ready.push_back(s);
        }
        std::sort(ready.begin(), ready.end(), byName);
        queue.insert(queue.end(), ready.begin(), ready.end());
    }
    return k;
}

/** One cycle among ids whose in-degree never reached zero; iterative DFS, sorted start points. */
std::vector<std::string> findCycle(const KahnRun& k)
{
    const size_t n = k.ids.size();
    std::vector<uint8_t> remaining(n, 0);
    std::vector<uint32_t> starts;
    for (uint32_t i = 0; i < n; ++i)
        if (k.hasInDegree[i] && k.inDegree[i] > 0) {
            remaining[i] = 1;
            starts.push_back(i);
        }
    std::sort(starts.begin(), starts.end(), [&](uint32_t a, uint32_t b) { return k.name(a) < k.name(b); });
    enum : uint8_t { White, Gray, Black };
    std::vector<uint8_t> color(n, White);
    std::vector<std::pair<uint32_t, size_t>> stack; // node, next successor index
    for (uint32_t s : starts) {
        if (color[s] != White)
            continue;
        stack.emplace_back(s, 0);
        color[s] = Gray;
        while (!stack.empty()) {
            auto& [u, next] = stack.back();
            const auto succ = k.successors(u);
            if (next >= succ.size()) {
                color[u] = Black;
                stack.pop_back();
                continue;
            }
            const uint32_t v = succ[next++];
            if (!remaining[v])
                continue;
            if (color[v] == Gray) {
                std::vector<std::string> cycle;
                size_t i = stack.size();
                while (i > 0 && stack[i - 1].first != v)
                    --i;
                for (size_t j = i - 1; j < stack.size(); ++j)
                    cycle.emplace_back(k.name(stack[j].first));
                return cycle;
            }
            if (color[v] == White) {
                color[v] = Gray;
                stack.emplace_back(v, 0);
            }
        }
    }
    return {};
}

} // namespace

std::vector<std::string> topologicalOrder(const ComputationGraphStore& graph)
{
    const KahnRun k = runKahn(graph);
    std::vector<std::string> out;
    out.reserve(k.order.size());
    for (uint32_t i : k.order)
        out.emplace_back(k.name(i));
    return out;
}

namespace {

/** First producer in map order for every output CID. */
std::unordered_map<std::string_view, uint32_t> firstProducers(const ComputationGraphStore& graph)
{
    std::unordered_map<std::string_view, uint32_t> producer;
    producer.reserve(graph.nodes.size() * 2);
    for (uint32_t i = 0; i < graph.nodes.size(); ++i)
        if (const auto& oc = graph.nodes[i].second.outputCid)
            producer.try_emplace(*oc, i);
    return producer;
}

std::vector<std::string> provenanceChain(const ComputationGraphStore& graph,
    const std::unordered_map<std::string_view, uint32_t>& producer, std::string_view outputCid)
{
    auto root = producer.find(outputCid);
    if (root == producer.end())
        return {};
    std::vector<uint32_t> stack{root->second};
    std::vector<uint8_t> visited(graph.nodes.size(), 0);
    std::vector<std::string> chain;
    while (!stack.empty()) {
        const uint32_t n = stack.back();
        stack.pop_back();
        if (visited[n])
            continue;
        visited[n] = 1;
        // The crate's visited set holds node ids; map keys are unique, so the index stands for it.
        chain.push_back(graph.nodes[n].second.id);
        for (const auto& ic : graph.nodes[n].second.inputCids)
            if (auto p = producer.find(ic); p != producer.end())
                stack.push_back(p->second);
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

} // namespace

std::vector<std::string> provenanceChain(const ComputationGraphStore& graph, std::string_view outputCid)
{
    return provenanceChain(graph, firstProducers(graph), outputCid);
}

std::vector<std::string> findConsumers(const ComputationGraphStore& graph, std::string_view cid)
{
    std::vector<std::string> out;
    for (const auto& [key, n] : graph.nodes)
        if (std::find(n.inputCids.begin(), n.inputCids.end(), cid) != n.inputCids.end())
            out.push_back(n.id);
    return out;
}

namespace {

std::vector<CidUsers> groupBy(const ComputationGraphStore& graph, bool inputs)
{
    std::vector<CidUsers> out;
    std::unordered_map<std::string_view, size_t> slot;
    for (const auto& [key, n] : graph.nodes) {
        auto add = [&](const std::string& cid) {
            auto [it, inserted] = slot.try_emplace(cid, out.size());
            if (inserted)
                out.push_back(CidUsers{cid, {}});
            auto& users = out[it->second].nodes;
            if (users.empty() || users.back() != n.id) // a node listing the same input twice counts once
                users.push_back(n.id);
        };
        if (inputs) {
            for (const auto& c : n.inputCids)
                add(c);
        } else if (n.outputCid) {
            add(*n.outputCid);
        }
    }
    return out;
}

} // namespace

std::vector<CidUsers> consumersByCid(const ComputationGraphStore& graph) { return groupBy(graph, true); }
std::vector<CidUsers> producersByCid(const ComputationGraphStore& graph) { return groupBy(graph, false); }

GraphAnalysis analyzeGraph(const GradientCheckpoint& checkpoint) { return analyzeGraph(checkpoint.graph, checkpoint.lossCid); }

GraphAnalysis analyzeGraph(const ComputationGraphStore& graph, const std::optional<std::string>& lossCid)
{
    GraphAnalysis a;
    const KahnRun k = runKahn(graph);
    a.topologicalOrder.reserve(k.order.size());
    std::vector<uint8_t> placed(k.ids.size(), 0);
    for (uint32_t i : k.order) {
        a.topologicalOrder.emplace_back(k.name(i));
        placed[i] = 1;
    }
    for (uint32_t i = 0; i < k.keyCount; ++i)
        if (!placed[i])
            a.blocked.emplace_back(k.name(i));
    for (uint32_t i = uint32_t(k.keyCount); i < k.ids.size(); ++i)
        a.phantomIds.emplace_back(k.name(i));
    if (!a.blocked.empty())
        a.cycle = findCycle(k);

    // Duplicate edges by their (from, to) id pair as one 64-bit key: a string of both ids per edge
    // (and a copy of both for every distinct edge) was most of this function at 100,000 nodes.
    // Reported in order of first occurrence, with their count.
    std::vector<std::pair<uint64_t, uint32_t>> keyed(k.edges.size()); // (pair, edge index)
    for (uint32_t e = 0; e < k.edges.size(); ++e)
        keyed[e] = {(uint64_t(k.edges[e].first) << 32) | k.edges[e].second, e};
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::pair<uint32_t, uint64_t>> repeated; // (first edge index, count)
    for (size_t i = 0; i < keyed.size();) {
        size_t j = i + 1;
        while (j < keyed.size() && keyed[j].first == keyed[i].first)
            ++j;
        if (j - i > 1)
            repeated.emplace_back(keyed[i].second, j - i);
        i = j;
    }
    std::sort(repeated.begin(), repeated.end());
    for (const auto& [e, count] : repeated)
        a.duplicateEdges.push_back(DuplicateEdge{graph.edges[e].first, graph.edges[e].second, count});

    // CIDs with more than one producer, as producersByCid lists them (in order of first production,
    // a node id repeated right after itself once), from one map of first producers that the loss's
    // provenance uses too: copying every CID and id into a list to keep a few was most of the time.
    const auto producer = firstProducers(graph);
    std::vector<std::pair<uint32_t, uint32_t>> shared; // (first producer, node) for every later producer
    for (uint32_t i = 0; i < graph.nodes.size(); ++i)
        if (const auto& oc = graph.nodes[i].second.outputCid)
            if (const uint32_t first = producer.find(*oc)->second; first != i)
                shared.emplace_back(first, i);
    std::stable_sort(shared.begin(), shared.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t i = 0; i < shared.size();) {
        const uint32_t first = shared[i].first;
        CidUsers users{*graph.nodes[first].second.outputCid, {graph.nodes[first].second.id}};
        for (; i < shared.size() && shared[i].first == first; ++i)
            if (const std::string& id = graph.nodes[shared[i].second].second.id; users.nodes.back() != id)
                users.nodes.push_back(id);
        if (users.nodes.size() > 1)
            a.multipleProducers.push_back(std::move(users));
    }
    if (lossCid)
        a.lossProvenanceChain = provenanceChain(graph, producer, *lossCid);
    return a;
}

} // namespace ckpt
