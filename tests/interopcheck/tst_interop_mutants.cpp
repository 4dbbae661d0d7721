// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The differential test of issue 10: our verdict (`ckpt validate` = openRecord + validateRecord)
// must equal the real typed decoders' (`ckpt-interop verdict`: rmp-serde / serde_json / bincode into
// the Rust mirror types, plus the checks Burn/Ruda make while loading) on every mutant.
//
// Mutants start from the genuine records rmp-serde wrote (tests/interop, 9 scenarios × 3
// precisions) and change one thing at the structure level in a value whose Rust type the record
// kind fixes: drop, add, rename or duplicate a field of the envelope, metadata, TensorData,
// ParamSerde, adaptor enums, optimizer states, pending gradients or parameter contract; change a
// tuple's arity; change a scalar's type or a dtype; truncate a sequence or a payload; duplicate a
// pending gradient's id. A module's own fields, the caller state and the scheduler scalar are not
// mutated: their Rust types are the user's, not declared by the file. Each mutant is written in all
// six recorders (bincode with the scenario's exact layout where the mutated structure still fits
// it, else with the layout of the mutated tape itself) and judged by both sides.

#include "interop_common.h"

#include "core/codec/msgpack.h"
#include "core/codec/schema.h"
#include "core/edit/edit.h"
#include "core/io/bytes.h"
#include "core/record/record.h"
#include "core/record/recorder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace ckpt;

namespace {

constexpr std::array<Recorder, 6> kRecorders{Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson,
    Recorder::JsonGz, Recorder::Bin, Recorder::BinGz};
constexpr std::array<Precision, 3> kPrecisions{Precision::Full, Precision::Half, Precision::Double};
const std::array<std::string, 9> kScenarios{"adam", "adamw_amsgrad", "sgd", "exponential", "noam", "linear", "step_fresh", "spec_example", "model_state"};
/**
 * Mutants per scenario and precision (each written in six recorders): 27 × 36 × 6 ≈ 5100 files in a
 * few seconds. CKPT_MUTANTS_PER_FILE=N takes more (N at least the site count: every site once).
 */
size_t mutantsPerFile()
{
    const QByteArray env = qgetenv("CKPT_MUTANTS_PER_FILE");
    return env.isEmpty() ? 36 : std::max<size_t>(1, env.toULongLong());
}

bool isBincode(Recorder r) { return r == Recorder::Bin || r == Recorder::BinGz; }

/** One structural change at one node. */
struct Mutation {
    enum Op { DropKey, RenameKey, DuplicateKey, AddKey, DropLast, AppendNil, Replace, TruncateBin };
    Op op;
    uint32_t node;        ///< the map / array / scalar changed
    uint32_t key = 0;     ///< DropKey/RenameKey/DuplicateKey: the key node
    std::function<void(TapeBuilder&)> value; ///< Replace: writes the new value
    std::string what;     ///< for messages
};

/** Copies \a node of \a t into \a b with \a m applied. */
void copyMutated(TapeBuilder& b, const Tape& t, uint32_t node, const Mutation& m)
{
    const Node& n = t[node];
    if (node == m.node && m.op == Mutation::Replace) {
        m.value(b);
        return;
    }
    if (node == m.node && m.op == Mutation::TruncateBin) {
        auto bytes = t.bin(node);
        b.bin(bytes.first(bytes.size() - 1), 0, n.flags & FromJsonArray);
        return;
    }
    if (n.kind == Kind::Map) {
        b.beginMap(n.srcOffset);
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            if (node == m.node && k == m.key && m.op == Mutation::DropKey)
                return;
            if (node == m.node && k == m.key && m.op == Mutation::RenameKey)
                b.key(std::string(t.str(k)) + "_x");
            else
                b.copy(t, k);
            copyMutated(b, t, v, m);
            if (node == m.node && k == m.key && m.op == Mutation::DuplicateKey) {
                b.copy(t, k);
                copyMutated(b, t, v, m);
            }
        });
        if (node == m.node && m.op == Mutation::AddKey) {
            b.key("zz_extra");
            b.nil();
        }
        b.end();
        return;
    }
    if (n.kind == Kind::Array) {
        b.beginArray(n.srcOffset);
        uint64_t i = 0;
        t.forEachChild(node, [&](uint32_t c) {
            if (!(node == m.node && m.op == Mutation::DropLast && i == n.count - 1))
                copyMutated(b, t, c, m);
            ++i;
        });
        if (node == m.node && m.op == Mutation::AppendNil)
            b.nil();
        b.end();
        return;
    }
    b.copy(t, node);
}

