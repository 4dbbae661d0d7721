// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The record engine against the real serde crates (tests/interop, `ckpt-interop`):
//  - we read theirs: every TrainingRecord file rmp-serde / serde_json / bincode wrote, value by value
//    against <scenario>.expected.json (tensors in file order with exact sequential f64 sums, metadata,
//    caller state, scheduler, entry counts);
//  - bincode without a schema must not crash and must be honest (an error, a partial index, or a full
//    index that agrees with the expectation);
//  - our re-save equals their bytes (payload after gunzip for the .gz recorders);
//  - they read ours: converted files decode with the typed Rust mirror, and the oracle's summary agrees.

#include "interop_common.h"

#include "core/codec/schema.h"
#include "core/edit/edit.h"
#include "core/io/bytes.h"
#include "core/io/gzip.h"
#include "core/open/formats.h"
#include "core/record/bincoderecord.h"
#include "core/record/record.h"
#include "core/model/recorder.h"
#include "core/report/recordjson.h"

#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <cmath>
#include <map>
#include <set>

using namespace ckpt;
using interop::jsonEqual;
using interop::payloadOf;
using interop::tapeToJson;
using nlohmann::json;

namespace {

constexpr std::array<Recorder, 6> kRecorders{Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson,
    Recorder::JsonGz, Recorder::Bin, Recorder::BinGz};
constexpr std::array<Precision, 3> kPrecisions{Precision::Full, Precision::Half, Precision::Double};
const std::array<std::string, 12> kScenarios{"adam", "adamw_amsgrad", "sgd", "exponential", "noam", "linear", "step_fresh", "spec_example",
    "utf8_map", "module_array", "map_keys", "tensor_ranks"};

/** What the scenario definitions in tests/interop/src/scenarios.rs build (not derivable from the tensor list:
 *  an SGD entry without momentum has no tensor). */
struct ScenarioCounts {
    size_t params;
    size_t optimizerEntries;
    std::vector<std::string> gradientNativeDTypes; ///< in file order (sorted by id where Ruda sorts)
    std::set<std::string> optimizer;                ///< OptimizerEntry::optimizer (SGD with momentum has Muon's shape)
    bool amsgrad;
    std::string schedulerType;                      ///< the scheduler record's Rust type (SchemaFromRecordOptions)
};
const std::map<std::string, ScenarioCounts>& scenarioCounts()
{
    static const std::map<std::string, ScenarioCounts> m{
        {"adam", {5, 4, {"BF16", "F32", "F32"}, {"Adam/AdamW"}, false, "i32"}},
        {"adamw_amsgrad", {5, 3, {"F32", "F16"}, {"Adam/AdamW"}, true, "usize"}},
        {"sgd", {2, 2, {}, {"SGD", "SGD/Muon"}, false, "unit"}},
        {"exponential", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "f64"}},
        {"noam", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "usize"}},
        {"linear", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "usize"}},
        {"step_fresh", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "i32"}},
        {"spec_example", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "i32"}},
        {"utf8_map", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "usize"}},
        {"module_array", {5, 4, {"F32"}, {"Adam/AdamW"}, false, "usize"}},
        {"map_keys", {1, 1, {"F32"}, {"Adam/AdamW"}, false, "i32"}},
        {"tensor_ranks", {7, 5, {"F32", "F32", "F32", "F32", "F32"}, {"Adam/AdamW"}, false, "usize"}},
    };
    return m;
}

std::string fileName(const std::string& scenario, Precision p, Recorder r)
{
    return scenario + "-" + std::string(precisionName(p)) + "." + std::string(recorderExtension(r));
}
std::string dataPath(const std::string& name) { return interop::dataDir() + "/" + name; }

bool isBincode(Recorder r) { return r == Recorder::Bin || r == Recorder::BinGz; }

/** Sequential f64 sums over the finite values, as ckpt-interop's summary computes them. */
struct Summary {
    double sum = 0;
    double sq = 0;
    uint64_t nan = 0, posInf = 0, negInf = 0;
    void add(double v)
    {
        if (std::isnan(v))
            ++nan;
        else if (std::isinf(v))
            ++(v > 0 ? posInf : negInf);
        else {
            sum += v;
            sq += v * v;
        }
    }
    double l2() const { return std::sqrt(sq); }
};

std::string shapeJson(const std::vector<uint64_t>& s)
{
    json a = json::array();
    for (auto d : s)
        a.push_back(d);
    return a.dump();
}

using ojson = nlohmann::ordered_json;

/** A schema node, following {"ref": name} into "types" (so that patches land where the node lives). */
ojson& resolve(ojson& doc, ojson& node)
{
    if (node.is_object() && node.contains("ref"))
        return doc["types"][node["ref"].get<std::string>()];
    return node;
}
/** Every two-way reading ({"either": [A, B]}) replaced by its first: the layout before the bytes settle it. */
void firstReadings(ojson& node)
{
    if (node.is_object() && node.contains("either") && node["either"].is_array() && !node["either"].empty()) {
        ojson first = node["either"][0];
        node = std::move(first);
        firstReadings(node);
        return;
    }
    if (node.is_structured())
        for (auto& child : node)
            firstReadings(child);
}

ojson* structField(ojson& doc, ojson& node, const std::string& name)
{
    ojson& n = resolve(doc, node);
    if (!n.is_object() || !n.contains("fields"))
        return nullptr;
    for (auto& f : n["fields"])
        if (f[0] == name)
            return &f[1];
    return nullptr;
}

