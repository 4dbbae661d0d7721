// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// core/graph against GradientCheckpoint files serde_json wrote (tests/interop, `ckpt-interop
// gradient-checkpoint`), both with sorted maps and with genuine random HashMap order: typed load,
// byte-identical re-save, the oracle's description (counts, edges, blobs) recomputed from our
// decoded value, a valid topological order, and the oracle's typed `read-gc` of our re-saved bytes.

#include "interop_common.h"

#include "core/graph/analysis.h"
#include "core/graph/checkpoint.h"
#include "core/io/bytes.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace ckpt;
using nlohmann::json;

namespace {

const char* const kDirs[] = {"gc", "gc-hashmap"};

/** gc::describe() of tests/interop/src/gc.rs, computed from our decoded checkpoint. */
json describe(const GradientCheckpoint& c)
{
    json state = json::object();
    for (const auto& b : c.optimizerState)
        state[b.key] = {{"len", b.bytes.size()}, {"fnv1a64", interop::hex16(interop::fnv1a64(b.bytes.data(), b.bytes.size()))}};
    uint64_t metadataEntries = 0, gradients = 0;
    bool keysMatch = true;
    for (const auto& [key, n] : c.graph.nodes) {
        metadataEntries += n.metadata.size();
        gradients += n.gradientCid ? 1 : 0;
        keysMatch = keysMatch && key == n.id;
    }
    auto edge = [](const std::pair<std::string, std::string>& e) { return json::array({e.first, e.second}); };
    const auto& edges = c.graph.edges;
    return {
        {"nodes", c.graph.nodes.size()},
        {"edges", edges.size()},
        {"first_edge", edges.empty() ? json(nullptr) : edge(edges.front())},
        {"last_edge", edges.empty() ? json(nullptr) : edge(edges.back())},
        {"nodes_with_gradient", gradients},
        {"metadata_entries", metadataEntries},
        {"keys_match_ids", keysMatch},
        {"step", c.step},
        {"loss_cid", c.lossCid ? json(*c.lossCid) : json(nullptr)},
        {"timestamp", c.timestamp},
        {"optimizer_state", state},
    };
}

} // namespace