/** Every mutation of the typed parts of a genuine record. */
class MutationSites {
public:
    explicit MutationSites(const Record& r)
        : m_r(r)
        , m_t(r.tape)
    {
        m_path.resize(m_t.nodes.size());
        label(0, "");
        mapOps(0);
        if (auto meta = m_t.find(0, "metadata")) {
            mapOps(*meta, false);
            m_t.forEachEntry(*meta, [&](uint32_t, uint32_t v) {
                replace(v, "u64 7", [](TapeBuilder& b) { b.uinteger(7); });
                replace(v, "the same text as bytes", [text = std::string(m_t.str(v))](TapeBuilder& b) {
                    b.bin(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
                });
            });
        }
        if (auto phantom = m_t.find(0, "_b")) {
            replace(*phantom, "nil", [](TapeBuilder& b) { b.nil(); });
            replace(*phantom, "[1]", [](TapeBuilder& b) {
                b.beginArray();
                b.uinteger(1);
                b.end();
            });
        }
        arrayOps(r.itemNode);
        for (const auto& p : r.params) {
            const uint32_t ps = parentOf(r.tensors[p.tensor].node);
            mapOps(ps);
            if (auto id = m_t.find(ps, "id"))
                replace(*id, "u64 7", [](TapeBuilder& b) { b.uinteger(7); });
        }
        for (const auto& t : r.tensors)
            tensorOps(t.node);
        for (const auto& oe : r.optimizer)
            optimizerOps(oe.node);
        if (r.optimizerNode && m_t.isMap(*r.optimizerNode) && m_t[*r.optimizerNode].count > 0) {
            const uint32_t first = *r.optimizerNode + 1;
            add({Mutation::DuplicateKey, *r.optimizerNode, first, {}, "duplicate optimizer entry " + std::string(m_t.str(first))});
        }
        if (r.gradientsNode)
            gradientOps(*r.gradientsNode);
        if (r.kind == RecordKind::ModelStateTrainingRecord) {
            const uint32_t version = r.itemNode + 1;
            replace(version, "u32 2", [](TapeBuilder& b) { b.uinteger(2); });
            replace(version, "string", [](TapeBuilder& b) { b.str("1"); });
            const uint32_t contract = m_t[m_t[version].end].end;
            mapOps(contract);
            if (auto entries = m_t.find(contract, "entries")) {
                arrayOps(*entries);
                m_t.forEachChild(*entries, [&](uint32_t e) {
                    arrayOps(e);
                    const uint32_t shape = m_t[e + 1].end;
                    dtypeOps(m_t[shape].end);
                });
            }
        }
    }

    const std::vector<Mutation>& all() const { return m_all; }
    const std::string& pathOf(uint32_t node) const { return m_path[node]; }

private:
    void label(uint32_t node, const std::string& path)
    {
        m_path[node] = path;
        if (m_t.isMap(node)) {
            m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
                m_parent[v] = node;
                m_path[k] = path;
                label(v, appendKeyToPath(path, m_t.keyText(k)));
            });
        } else if (m_t.isArray(node)) {
            uint64_t i = 0;
            m_t.forEachChild(node, [&](uint32_t c) {
                m_parent[c] = node;
                label(c, appendIndexToPath(path, i++));
            });
        }
    }
    uint32_t parentOf(uint32_t node) const { return m_parent.at(node); }

    void add(Mutation m)
    {
        m.what = (m_path[m.node].empty() ? std::string("envelope") : m_path[m.node]) + ": " + m.what;
        m_all.push_back(std::move(m));
    }
    void replace(uint32_t node, const std::string& what, std::function<void(TapeBuilder&)> f)
    {
        add({Mutation::Replace, node, 0, std::move(f), std::string(kindName(m_t[node].kind)) + " -> " + what});
    }
    void mapOps(uint32_t map, bool withDuplicates = true)
    {
        if (!m_t.isMap(map))
            return;
        m_t.forEachEntry(map, [&](uint32_t k, uint32_t) {
            const std::string key(m_t.keyText(k));
            add({Mutation::DropKey, map, k, {}, "drop field " + key});
            add({Mutation::RenameKey, map, k, {}, "rename field " + key});
            if (withDuplicates)
                add({Mutation::DuplicateKey, map, k, {}, "duplicate field " + key});
        });
        add({Mutation::AddKey, map, 0, {}, "add field zz_extra"});
    }
    void arrayOps(uint32_t array)
    {
        if (!m_t.isArray(array))
            return;
        if (m_t[array].count > 0)
            add({Mutation::DropLast, array, 0, {}, "drop the last element (arity " + std::to_string(m_t[array].count - 1) + ")"});
        add({Mutation::AppendNil, array, 0, {}, "append nil (arity " + std::to_string(m_t[array].count + 1) + ")"});
    }
    void dtypeOps(uint32_t node)
    {
        for (const char* d : {"F64", "F32", "F16", "BF16", "Flex32", "I64", "I32", "I16", "U8", "Bool", "X9"})
            if (!(m_t.isStr(node) && m_t.str(node) == d))
                replace(node, std::string("dtype ") + d, [d](TapeBuilder& b) { b.str(d); });
        replace(node, "dtype {Bool: Native}", [](TapeBuilder& b) {
            b.beginMap();
            b.key("Bool");
            b.str("Native");
            b.end();
        });
        replace(node, "u64 1", [](TapeBuilder& b) { b.uinteger(1); });
        replace(node, "{F32: nil}", [](TapeBuilder& b) {
            b.beginMap();
            b.key("F32");
            b.nil();
            b.end();
        });
    }
    void tensorOps(uint32_t td)
    {
        mapOps(td);
        if (auto bytes = m_t.find(td, "bytes")) {
            if (m_t[*bytes].kind == Kind::Bin && m_t[*bytes].count > 0)
                add({Mutation::TruncateBin, *bytes, 0, {}, "drop the payload's last byte"});
            replace(*bytes, "u64 7", [](TapeBuilder& b) { b.uinteger(7); });
            if (m_t[*bytes].kind == Kind::Bin)
                replace(*bytes, "an array of u8", [payload = m_t.bin(*bytes)](TapeBuilder& b) {
                    b.beginArray();
                    for (uint8_t v : payload)
                        b.uinteger(v);
                    b.end();
                });
        }
        if (auto shape = m_t.find(td, "shape")) {
            arrayOps(*shape);
            replace(*shape, "u64 2", [](TapeBuilder& b) { b.uinteger(2); });
            m_t.forEachChild(*shape, [&](uint32_t d) {
                replace(d, "i64 -1", [](TapeBuilder& b) { b.integer(-1); });
                replace(d, "string", [](TapeBuilder& b) { b.str("2"); });
                replace(d, "f64", [v = m_t.u64(d)](TapeBuilder& b) { b.f64(double(v)); });
            });
        }
        if (auto dt = m_t.find(td, "dtype"))
            dtypeOps(*dt);
    }
    void optimizerOps(uint32_t entry)
    {
        mapOps(entry);
        if (!m_t.isMap(entry) || m_t[entry].count != 1)
            return;
        const uint32_t ranked = m_t[entry + 1].end;
        mapOps(ranked);
        if (!m_t.isMap(ranked) || m_t[ranked].count != 1)
            return;
        replaceKey(ranked, "Rank9");
        const uint32_t state = m_t[ranked + 1].end;
        if (m_t.isArray(state)) {
            arrayOps(state);
            return;
        }
        mapOps(state);
        if (auto mom = m_t.find(state, "momentum"); mom && m_t.isMap(*mom)) {
            mapOps(*mom);
            if (auto time = m_t.find(*mom, "time")) {
                replace(*time, "i64 -1", [](TapeBuilder& b) { b.integer(-1); });
                replace(*time, "string", [](TapeBuilder& b) { b.str("1"); });
                replace(*time, "f64", [](TapeBuilder& b) { b.f64(1.5); });
            }
        }
    }
    /// A one-entry enum map whose variant name is changed.
    void replaceKey(uint32_t map, const std::string& name)
    {
        const uint32_t value = m_t[map + 1].end;
        add({Mutation::Replace, map, 0, [this, map, value, name](TapeBuilder& b) {
                 b.beginMap();
                 b.key(name);
                 b.copy(m_t, value);
                 b.end();
             },
            "variant " + std::string(m_t.keyText(map + 1)) + " -> " + name});
    }
    void gradientOps(uint32_t record)
    {
        mapOps(record);
        auto list = m_t.find(record, "gradients");
        if (!list || !m_t.isArray(*list))
            return;
        arrayOps(*list);
        std::vector<uint32_t> entries;
        m_t.forEachChild(*list, [&](uint32_t e) { entries.push_back(e); });
        if (entries.size() >= 2)
            replace(entries[1] + 1, "the id of gradients[0] (duplicate id)", [v = m_t.u64(entries[0] + 1)](TapeBuilder& b) { b.uinteger(v); });
        for (uint32_t e : entries) {
            arrayOps(e);
            replace(e + 1, "i64 -1", [](TapeBuilder& b) { b.integer(-1); });
            replace(e + 1, "string", [](TapeBuilder& b) { b.str("42"); });
            dtypeOps(m_t[e + 1].end);
        }
    }

    const Record& m_r;
    const Tape& m_t;
    std::vector<std::string> m_path;
    std::map<uint32_t, uint32_t> m_parent;
    std::vector<Mutation> m_all;
};

