// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Grouping of large graphs (core/graph/hierarchy): the cluster tree is a partition with contiguous
// ranges, bounded fan-out, a topological order; the cut opens and closes without losing anything.
#include "core/graph/hierarchy.h"
#include "core/graph/layout.h"
#include "tests/common/syntheticgraph.h"

#include <QTest>

#include <random>

using namespace ckpt;

namespace {

GraphHierarchyInput chainGraph(uint32_t n)
{
    GraphHierarchyInput in;
    in.nodeCount = n;
    static const char* const ops[] = {"matmul", "add", "relu"};
    for (uint32_t i = 0; i < n; ++i)
        in.op.push_back(ops[i % 3]);
    for (uint32_t i = 1; i < n; ++i)
        in.edges.push_back({i - 1, i});
    return in;
}

/** One source fanning out to \a width parallel ops that all feed one sink. */
GraphHierarchyInput wideGraph(uint32_t width)
{
    GraphHierarchyInput in;
    in.nodeCount = width + 2;
    in.op.assign(in.nodeCount, "add");
    in.op[0] = "input";
    in.op[width + 1] = "sum";
    for (uint32_t i = 1; i <= width; ++i) {
        in.edges.push_back({0, i});
        in.edges.push_back({i, width + 1});
    }
    return in;
}

/** A binary tree of \a n nodes (node i feeds 2i+1 and 2i+2). */
GraphHierarchyInput branchingGraph(uint32_t n)
{
    GraphHierarchyInput in;
    in.nodeCount = n;
    in.op.assign(n, "split");
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t c : {2 * i + 1, 2 * i + 2})
            if (c < n)
                in.edges.push_back({i, c});
    return in;
}

/** The network-like generator of bench_layout with back edges (cycles) and duplicates added. */
GraphHierarchyInput networkGraph(uint32_t n, bool cycles)
{
    std::mt19937 rng(11);
    GraphHierarchyInput in;
    in.nodeCount = n;
    static const char* const ops[] = {"matmul", "relu", "add", "softmax", "layernorm"};
    for (uint32_t i = 0; i < n; ++i)
        in.op.push_back(ops[rng() % 5]);
    testing::appendNetworkEdges(rng, n, false, in.edges);
    if (cycles)
        testing::appendBackEdges(rng, n, n / 50, true, in.edges);
    return in;
}

/** Structure every hierarchy must have; returns the number of clusters of each kind via \a kinds. */
void checkHierarchy(const GraphHierarchyInput& in, const GraphHierarchy& h, const HierarchyOptions& opt)
{
    QCOMPARE(h.order.size(), size_t(in.nodeCount));
    std::vector<uint8_t> seen(in.nodeCount, 0);
    for (uint32_t v : h.order) {
        QVERIFY(v < in.nodeCount && !seen[v]);
        seen[v] = 1;
    }
    for (uint32_t i = 0; i < h.order.size(); ++i)
        QCOMPARE(h.position[h.order[i]], i);
    QVERIFY(!h.clusters.empty());
    QCOMPARE(h.clusters[0].begin, 0u);
    QCOMPARE(h.clusters[0].end, in.nodeCount);
    QVERIFY2(h.clusters[0].items.size() <= opt.maxTopLevel, qPrintable(QString::number(h.clusters[0].items.size())));
    for (uint32_t c = 0; c < h.clusters.size(); ++c) {
        const GraphCluster& cl = h.clusters[c];
        QVERIFY(!cl.items.empty());
        if (c > 0) {
            QVERIFY2(cl.items.size() <= std::max<size_t>(opt.maxChildren, opt.chainSegment), qPrintable(QString::number(cl.items.size())));
            QVERIFY(cl.parent < h.clusters.size());
            QVERIFY(!cl.label.empty());
        }
        // the items tile the cluster's range, in order
        uint32_t at = cl.begin;
        for (const auto& item : cl.items) {
            if (item.cluster) {
                QCOMPARE(h.clusters[item.index].begin, at);
                QCOMPARE(h.clusters[item.index].parent, c);
                at = h.clusters[item.index].end;
            } else {
                QCOMPARE(h.position[item.index], at);
                QCOMPARE(h.parent[item.index], c);
                ++at;
            }
        }
        QCOMPARE(at, cl.end);
    }
}

void checkTopological(const GraphHierarchyInput& in, const GraphHierarchy& h)
{
    for (const auto& [a, b] : in.edges)
        QVERIFY(a == b || h.position[a] < h.position[b]);
}

/** Nodes shown by the cut: each exactly once, as itself or inside one closed cluster. */
void checkCut(const GraphHierarchy& h, const HierarchyCut& cut)
{
    uint64_t members = 0;
    for (uint32_t u = 0; u < cut.visible().size(); ++u) {
        const auto& item = cut.visible()[u];
        members += cut.sizeOf(item);
        if (item.cluster) {
            QVERIFY(!cut.isOpen(item.index));
            for (uint32_t p = h.clusters[item.index].begin; p < h.clusters[item.index].end; ++p)
                QCOMPARE(cut.visibleIndexOf(h.order[p]), u);
        } else {
            QCOMPARE(cut.visibleIndexOf(item.index), u);
        }
    }
    QCOMPARE(members, uint64_t(h.order.size()));
}

} // namespace

