// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The fast GradientCheckpoint reader (core/graph/checkpointreader.cpp) against the general one
// (readJson + the typed decoder, which tst_graph checks against serde_json): whenever the fast path
// returns a value it must be the general reader's value, notes included; whenever the general reader
// rejects, the fast path must decline. Checked on the hand-made serde cases, on generated graphs that
// take every branch (large maps with repeated keys, blobs, null options, compact and pretty), and on
// every truncation and many single-byte corruptions of a valid file.
#include "core/codec/json.h"
#include "core/graph/analysis.h"
#include "core/graph/checkpoint.h"

#include <QTest>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <random>

using namespace ckpt;

// The largest single allocation while g_watchAllocations is set: the fast reader reserves ahead,
// and no reservation may be larger than the input justifies (largestReservation()).
namespace {
std::atomic<bool> g_watchAllocations{false};
std::atomic<size_t> g_largestAllocation{0};
} // namespace

void* operator new(size_t n)
{
    if (g_watchAllocations.load(std::memory_order_relaxed) && n > g_largestAllocation.load(std::memory_order_relaxed))
        g_largestAllocation.store(n, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

const std::string kGraphData = std::string(CKPT_TEST_DATA) + "/graph/";

Result<GradientCheckpoint> general(std::span<const uint8_t> text)
{
    JsonReadOptions options;
    options.maxDepth = UINT32_MAX;
    auto tape = readJson(makeBytes(std::vector<uint8_t>(text.begin(), text.end())), options);
    if (!tape)
        return std::unexpected(tape.error());
    return decodeGradientCheckpoint(*tape);
}

/** Field-by-field equality, with a readable first difference. */
std::string difference(const GradientCheckpoint& a, const GradientCheckpoint& b)
{
    if (a.step != b.step || a.timestamp != b.timestamp || a.lossCid != b.lossCid)
        return "step, timestamp or loss_cid";
    if (a.graph.nodes.size() != b.graph.nodes.size())
        return "node count " + std::to_string(a.graph.nodes.size()) + " vs " + std::to_string(b.graph.nodes.size());
    for (size_t i = 0; i < a.graph.nodes.size(); ++i) {
        const auto& [ka, na] = a.graph.nodes[i];
        const auto& [kb, nb] = b.graph.nodes[i];
        if (ka != kb || na.id != nb.id || na.op != nb.op || na.inputCids != nb.inputCids || na.outputCid != nb.outputCid
            || na.gradientCid != nb.gradientCid || na.metadata != nb.metadata)
            return "node " + std::to_string(i) + " (" + ka + " vs " + kb + ")";
    }
    if (a.graph.edges != b.graph.edges)
        return "edges";
    if (a.optimizerState.size() != b.optimizerState.size())
        return "blob count";
    for (size_t i = 0; i < a.optimizerState.size(); ++i)
        if (a.optimizerState[i].key != b.optimizerState[i].key || a.optimizerState[i].bytes != b.optimizerState[i].bytes)
            return "blob " + a.optimizerState[i].key;
    if (a.notes.duplicateMapKeys != b.notes.duplicateMapKeys || a.notes.unknownFields != b.notes.unknownFields
        || a.notes.nodeKeyIdMismatches != b.notes.nodeKeyIdMismatches)
        return "notes";
    return {};
}

/** The property: fast declines or agrees; if the general reader rejects, fast declines. Returns whether fast took it. */
bool agrees(std::span<const uint8_t> text, const char* what)
{
    const auto fast = readGradientCheckpointFast(text);
    const auto slow = general(text);
    if (!slow) {
        if (fast)
            qWarning("%s: the fast reader accepted what the general reader rejects: %s", what, slow.error().message().c_str());
        return fast ? (QTest::qFail("fast accepted a rejected input", __FILE__, __LINE__), false) : false;
    }
    if (!fast)
        return false;
    const std::string diff = difference(*fast, *slow);
    if (!diff.empty())
        QTest::qFail(("fast and general readers differ in " + diff + " (" + what + ")").c_str(), __FILE__, __LINE__);
    return true;
}

std::vector<uint8_t> read(const std::string& path)
{
    auto b = mapFile(path);
    if (!b)
        qFatal("cannot read %s", path.c_str());
    return std::vector<uint8_t>((*b)->data(), (*b)->data() + (*b)->size());
}

/** A checkpoint that takes every branch of the fast reader: > 16 entries with repeats in each map kind. */
GradientCheckpoint generated(uint32_t seed, size_t nodes)
{
    std::mt19937 rng(seed);
    GradientCheckpoint c;
    c.step = rng();
    c.timestamp = (uint64_t(rng()) << 32) | rng();
    if (seed % 2)
        c.lossCid = "cid-loss";
    for (size_t i = 0; i < nodes; ++i) {
        ComputationNode n;
        n.id = "node-" + std::to_string(i) + std::string(rng() % 40, 'x');
        n.op = i % 3 ? "matmul" : "";
        for (uint32_t k = 0; k < rng() % 4; ++k)
            n.inputCids.push_back("cid-" + std::to_string(rng() % (i + 1)));
        if (rng() % 3)
            n.outputCid = "cid-" + std::to_string(i);
        if (rng() % 2)
            n.gradientCid = "grad-" + std::to_string(i);
        const size_t meta = i == 1 ? 40 : rng() % 3;
        for (size_t m = 0; m < meta; ++m)
            n.metadata.emplace_back("k" + std::to_string(m), std::string(rng() % 20, '~'));
        // a node whose key is not its id
        const std::string key = i == 2 ? "other-key" : n.id;
        c.graph.nodes.emplace_back(key, std::move(n));
        if (i > 0)
            c.graph.edges.emplace_back(c.graph.nodes[rng() % i].first, key);
    }
    for (size_t b = 0; b < 20; ++b) {
        std::vector<uint8_t> bytes(rng() % 9);
        for (auto& x : bytes)
            x = uint8_t(rng());
        c.optimizerState.push_back(OptimizerBlob{"state/" + std::to_string(b), std::move(bytes)});
    }
    return c;
}

/**
 * Inserts repeated map keys into compact JSON: an earlier entry for the first node's key (id "x",
 * with a repeated metadata key), an earlier entry for a blob key. The later entries win.
 */
std::string withRepeats(std::string text, const std::string& firstKey)
{
    auto insertAfter = [&](const std::string& anchor, const std::string& what) {
        const auto at = text.find(anchor);
        if (at != std::string::npos)
            text.insert(at + anchor.size(), what);
    };
    insertAfter("\"nodes\":{", "\"" + firstKey + "\":{\"id\":\"x\",\"op\":\"first\",\"input_cids\":[],\"metadata\":{\"a\":\"1\",\"a\":\"2\"}},");
    insertAfter("\"optimizer_state\":{", "\"state/3\":[1,2,3],");
    return text;
}

std::span<const uint8_t> bytesOf(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

} // namespace

class TestGraphFast : public QObject {
    Q_OBJECT
private slots:
    void serdeCases()
    {
        int taken = 0;
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kGraphData + "cases")) {
            if (entry.path().extension() != ".json")
                continue;
            const auto text = read(entry.path().string());
            const bool tookIt = agrees(text, entry.path().filename().c_str());
            if (QTest::currentTestFailed())
                return;
            if (entry.path().filename().string().starts_with("reject_"))
                QVERIFY2(!tookIt, entry.path().filename().c_str());
            taken += tookIt;
            ++files;
        }
        QVERIFY(files > 60);
        // The plain cases must go the fast way, or the speed is silently gone.
        for (const char* plain : {"cases/accept_base.json", "cases/accept_compact.json", "cases/accept_duplicate_map_key.json",
                 "cases/accept_missing_options.json", "cases/accept_u64_extremes.json", "cases/accept_key_not_id.json",
                 "cases/accept_whitespace.json", "worked_example.json", "crate_test_mirror.json", "empty.json"}) {
            QVERIFY2(agrees(read(kGraphData + plain), plain), plain);
            if (QTest::currentTestFailed())
                return;
        }
        // Escapes, unknown fields and structs as arrays are the general reader's.
        for (const char* general : {"cases/accept_escapes.json", "cases/accept_unknown_fields.json", "cases/accept_struct_as_array.json"})
            QVERIFY2(!readGradientCheckpointFast(read(kGraphData + general)), general);
        QVERIFY(taken >= 5);
    }

    /**
     * Every file of tests/data (JSON of every kind: records, schemas, graphs) and every genuine Burn
     * fixture (records, configs, MessagePack): the fast reader declines or agrees with the
     * general one on each, and declines wherever the general one rejects; the plain accepted
     * checkpoints among them go the fast way.
     */
    void everyTestFileAndFixture()
    {
        int files = 0, taken = 0;
        for (const std::string root : {std::string(CKPT_TEST_DATA), std::string(CKPT_FIXTURES)}) {
            QVERIFY2(std::filesystem::is_directory(root), root.c_str());
            for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
                if (!entry.is_regular_file())
                    continue;
                const auto text = read(entry.path().string());
                taken += agrees(text, entry.path().c_str());
                if (QTest::currentTestFailed())
                    return;
                ++files;
            }
        }
        qInfo("%d files, %d read by the fast reader", files, taken);
        QVERIFY(files > 100);
        QVERIFY(taken >= 10);
    }

    void generatedGraphs()
    {
        for (uint32_t seed = 1; seed <= 6; ++seed) {
            const GradientCheckpoint c = generated(seed, seed * 40);
            const auto pretty = saveGradientCheckpoint(c);
            QVERIFY(agrees(pretty, "pretty"));
            const Tape t = gradientCheckpointToTape(c);
            Sink sink;
            writeJson(t, t.root(), JsonStyle::Compact, sink);
            const std::string compact(sink.buffer().begin(), sink.buffer().end());
            QVERIFY(agrees(bytesOf(compact), "compact"));
            const std::string repeated = withRepeats(compact, c.graph.nodes[0].first);
            QVERIFY(repeated != compact);
            QVERIFY(agrees(bytesOf(repeated), "repeated keys"));
            const auto fast = readGradientCheckpointFast(bytesOf(repeated));
            QVERIFY(fast->notes.duplicateMapKeys >= 3);
            QCOMPARE(fast->notes.nodeKeyIdMismatches, uint64_t(1)); // other-key; the later node-0 entry won
            QCOMPARE(topologicalOrder(fast->graph), topologicalOrder(general(bytesOf(repeated))->graph));
            if (QTest::currentTestFailed())
                return;
        }
    }

    /**
     * 70 tiny edges, then one long string: the edges' rate of bytes per item says the rest of the
     * input is millions of edges. The reservation must stay within what the unread bytes can hold.
     * (Checked that it can fail: the rate-only bound allocated 6.7x the input here.)
     */
    void largestReservation()
    {
        std::string text = "{\"graph\":{\"edges\":[";
        for (int i = 0; i < 70; ++i)
            text += std::string(i ? "," : "") + "[\"a\",\"b\"]";
        const std::string longId(4 << 20, 'x');
        text += "],\"nodes\":{\"a\":{\"id\":\"" + longId + "\",\"op\":\"\",\"input_cids\":[],\"metadata\":{}}}},"
                "\"step\":1,\"loss_cid\":null,\"optimizer_state\":{},\"timestamp\":2}";
        g_largestAllocation = 0;
        g_watchAllocations = true;
        const auto fast = readGradientCheckpointFast(bytesOf(text));
        g_watchAllocations = false;
        QVERIFY(fast);
        QCOMPARE(fast->graph.edges.size(), size_t(70));
        QVERIFY(agrees(bytesOf(text), "long string after tiny edges"));
        QVERIFY2(g_largestAllocation <= text.size() + text.size() / 4,
                 (std::to_string(g_largestAllocation) + " bytes allocated at once for " + std::to_string(text.size()) + " bytes of input").c_str());
    }

    /** Every prefix and byte corruptions of valid files: never accepted where the general reader rejects. */
    void truncatedAndMutated()
    {
        for (const char* file : {"worked_example.json", "cases/accept_compact.json"}) {
            const auto s = read(kGraphData + file);
            for (size_t n = 0; n < s.size(); ++n) {
                agrees(std::span<const uint8_t>(s.data(), n), "prefix");
                if (QTest::currentTestFailed())
                    return;
            }
            const uint8_t replacements[] = {'"', '[', '{', '}', ',', ':', '-', '0', '1', '.', 'e', ' ', '\\', 'n', 0x7f, 0x80, 0xff, 0};
            for (size_t i = 0; i < s.size(); ++i)
                for (uint8_t r : replacements) {
                    std::vector<uint8_t> v = s;
                    v[i] = r;
                    agrees(v, "mutation");
                    if (QTest::currentTestFailed())
                        return;
                }
        }
    }
};

QTEST_GUILESS_MAIN(TestGraphFast)
#include "tst_graph_fast.moc"
