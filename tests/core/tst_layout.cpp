// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Layered layout properties, and the 100,000-node scale run (parse + crate order + layout timed and
// printed, never asserted on time).
#include "core/graph/analysis.h"
#include "core/graph/checkpoint.h"
#include "core/graph/layout.h"
#include "tests/common/syntheticgraph.h"

#include <QElapsedTimer>
#include <QTest>

#include <cstdio>
#include <ctime>
#include <random>

using namespace ckpt;

namespace {

/** A network-like DAG: a long spine with skip connections, side branches and weight sources. */
LayoutInput synthetic(uint32_t n, uint32_t seed, bool withCycles)
{
    std::mt19937 rng(seed);
    LayoutInput in;
    in.nodes.resize(n);
    for (auto& s : in.nodes)
        s.width = 60 + double(rng() % 120);
    testing::appendNetworkEdges(rng, n, true, in.edges);
    if (withCycles)
        testing::appendBackEdges(rng, n, n / 100, false, in.edges);
    return in;
}

void checkLayout(const LayoutInput& in, const LayoutResult& r)
{
    QCOMPARE(r.nodes.size(), in.nodes.size());
    QCOMPARE(r.edges.size(), in.edges.size());
    const double eps = 1e-6;
    // Boxes inside the bounds, and in each layer in order without overlap.
    std::vector<std::vector<uint32_t>> layers(r.layerCount);
    for (uint32_t v = 0; v < r.nodes.size(); ++v) {
        const auto& b = r.nodes[v];
        QVERIFY(b.x >= -eps && b.y >= -eps);
        QVERIFY(b.x + b.width <= r.width + eps && b.y + b.height <= r.height + eps);
        QVERIFY(b.layer < r.layerCount);
        layers[b.layer].push_back(v);
    }
    for (auto& l : layers) {
        std::sort(l.begin(), l.end(), [&](uint32_t a, uint32_t b) { return r.nodes[a].order < r.nodes[b].order; });
        for (size_t i = 0; i + 1 < l.size(); ++i) {
            QVERIFY(r.nodes[l[i]].order < r.nodes[l[i + 1]].order); // dummies sit in between
            QVERIFY(r.nodes[l[i]].row <= r.nodes[l[i + 1]].row);   // a wrapped layer reads row by row
            if (r.nodes[l[i]].row != r.nodes[l[i + 1]].row) {
                QVERIFY(r.nodes[l[i + 1]].y >= r.nodes[l[i]].y + r.nodes[l[i]].height);
                continue;
            }
            if (r.nodes[l[i]].x + r.nodes[l[i]].width > r.nodes[l[i + 1]].x + eps)
                QFAIL(qPrintable(QStringLiteral("overlap in layer %1 between %2 and %3").arg(r.nodes[l[i]].layer).arg(l[i]).arg(l[i + 1])));
        }
    }
    // Edges go downward; reported back edges go upward; back edge list = reversed + self loops.
    std::vector<uint32_t> back;
    for (uint32_t e = 0; e < r.edges.size(); ++e) {
        const auto& edge = r.edges[e];
        const auto& a = r.nodes[edge.from];
        const auto& b = r.nodes[edge.to];
        if (edge.selfLoop) {
            QCOMPARE(edge.from, edge.to);
            back.push_back(e);
            continue;
        }
        if (edge.reversed) {
            back.push_back(e);
            QVERIFY(b.layer < a.layer);
        } else {
            QVERIFY(b.layer > a.layer);
        }
        QVERIFY(edge.points.size() >= 2);
        for (size_t i = 0; r.columns == 1 && i + 1 < edge.points.size(); ++i) { // folded: see deepChainFolds
            const double dy = edge.points[i + 1].second - edge.points[i].second;
            QVERIFY(edge.reversed ? dy <= eps : dy >= -eps);
        }
        QCOMPARE(edge.points.front().first, a.x + a.width / 2);
        QCOMPARE(edge.points.back().first, b.x + b.width / 2);
    }
    QCOMPARE(back, r.backEdges);
}

bool sameLayout(const LayoutResult& a, const LayoutResult& b)
{
    if (a.nodes.size() != b.nodes.size() || a.edges.size() != b.edges.size() || a.width != b.width || a.height != b.height
        || a.backEdges != b.backEdges || a.groups.size() != b.groups.size() || a.crossings != b.crossings)
        return false;
    for (size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].x != b.nodes[i].x || a.nodes[i].y != b.nodes[i].y || a.nodes[i].order != b.nodes[i].order)
            return false;
    for (size_t i = 0; i < a.edges.size(); ++i)
        if (a.edges[i].points != b.edges[i].points)
            return false;
    return true;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT
private slots:
    void empty()
    {
        auto r = layoutGraph({});
        QVERIFY(r);
        QCOMPARE(r->width, 0.0);
        QCOMPARE(r->layerCount, 0u);
    }