class TestInteropGraph : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(QString::fromStdString(interop::oracleBin())), interop::oracleBin().c_str());
    }

    void checkpoints_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("file");
        for (const char* d : kDirs) {
            const QDir dir(QString::fromStdString(interop::dataDir() + "/" + d));
            const auto files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
            QVERIFY2(files.size() == 10, qPrintable(dir.path() + QStringLiteral(": expected 9 checkpoints + gc.expected.json")));
            for (const auto& f : files)
                if (f != QLatin1String("gc.expected.json"))
                    QTest::newRow(qPrintable(QLatin1String(d) + QLatin1Char('/') + f)) << QString(QLatin1String(d)) << f;
        }
    }
    void checkpoints()
    {
        QFETCH(QString, dir);
        QFETCH(QString, file);
        const std::string base = interop::dataDir() + "/" + dir.toStdString();
        const std::string path = base + "/" + file.toStdString();
        const json expectedAll = interop::readJson(base + "/gc.expected.json");
        QVERIFY(expectedAll.is_object());
        const json& expected = expectedAll[file.toStdString()];
        QVERIFY2(expected.is_object(), qPrintable(file));

        auto bytes = mapFile(path);
        QVERIFY2(bytes, bytes ? "" : bytes.error().message().c_str());
        auto loaded = loadGradientCheckpoint(*bytes);
        QVERIFY2(loaded, loaded ? "" : loaded.error().message().c_str());
        const GradientCheckpoint& c = *loaded;
        // loadGradientCheckpoint tries the fast reader first (core/graph/checkpointreader.cpp); it
        // must take every file without escapes or non-ASCII text, so that the checks below hold it,
        // and not only the general reader, to serde_json's bytes.
        const auto span = (*bytes)->span();
        const bool plain = std::all_of(span.begin(), span.end(), [](uint8_t b) { return b != '\\' && b < 0x80; });
        QVERIFY2(!plain || readGradientCheckpointFast(span), "the fast reader declined a plain crate-written file");
        QCOMPARE(c.notes.duplicateMapKeys, uint64_t(0));
        QCOMPARE(c.notes.unknownFields, uint64_t(0));

        // The oracle's description, from our decoded value.
        const json ours = describe(c);
        QVERIFY2(ours == expected, ("ours   " + ours.dump() + "\ntheirs " + expected.dump()).c_str());

        // topological_order(): every node once, every edge forwards.
        const auto order = topologicalOrder(c.graph);
        QCOMPARE(order.size(), c.graph.nodes.size());
        std::map<std::string, size_t> position;
        for (size_t i = 0; i < order.size(); ++i)
            QVERIFY2(position.emplace(order[i], i).second, ("twice in the order: " + order[i]).c_str());
        for (const auto& [key, n] : c.graph.nodes)
            QVERIFY2(position.count(key), ("missing from the order: " + key).c_str());
        for (const auto& [from, to] : c.graph.edges) {
            QVERIFY(position.count(from) && position.count(to));
            QVERIFY2(position[from] < position[to], (from + " -> " + to + " goes backwards").c_str());
        }

        // Our re-save is their bytes (serde_json pretty, maps in the stored order).
        const auto again = saveGradientCheckpoint(c);
        const auto theirs = interop::readAll(path);
        if (again != theirs) {
            size_t at = 0;
            while (at < again.size() && at < theirs.size() && again[at] == theirs[at])
                ++at;
            QFAIL(("re-save differs at byte " + std::to_string(at) + " of " + std::to_string(theirs.size())).c_str());
        }

        // ... and the crate's types read it (from a file we wrote ourselves, not a copy of theirs).
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string out = tmp.path().toStdString() + "/" + file.toStdString();
        auto w = writeFileAtomic(out, again);
        QVERIFY2(w, w ? "" : w.error().message().c_str());
        const auto run = interop::runOracle({QStringLiteral("read-gc"), QString::fromStdString(out)});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
        const json line = run.line();
        QVERIFY2(line == expected, ("read-gc: " + run.out).c_str());
    }

    /** The same graph in sorted and in HashMap order is the same checkpoint (only the order differs). */
    void hashOrderIndependence_data()
    {
        QTest::addColumn<QString>("file");
        const QDir dir(QString::fromStdString(interop::dataDir() + "/gc"));
        for (const auto& f : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
            if (f != QLatin1String("gc.expected.json") && f != QLatin1String("graph_10000.json") && f != QLatin1String("large_blob.json"))
                QTest::newRow(qPrintable(f)) << f;
    }
    void hashOrderIndependence()
    {
        QFETCH(QString, file);
        auto load = [&](const char* d) {
            auto bytes = mapFile(interop::dataDir() + "/" + d + "/" + file.toStdString());
            return bytes ? loadGradientCheckpoint(*bytes) : Result<GradientCheckpoint>(std::unexpected(bytes.error()));
        };
        auto a = load("gc");
        auto b = load("gc-hashmap");
        QVERIFY(a && b);
        QCOMPARE(a->step, b->step);
        QCOMPARE(a->timestamp, b->timestamp);
        QCOMPARE(a->lossCid, b->lossCid);
        auto sortedNodes = [](const GradientCheckpoint& c) {
            std::map<std::string, std::tuple<std::string, std::string, std::vector<std::string>, std::optional<std::string>,
                std::optional<std::string>, std::set<std::pair<std::string, std::string>>>>
                m;
            for (const auto& [k, n] : c.graph.nodes)
                m[k] = {n.id, n.op, n.inputCids, n.outputCid, n.gradientCid, {n.metadata.begin(), n.metadata.end()}};
            return m;
        };
        QVERIFY(sortedNodes(*a) == sortedNodes(*b));
        std::multiset<std::pair<std::string, std::string>> ea(a->graph.edges.begin(), a->graph.edges.end()),
            eb(b->graph.edges.begin(), b->graph.edges.end());
        QVERIFY(ea == eb);
        std::map<std::string, std::vector<uint8_t>> ba, bb;
        for (const auto& x : a->optimizerState)
            ba[x.key] = x.bytes;
        for (const auto& x : b->optimizerState)
            bb[x.key] = x.bytes;
        QVERIFY(ba == bb);
    }
};

QTEST_GUILESS_MAIN(TestInteropGraph)
#include "tst_interop_graph.moc"