class TestHierarchy : public QObject {
    Q_OBJECT
private slots:
    void empty()
    {
        GraphHierarchyInput in;
        const auto h = buildGraphHierarchy(in);
        QCOMPARE(h.clusters.size(), size_t(1));
        HierarchyCut cut(h, 100);
        QVERIFY(cut.visible().empty());
    }

    void longChainIsSegmentedAndBounded()
    {
        const auto in = chainGraph(10000);
        const HierarchyOptions opt;
        const auto h = buildGraphHierarchy(in, opt);
        checkHierarchy(in, h, opt);
        checkTopological(in, h);
        for (const auto& c : std::span(h.clusters).subspan(1))
            QVERIFY(c.kind == GraphCluster::Kind::Chain || c.kind == GraphCluster::Kind::Block);
        // the whole chain is one box at the top, its label the op sequence
        QCOMPARE(h.clusters[0].items.size(), size_t(1));
        QCOMPARE(h.clusters[h.clusters[0].items[0].index].label, std::string("matmul → add → relu → …"));
        HierarchyCut cut(h, 200);
        QVERIFY(cut.visible().size() <= 200 && cut.visible().size() > 20);
        checkCut(h, cut);
        // 10,000 nodes along the chain: 9,999 edges become one per pair of consecutive boxes
        const auto edges = cut.visibleEdges(in.edges);
        QCOMPARE(edges.size(), cut.visible().size() - 1);
        uint64_t total = 0;
        for (const auto& e : edges)
            total += e.count;
        QCOMPARE(total, uint64_t(edges.size()));
        // a short chain is one cluster of its nodes
        const auto small = buildGraphHierarchy(chainGraph(5), opt);
        QCOMPARE(small.clusters.size(), size_t(2));
        QCOMPARE(small.clusters[1].kind, GraphCluster::Kind::Chain);
        QCOMPARE(small.clusters[1].items.size(), size_t(5));
    }

    void wideGraphRunsOfOneOp()
    {
        const auto in = wideGraph(5000);
        const HierarchyOptions opt;
        const auto h = buildGraphHierarchy(in, opt);
        checkHierarchy(in, h, opt);
        checkTopological(in, h);
        // input, the 5000 adds as one run, sum
        QCOMPARE(h.clusters[0].items.size(), size_t(3));
        const auto& run = h.clusters[h.clusters[0].items[1].index];
        QCOMPARE(run.kind, GraphCluster::Kind::Run);
        QCOMPARE(run.size(), 5000u);
        QCOMPARE(run.label, std::string("add ×5000"));
        HierarchyCut cut(h, 300);
        checkCut(h, cut);
        QVERIFY(cut.visible().size() <= 300);
        // bundled: the source has one edge per visible box of the run, each counting its members
        uint64_t fromSource = 0;
        for (const auto& e : cut.visibleEdges(in.edges))
            if (e.from == cut.visibleIndexOf(0))
                fromSource += e.count;
        QCOMPARE(fromSource, uint64_t(5000));
    }

    void branchingAndCyclicGraphs()
    {
        const HierarchyOptions opt;
        for (const auto& in : {branchingGraph(20000), networkGraph(20000, false), networkGraph(20000, true)}) {
            const auto h = buildGraphHierarchy(in, opt);
            checkHierarchy(in, h, opt);
            HierarchyCut cut(h, 250);
            QVERIFY(cut.visible().size() <= 250);
            QVERIFY(cut.visible().size() >= 20);
            checkCut(h, cut);
        }
        checkTopological(branchingGraph(20000), buildGraphHierarchy(branchingGraph(20000), opt));
        const auto dag = networkGraph(20000, false);
        checkTopological(dag, buildGraphHierarchy(dag, opt));
    }

    void modulePathsGroupFirst()
    {
        // encoder.{attn,mlp} and head; a loose node between them stays a node
        GraphHierarchyInput in;
        const char* const paths[] = {"encoder.attn", "encoder.attn", "encoder.mlp", "encoder.mlp", "", "head", "head"};
        in.nodeCount = 7;
        for (uint32_t i = 0; i < 7; ++i) {
            in.modulePath.push_back(paths[i]);
            in.op.push_back("op" + std::to_string(i));
            if (i)
                in.edges.push_back({i - 1, i});
        }
        HierarchyOptions opt;
        opt.minRun = 100; // no chains: only the modules group
        const auto h = buildGraphHierarchy(in, opt);
        checkHierarchy(in, h, opt);
        const auto& top = h.clusters[0].items;
        QCOMPARE(top.size(), size_t(3));
        QVERIFY(top[0].cluster && top[2].cluster);
        QCOMPARE(top[1], (HierarchyItem{4, false}));
        const auto& encoder = h.clusters[top[0].index];
        QCOMPARE(encoder.label, std::string("encoder"));
        QCOMPARE(encoder.kind, GraphCluster::Kind::Module);
        QCOMPARE(encoder.items.size(), size_t(2));
        QCOMPARE(h.clusters[encoder.items[1].index].label, std::string("mlp"));
        QCOMPARE(h.clusters[top[2].index].label, std::string("head"));
        QCOMPARE(h.ancestors(3), (std::vector<uint32_t>{0, top[0].index, encoder.items[1].index}));
    }