    void chainAndDiamond()
    {
        LayoutInput in;
        in.nodes.resize(7);
        // 0 -> 1 -> 2 -> 3 (a chain), 3 -> 4, 3 -> 5, 4 -> 6, 5 -> 6 (a diamond)
        in.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {4, 6}, {5, 6}};
        auto r = layoutGraph(in);
        QVERIFY(r);
        checkLayout(in, *r);
        QCOMPARE(r->layerCount, 6u);
        QVERIFY(r->backEdges.empty());
        QCOMPARE(r->crossings, uint64_t(0));
        QCOMPARE(r->groups.size(), size_t(1));
        QCOMPARE(r->groups[0].nodes, (std::vector<uint32_t>{0, 1, 2, 3}));
        // A chain is drawn straight: every member centred on the same x.
        for (uint32_t v : {1u, 2u, 3u})
            QCOMPARE(r->nodes[v].x + r->nodes[v].width / 2, r->nodes[0].x + r->nodes[0].width / 2);
    }

    void longEdgeAndSources()
    {
        LayoutInput in;
        in.nodes.resize(5);
        // 0 -> 1 -> 2 -> 3 and a long edge 0 -> 3; source 4 feeds 3 and is pulled down next to it.
        in.edges = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {4, 3}};
        auto r = layoutGraph(in);
        QVERIFY(r);
        checkLayout(in, *r);
        QCOMPARE(r->dummyCount, uint64_t(2));
        QCOMPARE(r->edges[3].points.size(), size_t(4));
        QCOMPARE(r->nodes[4].layer, 2u);
    }

    void cyclesReported()
    {
        LayoutInput in;
        in.nodes.resize(4);
        in.edges = {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}};
        auto r = layoutGraph(in);
        QVERIFY(r);
        checkLayout(in, *r);
        QCOMPARE(r->backEdges, (std::vector<uint32_t>{2, 4}));
        QVERIFY(r->edges[2].reversed);
        QVERIFY(r->edges[4].selfLoop);
    }

    void badEdge()
    {
        LayoutInput in;
        in.nodes.resize(2);
        in.edges = {{0, 5}};
        auto r = layoutGraph(in);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Usage);
    }

    void dummyBudget()
    {
        auto in = synthetic(2000, 3, false);
        LayoutOptions o;
        o.maxDummies = 10;
        auto r = layoutGraph(in, o);
        QVERIFY(r);
        checkLayout(in, *r);
        QVERIFY(r->dummyCount <= 10);
        QVERIFY(std::any_of(r->edges.begin(), r->edges.end(), [](const LayoutEdge& e) { return e.straight; }));
        // a span limit: only edges over 2 layers go straight, every other long edge keeps its dummies
        LayoutOptions span;
        span.maxDummySpan = 2;
        auto s = layoutGraph(in, span);
        QVERIFY(s);
        checkLayout(in, *s);
        uint64_t dummies = 0;
        for (const auto& e : s->edges) {
            if (e.selfLoop)
                continue;
            const uint32_t layers = uint32_t(std::abs(int(s->nodes[e.to].layer) - int(s->nodes[e.from].layer)));
            QCOMPARE(e.straight, layers > 2);
            QCOMPARE(e.points.size(), e.straight ? size_t(2) : size_t(layers + 1));
            dummies += e.straight ? 0 : layers - 1;
        }
        QCOMPARE(s->dummyCount, dummies);
    }

    void cancellation()
    {
        Progress p;
        p.isCancelled = [] { return true; };
        auto r = layoutGraph(synthetic(100, 1, false), {}, p);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Cancelled);
    }

    void randomGraphs_data()
    {
        QTest::addColumn<uint32_t>("nodes");
        QTest::addColumn<uint32_t>("seed");
        QTest::addColumn<bool>("cycles");
        for (uint32_t seed = 1; seed <= 4; ++seed) {
            QTest::addRow("dag %u", seed) << 500u << seed << false;
            QTest::addRow("cyclic %u", seed) << 500u << seed << true;
        }
    }
    void randomGraphs()
    {
        QFETCH(uint32_t, nodes);
        QFETCH(uint32_t, seed);
        QFETCH(bool, cycles);
        const auto in = synthetic(nodes, seed, cycles);
        auto a = layoutGraph(in);
        auto b = layoutGraph(in);
        QVERIFY(a && b);
        checkLayout(in, *a);
        QVERIFY(sameLayout(*a, *b)); // deterministic across runs
        if (cycles)
            QVERIFY(!a->backEdges.empty());
    }

    /** 100,000 nodes: a checkpoint is generated, written, parsed, ordered as the crate does and laid out. */
    void deepChainFolds()
    {
        // a 10,000-layer chain with a few skips: folded, it is a block of columns, not a 10,000-row column
        LayoutInput in;
        in.nodes.resize(10000);
        for (uint32_t i = 1; i < 10000; ++i)
            in.edges.push_back({i - 1, i});
        for (uint32_t i = 50; i < 10000; i += 97)
            in.edges.push_back({i - 50, i}); // long edges across the fold
        LayoutOptions folded;
        folded.foldAspect = 1.6;
        auto flat = layoutGraph(in);
        auto r = layoutGraph(in, folded);
        QVERIFY(flat && r);
        QCOMPARE(flat->columns, 1u);
        QCOMPARE(r->layerCount, flat->layerCount);
        QCOMPARE(r->crossings, flat->crossings);
        QVERIFY2(r->columns > 10, qPrintable(QString::number(r->columns)));
        LayoutOptions few = folded;
        few.foldMinCount = 10000;
        auto unfolded = layoutGraph(in, few);
        QVERIFY(unfolded);
        QCOMPARE(unfolded->columns, 1u);
        const double aspect = r->width / r->height;
        QVERIFY2(aspect > 0.8 && aspect < 3.2, qPrintable(QString::number(aspect)));
        checkLayout(in, *r);
        // no two boxes overlap anywhere (columns included); layers run down a column, then on in the next
        for (uint32_t v = 1; v < in.nodes.size(); ++v) {
            const auto& a = r->nodes[v - 1];
            const auto& b = r->nodes[v];
            const bool sameColumn = std::abs(a.x - b.x) < a.width;
            QVERIFY(sameColumn ? b.y > a.y + a.height : b.x > a.x + a.width);
        }
        // an edge into the next column leaves at the bottom and enters at the top, in order
        for (const auto& e : r->edges) {
            const auto& a = r->nodes[e.from];
            const auto& b = r->nodes[e.to];
            QCOMPARE(e.points.front(), std::make_pair(a.x + a.width / 2, a.y + a.height));
            QCOMPARE(e.points.back(), std::make_pair(b.x + b.width / 2, b.y));
            for (size_t i = 0; i + 1 < e.points.size(); ++i)
                QVERIFY(e.points[i + 1].first >= e.points[i].first - 1e-6 || e.points[i + 1].second >= e.points[i].second);
        }
    }

    void wideLayerWraps()
    {
        // one input fanning out to 3,000 ops that feed one sum: the middle layer wraps into rows
        LayoutInput in;
        const uint32_t width = 3000;
        in.nodes.resize(width + 2);
        for (uint32_t i = 1; i <= width; ++i) {
            in.edges.push_back({0, i});
            in.edges.push_back({i, width + 1});
        }
        LayoutOptions wrapped;
        wrapped.foldAspect = 1.6;
        auto flat = layoutGraph(in);
        auto r = layoutGraph(in, wrapped);
        QVERIFY(flat && r);
        QVERIFY(flat->width / flat->height > 100);
        const double aspect = r->width / r->height;
        QVERIFY2(aspect > 0.8 && aspect < 3.2, qPrintable(QString::number(aspect)));
        QCOMPARE(r->layerCount, 3u);
        QCOMPARE(r->crossings, flat->crossings);
        checkLayout(in, *r);
        uint32_t rows = 0;
        for (uint32_t i = 1; i <= width; ++i)
            rows = std::max(rows, r->nodes[i].row + 1);
        QVERIFY2(rows > 10, qPrintable(QString::number(rows)));
        // the single boxes above and below stay single rows, above and below every wrapped row
        QCOMPARE(r->nodes[0].row, 0u);
        QCOMPARE(r->nodes[width + 1].row, 0u);
        for (uint32_t i = 1; i <= width; ++i) {
            QVERIFY(r->nodes[i].y > r->nodes[0].y + r->nodes[0].height);
            QVERIFY(r->nodes[i].y + r->nodes[i].height < r->nodes[width + 1].y);
        }
        // not with fewer vertices in its widest layer than foldMinCount
        LayoutOptions few = wrapped;
        few.foldMinCount = width;
        auto unwrapped = layoutGraph(in, few);
        QVERIFY(unwrapped);
        QCOMPARE(unwrapped->width, flat->width);
        // a deep graph is not wrapped
        LayoutInput chain;
        chain.nodes.resize(50);
        for (uint32_t i = 1; i < 50; ++i)
            chain.edges.push_back({i - 1, i});
        auto c = layoutGraph(chain, wrapped);
        QVERIFY(c);
        for (const auto& node : c->nodes)
            QCOMPARE(node.row, 0u);
    }

    void hundredThousandNodes()
    {
        const uint32_t n = 100000;
        const auto shape = synthetic(n, 7, false);
        GradientCheckpoint c;
        c.step = 1000;
        c.timestamp = 1767225600;
        char id[40];
        auto idOf = [&](uint32_t i) {
            std::snprintf(id, sizeof id, "%08x-0000-4000-8000-%012x", i * 2654435761u, i);
            return std::string(id);
        };
        c.graph.nodes.reserve(n);
        for (uint32_t i = 0; i < n; ++i) {
            ComputationNode node;
            node.id = idOf(i);
            node.op = (i % 3 == 0) ? "matmul" : (i % 3 == 1 ? "relu" : "add");
            node.outputCid = "bafkrei" + std::to_string(i);
            c.graph.nodes.emplace_back(node.id, std::move(node));
        }
        for (const auto& [a, b] : shape.edges) {
            c.graph.nodes[b].second.inputCids.push_back(*c.graph.nodes[a].second.outputCid);
            c.graph.edges.emplace_back(c.graph.nodes[a].first, c.graph.nodes[b].first);
        }
        c.lossCid = c.graph.nodes.back().second.outputCid;
        const auto bytes = saveGradientCheckpoint(c);

        // Wall time and process CPU time: on a shared CI machine the CPU figure is the meaningful one.
        auto cpuMs = [] { return qint64(double(std::clock()) * 1000.0 / CLOCKS_PER_SEC); };
        QElapsedTimer t;
        t.start();
        qint64 c0 = cpuMs();
        auto loaded = loadGradientCheckpoint(makeBytes(bytes));
        const qint64 parseMs = t.restart(), parseCpu = cpuMs() - c0;
        c0 = cpuMs();
        QVERIFY(loaded);
        const auto analysis = analyzeGraph(*loaded);
        const qint64 topoMs = t.restart(), topoCpu = cpuMs() - c0;
        QCOMPARE(analysis.topologicalOrder.size(), size_t(n));
        QVERIFY(analysis.cycle.empty());
        QCOMPARE(analysis.lossProvenanceChain.back(), c.graph.nodes.back().first);

        std::vector<std::string> names;
        const auto input = layoutInputFor(loaded->graph, &names);
        t.restart();
        c0 = cpuMs();
        auto layout = layoutGraph(input);
        const qint64 layoutMs = t.elapsed(), layoutCpu = cpuMs() - c0;
        QVERIFY(layout);
        checkLayout(input, *layout);
        std::printf("100k nodes: %.1f MB JSON, parse+decode %lld ms wall / %lld ms cpu, crate topological order + analysis "
                    "%lld / %lld ms, layout %lld / %lld ms (%u layers, %llu dummies, %llu crossings, %zu groups)\n",
            bytes.size() / 1e6, static_cast<long long>(parseMs), static_cast<long long>(parseCpu), static_cast<long long>(topoMs),
            static_cast<long long>(topoCpu), static_cast<long long>(layoutMs), static_cast<long long>(layoutCpu),
            layout->layerCount, static_cast<unsigned long long>(layout->dummyCount),
            static_cast<unsigned long long>(layout->crossings), layout->groups.size());
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
