// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The renderings behind `ckpt graph`, `ckpt blocks`, `ckpt info` and `ckpt show` for GradientCheckpoints.
#include "core/codec/json.h"
#include "core/report/graphreport.h"

#include <QTest>


using namespace ckpt;

namespace {

// CKPT_TEST_DATA, not __FILE__: ccache's base_dir makes __FILE__ relative to the build directory.
const std::string kData = CKPT_TEST_DATA "/graph/";

GradientCheckpoint loadFile(const std::string& name)
{
    auto bytes = mapFile(kData + name);
    if (!bytes)
        qFatal("cannot read %s", name.c_str());
    auto c = loadGradientCheckpoint(*bytes);
    if (!c)
        qFatal("%s", c.error().message().c_str());
    return std::move(*c);
}

/** Parses the rendered JSON with the project's reader: it must be valid JSON. */
Tape parse(const std::string& text)
{
    auto t = readJson(makeBytes(text));
    if (!t)
        qFatal("invalid JSON: %s", t.error().message().c_str());
    return std::move(*t);
}

QStringList keys(const Tape& t, uint32_t map)
{
    QStringList l;
    t.forEachEntry(map, [&](uint32_t k, uint32_t) { l << QString::fromStdString(std::string(t.str(k))); });
    return l;
}

} // namespace

class TestGraphReport : public QObject {
    Q_OBJECT
private slots:
    void graphJsonContract()
    {
        const auto c = loadFile("worked_example.json");
        const auto a = analyzeGraph(c);
        const Tape t = parse(graphJson(c, a));
        const QStringList k = keys(t, t.root());
        // The contract's keys come first, in the contract's order.
        QCOMPARE(k.mid(0, 9), (QStringList{QStringLiteral("node_count"), QStringLiteral("edge_count"), QStringLiteral("topological_order"),
                                  QStringLiteral("cycle"), QStringLiteral("loss_cid"), QStringLiteral("loss_provenance_chain"),
                                  QStringLiteral("step"), QStringLiteral("timestamp"), QStringLiteral("optimizer_state")}));
        QCOMPARE(t.u64(*t.find(t.root(), "node_count")), uint64_t(4));
        QCOMPARE(t.u64(*t.find(t.root(), "edge_count")), uint64_t(3));
        QCOMPARE(t[*t.find(t.root(), "cycle")].kind, Kind::Nil);
        QCOMPARE(t[*t.find(t.root(), "loss_provenance_chain")].count, uint64_t(4));
        const uint32_t blobs = *t.find(t.root(), "optimizer_state");
        QCOMPARE(t[blobs].count, uint64_t(3));
        const uint32_t first = *t.element(blobs, 0);
        QCOMPARE(t.str(*t.find(first, "key")), std::string_view("fc.weight/exp_avg"));
        QCOMPARE(t.u64(*t.find(first, "len")), uint64_t(4));
        QVERIFY(!t.find(t.root(), "layout"));
    }

    void graphJsonWithLayoutAndCycle()
    {
        GradientCheckpoint c;
        for (const char* id : {"a", "b", "c"}) {
            ComputationNode n;
            n.id = id;
            n.op = "op";
            c.graph.nodes.emplace_back(id, n);
        }
        c.graph.edges = {{"a", "b"}, {"b", "c"}, {"c", "b"}, {"a", "ghost"}};
        const auto a = analyzeGraph(c);
        std::vector<std::string> names;
        auto layout = layoutGraph(layoutInputFor(c.graph, &names));
        QVERIFY(layout);
        QCOMPARE(names.size(), size_t(4)); // the phantom id gets a box
        const Tape t = parse(graphJson(c, a, &*layout, &names));
        const uint32_t cycle = *t.find(t.root(), "cycle");
        QCOMPARE(t[cycle].count, uint64_t(2));
        QCOMPARE(t.str(*t.element(cycle, 0)), std::string_view("b"));
        const uint32_t order = *t.find(t.root(), "topological_order");
        QCOMPARE(t[order].count, uint64_t(2)); // a, ghost
        const uint32_t l = *t.find(t.root(), "layout");
        QCOMPARE(t[*t.find(l, "nodes")].count, uint64_t(4));
        QCOMPARE(t[*t.find(l, "back_edges")].count, uint64_t(1));
        const auto warnings = checkpointWarnings(c, a);
        QVERIFY(!warnings.empty());
        QVERIFY(warnings[0].starts_with("cycle: b -> c -> b"));
        const std::string dot = graphDot(c, a);
        QVERIFY(dot.starts_with("digraph"));
        QVERIFY(dot.find("\"b\" -> \"c\" [color=red];") != std::string::npos);
        QVERIFY(dot.find("\"ghost\" [style=dashed") != std::string::npos);
    }

    void blocksAndShow()
    {
        std::vector<CarEntry> blocks;
        const std::vector<uint8_t> loss{0, 0, 128, 63}; // f32 1.0
        blocks.push_back({computeCid(loss), loss});
        blocks.push_back({computeCid(std::vector<uint8_t>{1, 2, 3}), {1, 2, 4}}); // corrupted on purpose
        auto store = CarStore::open(makeBytes(writeCar({blocks[0].cid}, blocks)));
        QVERIFY(store);
        const Tape t = parse(blocksJson(*store));
        QCOMPARE(t.u64(*t.find(t.root(), "corrupted")), uint64_t(1));
        const uint32_t list = *t.find(t.root(), "blocks");
        QCOMPARE(t.str(*t.find(*t.element(list, 0), "check")), std::string_view("ok"));
        QCOMPARE(t.str(*t.find(*t.element(list, 1), "check")), std::string_view("corrupted"));
        QCOMPARE(t.str(*t.find(*t.element(list, 0), "codec")), std::string_view("raw"));

        const Tape b = parse(blockJson(blocks[0].cid, *store->resolve(blocks[0].cid.toString()), BlockCheck::Ok, 8));
        const uint32_t views = *b.find(b.root(), "views");
        QCOMPARE(b.asNumber(*b.element(*b.find(views, "f32"), 0)), std::optional<double>(1.0));
        QVERIFY(!b.find(views, "f64"));

        const auto c = loadFile("worked_example.json");
        const Tape blob = parse(blobJson(c.optimizerState[2], BlobView::U64, 4));
        QCOMPARE(blob.asNumber(*blob.find(blob.root(), "sum")), std::optional<double>(1.0));
        const Tape node = parse(nodeJson(c.graph.nodes[1].second, c.graph));
        QCOMPARE(node[*node.find(node.root(), "consumers")].count, uint64_t(1));
        const Tape info = parse(checkpointInfoJson(c, analyzeGraph(c)));
        QCOMPARE(info.str(*info.find(info.root(), "kind")), std::string_view("gradient_checkpoint"));
    }
};

QTEST_GUILESS_MAIN(TestGraphReport)
#include "tst_graph_report.moc"