struct Mutant {
    std::string file;
    std::string scenario;
    std::string description;
    std::string schemaFile; ///< bincode: the scenario's exact layout
};

class TestInteropMutants : public QObject {
    Q_OBJECT

private slots:
    void verdictsAgreeWithTheRealDecoders()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::vector<Mutant> mutants;
        size_t bincodeFallbacks = 0;
        for (const auto& s : kScenarios) {
            for (Precision p : kPrecisions) {
                const std::string stem = s + "-" + std::string(precisionName(p));
                const std::string genuine = interop::dataDir() + "/" + stem + ".mpk";
                auto rec = openRecord(genuine);
                QVERIFY2(rec, rec ? "" : rec.error().message().c_str());
                // The exact bincode layout: what the genuine .bin settles with its MessagePack twin
                // (adamw_amsgrad's u8 needs more than a twin can say: its bincode mutants are left out).
                std::shared_ptr<const BincodeSchema> layout;
                std::string schemaFile;
                if (s != "adamw_amsgrad") {
                    OpenOptions o;
                    o.schemaFrom = genuine;
                    auto bin = openRecord(interop::dataDir() + "/" + stem + ".bin", o);
                    QVERIFY2(bin && (*bin)->bincodeSchema, bin ? "no settled layout" : bin.error().message().c_str());
                    layout = (*bin)->bincodeSchema;
                    schemaFile = dir.path().toStdString() + "/" + stem + ".schema.json";
                    const std::string text = layout->toJson();
                    QVERIFY(writeFileAtomic(schemaFile, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
                }
                MutationSites sites(**rec);
                const auto& all = sites.all();
                const size_t perFile = std::min(mutantsPerFile(), all.size());
                QVERIFY2(all.size() >= 36, stem.c_str());
                // A fixed stride through every site kind; index 0 is the unmutated control.
                for (size_t i = 0; i <= perFile; ++i) {
                    Tape tape;
                    std::string what = "unmutated";
                    if (i == 0) {
                        tape = (*rec)->tape;
                    } else {
                        const Mutation& m = all[(i - 1) * all.size() / perFile];
                        TapeBuilder b((*rec)->tape.source);
                        copyMutated(b, (*rec)->tape, 0, m);
                        tape = std::move(b).finish();
                        what = m.what;
                    }
                    for (Recorder r : kRecorders) {
                        if (isBincode(r) && !layout)
                            continue;
                        auto bytes = encodeRecord(tape, r, isBincode(r) ? layout.get() : nullptr);
                        if (!bytes && isBincode(r)) {
                            ++bincodeFallbacks; // the mutated structure no longer fits the layout: write its own
                            bytes = encodeRecord(tape, r, nullptr);
                        }
                        if (!bytes)
                            continue; // e.g. a bincode layout cannot be derived from a mutated tape
                        const std::string file = dir.path().toStdString() + "/" + stem + "-m" + std::to_string(i) + "." + std::string(recorderExtension(r));
                        // Scratch files: a plain write (an fsync per mutant would dominate the run time).
                        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes->data()), std::streamsize(bytes->size()));
                        mutants.push_back({file, s, stem + " " + std::string(recorderName(r)) + " #" + std::to_string(i) + " " + what,
                            isBincode(r) ? schemaFile : std::string()});
                    }
                }
            }
        }