/** Makes every "Vec or tuple?" array under \a node definite: a Vec for the named struct fields, else a tuple. */
void settleArrays(ojson& doc, ojson& node, const std::set<std::string>& vecFields, const std::string& field = {})
{
    ojson& n = resolve(doc, node);
    if (!n.is_object())
        return;
    if (n.contains("seq") && n.contains("maybe_tuple")) {
        if (vecFields.count(field)) {
            n.erase("maybe_tuple");
            n.erase("prefer_tuple");
        } else {
            const ojson element = n["seq"];
            const size_t arity = n["maybe_tuple"].get<size_t>();
            n = ojson{{"tuple", ojson::array()}};
            for (size_t i = 0; i < arity; ++i)
                n["tuple"].push_back(element);
        }
        return;
    }
    if (n.contains("fields"))
        for (auto& f : n["fields"])
            settleArrays(doc, f[1], vecFields, f[0].get<std::string>());
    if (n.contains("tuple"))
        for (auto& e : n["tuple"])
            settleArrays(doc, e, vecFields);
}

/**
 * The scenario's exact Rust layout as a `ckpt schema` JSON text: derived from the MessagePack sibling,
 * then told what MessagePack cannot say (tests/interop/src/scenarios.rs): the scheduler record type,
 * `stop_step: Option<u64>` (Some is written bare), tuples that the bytes alone cannot tell from a Vec,
 * and `shard: (u8, i16, i64)` (u8 and usize look alike).
 * This is what a user does with `ckpt schema A.mpk -o S.json`, an edit, and `--schema S.json`.
 */
Result<std::string> scenarioSchemaJson(const std::string& scenario, Precision p)
{
    auto mpk = openRecord(dataPath(fileName(scenario, p, Recorder::NamedMpk)));
    if (!mpk)
        return std::unexpected(mpk.error());
    SchemaFromRecordOptions o;
    o.role = RecordRole::Training;
    o.schedulerType = scenarioCounts().at(scenario).schedulerType;
    auto derived = schemaFromRecord((*mpk)->tape, o);
    if (!derived)
        return std::unexpected(derived.error());
    ojson doc = ojson::parse(derived->schema.toJson(), nullptr, false);
    if (doc.is_discarded())
        return fail(ErrorCode::Invalid, "schema JSON does not parse");
    // Caller-state structs are also offered as maps, small integers also as u8/i8: the scenarios'
    // types are the first readings (struct, usize, i64), with the exceptions patched below.
    firstReadings(doc);
    ojson* item = structField(doc, doc["root"], "item");
    if (!item)
        return fail(ErrorCode::Invalid, "schema has no item");
    ojson& tuple = resolve(doc, *item);
    if (!tuple.contains("tuple") || tuple["tuple"].size() != 5)
        return fail(ErrorCode::Invalid, "item is not a 5-tuple: " + tuple.dump());
    ojson& state = tuple["tuple"][4];
    // The caller states' arrays are tuples except the declared Vecs (tuples of u64s are not always
    // settled by the bytes, and an encoder cannot settle them at all).
    settleArrays(doc, state, {"loss_history", "tags"});
    if (scenario == "adam") {
        ojson* f = structField(doc, state, "stop_step");
        if (!f)
            return fail(ErrorCode::Invalid, "no stop_step in " + resolve(doc, state).dump());
        *f = ojson{{"option", "u64"}};
        // (bool, bool) = (true, false) is `01 00`, which also reads as a Vec<bool> of one `false`.
        if (ojson* flags = structField(doc, state, "flags"))
            *flags = ojson{{"tuple", {"bool", "bool"}}};
        if (ojson* rng = structField(doc, state, "rng_state"))
            *rng = ojson{{"tuple", {"u64", "u64", "u64", "u64"}}};
    }
    if (scenario == "adamw_amsgrad") {
        ojson* f = structField(doc, state, "shard");
        if (!f)
            return fail(ErrorCode::Invalid, "no shard in " + resolve(doc, state).dump());
        *f = ojson{{"tuple", {"u8", "i16", "i64"}}};
    }
    if (scenario == "map_keys") {
        // The key and value widths of MapKeysState (scenarios.rs) where the first readings differ.
        const std::map<std::string, ojson> exact{{"by_u8", ojson{{"map", {"u8", "bool"}}}}, {"by_i8", ojson{{"map", {"i8", "u64"}}}},
            {"by_u16", ojson{{"map", {"u16", "i32"}}}}, {"by_i32", ojson{{"map", {"i32", ojson{{"option", "u64"}}}}}},
            {"by_name", ojson{{"map", {"str", "u32"}}}}, {"empty", ojson{{"map", {"str", "u64"}}}}};
        for (const auto& [name, type] : exact) {
            ojson* f = structField(doc, state, name);
            if (!f)
                return fail(ErrorCode::Invalid, "no " + name + " in " + resolve(doc, state).dump());
            *f = type;
        }
    }
    if (scenario == "tensor_ranks")
        state = ojson{{"tuple", {"u8", ojson{{"seq", ojson{{"seq", "usize"}}}}}}};
    if (scenario == "module_array") {
        state = "unit";
        // ArrayModel: blocks is [Linear; 2] (a tuple), extra an Option<Linear> that MessagePack shows bare.
        ojson& module = resolve(doc, tuple["tuple"][0]);
        for (auto& f : module["fields"]) {
            if (f[0] == "blocks")
                f[1] = ojson{{"tuple", {f[1]["seq"], f[1]["seq"]}}};
            if (f[0] == "extra")
                f[1] = ojson{{"option", f[1]["option"]}};
        }
    }
    if (scenario == "utf8_map")
        state = ojson{{"map", {"str", ojson{{"tuple", {ojson{{"seq", "u64"}}, "str"}}}}}};
    return doc.dump();
}

