// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// GradientCheckpoint decoding (serde rules), resave, the crate's topological order, cycles,
// provenance and optimizer blob views (spec format-ipfrs-gradient-checkpoint.md §1.6, §2, §5).
#include "core/graph/analysis.h"
#include "core/graph/blob.h"
#include "core/graph/checkpoint.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace ckpt;

namespace {

// CKPT_TEST_DATA, not __FILE__: ccache's base_dir makes __FILE__ relative to the build directory.
const std::string kData = CKPT_TEST_DATA "/graph/";

BytesPtr load(const std::string& path)
{
    auto b = mapFile(path);
    if (!b)
        qFatal("cannot read %s", path.c_str());
    return *b;
}

std::string serdeStyle(const Error& e)
{
    std::string m = e.what;
    if (e.line)
        m += " at line " + std::to_string(*e.line) + " column " + std::to_string(e.column.value_or(0));
    return m;
}

ComputationNode makeNode(std::string id, std::vector<std::string> inputs, std::optional<std::string> output)
{
    ComputationNode n;
    n.id = std::move(id);
    n.op = "op";
    n.inputCids = std::move(inputs);
    n.outputCid = std::move(output);
    return n;
}

ComputationGraphStore makeGraph(std::vector<std::string> keys, std::vector<std::pair<std::string, std::string>> edges)
{
    ComputationGraphStore g;
    for (auto& k : keys)
        g.nodes.emplace_back(k, makeNode(k, {}, std::nullopt));
    g.edges = std::move(edges);
    return g;
}

using Strings = std::vector<std::string>;

QStringList L(std::initializer_list<const char*> items)
{
    QStringList l;
    for (const char* s : items)
        l << QString::fromUtf8(s);
    return l;
}

QStringList q(const Strings& v)
{
    QStringList l;
    for (const auto& s : v)
        l << QString::fromStdString(s);
    return l;
}

} // namespace

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    /** Every hand-made case of spec §2.3, against what serde_json 1.0.87 itself said (expected.tsv). */
    void serdeCases_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("message");
        std::ifstream in(kData + "cases/expected.tsv");
        std::string line;
        int rows = 0;
        while (std::getline(in, line)) {
            if (line.empty())
                continue;
            const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
            const std::string file = line.substr(0, t1), status = line.substr(t1 + 1, t2 - t1 - 1), rest = line.substr(t2 + 1);
            QTest::newRow(file.c_str()) << QString::fromStdString(file) << (status == "OK")
                                        << QString::fromStdString(status == "OK" ? std::string() : rest);
            ++rows;
        }
        QVERIFY(rows > 60);
    }
    void serdeCases()
    {
        QFETCH(QString, file);
        QFETCH(bool, accepted);
        QFETCH(QString, message);
        auto r = loadGradientCheckpoint(load(kData + "cases/" + file.toStdString()));
        if (accepted) {
            QVERIFY2(r.has_value(), r ? "" : serdeStyle(r.error()).c_str());
        } else {
            QVERIFY(!r.has_value());
            QCOMPARE(QString::fromStdString(serdeStyle(r.error())), message);
        }
    }

    void acceptedDetails()
    {
        auto dup = loadGradientCheckpoint(load(kData + "cases/accept_duplicate_map_key.json"));
        QVERIFY(dup);
        QCOMPARE(dup->optimizerState.size(), size_t(1));
        QCOMPARE(dup->optimizerState[0].bytes, (std::vector<uint8_t>{0, 0, 128, 63})); // last one wins
        QCOMPARE(dup->notes.duplicateMapKeys, uint64_t(1));
        auto opt = loadGradientCheckpoint(load(kData + "cases/accept_missing_options.json"));
        QVERIFY(opt);
        QVERIFY(!opt->lossCid);
        QVERIFY(!opt->graph.nodes[0].second.outputCid);
        auto big = loadGradientCheckpoint(load(kData + "cases/accept_u64_extremes.json"));
        QVERIFY(big);
        QCOMPARE(big->step, UINT64_MAX);
        QCOMPARE(big->timestamp, uint64_t(9007199254740993ull));
        auto esc = loadGradientCheckpoint(load(kData + "cases/accept_escapes.json"));
        QVERIFY(esc);
        QCOMPARE(esc->graph.nodes[1].second.op, std::string("r\xc3\xa9lu \xf0\x9f\x98\x80 \n"));
        auto arr = loadGradientCheckpoint(load(kData + "cases/accept_struct_as_array.json"));
        QVERIFY(arr);
        QCOMPARE(arr->step, uint64_t(7));
        QCOMPARE(arr->timestamp, uint64_t(1));
        auto key = loadGradientCheckpoint(load(kData + "cases/accept_key_not_id.json"));
        QVERIFY(key);
        QCOMPARE(key->notes.nodeKeyIdMismatches, uint64_t(1));
        auto unknown = loadGradientCheckpoint(load(kData + "cases/accept_unknown_fields.json"));
        QVERIFY(unknown);
        QCOMPARE(unknown->notes.unknownFields, uint64_t(2));
    }

    /** §2.2 worked example: decoded values, the crate's order and provenance, byte-exact resave. */
    void workedExample()
    {
        const BytesPtr bytes = load(kData + "worked_example.json");
        auto c = loadGradientCheckpoint(bytes);
        QVERIFY2(c, c ? "" : c.error().message().c_str());
        QCOMPARE(c->step, uint64_t(1));
        QCOMPARE(c->timestamp, uint64_t(1767225600));
        QCOMPARE(c->graph.nodes.size(), size_t(4));
        QCOMPARE(c->graph.edges.size(), size_t(3));
        const Strings ids{"0b1f6c1e-5d2a-4c3b-9a7e-1f2d3c4b5a60", "4e8a2b7c-9d1f-4a6e-8b3c-2d5e7f9a1b24",
            "9c3d5e7f-1a2b-4c4d-a5e6-f7a8b9c0d1e2", "d7e6f5a4-b3c2-4d1e-8f9a-0b1c2d3e4f56"};
        const auto a = analyzeGraph(*c);
        QCOMPARE(q(a.topologicalOrder), q(ids));
        QCOMPARE(q(a.lossProvenanceChain), q(ids));
        QVERIFY(a.cycle.empty());
        QVERIFY(a.blocked.empty());
        QVERIFY(a.duplicateEdges.empty());
        QCOMPARE(c->graph.nodes[1].second.metadata.size(), size_t(3));
        QCOMPARE(c->graph.nodes[1].second.metadata[2], (std::pair<std::string, std::string>("weight", "fc.weight")));

        const auto saved = saveGradientCheckpoint(*c);
        QCOMPARE(saved.size(), bytes->size());
        QVERIFY(std::equal(saved.begin(), saved.end(), bytes->data()));

        // Blobs: exp_avg = f32 0.1, exp_avg_sq = f32 0.001, step = u64 1.
        QCOMPARE(c->optimizerState.size(), size_t(3));
        const auto& blobs = c->optimizerState;
        QCOMPARE(inferBlobView(blobs[0].key, blobs[0].bytes.size()), BlobView::F32);
        QCOMPARE(inferBlobView(blobs[1].key, blobs[1].bytes.size()), BlobView::F32);
        QCOMPARE(inferBlobView(blobs[2].key, blobs[2].bytes.size()), BlobView::U64);
        QCOMPARE((*blobValues(blobs[0].bytes, BlobView::F32))[0], double(0.1f));
        QCOMPARE((*blobValues(blobs[1].bytes, BlobView::F32))[0], double(0.001f));
        QCOMPARE((*blobValues(blobs[2].bytes, BlobView::U64))[0], 1.0);
    }

    void resaveByteExact_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("empty") << QStringLiteral("empty.json");
        QTest::newRow("crate test mirror") << QStringLiteral("crate_test_mirror.json");
        QTest::newRow("base case") << QStringLiteral("cases/accept_base.json");
        QTest::newRow("u64 extremes") << QStringLiteral("cases/accept_u64_extremes.json");
    }
    void resaveByteExact()
    {
        QFETCH(QString, file);
        const BytesPtr bytes = load(kData + file.toStdString());
        auto c = loadGradientCheckpoint(bytes);
        QVERIFY(c);
        const auto saved = saveGradientCheckpoint(*c);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(saved.data()), qsizetype(saved.size())),
            QByteArray(reinterpret_cast<const char*>(bytes->data()), qsizetype(bytes->size())));
    }

    void crateTestMirror()
    {
        auto c = loadGradientCheckpoint(load(kData + "crate_test_mirror.json"));
        QVERIFY(c);
        QCOMPARE(c->step, uint64_t(42));
        QCOMPARE(*c->lossCid, std::string("cid_loss_xyz"));
        QCOMPARE(c->optimizerState[0].key, std::string("adam_v"));
        QCOMPARE(c->optimizerState[1].bytes, (std::vector<uint8_t>{1, 2, 3}));
        const auto a = analyzeGraph(*c);
        QCOMPARE(q(a.topologicalOrder), q({"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
                                            "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"}));
        QVERIFY(a.lossProvenanceChain.empty()); // cid_loss_xyz is produced by no node
        QCOMPARE(q(provenanceChain(c->graph, "cid_d")), q(a.topologicalOrder));
        QCOMPARE(q(findConsumers(c->graph, "cid_b")), q({"33333333-3333-4333-8333-333333333333"}));
        // The graph-only bytes of checkpoint() are compact JSON that decodes to the same graph.
        const auto compact = graphStoreCheckpointBytes(c->graph);
        QVERIFY(std::string(compact.begin(), compact.end()).starts_with("{\"nodes\":{\"33333333"));
        auto back = loadGradientCheckpoint(makeBytes(compact), true);
        QVERIFY(back);
        QCOMPARE(back->graph.nodes.size(), size_t(4));
        QVERIFY(!loadGradientCheckpoint(makeBytes(compact), false));
    }

    void topologicalOrders_data()
    {
        QTest::addColumn<QStringList>("keys");
        QTest::addColumn<QStringList>("edges"); // "from>to"
        QTest::addColumn<QStringList>("order");
        QTest::addColumn<QStringList>("blocked");
        QTest::addColumn<QStringList>("cycle");
        QTest::newRow("empty") << QStringList() << QStringList() << QStringList() << QStringList() << QStringList();
        QTest::newRow("single") << L({"a"}) << QStringList() << L({"a"}) << QStringList() << QStringList();
        QTest::newRow("sources sorted") << L({"c", "a", "b"}) << QStringList() << L({"a", "b", "c"}) << QStringList() << QStringList();
        QTest::newRow("diamond") << L({"r", "x", "y", "s"}) << L({"s>y", "s>x", "x>r", "y>r"})
                                 << L({"s", "x", "y", "r"}) << QStringList() << QStringList();
        // Sorted batches appended FIFO, not a global min-heap: b becomes ready after c was queued.
        QTest::newRow("batch not heap") << L({"a", "b", "c"}) << L({"a>b"}) << L({"a", "c", "b"}) << QStringList() << QStringList();
        QTest::newRow("phantom to (dangling_edges)") << L({"a"}) << L({"a>ghost"}) << L({"a", "ghost"}) << QStringList() << QStringList();
        QTest::newRow("phantom from blocks") << L({"a", "b"}) << L({"ghost>b"}) << L({"a"}) << L({"b"}) << QStringList();
        QTest::newRow("duplicate edges") << L({"a", "b"}) << L({"a>b", "a>b"}) << L({"a", "b"}) << QStringList() << QStringList();
        QTest::newRow("cycle") << L({"a", "b", "c", "d"}) << L({"a>b", "b>c", "c>b", "c>d"})
                               << L({"a"}) << L({"b", "c", "d"}) << L({"b", "c"});
        QTest::newRow("self edge") << L({"x", "y"}) << L({"x>x"}) << L({"y"}) << L({"x"}) << L({"x"});
        QTest::newRow("long cycle") << L({"n1", "n2", "n3", "n4"}) << L({"n2>n3", "n3>n4", "n4>n2", "n1>n2"})
                                    << L({"n1"}) << L({"n2", "n3", "n4"}) << L({"n2", "n3", "n4"});
    }
    void topologicalOrders()
    {
        QFETCH(QStringList, keys);
        QFETCH(QStringList, edges);
        QFETCH(QStringList, order);
        QFETCH(QStringList, blocked);
        QFETCH(QStringList, cycle);
        Strings k;
        for (const auto& s : keys)
            k.push_back(s.toStdString());
        std::vector<std::pair<std::string, std::string>> e;
        for (const auto& s : edges) {
            const auto parts = s.split(QLatin1Char('>'));
            e.emplace_back(parts[0].toStdString(), parts[1].toStdString());
        }
        const auto g = makeGraph(k, e);
        QCOMPARE(q(topologicalOrder(g)), order);
        const auto a = analyzeGraph(g, std::nullopt);
        QCOMPARE(q(a.topologicalOrder), order);
        QCOMPARE(q(a.blocked), blocked);
        QCOMPARE(q(a.cycle), cycle);
    }

    void duplicatesAndProducers()
    {
        ComputationGraphStore g;
        g.nodes.emplace_back("p1", makeNode("p1", {}, "t"));
        g.nodes.emplace_back("p2", makeNode("p2", {}, "t"));
        g.nodes.emplace_back("c", makeNode("c", {"t", "t", "u"}, "v"));
        g.edges = {{"p1", "c"}, {"p1", "c"}, {"p2", "c"}, {"p1", "c"}};
        const auto a = analyzeGraph(g, std::string("v"));
        QCOMPARE(a.duplicateEdges.size(), size_t(1));
        QCOMPARE(a.duplicateEdges[0].from, std::string("p1"));
        QCOMPARE(a.duplicateEdges[0].to, std::string("c"));
        QCOMPARE(a.duplicateEdges[0].count, uint64_t(3));
        // several repeated edges: in the order they first occur (not by id), each with its count;
        // a phantom end counts like any id
        ComputationGraphStore h = g;
        h.edges = {{"p2", "c"}, {"x", "p1"}, {"p1", "c"}, {"x", "p1"}, {"p2", "c"}, {"p1", "c"}, {"p2", "c"}, {"c", "p2"}};
        const auto b = analyzeGraph(h, std::nullopt);
        QCOMPARE(b.duplicateEdges.size(), size_t(3));
        QCOMPARE(b.duplicateEdges[0].from + ">" + b.duplicateEdges[0].to, std::string("p2>c"));
        QCOMPARE(b.duplicateEdges[0].count, uint64_t(3));
        QCOMPARE(b.duplicateEdges[1].from + ">" + b.duplicateEdges[1].to, std::string("x>p1"));
        QCOMPARE(b.duplicateEdges[1].count, uint64_t(2));
        QCOMPARE(b.duplicateEdges[2].from + ">" + b.duplicateEdges[2].to, std::string("p1>c"));
        QCOMPARE(b.duplicateEdges[2].count, uint64_t(2));
        // several CIDs with several producers: in order of first production, producers in map order,
        // the same as producersByCid keeps; the provenance still follows the first producer
        h.nodes.emplace_back("q1", makeNode("q1", {}, "w"));
        h.nodes.emplace_back("q2", makeNode("q2", {}, "t"));
        h.nodes.emplace_back("q3", makeNode("q3", {"v"}, "w"));
        h.nodes.emplace_back("q4", makeNode("q4", {}, "x"));
        const auto m = analyzeGraph(h, std::string("w"));
        QCOMPARE(m.multipleProducers.size(), size_t(2));
        QCOMPARE(QString::fromStdString(m.multipleProducers[0].cid), QStringLiteral("t"));
        QCOMPARE(q(m.multipleProducers[0].nodes), q({"p1", "p2", "q2"}));
        QCOMPARE(QString::fromStdString(m.multipleProducers[1].cid), QStringLiteral("w"));
        QCOMPARE(q(m.multipleProducers[1].nodes), q({"q1", "q3"}));
        std::vector<CidUsers> listed;
        for (auto& p : producersByCid(h))
            if (p.nodes.size() > 1)
                listed.push_back(p);
        QCOMPARE(listed.size(), m.multipleProducers.size());
        for (size_t i = 0; i < listed.size(); ++i)
            QVERIFY(listed[i].cid == m.multipleProducers[i].cid && listed[i].nodes == m.multipleProducers[i].nodes);
        QCOMPARE(q(m.lossProvenanceChain), q({"q1"}));
        QCOMPARE(a.multipleProducers.size(), size_t(1));
        QCOMPARE(q(a.multipleProducers[0].nodes), q({"p1", "p2"}));
        // First producer in map order is taken, as the crate takes the first in its HashMap order.
        QCOMPARE(q(a.lossProvenanceChain), q({"p1", "c"}));
        const auto consumers = consumersByCid(g);
        QCOMPARE(consumers.size(), size_t(2));
        QCOMPARE(q(consumers[0].nodes), q({"c"}));
        QCOMPARE(q(findConsumers(g, "u")), q({"c"}));
    }

    void provenanceDiamond()
    {
        // Spec §1.6: R <- {X, Y}, X <- S, Y <- S gives [X, S, Y, R] (reverse DFS pre-order).
        ComputationGraphStore g;
        g.nodes.emplace_back("S", makeNode("S", {}, "s"));
        g.nodes.emplace_back("X", makeNode("X", {"s"}, "x"));
        g.nodes.emplace_back("Y", makeNode("Y", {"s"}, "y"));
        g.nodes.emplace_back("R", makeNode("R", {"x", "y", "external"}, "r"));
        QCOMPARE(q(provenanceChain(g, "r")), q({"X", "S", "Y", "R"}));
        QCOMPARE(q(provenanceChain(g, "s")), q({"S"}));
        QVERIFY(provenanceChain(g, "nobody").empty());
    }

    void blobStatistics()
    {
        std::vector<float> v{1.0f, -2.0f, 0.0f, NAN, INFINITY, 3.0f};
        std::vector<uint8_t> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        auto s = blobStats(bytes, BlobView::F32);
        QVERIFY(s);
        QCOMPARE(s->count, uint64_t(6));
        QCOMPARE(s->nan, uint64_t(1));
        QCOMPARE(s->inf, uint64_t(1));
        QCOMPARE(s->zeros, uint64_t(1));
        QCOMPARE(s->min, -2.0);
        QCOMPARE(s->max, 3.0);
        QCOMPARE(s->sum, 2.0);
        QCOMPARE(s->mean, 0.5);
        QVERIFY(std::abs(s->l2 - std::sqrt(14.0)) < 1e-12);
        QVERIFY(std::abs(s->std - std::sqrt(3.25)) < 1e-12);
        auto bad = blobStats(std::vector<uint8_t>{1, 2, 3}, BlobView::F32);
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::Invalid);
        // f16 1.0 = 0x3c00, bf16 1.0 = 0x3f80, i32 -1.
        QCOMPARE((*blobValues(std::vector<uint8_t>{0x00, 0x3c}, BlobView::F16))[0], 1.0);
        QCOMPARE((*blobValues(std::vector<uint8_t>{0x80, 0x3f}, BlobView::BF16))[0], 1.0);
        QCOMPARE((*blobValues(std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff}, BlobView::I32))[0], -1.0);
        QCOMPARE(inferBlobView("adam_m", 3), BlobView::U8);
        QCOMPARE(inferBlobView("layer.0/momentum", 16), BlobView::F32);
        QCOMPARE(inferBlobView("opt.step", 4), BlobView::U32);
        QCOMPARE(inferBlobView("w/exp_avg_f64", 16), BlobView::F64);
        QCOMPARE(inferBlobView("w/bf16_state", 6), BlobView::BF16);
        QCOMPARE(blobViewFromName("bf16"), std::optional<BlobView>(BlobView::BF16));
    }

    /** Every strict prefix of a valid file and every single-byte corruption is a clean error or a load, never a crash. */
    void truncatedAndMutated()
    {
        const BytesPtr bytes = load(kData + "worked_example.json");
        const auto s = bytes->span();
        for (size_t n = 0; n < s.size(); ++n) {
            auto r = loadGradientCheckpoint(makeBytes(std::vector<uint8_t>(s.begin(), s.begin() + n)));
            QVERIFY(!r);
            QVERIFY(r.error().line.has_value());
        }
        const uint8_t replacements[] = {'"', '[', '{', '}', ',', '-', '1', 0xff, 0};
        for (size_t i = 0; i < s.size(); i += 7) {
            std::vector<uint8_t> v(s.begin(), s.end());
            v[i] = replacements[i % std::size(replacements)];
            auto r = loadGradientCheckpoint(makeBytes(v));
            if (!r)
                QVERIFY(!r.error().what.empty());
        }
    }

    void decodeFromBuiltTape()
    {
        // Without source bytes (a tape built in memory) errors carry no position but the same text.
        TapeBuilder b;
        b.beginMap();
        b.key("graph");
        b.beginMap();
        b.key("nodes");
        b.beginMap();
        b.end();
        b.key("edges");
        b.beginArray();
        b.end();
        b.end();
        b.key("step");
        b.integer(-3);
        b.end();
        auto r = decodeGradientCheckpoint(std::move(b).finish());
        QVERIFY(!r);
        QCOMPARE(r.error().what, std::string("invalid value: integer `-3`, expected u64"));
        QVERIFY(!r.error().line);
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"
