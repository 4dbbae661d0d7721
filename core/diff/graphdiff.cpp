// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diff/graphdiff.h"

#include "core/graph/analysis.h"
#include "core/graph/blob.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ckpt {

std::string_view cidComparisonName(CidComparison c)
{
    switch (c) {
    case CidComparison::SameCid: return "same_cid";
    case CidComparison::SameBytes: return "same_bytes";
    case CidComparison::ValuesCompared: return "values_compared";
    case CidComparison::BytesDiffer: return "bytes_differ";
    case CidComparison::Unresolved: return "unresolved";
    case CidComparison::OneSided: return "one_sided";
    }
    return "unresolved";
}

std::string_view nodeMatchName(NodeMatch m)
{
    return m == NodeMatch::Id ? "id" : "op_position";
}

bool CidSlotDiff::changed() const
{
    switch (how) {
    case CidComparison::SameCid:
    case CidComparison::SameBytes: return false;
    case CidComparison::ValuesCompared: return values && values->differing > 0;
    default: return true;
    }
}

namespace {

/// Keys in the crate's topological order, then any the order leaves out (a cycle), in file order.
std::vector<std::string> orderedKeys(const ComputationGraphStore& g)
{
    std::vector<std::string> keys = topologicalOrder(g);
    std::unordered_set<std::string> in(keys.begin(), keys.end());
    for (const auto& [key, n] : g.nodes)
        if (in.insert(key).second)
            keys.push_back(key);
    return keys;
}

std::unordered_map<std::string, const ComputationNode*> byKey(const ComputationGraphStore& g)
{
    std::unordered_map<std::string, const ComputationNode*> m;
    for (const auto& [key, n] : g.nodes)
        m.emplace(key, &n);
    return m;
}

bool sameCid(const std::string& x, const std::string& y)
{
    if (x == y)
        return true;
    // Another spelling (base58 vs base32, upper case) of the same binary CID is the same tensor.
    auto cx = classifyCid(x), cy = classifyCid(y);
    return cx.cid && cy.cid && *cx.cid == *cy.cid;
}

class BlockComparer {
public:
    BlockComparer(const CarStore* a, const CarStore* b, double tol, uint64_t& bytesRead) : m_a(a), m_b(b), m_tol(tol), m_read(bytesRead) { }