        // Their verdicts: one oracle process per scenario.
        std::map<std::string, bool> theirs;
        std::map<std::string, std::string> theirError;
        for (const auto& s : kScenarios) {
            QStringList args{QStringLiteral("verdict"), QStringLiteral("--scenario"), QString::fromStdString(s)};
            for (const auto& m : mutants)
                if (m.scenario == s)
                    args << QString::fromStdString(m.file);
            const auto run = interop::runOracle(args, 120000);
            QVERIFY2(run.exitCode == 0, run.describe().c_str());
            std::istringstream lines(run.out);
            for (std::string line; std::getline(lines, line);) {
                auto j = nlohmann::json::parse(line, nullptr, false);
                QVERIFY2(j.is_object(), line.c_str());
                theirs[j["file"].get<std::string>()] = j["accepted"].get<bool>();
                if (j["error"].is_string())
                    theirError[j["file"].get<std::string>()] = j["error"].get<std::string>();
            }
        }

        // Ours: what `ckpt validate` decides.
        size_t disagreements = 0, accepted = 0, controls = 0;
        std::string report;
        for (const auto& m : mutants) {
            QVERIFY2(theirs.contains(m.file), m.file.c_str());
            OpenOptions o;
            o.schemaFile = m.schemaFile;
            auto rec = openRecord(m.file, o);
            std::string ours = rec ? std::string() : rec.error().message();
            if (rec)
                if (auto v = validateRecord(**rec); !v)
                    ours = v.error().message();
            const bool oursAccepted = ours.empty();
            accepted += oursAccepted;
            if (m.description.find(" #0 unmutated") != std::string::npos) {
                ++controls;
                QVERIFY2(oursAccepted && theirs[m.file], (m.description + ": " + ours + " / " + theirError[m.file]).c_str());
            }
            if (oursAccepted != theirs[m.file]) {
                ++disagreements;
                report += "\n  " + m.description + ": ours " + (oursAccepted ? "accepts" : "rejects (" + ours + ")") + ", theirs "
                        + (theirs[m.file] ? "accepts" : "rejects (" + theirError[m.file] + ")");
            }
        }
        qInfo("%zu mutants (%zu unmutated controls, %zu bincode mutants written with their own layout), %zu accepted by both sides' verdict, %zu disagreements",
            mutants.size(), controls, bincodeFallbacks, accepted, disagreements);
        QVERIFY2(mutants.size() >= 3000, "the corpus must hold at least a few thousand mutants");
        QVERIFY2(accepted > 100 && mutants.size() - accepted > 1000, "the corpus must hold both accepted and rejected mutants");
        if (disagreements) {
            // QtTest shortens long messages: the whole list goes to a file beside the test's working directory.
            std::ofstream("mutant-disagreements.txt") << report << "\n";
            qWarning("every disagreement: %s/mutant-disagreements.txt", qPrintable(QDir::currentPath()));
        }
        QVERIFY2(disagreements == 0, ("verdicts differ from the real decoders':" + report.substr(0, 3000)).c_str());
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestInteropMutants)
#include "tst_interop_mutants.moc"
