// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/hierarchy.h"

#include "core/graph/csr.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <string_view>
#include <unordered_map>

namespace ckpt {

namespace {

std::vector<std::string_view> splitPath(std::string_view path)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= path.size(); ++i)
        if (i == path.size() || path[i] == '.' || path[i] == '/') {
            if (i > start)
                out.push_back(path.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

class Builder
{
public:
    Builder(const GraphHierarchyInput& in, const HierarchyOptions& opt, GraphHierarchy& h)
        : m_in(in)
        , m_opt(opt)
        , m_h(h)
    {
        const uint32_t n = in.nodeCount;
        m_segments.resize(n);
        m_emittedAt.assign(n, 0);
        for (uint32_t v = 0; v < n && v < in.modulePath.size(); ++v)
            m_segments[v] = splitPath(in.modulePath[v]);
        // single successor / single predecessor over distinct, non-self edges: the chain links
        m_succ.assign(n, UINT32_MAX);
        m_pred.assign(n, UINT32_MAX);
        std::vector<uint32_t> outs(n, 0), ins(n, 0);
        std::vector<std::pair<uint32_t, uint32_t>> distinct;
        distinct.reserve(in.edges.size());
        for (const auto& e : in.edges)
            if (e.first != e.second && e.first < n && e.second < n)
                distinct.push_back(e);
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        for (const auto& [a, b] : distinct) {
            ++outs[a];
            ++ins[b];
            m_succ[a] = b;
            m_pred[b] = a;
        }
        for (uint32_t v = 0; v < n; ++v) {
            if (outs[v] != 1)
                m_succ[v] = UINT32_MAX;
            if (ins[v] != 1)
                m_pred[v] = UINT32_MAX;
        }
        topologicalOrder(distinct);
    }

    void run()
    {
        m_h.clusters.assign(1, GraphCluster{});
        std::vector<uint32_t> all = m_topo;
        m_h.order.clear();
        m_h.order.reserve(all.size());
        auto items = level(all, 0, m_opt.maxTopLevel);
        GraphCluster& root = m_h.clusters[0];
        root.kind = GraphCluster::Kind::Root;
        root.begin = 0;
        root.end = uint32_t(m_h.order.size());
        root.items = std::move(items);
        root.label = "graph";
        m_h.position.assign(m_in.nodeCount, 0);
        for (uint32_t i = 0; i < m_h.order.size(); ++i)
            m_h.position[m_h.order[i]] = i;
        m_h.parent.assign(m_in.nodeCount, 0);
        for (uint32_t c = 0; c < m_h.clusters.size(); ++c)
            for (const auto& item : m_h.clusters[c].items) {
                if (item.cluster)
                    m_h.clusters[item.index].parent = c;
                else
                    m_h.parent[item.index] = c;
            }
    }

private:
    /**
     * Kahn's order taking the lowest waiting index first: for a graph stored in creation order (the
     * usual case) this is the file order, so modules and layers come out in the order they were
     * built and chains stay contiguous. Cycles are broken at the lowest index still waiting.
     */
    void topologicalOrder(const std::vector<std::pair<uint32_t, uint32_t>>& distinct)
    {
        const uint32_t n = m_in.nodeCount;
        const Csr successors = Csr::build(n, distinct);
        std::vector<uint32_t> waiting(n, 0);
        for (const auto& [a, b] : distinct)
            ++waiting[b];
        std::vector<uint8_t> queued(n, 0);
        std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
        for (uint32_t v = 0; v < n; ++v)
            if (waiting[v] == 0) {
                ready.push(v);
                queued[v] = 1;
            }
        m_topo.reserve(n);
        uint32_t nextForced = 0;
        while (m_topo.size() < n) {
            if (ready.empty()) { // only cycles (and what waits on them) are left
                while (queued[nextForced])
                    ++nextForced;
                ready.push(nextForced);
                queued[nextForced] = 1;
            }
            const uint32_t v = ready.top();
            ready.pop();
            m_topo.push_back(v);
            for (const uint32_t w : successors.of(v)) {
                if (!queued[w] && --waiting[w] == 0) {
                    ready.push(w);
                    queued[w] = 1;
                }
            }
        }
    }

    const std::string& opOf(uint32_t v) const
    {
        static const std::string none;
        return v < m_in.op.size() ? m_in.op[v] : none;
    }

    uint32_t itemBegin(const HierarchyItem& item) const
    {
        return item.cluster ? m_h.clusters[item.index].begin : m_emittedAt[item.index];
    }
    uint32_t itemEnd(const HierarchyItem& item) const
    {
        return item.cluster ? m_h.clusters[item.index].end : m_emittedAt[item.index] + 1;
    }

    HierarchyItem emit(uint32_t v)
    {
        m_emittedAt[v] = uint32_t(m_h.order.size());
        m_h.order.push_back(v);
        return {v, false};
    }

    HierarchyItem makeCluster(GraphCluster::Kind kind, std::vector<HierarchyItem> items, std::string label)
    {
        GraphCluster c;
        c.kind = kind;
        c.begin = itemBegin(items.front());
        c.end = itemEnd(items.back());
        c.items = std::move(items);
        c.label = std::move(label);
        m_h.clusters.push_back(std::move(c));
        return {uint32_t(m_h.clusters.size() - 1), true};
    }

    /** "matmul ×40 · add ×38 · relu ×12" for the members of [begin, end). */
    std::string census(uint32_t begin, uint32_t end) const
    {
        std::map<std::string_view, uint32_t> count;
        for (uint32_t i = begin; i < end; ++i)
            ++count[opOf(m_h.order[i])];
        std::vector<std::pair<uint32_t, std::string_view>> top;
        top.reserve(count.size());
        for (const auto& [op, k] : count)
            top.emplace_back(k, op);
        std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::string out;
        for (size_t i = 0; i < top.size() && i < 3; ++i)
            out += (i ? " · " : "") + std::string(top[i].second) + " ×" + std::to_string(top[i].first);
        if (top.size() > 3)
            out += " · …";
        return out;
    }

    std::string itemLabel(const HierarchyItem& item) const
    {
        return item.cluster ? m_h.clusters[item.index].label : opOf(item.index);
    }

    /** "layer 0 … 19" for "layer 0" and "layer 19": the shared words said once. */
    static std::string rangeLabel(const std::string& first, const std::string& last)
    {
        const size_t space = first.rfind(' ');
        if (space != std::string::npos && last.compare(0, space + 1, first, 0, space + 1) == 0)
            return first + " … " + last.substr(space + 1);
        return first + " … " + last;
    }

    /**
     * First and last module of a module or of a block made of modules only (so that a block of
     * blocks still reads "layer 0 … 575"); empty otherwise.
     */
    std::pair<std::string, std::string> moduleSpan(const HierarchyItem& item) const
    {
        if (!item.cluster)
            return {};
        const GraphCluster& c = m_h.clusters[item.index];
        if (c.kind == GraphCluster::Kind::Module)
            return {c.label, c.label};
        const auto it = m_moduleSpan.find(item.index);
        return it == m_moduleSpan.end() ? std::pair<std::string, std::string>{} : it->second;
    }

    /** Bundles consecutive items into blocks until at most \a limit remain. */
    std::vector<HierarchyItem> wrap(std::vector<HierarchyItem> items, uint32_t limit)
    {
        limit = std::max<uint32_t>(limit, 2);
        while (items.size() > limit) {
            const size_t chunk = std::clamp<size_t>((items.size() + limit - 1) / limit, 2, std::max<uint32_t>(m_opt.maxChildren, 2));
            std::vector<HierarchyItem> next;
            next.reserve(items.size() / chunk + 1);
            for (size_t i = 0; i < items.size(); i += chunk) {
                const size_t j = std::min(items.size(), i + chunk);
                if (j - i == 1) {
                    next.push_back(items[i]);
                    continue;
                }
                std::vector<HierarchyItem> part(items.begin() + std::ptrdiff_t(i), items.begin() + std::ptrdiff_t(j));
                const bool modules = std::all_of(part.begin(), part.end(), [&](const HierarchyItem& it) { return !moduleSpan(it).first.empty(); });
                std::pair<std::string, std::string> span;
                if (modules)
                    span = {moduleSpan(part.front()).first, moduleSpan(part.back()).second};
                std::string label = modules ? rangeLabel(span.first, span.second) : census(itemBegin(part.front()), itemEnd(part.back()));
                next.push_back(makeCluster(GraphCluster::Kind::Block, std::move(part), std::move(label)));
                if (modules)
                    m_moduleSpan[next.back().index] = std::move(span);
            }
            items = std::move(next);
        }
        return items;
    }

    /** Chains (split into segments), runs of one op and single nodes of one module level, emitted in order. */
    std::vector<HierarchyItem> runs(const std::vector<uint32_t>& nodes, size_t from, size_t to)
    {
        std::vector<HierarchyItem> items;
        size_t i = from;
        while (i < to) {
            size_t j = i + 1;
            while (j < to && m_succ[nodes[j - 1]] == nodes[j] && m_pred[nodes[j]] == nodes[j - 1])
                ++j;
            if (j - i >= m_opt.minRun) {
                items.push_back(chain(nodes, i, j));
                i = j;
                continue;
            }
            j = i + 1;
            while (j < to && opOf(nodes[j]) == opOf(nodes[i]))
                ++j;
            if (j - i >= m_opt.minRun) {
                std::vector<HierarchyItem> members;
                for (size_t k = i; k < j; ++k)
                    members.push_back(emit(nodes[k]));
                auto wrapped = wrap(std::move(members), m_opt.maxChildren);
                items.push_back(makeCluster(GraphCluster::Kind::Run, std::move(wrapped), opOf(nodes[i]) + " ×" + std::to_string(j - i)));
                i = j;
                continue;
            }
            items.push_back(emit(nodes[i]));
            ++i;
        }
        return items;
    }

    std::string opSequence(const std::vector<uint32_t>& nodes, size_t from, size_t to) const
    {
        std::string out;
        size_t shown = 0;
        for (size_t k = from; k < to; ++k) {
            if (k > from && opOf(nodes[k]) == opOf(nodes[k - 1]))
                continue;
            if (shown == 3) {
                out += " → …";
                break;
            }
            out += (shown ? " → " : "") + opOf(nodes[k]);
            ++shown;
        }
        return out;
    }

    HierarchyItem chain(const std::vector<uint32_t>& nodes, size_t from, size_t to)
    {
        const size_t segment = std::max<uint32_t>(m_opt.chainSegment, m_opt.minRun);
        std::vector<HierarchyItem> pieces;
        for (size_t i = from; i < to; i += segment) {
            const size_t j = std::min(to, i + segment);
            std::vector<HierarchyItem> members;
            for (size_t k = i; k < j; ++k)
                members.push_back(emit(nodes[k]));
            if (j - i < m_opt.minRun || to - from <= segment) {
                pieces.insert(pieces.end(), members.begin(), members.end());
                continue;
            }
            pieces.push_back(makeCluster(GraphCluster::Kind::Chain, std::move(members), opSequence(nodes, i, j)));
        }
        auto wrapped = wrap(std::move(pieces), m_opt.maxChildren);
        if (wrapped.size() == 1 && wrapped.front().cluster)
            return wrapped.front();
        return makeCluster(GraphCluster::Kind::Chain, std::move(wrapped), opSequence(nodes, from, to));
    }

    /** The nodes of one module level (topological order), grouped by their next path segment. */
    std::vector<HierarchyItem> level(const std::vector<uint32_t>& nodes, size_t depth, uint32_t limit)
    {
        // entries in order of first appearance: a module (segment) or a stretch of nodes without one
        struct Entry {
            std::string_view segment;            // empty: loose nodes
            std::vector<uint32_t> nodes;
        };
        std::vector<Entry> entries;
        std::unordered_map<std::string_view, size_t> bySegment;
        for (uint32_t v : nodes) {
            if (m_segments[v].size() <= depth) {
                if (entries.empty() || !entries.back().segment.empty())
                    entries.push_back({});
                entries.back().nodes.push_back(v);
                continue;
            }
            const std::string_view s = m_segments[v][depth];
            auto [it, inserted] = bySegment.try_emplace(s, entries.size());
            if (inserted)
                entries.push_back({s, {}});
            entries[it->second].nodes.push_back(v);
        }
        if (entries.size() == 1 && !entries.front().segment.empty())
            return level(entries.front().nodes, depth + 1, limit); // one module holds everything: no box for it
        std::vector<HierarchyItem> items;
        for (auto& e : entries) {
            if (e.segment.empty()) {
                auto part = runs(e.nodes, 0, e.nodes.size());
                items.insert(items.end(), part.begin(), part.end());
                continue;
            }
            auto inner = level(e.nodes, depth + 1, m_opt.maxChildren);
            if (inner.empty())
                continue;
            items.push_back(makeCluster(GraphCluster::Kind::Module, std::move(inner), std::string(e.segment)));
        }
        return wrap(std::move(items), limit);
    }

    const GraphHierarchyInput& m_in;
    const HierarchyOptions& m_opt;
    GraphHierarchy& m_h;
    std::vector<std::vector<std::string_view>> m_segments;
    std::vector<uint32_t> m_succ, m_pred, m_topo;
    std::vector<uint32_t> m_emittedAt; ///< node -> its index in order
    std::unordered_map<uint32_t, std::pair<std::string, std::string>> m_moduleSpan; ///< block of modules -> its first and last module
};

} // namespace

std::vector<uint32_t> GraphHierarchy::ancestors(uint32_t node) const
{
    std::vector<uint32_t> out;
    if (node >= parent.size())
        return out;
    for (uint32_t c = parent[node]; c != UINT32_MAX; c = clusters[c].parent)
        out.push_back(c);
    std::reverse(out.begin(), out.end());
    return out;
}

GraphHierarchy buildGraphHierarchy(const GraphHierarchyInput& input, const HierarchyOptions& options)
{
    GraphHierarchy h;
    Builder builder(input, options, h);
    builder.run();
    return h;
}

GraphHierarchyInput hierarchyInputFor(const ComputationGraphStore& graph, const std::vector<std::string>& names,
    const std::vector<std::pair<uint32_t, uint32_t>>& edges)
{
    GraphHierarchyInput in;
    in.nodeCount = uint32_t(names.size());
    in.edges = edges;
    in.op.resize(names.size());
    in.modulePath.resize(names.size());
    // layoutInputFor's names are the node keys in file order, first occurrences only, then the phantom
    // ids edges name: one walk pairs them with their nodes (a hash of 100,000 ids cost more than the
    // rest of this function). A repeated key cannot equal the next name: names are distinct.
    std::vector<const ComputationNode*> nodeOf(names.size(), nullptr);
    size_t next = 0;
    for (const auto& [key, node] : graph.nodes)
        if (next < names.size() && names[next] == key)
            nodeOf[next++] = &node;
    for (size_t i = 0; i < names.size(); ++i) {
        if (!nodeOf[i]) {
            in.op[i] = "(phantom)";
            continue;
        }
        const ComputationNode& node = *nodeOf[i];
        in.op[i] = node.op;
        std::string path;
        for (const char* key : {"module", "scope", "name", "path"})
            for (const auto& [k, v] : node.metadata)
                if (path.empty() && k == key)
                    path = v;
        for (const auto& [k, v] : node.metadata) {
            if (!path.empty())
                break;
            if (k == "weight") { // a parameter path: its module is everything before the last part
                const size_t cut = v.find_last_of("./");
                if (cut != std::string::npos)
                    path = v.substr(0, cut);
            } else if (k == "layer") {
                path = "layer " + v;
            }
        }
        if (path.empty() && node.id.find('/') != std::string::npos)
            path = node.id.substr(0, node.id.find_last_of('/'));
        in.modulePath[i] = std::move(path);
    }
    return in;
}

HierarchyCut::HierarchyCut(const GraphHierarchy& hierarchy, uint32_t budget)
    : m_h(&hierarchy)
    , m_open(hierarchy.clusters.size(), 0)
{
    if (m_open.empty())
        return;
    m_open[0] = 1;
    // the largest closed clusters first, while the count of visible items stays within the budget
    size_t visible = hierarchy.clusters[0].items.size();
    std::priority_queue<std::pair<uint32_t, uint32_t>> closed; // (size, -index for determinism)
    auto offer = [&](uint32_t c) {
        for (const auto& item : hierarchy.clusters[c].items)
            if (item.cluster)
                closed.emplace(hierarchy.clusters[item.index].size(), UINT32_MAX - item.index);
    };
    offer(0);
    while (!closed.empty()) {
        const uint32_t c = UINT32_MAX - closed.top().second;
        closed.pop();
        const size_t grown = visible - 1 + hierarchy.clusters[c].items.size();
        if (grown > budget)
            continue;
        visible = grown;
        m_open[c] = 1;
        offer(c);
    }
    rebuild();
}

void HierarchyCut::rebuild()
{
    m_visible.clear();
    m_unitOfNode.assign(m_h->position.size(), 0);
    if (m_h->clusters.empty())
        return;
    std::vector<std::pair<uint32_t, size_t>> stack{{0, 0}};
    while (!stack.empty()) {
        auto& [c, next] = stack.back();
        const auto& items = m_h->clusters[c].items;
        if (next == items.size()) {
            stack.pop_back();
            continue;
        }
        const HierarchyItem item = items[next++];
        if (item.cluster && m_open[item.index]) {
            stack.emplace_back(item.index, 0);
            continue;
        }
        const uint32_t u = uint32_t(m_visible.size());
        m_visible.push_back(item);
        if (!item.cluster) {
            m_unitOfNode[item.index] = u;
            continue;
        }
        const GraphCluster& cluster = m_h->clusters[item.index];
        for (uint32_t p = cluster.begin; p < cluster.end; ++p)
            m_unitOfNode[m_h->order[p]] = u;
    }
}

bool HierarchyCut::open(uint32_t cluster)
{
    if (!m_h || cluster >= m_open.size() || m_open[cluster])
        return false;
    for (uint32_t c = m_h->clusters[cluster].parent; c != UINT32_MAX; c = m_h->clusters[c].parent)
        if (!m_open[c])
            return false;
    m_open[cluster] = 1;
    rebuild();
    return true;
}

bool HierarchyCut::close(uint32_t cluster)
{
    if (!m_h || cluster == 0 || cluster >= m_open.size() || !m_open[cluster])
        return false;
    std::vector<uint32_t> stack{cluster};
    while (!stack.empty()) {
        const uint32_t c = stack.back();
        stack.pop_back();
        m_open[c] = 0;
        for (const auto& item : m_h->clusters[c].items)
            if (item.cluster && m_open[item.index])
                stack.push_back(item.index);
    }
    rebuild();
    return true;
}

bool HierarchyCut::reveal(uint32_t node)
{
    if (!m_h || node >= m_unitOfNode.size())
        return false;
    bool changed = false;
    for (uint32_t c : m_h->ancestors(node))
        if (!m_open[c]) {
            m_open[c] = 1;
            changed = true;
        }
    if (changed)
        rebuild();
    return changed;
}

uint32_t HierarchyCut::sizeOf(const HierarchyItem& item) const
{
    return item.cluster ? m_h->clusters[item.index].size() : 1;
}

std::vector<HierarchyCut::Edge> HierarchyCut::visibleEdges(const std::vector<std::pair<uint32_t, uint32_t>>& nodeEdges) const
{
    std::vector<uint64_t> keys;
    keys.reserve(nodeEdges.size());
    for (const auto& [a, b] : nodeEdges) {
        if (a >= m_unitOfNode.size() || b >= m_unitOfNode.size())
            continue;
        const uint32_t ua = m_unitOfNode[a], ub = m_unitOfNode[b];
        if (ua != ub)
            keys.push_back(uint64_t(ua) << 32 | ub);
    }
    std::sort(keys.begin(), keys.end());
    std::vector<Edge> out;
    for (size_t i = 0; i < keys.size();) {
        size_t j = i;
        while (j < keys.size() && keys[j] == keys[i])
            ++j;
        out.push_back({uint32_t(keys[i] >> 32), uint32_t(keys[i]), uint32_t(j - i)});
        i = j;
    }
    return out;
}

} // namespace ckpt