    CidSlotDiff compare(std::string slot, const std::optional<std::string>& x, const std::optional<std::string>& y) const
    {
        CidSlotDiff s{std::move(slot), x, y, CidComparison::SameCid, std::nullopt};
        if (!x || !y) {
            s.how = CidComparison::OneSided;
            return s;
        }
        if (sameCid(*x, *y))
            return s; // equal CIDs are equal tensors: nothing is read
        s.how = CidComparison::Unresolved;
        if (!m_a || !m_b)
            return s;
        auto ba = m_a->resolve(*x);
        auto bb = m_b->resolve(*y);
        if (!ba || !bb)
            return s;
        m_read += ba->size() + bb->size();
        if (ba->size() == bb->size() && std::memcmp(ba->data(), bb->data(), ba->size()) == 0) {
            s.how = CidComparison::SameBytes;
            return s;
        }
        if (ba->size() != bb->size() || ba->size() % 4 != 0) {
            s.how = CidComparison::BytesDiffer;
            return s;
        }
        // ipfrs fixes no tensor encoding; every producer we know writes raw little-endian f32.
        TensorDiff t;
        compareTensorValues(DType::F32, *ba, DType::F32, *bb, ba->size() / 4, m_tol, t);
        t.status = t.differing ? DiffStatus::Changed : DiffStatus::Unchanged;
        s.values = std::move(t);
        s.how = CidComparison::ValuesCompared;
        return s;
    }

private:
    const CarStore* m_a;
    const CarStore* m_b;
    double m_tol;
    uint64_t& m_read;
};

void compareNodes(const ComputationNode& x, const ComputationNode& y, const BlockComparer& blocks, NodeDiff& d)
{
    d.opA = x.op;
    d.opB = y.op;
    d.opChanged = x.op != y.op;
    d.tensors.push_back(blocks.compare("output", x.outputCid, y.outputCid));
    if (x.gradientCid || y.gradientCid)
        d.tensors.push_back(blocks.compare("gradient", x.gradientCid, y.gradientCid));
    for (size_t i = 0; i < std::max(x.inputCids.size(), y.inputCids.size()); ++i) {
        auto at = [i](const std::vector<std::string>& v) { return i < v.size() ? std::optional(v[i]) : std::nullopt; };
        d.tensors.push_back(blocks.compare("input[" + std::to_string(i) + "]", at(x.inputCids), at(y.inputCids)));
    }
    if (!x.outputCid && !y.outputCid)
        d.tensors.erase(d.tensors.begin());
    std::map<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>> meta;
    for (const auto& [k, v] : x.metadata)
        meta[k].first = v;
    for (const auto& [k, v] : y.metadata)
        meta[k].second = v;
    for (const auto& [k, v] : meta)
        if (v.first != v.second)
            d.metadata.emplace_back(k, v);
    bool changed = d.opChanged || !d.metadata.empty();
    for (const auto& s : d.tensors)
        changed |= s.changed();
    d.status = changed ? DiffStatus::Changed : DiffStatus::Unchanged;
}

std::optional<uint64_t> counterOf(const OptimizerBlob& b)
{
    if (inferBlobView(b.key, b.bytes.size()) != BlobView::U64 || b.bytes.size() != 8)
        return std::nullopt;
    uint64_t v;
    std::memcpy(&v, b.bytes.data(), 8);
    return v;
}

std::vector<BlobDiff> diffBlobs(const std::vector<OptimizerBlob>& a, const std::vector<OptimizerBlob>& b, double tol)
{
    std::unordered_map<std::string, const OptimizerBlob*> inB;
    for (const auto& x : b)
        inB[x.key] = &x; // a repeated key: the last one, as the crate's HashMap keeps it
    std::unordered_set<std::string> seen;
    std::vector<BlobDiff> out;
    for (const auto& x : a) {
        if (!seen.insert(x.key).second)
            continue;
        BlobDiff d;
        d.key = x.key;
        d.sizeA = x.bytes.size();
        d.counterA = counterOf(x);
        auto it = inB.find(x.key);
        if (it == inB.end()) {
            d.status = DiffStatus::Removed;
            out.push_back(std::move(d));
            continue;
        }
        const auto& y = *it->second;
        d.sizeB = y.bytes.size();
        d.counterB = counterOf(y);
        if (x.bytes == y.bytes) {
            d.status = DiffStatus::Unchanged;
        } else if (x.bytes.size() == y.bytes.size() && inferBlobView(x.key, x.bytes.size()) == BlobView::F32) {
            TensorDiff t;
            compareTensorValues(DType::F32, x.bytes, DType::F32, y.bytes, x.bytes.size() / 4, tol, t);
            d.status = t.differing ? DiffStatus::Changed : DiffStatus::Unchanged;
            d.values = std::move(t);
        } else {
            d.status = x.bytes.size() == y.bytes.size() ? DiffStatus::Changed : DiffStatus::ShapeChanged;
        }
        out.push_back(std::move(d));
    }
    for (const auto& y : b) {
        if (seen.contains(y.key) || !seen.insert(y.key).second)
            continue;
        BlobDiff d;
        d.key = y.key;
        d.status = DiffStatus::Added;
        d.sizeB = inB[y.key]->bytes.size();
        d.counterB = counterOf(*inB[y.key]);
        out.push_back(std::move(d));
    }
    return out;
}

/**
 * A node's place in the graph without its id: operation, depth (longest path from a source along
 * the edges) and the (consumer operation, input slot) pairs its output feeds.
 */
std::unordered_map<std::string, std::string> signatures(const ComputationGraphStore& g, const std::vector<std::string>& order)
{
    std::unordered_map<std::string, std::vector<std::string>> producersOf;
    for (const auto& [from, to] : g.edges)
        producersOf[to].push_back(from);
    std::unordered_map<std::string, uint64_t> depth;
    for (const auto& k : order) {
        uint64_t dk = 0;
        for (const auto& p : producersOf[k])
            if (auto it = depth.find(p); it != depth.end())
                dk = std::max(dk, it->second + 1);
        depth[k] = dk;
    }
    std::unordered_map<std::string, std::vector<std::string>> uses; // output CID -> "op#slot"
    for (const auto& [key, n] : g.nodes)
        for (size_t i = 0; i < n.inputCids.size(); ++i)
            uses[n.inputCids[i]].push_back(n.op + "#" + std::to_string(i));
    std::unordered_map<std::string, std::string> sig;
    for (const auto& [key, n] : g.nodes) {
        std::string s = n.op + "|" + std::to_string(depth[key]) + "|";
        if (n.outputCid)
            if (auto it = uses.find(*n.outputCid); it != uses.end()) {
                auto u = it->second;
                std::sort(u.begin(), u.end());
                for (const auto& x : u)
                    s += x + ",";
            }
        sig[key] = std::move(s);
    }
    return sig;
}

} // namespace