/** The --scheduler name for a scenario's scheduler record type (model_state's is a cosine usize). */
std::string schedulerNameOf(const std::string& scenario)
{
    if (scenario == "model_state")
        return "cosine";
    const std::string& type = scenarioCounts().at(scenario).schedulerType;
    return type == "i32" ? "step" : type == "usize" ? "cosine" : type == "f64" ? "exponential" : "constant";
}

/** Writes scenarioSchemaJson into \a dir once per scenario/precision and returns the path. */
Result<std::string> scenarioSchemaFile(const std::string& scenario, Precision p, const QTemporaryDir& dir)
{
    const std::string path = dir.path().toStdString() + "/" + scenario + "-" + std::string(precisionName(p)) + ".schema.json";
    if (QFileInfo::exists(QString::fromStdString(path)))
        return path;
    auto text = scenarioSchemaJson(scenario, p);
    if (!text)
        return std::unexpected(text.error());
    if (auto w = writeFileAtomic(path, std::span(reinterpret_cast<const uint8_t*>(text->data()), text->size())); !w)
        return std::unexpected(w.error());
    return path;
}

/** Opens one of their files; bincode with the scenario's exact layout (scenarioSchemaFile). */
Result<std::shared_ptr<const Record>> openTheirs(const std::string& scenario, Precision p, Recorder r, const QTemporaryDir& schemas)
{
    OpenOptions o;
    if (isBincode(r)) {
        auto schema = scenarioSchemaFile(scenario, p, schemas);
        if (!schema)
            return std::unexpected(schema.error());
        o.schemaFile = *schema;
    }
    return openRecord(dataPath(fileName(scenario, p, r)), o);
}


} // namespace

class TestInteropRecords : public QObject {
    Q_OBJECT

    std::map<std::string, json> m_expected;
    QTemporaryDir m_schemas; ///< the scenarios' bincode layouts (scenarioSchemaFile)

    const json& expected(const std::string& scenario) { return m_expected.at(scenario); }