    void manyModulesKeepRangeLabels()
    {
        // 2,000 modules "layer N" (the generator's metadata): blocks of blocks still name their first and last layer
        GraphHierarchyInput in = chainGraph(32000);
        for (uint32_t i = 0; i < in.nodeCount; ++i)
            in.modulePath.push_back("layer " + std::to_string(i / 16));
        const HierarchyOptions opt;
        const auto h = buildGraphHierarchy(in, opt);
        checkHierarchy(in, h, opt);
        const auto& top = h.clusters[0].items;
        QVERIFY(top.size() > 1);
        uint32_t next = 0;
        for (const auto& item : top) {
            QVERIFY(item.cluster);
            const GraphCluster& c = h.clusters[item.index];
            QCOMPARE(c.kind, GraphCluster::Kind::Block);
            QVERIFY(h.clusters[c.items.front().index].kind == GraphCluster::Kind::Block); // two levels deep
            const uint32_t first = c.begin / 16, last = (c.end - 1) / 16;
            QCOMPARE(first, next);
            QCOMPARE(c.label, "layer " + std::to_string(first) + " … " + std::to_string(last));
            next = last + 1;
        }
        QCOMPARE(next, 2000u);
    }

    void inputOfACheckpointsGraph()
    {
        // a repeated key (the first one counts), a phantom id named by an edge, module paths from
        // the metadata in their order of preference and from an id with '/'
        ComputationGraphStore g;
        auto add = [&](std::string id, std::string op, std::vector<std::pair<std::string, std::string>> meta) {
            ComputationNode n;
            n.id = id;
            n.op = std::move(op);
            n.metadata = std::move(meta);
            g.nodes.emplace_back(std::move(id), std::move(n));
        };
        add("a", "matmul", {{"layer", "3"}, {"scope", "enc.block1"}});
        add("b", "add", {{"weight", "dec.fc.weight"}});
        add("a", "relu", {{"module", "other"}});
        add("net/head/c", "softmax", {});
        add("d", "loss", {{"layer", "7"}});
        g.edges = {{"a", "b"}, {"b", "ghost"}, {"ghost", "net/head/c"}, {"net/head/c", "d"}};
        std::vector<std::string> names;
        const LayoutInput layout = layoutInputFor(g, &names);
        QCOMPARE(names, (std::vector<std::string>{"a", "b", "net/head/c", "d", "ghost"}));
        const GraphHierarchyInput in = hierarchyInputFor(g, names, layout.edges);
        QCOMPARE(in.nodeCount, 5u);
        QCOMPARE(in.op, (std::vector<std::string>{"matmul", "add", "softmax", "loss", "(phantom)"}));
        QCOMPARE(in.modulePath, (std::vector<std::string>{"enc.block1", "dec.fc", "net/head", "layer 7", ""}));
        QCOMPARE(in.edges, layout.edges);
    }

    void cutOpenCloseRoundTrip()
    {
        const auto in = networkGraph(30000, true);
        const HierarchyOptions opt;
        const auto h = buildGraphHierarchy(in, opt);
        HierarchyCut cut(h, 120);
        const auto before = cut.visible();
        QVERIFY(before.size() <= 120);
        // open the first closed cluster: it is replaced by its items, in place
        size_t at = 0;
        while (at < before.size() && !before[at].cluster)
            ++at;
        QVERIFY(at < before.size());
        const uint32_t c = before[at].index;
        QVERIFY(cut.open(c));
        QVERIFY(!cut.open(c));
        QCOMPARE(cut.visible().size(), before.size() - 1 + h.clusters[c].items.size());
        for (size_t i = 0; i < h.clusters[c].items.size(); ++i)
            QCOMPARE(cut.visible()[at + i], h.clusters[c].items[i]);
        checkCut(h, cut);
        QVERIFY(cut.close(c));
        QCOMPARE(cut.visible(), before);
        QVERIFY(!cut.close(0));
        // reveal: the deepest node of the tree becomes visible as itself; closing its top ancestor restores the view
        const uint32_t node = h.order[h.order.size() / 2];
        const auto chain = h.ancestors(node);
        QVERIFY(chain.size() >= 2);
        QVERIFY(cut.reveal(node));
        QCOMPARE(cut.visible()[cut.visibleIndexOf(node)], (HierarchyItem{node, false}));
        checkCut(h, cut);
        size_t top = 1;
        while (top < chain.size() && cut.isOpen(chain[top]) && std::find(before.begin(), before.end(), HierarchyItem{chain[top], true}) == before.end())
            ++top;
        QVERIFY(top < chain.size());
        QVERIFY(cut.close(chain[top]));
        QCOMPARE(cut.visible(), before);
    }
};

QTEST_GUILESS_MAIN(TestHierarchy)
#include "tst_hierarchy.moc"