GraphDiff diffGradientCheckpoints(const GradientCheckpoint& a, const GradientCheckpoint& b, const CarStore* carA, const CarStore* carB,
    const DiffOptions& options)
{
    GraphDiff d;
    d.sideA = {.step = a.step, .timestamp = a.timestamp, .lossCid = a.lossCid, .hasCar = carA != nullptr};
    d.sideB = {.step = b.step, .timestamp = b.timestamp, .lossCid = b.lossCid, .hasCar = carB != nullptr};
    const BlockComparer blocks(carA, carB, options.tolerance, d.blockBytesRead);

    const auto keysA = orderedKeys(a.graph), keysB = orderedKeys(b.graph);
    const auto nodesA = byKey(a.graph), nodesB = byKey(b.graph);
    std::unordered_map<std::string, std::pair<std::string, NodeMatch>> partner; // A key -> B key
    std::unordered_set<std::string> takenB;
    for (const auto& k : keysA)
        if (nodesB.contains(k)) {
            partner[k] = {k, NodeMatch::Id};
            takenB.insert(k);
        }
    // The rest by operation and position: first by a structural signature (depth, who consumes the
    // output in which input slot), then by operation alone; the k-th free node of a kind in
    // topological order pairs with the k-th. Topological order alone is not enough: the crate breaks
    // ties by key, and fresh random ids reorder sibling inputs.
    const auto sigA = signatures(a.graph, keysA), sigB = signatures(b.graph, keysB);
    auto pairBy = [&](auto kindA, auto kindB) {
        std::map<std::string, std::vector<std::string>> freeB;
        for (const auto& k : keysB)
            if (!takenB.contains(k))
                freeB[kindB(k)].push_back(k);
        std::map<std::string, size_t> next;
        for (const auto& k : keysA) {
            if (partner.contains(k))
                continue;
            const std::string kind = kindA(k);
            auto it = freeB.find(kind);
            size_t& n = next[kind];
            if (it == freeB.end() || n >= it->second.size())
                continue;
            partner[k] = {it->second[n++], NodeMatch::OpPosition};
            takenB.insert(partner[k].first);
            ++d.matchedByPosition;
        }
    };
    pairBy([&](const std::string& k) { return sigA.at(k); }, [&](const std::string& k) { return sigB.at(k); });
    pairBy([&](const std::string& k) { return nodesA.at(k)->op; }, [&](const std::string& k) { return nodesB.at(k)->op; });

    for (const auto& k : keysA) {
        NodeDiff n;
        n.keyA = k;
        const ComputationNode& x = *nodesA.at(k);
        auto p = partner.find(k);
        if (p == partner.end()) {
            n.opA = x.op;
            n.status = DiffStatus::Removed;
            ++d.removed;
        } else {
            n.keyB = p->second.first;
            n.match = p->second.second;
            compareNodes(x, *nodesB.at(n.keyB), blocks, n);
            ++(n.status == DiffStatus::Unchanged ? d.unchanged : d.changed);
        }
        d.nodes.push_back(std::move(n));
    }
    for (const auto& k : keysB) {
        if (takenB.contains(k))
            continue;
        NodeDiff n;
        n.keyB = k;
        n.opB = nodesB.at(k)->op;
        n.status = DiffStatus::Added;
        ++d.added;
        d.nodes.push_back(std::move(n));
    }

    // Edges in B's key space: A's edges mapped through the node pairing.
    std::set<std::pair<std::string, std::string>> mappedA, edgesB(b.graph.edges.begin(), b.graph.edges.end());
    auto toB = [&](const std::string& k) -> std::optional<std::string> {
        auto p = partner.find(k);
        return p == partner.end() ? std::nullopt : std::optional(p->second.first);
    };
    for (const auto& [from, to] : a.graph.edges) {
        auto f = toB(from), t = toB(to);
        if (f && t)
            mappedA.emplace(*f, *t);
        if (!f || !t || !edgesB.contains({*f, *t}))
            d.edgesRemoved.emplace_back(from, to);
    }
    for (const auto& e : b.graph.edges)
        if (!mappedA.contains(e))
            d.edgesAdded.push_back(e);

    if (a.lossCid && b.lossCid) {
        auto s = blocks.compare("loss", a.lossCid, b.lossCid);
        d.lossValues = s.values;
    }
    d.optimizer = diffBlobs(a.optimizerState, b.optimizerState, options.tolerance);
    return d;
}

} // namespace ckpt