    void addFileRows(bool bincodeOnly)
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("recorder");
        for (const auto& s : kScenarios)
            for (auto p : kPrecisions)
                for (auto r : kRecorders)
                    if (!bincodeOnly || isBincode(r))
                        QTest::newRow(fileName(s, p, r).c_str()) << QString::fromStdString(s) << int(p) << int(r);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(QString::fromStdString(interop::oracleBin())),
            ("ckpt-interop not built: " + interop::oracleBin() + " (the ctest fixture interop_files builds it)").c_str());
        std::vector<std::string> all(kScenarios.begin(), kScenarios.end());
        all.push_back("model_state"); // a ModelStateTrainingRecord: only in the bincode twin and conversion tests
        QVERIFY(QFileInfo::exists(QString::fromStdString(dataPath("hostile/zeros-full.bin"))));
        for (const auto& s : all) {
            json e = interop::readJson(dataPath(s + ".expected.json"));
            QVERIFY2(e.is_object(), (s + ".expected.json missing or not JSON in " + interop::dataDir()).c_str());
            QCOMPARE(e["files"].size(), size_t(18));
            m_expected[s] = std::move(e);
        }
    }

    // ---- we read theirs -------------------------------------------------------------------------

    void readTheirs_data() { addFileRows(false); }
    void readTheirs()
    {
        QFETCH(QString, scenario);
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const std::string s = scenario.toStdString();
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        const json& e = expected(s);
        const json& ep = e["precisions"][std::string(precisionName(p))];
        const std::string name = fileName(s, p, r);

        auto opened = openTheirs(s, p, r, m_schemas);
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        const Record& rec = **opened;
        QCOMPARE(rec.kind, RecordKind::TrainingRecord);
        QCOMPARE(rec.recorder, r);
        QCOMPARE(rec.precision, p);
        QVERIFY2(!rec.partial, name.c_str());

        // Metadata strings, verbatim.
        const json* meta = nullptr;
        for (const auto& f : e["files"])
            if (f["file"] == name)
                meta = &f["metadata"];
        QVERIFY(meta);
        QCOMPARE(rec.metadata.floatType, (*meta)["float"].get<std::string>());
        QCOMPARE(rec.metadata.intType, (*meta)["int"].get<std::string>());
        QCOMPARE(rec.metadata.format, (*meta)["format"].get<std::string>());
        QCOMPARE(rec.metadata.version, (*meta)["version"].get<std::string>());
        QCOMPARE(rec.metadata.settings, (*meta)["settings"].get<std::string>());
        QCOMPARE(rec.fileSize, uint64_t(interop::readAll(dataPath(name)).size()));

        // Tensors in file order, value by value.
        const json& et = ep["tensors"];
        QCOMPARE(rec.tensors.size(), et.size());
        QCOMPARE(rec.tensors.size(), ep["tensor_count"].get<size_t>());
        Summary total;
        uint64_t totalHash = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < rec.tensors.size(); ++i) {
            const TensorEntry& t = rec.tensors[i];
            const json& x = et[i];
            const std::string where = name + " tensor " + std::to_string(i) + " " + t.path;
            QVERIFY2(t.path == x["path"].get<std::string>(), (where + " expected path " + x["path"].get<std::string>()).c_str());
            QVERIFY2(dtypeName(t.dtype) == x["dtype"].get<std::string>(), where.c_str());
            QVERIFY2(shapeJson(t.shape) == x["shape"].dump(), where.c_str());
            QVERIFY2(t.bytes == x["byte_len"].get<uint64_t>(), where.c_str());
            const auto payload = rec.payload(t);
            QVERIFY2(payload.size() == t.bytes, where.c_str());
            QVERIFY2(interop::hex16(interop::fnv1a64(payload.data(), payload.size())) == x["fnv1a64"].get<std::string>(),
                (where + " fnv1a64").c_str());
            totalHash = interop::fnv1a64(payload.data(), payload.size(), totalHash);

            // Same order, same f64 operations as the oracle: bit-identical sums.
            Summary one;
            for (double v : rec.values(t, 0, t.numel)) {
                one.add(v);
                total.add(v);
            }
            QVERIFY2(one.sum == x["sum"].get<double>(), (where + " sum " + std::to_string(one.sum)).c_str());
            QVERIFY2(one.l2() == x["l2"].get<double>(), (where + " l2").c_str());
            QVERIFY2(one.nan == x["nan"].get<uint64_t>() && one.posInf == x["pos_inf"].get<uint64_t>()
                    && one.negInf == x["neg_inf"].get<uint64_t>(),
                (where + " non-finite counts").c_str());

            // The engine's own statistics (its summation order is its business: tight relative tolerance).
            const TensorStats st = rec.stats(t, StatsOptions{0, false});
            QVERIFY2(st.count == t.numel && st.nan == one.nan && st.inf == one.posInf + one.negInf, (where + " stats counts").c_str());
            const double tol = 1e-12 * std::max(1.0, std::fabs(one.sum) + one.l2() * std::sqrt(double(std::max<uint64_t>(1, t.numel))));
            QVERIFY2(std::fabs(st.sum - one.sum) <= tol, (where + " stats.sum " + std::to_string(st.sum)).c_str());
            QVERIFY2(std::fabs(st.l2 - one.l2()) <= 1e-12 * std::max(1.0, one.l2()), (where + " stats.l2").c_str());
        }
        QCOMPARE(total.sum, ep["sum"].get<double>());
        QCOMPARE(total.l2(), ep["l2"].get<double>());
        QCOMPARE(total.nan, ep["nan"].get<uint64_t>());
        QCOMPARE(total.posInf, ep["pos_inf"].get<uint64_t>());
        QCOMPARE(total.negInf, ep["neg_inf"].get<uint64_t>());
        QCOMPARE(interop::hex16(totalHash), ep["fnv1a64"].get<std::string>());

        // Caller state: our `ckpt state --json` text is the serde_json value of item[4].
        auto st = stateJson(rec);
        QVERIFY2(st, st ? "" : st.error().message().c_str());
        const json ours = json::parse(*st, nullptr, false);
        QVERIFY2(!ours.is_discarded(), st->c_str());
        QVERIFY2(jsonEqual(ours, e["state"]), ("state differs:\nours   " + ours.dump() + "\ntheirs " + e["state"].dump()).c_str());

        // Scheduler record value.
        QVERIFY(rec.schedulerNode);
        const json sched = tapeToJson(rec.tape, *rec.schedulerNode);
        QVERIFY2(jsonEqual(sched, e["scheduler"]), ("scheduler: ours " + sched.dump() + " theirs " + e["scheduler"].dump()).c_str());
        QVERIFY(rec.scheduler.has_value());

        // Params, optimizer entries, pending gradients.
        const ScenarioCounts& c = scenarioCounts().at(s);
        QCOMPARE(rec.params.size(), c.params);
        QCOMPARE(rec.optimizer.size(), c.optimizerEntries);
        QCOMPARE(rec.gradients.size(), c.gradientNativeDTypes.size());
        for (size_t i = 0; i < rec.gradients.size(); ++i) {
            QCOMPARE(rec.gradients[i].nativeDType, c.gradientNativeDTypes[i]);
            QVERIFY2(rec.findParam(rec.gradients[i].paramId), rec.gradients[i].paramId.c_str());
            QCOMPARE(rec.gradients[i].paramId, paramIdFromU64(rec.gradients[i].id));
        }
        for (const auto& o : rec.optimizer) {
            QVERIFY2(rec.findParam(o.paramId), o.paramId.c_str());
            QVERIFY2(c.optimizer.count(o.optimizer), o.optimizer.c_str());
            QCOMPARE(o.amsgrad, c.amsgrad);
        }
        for (const auto& pe : rec.params) {
            QVERIFY(pe.numericId.has_value());
            QCOMPARE(paramIdFromU64(*pe.numericId), pe.id);
            QCOMPARE(rec.tensors[pe.tensor].role, TensorRole::Param);
        }
    }

    /** bincode is not self-describing: without a layout the engine must not crash or invent values. */
    void bincodeWithoutSchema_data() { addFileRows(true); }
    void bincodeWithoutSchema()
    {
        QFETCH(QString, scenario);
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const std::string s = scenario.toStdString();
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        const json& et = expected(s)["precisions"][std::string(precisionName(p))]["tensors"];
        auto opened = openRecord(dataPath(fileName(s, p, r)));
        if (!opened) {
            // An honest refusal is acceptable; it must say something.
            QVERIFY(!opened.error().what.empty());
            qInfo("%s: refused without schema: %s", fileName(s, p, r).c_str(), opened.error().message().c_str());
            return;
        }
        const Record& rec = **opened;
        if (!rec.partial) {
            // A complete index without a schema (built-in layouts) must be the whole list, in order, right.
            QCOMPARE(rec.tensors.size(), et.size());
            for (size_t i = 0; i < rec.tensors.size(); ++i) {
                const auto payload = rec.payload(rec.tensors[i]);
                QCOMPARE(rec.tensors[i].path, et[i]["path"].get<std::string>());
                QCOMPARE(interop::hex16(interop::fnv1a64(payload.data(), payload.size())), et[i]["fnv1a64"].get<std::string>());
            }
        } else {
            // A scan names tensors by where it found them (no record path); each must be a real one of the
            // file: same dtype, shape and bytes as a tensor of the expectation, and each found once at most.
            std::multiset<std::string> available;
            for (const auto& x : et)
                available.insert(x["dtype"].get<std::string>() + shapeJson(x["shape"].get<std::vector<uint64_t>>()) + x["fnv1a64"].get<std::string>());
            for (const TensorEntry& t : rec.tensors) {
                const auto payload = rec.payload(t);
                QCOMPARE(payload.size(), size_t(t.bytes));
                const std::string key = std::string(dtypeName(t.dtype)) + shapeJson(t.shape) + interop::hex16(interop::fnv1a64(payload.data(), payload.size()));
                auto it = available.find(key);
                QVERIFY2(it != available.end(), ("the scan listed a tensor the file does not hold: " + t.path + " " + key).c_str());
                available.erase(it);
            }
            // Re-saving a scan would invent a layout: it must be refused.
            QTemporaryDir dir;
            QVERIFY(!resaveRecord(rec, dir.path().toStdString() + "/x.bin"));
        }
        qInfo("%s: without schema: %s, %zu of %zu tensors (%s)", fileName(s, p, r).c_str(), rec.partial ? "partial" : "complete",
            rec.tensors.size(), et.size(), rec.schemaSource.c_str());
    }

    /**
     * `--schema-from` the MessagePack sibling alone: MessagePack cannot say i32 from usize (StepLr), Option<T>
     * from T (Some is bare) or u8 from usize. Where that matters the engine must fail with a located error or
     * say so in its warnings; it must never show a different value without a word.
     */
    void bincodeSchemaFromSibling_data() { addFileRows(true); }
    void bincodeSchemaFromSibling()
    {
        QFETCH(QString, scenario);
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const std::string s = scenario.toStdString();
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        const json& e = expected(s);
        OpenOptions o;
        o.schemaFrom = dataPath(fileName(s, p, Recorder::NamedMpk));
        auto opened = openRecord(dataPath(fileName(s, p, r)), o);
        if (!opened) {
            const Error& err = opened.error();
            QVERIFY2(err.offset.has_value() && !err.recordPath.empty(), err.message().c_str());
            qInfo("%s: refused with the sibling's layout: %s", fileName(s, p, r).c_str(), err.message().c_str());
            QFAIL("every scenario's bincode record reads with its MessagePack sibling's layout (the bytes settle what the sibling cannot say)");
        }
        const Record& rec = **opened;
        QVERIFY(!rec.partial);
        QCOMPARE(rec.tensors.size(), e["precisions"][std::string(precisionName(p))]["tensors"].size());
        auto st = stateJson(rec);
        QVERIFY(st);
        const bool stateRight = jsonEqual(json::parse(*st), e["state"]);
        const bool schedulerRight = jsonEqual(tapeToJson(rec.tape, *rec.schedulerNode), e["scheduler"]);
        auto warned = [&](const std::string& path) {
            return std::any_of(rec.warnings.begin(), rec.warnings.end(), [&](const std::string& w) { return w.find(path) != std::string::npos; });
        };
        if (!schedulerRight)
            QVERIFY2(warned("item[2]"), ("scheduler shown as " + tapeToJson(rec.tape, *rec.schedulerNode).dump() + " without a warning").c_str());
        if (!stateRight)
            QVERIFY2(warned("item[4]"), ("caller state shown as " + *st + " without a warning").c_str());
        qInfo("%s: sibling layout: scheduler %s, state %s", fileName(s, p, r).c_str(), schedulerRight ? "right" : "WRONG (warned)",
            stateRight ? "right" : "WRONG (warned)");
    }

    /**
     * With --schema-from its MessagePack twin (and --scheduler where a varint cannot tell StepLr's i32
     * from a usize) a bincode record reads value by value like the twin: the whole item, tensor bytes
     * included. model_state is a ModelStateTrainingRecord; adam's and model_state's caller states hold
     * multi-byte UTF-8 and Option fields that MessagePack writes bare; adamw_amsgrad's
     * `shard: (u8, i16, i64)` holds a u8 (one raw byte in bincode) that MessagePack shows like a usize;
     * utf8_map's state is a map keyed by multi-byte strings, map_keys' maps have keys of every integer
     * width, module_array has `[Linear; 2]` (no length in bincode) beside `Option<Linear>` and `()` as
     * its state, tensor_ranks has tensors of every rank 0-4 in every role. The bytes settle all of it.
     */
    void bincodeReadsLikeItsTwin_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("recorder");
        std::vector<std::string> all(kScenarios.begin(), kScenarios.end());
        all.push_back("model_state");
        for (const std::string& s : all)
            for (auto p : kPrecisions)
                for (auto r : {Recorder::Bin, Recorder::BinGz})
                    QTest::newRow(fileName(s, p, r).c_str()) << QString::fromStdString(s) << int(p) << int(r);
    }
    void bincodeReadsLikeItsTwin()
    {
        QFETCH(QString, scenario);
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const std::string s = scenario.toStdString();
        const auto p = static_cast<Precision>(precision);
        auto twin = openRecord(dataPath(fileName(s, p, Recorder::NamedMpk)));
        QVERIFY2(twin, twin ? "" : twin.error().message().c_str());
        OpenOptions o;
        o.schemaFrom = dataPath(fileName(s, p, Recorder::NamedMpk));
        o.scheduler = schedulerNameOf(s);
        auto opened = openRecord(dataPath(fileName(s, p, static_cast<Recorder>(recorder))), o);
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        const Record& rec = **opened;
        QVERIFY(!rec.partial);
        QCOMPARE(rec.kind, (*twin)->kind);
        QCOMPARE(rec.kind, s == "model_state" ? RecordKind::ModelStateTrainingRecord : RecordKind::TrainingRecord);
        const json ours = tapeToJson(rec.tape, rec.itemNode);
        const json theirs = tapeToJson((*twin)->tape, (*twin)->itemNode);
        QVERIFY2(jsonEqual(ours, theirs), ("item differs from the twin's:\nours   " + ours.dump().substr(0, 2000) + "\ntwin   " + theirs.dump().substr(0, 2000)).c_str());
        auto st = stateJson(rec);
        QVERIFY2(st, st ? "" : st.error().message().c_str());
        QVERIFY2(jsonEqual(json::parse(*st), expected(s)["state"]), st->c_str());
        QCOMPARE(rec.tensors.size(), (*twin)->tensors.size());
    }

    /**
     * Records the real crates wrote and typed decoding refuses, refused by us too, each for its reason:
     * a module record with `weight` twice (serde's derived structs reject a duplicate field), and 4096
     * zero bytes read with any scenario's MessagePack twin (bincode reads rank-0 F64 tensors with no
     * bytes; a rank-0 tensor holds one element, so loading fails; reading parameters as None instead
     * leaves 4000 bytes and is not the twin's layout).
     */
    void typedDecodingRefuses()
    {
        for (const std::string ext : {"mpk", "json"}) {
            const std::string file = dataPath("hostile/duplicate_weight-full." + ext);
            const auto run = interop::runOracle({QStringLiteral("verdict"), QString::fromStdString(file), QStringLiteral("--scenario"), QStringLiteral("spec_example")});
            QVERIFY2(run.exitCode == 0 && run.line()["accepted"] == false, run.describe().c_str());
            auto rec = openRecord(file);
            std::string ours = rec ? std::string() : rec.error().message();
            if (rec)
                if (auto v = validateRecord(**rec); !v)
                    ours = v.error().message();
            QVERIFY2(!ours.empty(), ("a module record with a duplicate field was called valid: " + file).c_str());
            QVERIFY2(ours.find("duplicate field `weight`") != std::string::npos, ours.c_str());
        }
        std::vector<std::string> all(kScenarios.begin(), kScenarios.end());
        all.push_back("model_state");
        const std::string zeros = dataPath("hostile/zeros-full.bin");
        for (const auto& s : all) {
            const auto run = interop::runOracle({QStringLiteral("verdict"), QString::fromStdString(zeros), QStringLiteral("--scenario"), QString::fromStdString(s)});
            QVERIFY2(run.exitCode == 0 && run.line()["accepted"] == false, (s + ": " + run.describe()).c_str());
            OpenOptions o;
            o.schemaFrom = dataPath(fileName(s, Precision::Full, Recorder::NamedMpk));
            auto rec = openRecord(zeros, o);
            std::string ours = rec ? std::string() : rec.error().message();
            if (rec)
                if (auto v = validateRecord(**rec); !v)
                    ours = v.error().message();
            QVERIFY2(!ours.empty(), (s + ": 4096 zero bytes called valid with the twin's layout").c_str());
            QVERIFY2(ours.find("rank 0") != std::string::npos, (s + ": " + ours).c_str());
            qInfo("%s twin: %s | oracle: %s", s.c_str(), ours.c_str(), run.line()["error"].get<std::string>().c_str());
        }
    }

    /** A map keyed by bools (one byte each in bincode) reads from its MessagePack twin's layout, values equal. */
    void boolKeysReadLikeTheTwin()
    {
        OpenOptions o;
        o.schemaFrom = dataPath("hostile/bool_keys-full.mpk");
        auto bin = openRecord(dataPath("hostile/bool_keys-full.bin"), o);
        QVERIFY2(bin, bin ? "" : bin.error().message().c_str());
        auto twin = openRecord(dataPath("hostile/bool_keys-full.mpk"));
        QVERIFY2(twin, twin ? "" : twin.error().message().c_str());
        auto ours = stateJson(**bin), theirs = stateJson(**twin);
        QVERIFY(ours && theirs);
        QCOMPARE(*ours, *theirs);
        QVERIFY2(ours->find("18446744073709551615") != std::string::npos, ours->c_str());
    }

    /**
     * `ckpt schema X.bin --schema-from X.mpk` gives the layout the bincode bytes settled; with it
     * (`ckpt convert IN OUT.bin --schema S.json`) every self-describing record of the scenario converts
     * to bincode that the real bincode crate decodes into the Rust types, tuples and Options included.
     */
    void convertToBincodeWithSettledLayout_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("srcRecorder");
        QTest::addColumn<int>("dstRecorder");
        for (const std::string s : {"adam", "model_state", "spec_example"})
            for (auto src : {Recorder::NamedMpk, Recorder::JsonGz})
                for (auto dst : {Recorder::Bin, Recorder::BinGz})
                    QTest::newRow((fileName(s, Precision::Half, src) + " -> " + std::string(recorderExtension(dst))).c_str())
                        << QString::fromStdString(s) << int(src) << int(dst);
    }
    void convertToBincodeWithSettledLayout()
    {
        QFETCH(QString, scenario);
        QFETCH(int, srcRecorder);
        QFETCH(int, dstRecorder);
        const std::string s = scenario.toStdString();
        OpenOptions twin;
        twin.schemaFrom = dataPath(fileName(s, Precision::Full, Recorder::NamedMpk));
        twin.scheduler = schedulerNameOf(s);
        auto settled = openRecord(dataPath(fileName(s, Precision::Full, Recorder::Bin)), twin);
        QVERIFY2(settled, settled ? "" : settled.error().message().c_str());
        QVERIFY((*settled)->bincodeSchema);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string schemaPath = dir.path().toStdString() + "/settled.schema.json";
        const std::string text = (*settled)->bincodeSchema->toJson();
        QVERIFY(writeFileAtomic(schemaPath, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())));

        auto source = openRecord(dataPath(fileName(s, Precision::Half, static_cast<Recorder>(srcRecorder))));
        QVERIFY2(source, source ? "" : source.error().message().c_str());
        OpenOptions target;
        target.schemaFile = schemaPath;
        auto layout = bincodeTargetLayout(**source, target);
        QVERIFY2(layout, layout ? "" : layout.error().message().c_str());
        const auto dr = static_cast<Recorder>(dstRecorder);
        const std::string out = dir.path().toStdString() + "/" + fileName(s, Precision::Double, dr);
        auto c = convertRecord(**source, dr, Precision::Double, out, &layout->schema);
        QVERIFY2(c, c ? "" : c.error().message().c_str());
        const auto run = interop::runOracle({QStringLiteral("read"), QString::fromStdString(out), QStringLiteral("--scenario"), scenario});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
        const json line = run.line();
        QVERIFY2(jsonEqual(line["state"], expected(s)["state"]), ("state: " + line["state"].dump()).c_str());
        QVERIFY2(jsonEqual(line["scheduler"], expected(s)["scheduler"]), ("scheduler: " + line["scheduler"].dump()).c_str());
        QCOMPARE(line["precision"].get<std::string>(), std::string("double"));

        // Without the settled layout the same conversion is not the Rust types (an Option written bare,
        // a tuple as a Vec, or StepLr's i32 as a usize): the oracle must refuse it or read other values.
        const std::string guessed = dir.path().toStdString() + "/guessed." + std::string(recorderExtension(dr));
        auto g = convertRecord(**source, dr, Precision::Double, guessed);
        QVERIFY2(g, g ? "" : g.error().message().c_str());
        const auto again = interop::runOracle({QStringLiteral("read"), QString::fromStdString(guessed), QStringLiteral("--scenario"), scenario});
        if (again.exitCode == 0 && s != "spec_example")
            QVERIFY2(!jsonEqual(again.line()["state"], expected(s)["state"]) || !jsonEqual(again.line()["scheduler"], expected(s)["scheduler"]),
                "the guessed layout was right although MessagePack cannot say it");
    }

    // ---- our re-save equals their bytes ---------------------------------------------------------

    void resaveIdentical_data() { addFileRows(false); }
    void resaveIdentical()
    {
        QFETCH(QString, scenario);
        QFETCH(int, precision);
        QFETCH(int, recorder);
        const std::string s = scenario.toStdString();
        const auto p = static_cast<Precision>(precision);
        const auto r = static_cast<Recorder>(recorder);
        auto opened = openTheirs(s, p, r, m_schemas);
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string out = dir.path().toStdString() + "/" + fileName(s, p, r);
        auto w = resaveRecord(**opened, out);
        QVERIFY2(w, w ? "" : w.error().message().c_str());
        const auto theirs = payloadOf(interop::readAll(dataPath(fileName(s, p, r))), r);
        const auto ours = payloadOf(interop::readAll(out), r);
        QVERIFY(theirs && ours);
        if (*theirs != *ours) {
            size_t at = 0;
            while (at < theirs->size() && at < ours->size() && (*theirs)[at] == (*ours)[at])
                ++at;
            QFAIL(("payload differs at byte " + std::to_string(at) + " (theirs " + std::to_string(theirs->size()) + " bytes, ours "
                + std::to_string(ours->size()) + ")").c_str());
        }
        // And the oracle agrees the re-saved file is byte-identical after its own typed round trip.
        const auto run = interop::runOracle({QStringLiteral("reencode"), QString::fromStdString(out), dir.path() + QStringLiteral("/again"),
            QStringLiteral("--scenario"), scenario});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
    }

    // ---- they read ours -------------------------------------------------------------------------

    /**
     * Sources × targets. Converting every one of the 144 files into all 18 combinations would spawn
     * 2592 oracle processes; instead: (a) every scenario's full-precision .mpk AND its double .bin
     * (a schema-decoded source) into all 18 combinations (288), and (b) every one of the 144 files
     * into the next recorder at the next precision (rotating), so each source kind is converted once.
     */
    void theyReadOurs_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("srcPrecision");
        QTest::addColumn<int>("srcRecorder");
        QTest::addColumn<int>("dstPrecision");
        QTest::addColumn<int>("dstRecorder");
        std::set<std::string> seen;
        auto row = [&](const std::string& s, Precision sp, Recorder sr, Precision dp, Recorder dr) {
            const std::string tag = fileName(s, sp, sr) + " -> " + std::string(precisionName(dp)) + "." + std::string(recorderExtension(dr));
            if (seen.insert(tag).second)
                QTest::newRow(tag.c_str()) << QString::fromStdString(s) << int(sp) << int(sr) << int(dp) << int(dr);
        };
        for (const auto& s : kScenarios) {
            for (auto dp : kPrecisions)
                for (auto dr : kRecorders) {
                    row(s, Precision::Full, Recorder::NamedMpk, dp, dr);
                    row(s, Precision::Double, Recorder::Bin, dp, dr);
                }
            for (size_t pi = 0; pi < kPrecisions.size(); ++pi)
                for (size_t ri = 0; ri < kRecorders.size(); ++ri)
                    row(s, kPrecisions[pi], kRecorders[ri], kPrecisions[(pi + 1) % 3], kRecorders[(ri + 1) % 6]);
        }
    }
    void theyReadOurs()
    {
        QFETCH(QString, scenario);
        QFETCH(int, srcPrecision);
        QFETCH(int, srcRecorder);
        QFETCH(int, dstPrecision);
        QFETCH(int, dstRecorder);
        const std::string s = scenario.toStdString();
        const auto sp = static_cast<Precision>(srcPrecision);
        const auto dp = static_cast<Precision>(dstPrecision);
        const auto dr = static_cast<Recorder>(dstRecorder);
        const json& e = expected(s);
        const json& srcExp = e["precisions"][std::string(precisionName(sp))];
        const json& dstExp = e["precisions"][std::string(precisionName(dp))];

        auto opened = openTheirs(s, sp, static_cast<Recorder>(srcRecorder), m_schemas);
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string out = dir.path().toStdString() + "/" + fileName(s, dp, dr);
        if (isBincode(dr) && !(*opened)->bincodeSchema) {
            // A self-describing source has no Rust layout: a tuple is an array like a Vec, Some(x) is x.
            // Written with the layout the tape suggests, (usize, usize) would become a Vec; the scenario's
            // layout (what the user passes with --schema) makes the bytes the Rust types.
            // (`ckpt convert IN OUT.bin --schema S.json`).
            auto schemaPath = scenarioSchemaFile(s, dp, m_schemas);
            QVERIFY2(schemaPath, schemaPath ? "" : schemaPath.error().message().c_str());
            OpenOptions target;
            target.schemaFile = *schemaPath;
            auto layout = bincodeTargetLayout(**opened, target);
            QVERIFY2(layout, layout ? "" : layout.error().message().c_str());
            auto c = convertRecord(**opened, dr, dp, out, &layout->schema);
            QVERIFY2(c, c ? "" : c.error().message().c_str());
        } else {
            auto c = convertRecord(**opened, dr, dp, out);
            QVERIFY2(c, c ? "" : c.error().message().c_str());
        }

        const auto run = interop::runOracle({QStringLiteral("read"), QString::fromStdString(out), QStringLiteral("--scenario"), scenario});
        QVERIFY2(run.exitCode == 0, run.describe().c_str());
        const json line = run.line();
        QVERIFY2(line.is_object(), run.out.c_str());
        QCOMPARE(line["recorder"].get<std::string>(), std::string(recorderName(dr)));
        QCOMPARE(line["precision"].get<std::string>(), std::string(precisionName(dp)));
        const Metadata m = makeMetadata(dr, dp);
        QCOMPARE(line["metadata"]["format"].get<std::string>(), m.format);
        QCOMPARE(line["metadata"]["settings"].get<std::string>(), m.settings);
        QCOMPARE(line["metadata"]["float"].get<std::string>(), dstExp["float"].get<std::string>());
        QCOMPARE(line["metadata"]["int"].get<std::string>(), dstExp["int"].get<std::string>());
        QCOMPARE(line["tensor_count"].get<uint64_t>(), srcExp["tensor_count"].get<uint64_t>());
        QVERIFY2(jsonEqual(line["state"], e["state"]), ("state: " + line["state"].dump()).c_str());
        QVERIFY2(jsonEqual(line["scheduler"], e["scheduler"]), ("scheduler: " + line["scheduler"].dump()).c_str());
        // Non-finite values survive every conversion (f16 has NaN and ±inf too).
        for (const char* k : {"nan", "pos_inf", "neg_inf"})
            QCOMPARE(line[k].get<uint64_t>(), srcExp[k].get<uint64_t>());

        const auto rank = [](Precision p) { return p == Precision::Half ? 0 : p == Precision::Full ? 1 : 2; };
        if (sp == dp) {
            // Same bytes: identical hash and sums.
            QCOMPARE(line["fnv1a64"].get<std::string>(), srcExp["fnv1a64"].get<std::string>());
            QCOMPARE(line["sum"].get<double>(), srcExp["sum"].get<double>());
            QCOMPARE(line["l2"].get<double>(), srcExp["l2"].get<double>());
        } else if (rank(dp) > rank(sp)) {
            // Widening is exact: the f64 values, hence the sequential sums, are those of the source.
            QCOMPARE(line["sum"].get<double>(), srcExp["sum"].get<double>());
            QCOMPARE(line["l2"].get<double>(), srcExp["l2"].get<double>());
        } else if (sp == Precision::Full || (sp == Precision::Double && dp == Precision::Full)) {
            // f32 -> f16 (half::f16::from_f32) and f64 -> f32 (`as f32`) are exactly how the oracle
            // produced its own half / full files from the same values: the bytes must be theirs.
            QCOMPARE(line["fnv1a64"].get<std::string>(), dstExp["fnv1a64"].get<std::string>());
            QCOMPARE(line["sum"].get<double>(), dstExp["sum"].get<double>());
        } else {
            // f64 -> f16 rounds once (from_f64) where the oracle's half file rounded twice (via f32):
            // rare values may differ by one ulp of f16; the totals stay within f16 resolution.
            const double tol = 1e-3 * std::max(1.0, std::fabs(dstExp["l2"].get<double>()));
            QVERIFY2(std::fabs(line["sum"].get<double>() - dstExp["sum"].get<double>()) <= tol, run.out.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestInteropRecords)
#include "tst_interop_records.moc"
