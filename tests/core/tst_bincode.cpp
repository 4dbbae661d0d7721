// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// bincode (Burn Bin/BinBytes recorders): schema-driven decode/encode, schema derivation from the
// NamedMpk twin of a genuine .bin file, the schema-less tensor scan, and malformed input.
#include "core/codec/bincode.h"
#include "core/codec/msgpack.h"
#include "core/codec/schema.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/bincoderecord.h"
#include "core/record/record.h"
#include "core/tensor/dtype.h"

#include "tests/common/bincodebytes.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

using namespace ckpt;
using ckpt::test::encode;
using ckpt::test::hexBytes;

namespace {

const std::string kFixtures = CKPT_FIXTURES;
const std::string kBin = kFixtures + "/models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin";
const std::string kMpk = kFixtures + "/models/burn-0.18.0_half_lab-vision-mnist.mpk";
const std::string kSchemaJson = CKPT_TEST_DATA "/bincode/burn-0.18.0_lab-vision-mnist.schema.json";

std::vector<uint8_t> f32Bytes(std::initializer_list<float> values)
{
    std::vector<uint8_t> out;
    for (float f : values) {
        const uint32_t b = std::bit_cast<uint32_t>(f);
        for (int k = 0; k < 4; ++k)
            out.push_back(static_cast<uint8_t>(b >> (8 * k)));
    }
    return out;
}

void tensor(TapeBuilder& b, std::initializer_list<float> values, std::initializer_list<uint64_t> shape)
{
    writeTensorData(b, "F32", std::vector<uint64_t>(shape), f32Bytes(values));
}

/** §9.8 of the format spec: Linear{weight [2,1], bias None}, Adam(AMSGrad slot) state, StepLr, one pending gradient, U = (3, 1). */
Tape trainingEnvelope(int64_t stepLr, const std::function<void(TapeBuilder&)>& callerState = {})
{
    TapeBuilder b;
    b.beginMap();
    b.key("metadata");
    b.beginMap();
    b.key("float"); b.str("f32");
    b.key("int"); b.str("i32");
    b.key("format"); b.str("ruda_model::record::memory::BinBytesRecorder<ruda_model::record::settings::FullPrecisionSettings>");
    b.key("version"); b.str("0.21.44");
    b.key("settings"); b.str("FullPrecisionSettings");
    b.end();
    b.key("item");
    b.beginArray();
    // 0: module record
    b.beginMap();
    b.key("weight");
    b.beginMap();
    b.key("id"); b.str("83h0200000000");
    b.key("param"); tensor(b, {0.25f, -0.5f}, {2, 1});
    b.end();
    b.key("bias"); b.nil();
    b.end();
    // 1: optimizer adaptor map
    b.beginMap();
    b.key("83h0200000000");
    b.beginMap(); b.key("V1");
    b.beginMap(); b.key("Rank2");
    b.beginMap(); b.key("momentum");
    b.beginMap();
    b.key("time"); b.uinteger(1);
    b.key("moment_1"); tensor(b, {0.1f, 0.2f}, {2, 1});
    b.key("moment_2"); tensor(b, {0.01f, 0.04f}, {2, 1});
    b.key("max_moment_2"); b.nil();
    b.end(); b.end(); b.end(); b.end();
    b.end();
    // 2: StepLr iter_idx
    b.integer(stepLr);
    // 3: pending gradients
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    b.beginArray();
    b.uinteger(123456);
    b.str("F32");
    tensor(b, {1.0f, 2.0f}, {2, 1});
    b.end();
    b.end();
    b.end();
    // 4: caller state (usize, usize)
    if (callerState) {
        callerState(b);
    } else {
        b.beginArray();
        b.uinteger(3);
        b.uinteger(1);
        b.end();
    }
    b.end();
    b.key("_b");
    b.beginArray();
    b.end();
    b.end();
    return std::move(b).finish();
}

/** The exact Rust layout of that TrainingRecord (Ruda 0.21: max_moment_2 present, Bool(BoolStore) table). */
BincodeSchema trainingSchema()
{
    BincodeSchema s;
    const uint32_t str = s.primitive(SchemaKind::Str);
    const uint32_t usize = s.primitive(SchemaKind::Usize);
    const uint32_t dtype = s.dtype(DTypeTable::Burn021);
    const uint32_t td = s.structure("TensorData", {{"bytes", s.primitive(SchemaKind::Bytes)}, {"shape", s.seq(usize)}, {"dtype", dtype}});
    const uint32_t param = s.structure("ParamSerde", {{"id", str}, {"param", td}});
    const uint32_t linear = s.structure("LinearRecordItem", {{"weight", param}, {"bias", s.option(param)}});
    const uint32_t momentum = s.structure("AdaptiveMomentumState",
        {{"time", usize}, {"moment_1", td}, {"moment_2", td}, {"max_moment_2", s.option(td)}});
    const uint32_t adam = s.structure("AdamState", {{"momentum", momentum}});
    std::vector<SchemaVariant> ranks;
    for (int r = 0; r <= 8; ++r)
        ranks.push_back({"Rank" + std::to_string(r), VariantKind::Newtype, adam});
    const uint32_t v1 = s.enumeration("AdaptorRecordItemV1", ranks);
    const uint32_t item = s.enumeration("AdaptorRecordItem", {{"V1", VariantKind::Newtype, v1}});
    const uint32_t optim = s.map(str, item);
    const uint32_t grads = s.structure("GradientsParamsRecord", {{"gradients", s.seq(s.tuple({s.primitive(SchemaKind::U64), dtype, td}))}});
    const uint32_t training = s.tuple({linear, optim, s.primitive(SchemaKind::I32), grads, s.tuple({usize, usize})});
    const uint32_t meta = s.structure("BurnMetadata", {{"float", str}, {"int", str}, {"format", str}, {"version", str}, {"settings", str}});
    s.root = s.structure("BurnRecord", {{"metadata", meta}, {"item", training}, {"_b", s.primitive(SchemaKind::UnitStruct)}});
    return s;
}

void appendStr(std::vector<uint8_t>& v, std::string_view s)
{
    v.push_back(static_cast<uint8_t>(s.size()));
    v.insert(v.end(), s.begin(), s.end());
}
void append(std::vector<uint8_t>& v, const std::vector<uint8_t>& w) { v.insert(v.end(), w.begin(), w.end()); }

/** The bytes §9.8 lists, assembled by hand (not by the encoder under test). */
std::vector<uint8_t> expectedTrainingBytes(uint8_t stepLrZigzag)
{
    std::vector<uint8_t> v;
    appendStr(v, "f32");
    appendStr(v, "i32");
    appendStr(v, "ruda_model::record::memory::BinBytesRecorder<ruda_model::record::settings::FullPrecisionSettings>");
    appendStr(v, "0.21.44");
    appendStr(v, "FullPrecisionSettings");
    auto td = [&](std::initializer_list<float> values) {
        v.push_back(0x08);
        append(v, f32Bytes(values));
        append(v, hexBytes("02 02 01 01"));
    };
    appendStr(v, "83h0200000000");
    td({0.25f, -0.5f});
    v.push_back(0x00);                                   // bias None
    v.push_back(0x01);                                   // map len 1
    appendStr(v, "83h0200000000");
    append(v, hexBytes("00 02 01"));                     // V1, Rank2, time 1
    td({0.1f, 0.2f});
    td({0.01f, 0.04f});
    v.push_back(0x00);                                   // max_moment_2 None
    v.push_back(stepLrZigzag);
    append(v, hexBytes("01 fc 40e20100 01"));            // 1 gradient, id 123456, DType F32
    td({1.0f, 2.0f});
    append(v, hexBytes("03 01"));                        // U = (3, 1)
    return v;
}

/** A caller state `{stop_step: Option<u64>, flags: (bool, bool), note: String}` as MessagePack shows it. */
const std::string kNote = "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xe5\xad\xa6\xe4\xb9\xa0 \xf0\x9f\x98\x80"; // résumé ✓ 学习 😀
constexpr uint64_t kStopStep = 18446744073709551000ull;
void optionalFieldsState(TapeBuilder& b)
{
    b.beginMap();
    b.key("stop_step");
    b.uinteger(kStopStep); // Some(x) is written as x
    b.key("flags");
    b.beginArray();
    b.boolean(true);
    b.boolean(false);
    b.end();
    b.key("note");
    b.str(kNote);
    b.end();
}
/** Its bincode: 01 + u64 varint, two raw bools, varint length + UTF-8. */
std::vector<uint8_t> optionalFieldsStateBytes()
{
    std::vector<uint8_t> v = hexBytes("01 fd");
    for (int k = 0; k < 8; ++k)
        v.push_back(static_cast<uint8_t>(kStopStep >> (8 * k)));
    append(v, hexBytes("01 00"));
    appendStr(v, kNote);
    return v;
}

/** The type node of the (only) struct field named \a field. */
uint32_t fieldType(const BincodeSchema& s, std::string_view field)
{
    for (const SchemaNode& n : s.nodes)
        if (n.kind == SchemaKind::Struct)
            for (const SchemaField& f : n.fields)
                if (f.name == field)
                    return f.type;
    return 0;
}

/** An envelope around \a item (written by the callback), Burn 0.21 metadata of \a recorder. */
Tape envelopeWith(Recorder recorder, const std::function<void(TapeBuilder&)>& item)
{
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(recorder, Precision::Full, "0.21.0"));
    item(b);
    endEnvelope(b);
    return std::move(b).finish();
}

Result<Tape> readMpkFile(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(bytes.error());
    auto r = readMsgpack(*bytes);
    if (!r)
        return std::unexpected(r.error());
    return std::move(r->tape);
}


/** All ParamSerde entries of a tape in order: (path, id, param node). */
struct ParamRef {
    std::string path, id;
    uint32_t param;
};
void collectParams(const Tape& t, uint32_t n, const std::string& path, std::vector<ParamRef>& out)
{
    if (t.isMap(n)) {
        auto id = t.find(n, "id");
        auto param = t.find(n, "param");
        if (id && param && t[n].count == 2) {
            out.push_back({path, std::string(t.str(*id)), *param});
            return;
        }
        t.forEachEntry(n, [&](uint32_t k, uint32_t v) { collectParams(t, v, appendKeyToPath(path, t.keyText(k)), out); });
    } else if (t.isArray(n)) {
        uint64_t i = 0;
        t.forEachChild(n, [&](uint32_t c) { collectParams(t, c, appendIndexToPath(path, i++), out); });
    }
}

/** Same layout: kinds, keys, counts; dtype strings, payloads and metadata strings may differ (precision). */
bool sameLayout(const Tape& a, uint32_t na, const Tape& b, uint32_t nb, bool insideMetadata = false)
{
    const Node& x = a[na];
    const Node& y = b[nb];
    if (x.kind != y.kind || ((x.kind == Kind::Array || x.kind == Kind::Map) && x.count != y.count))
        return false;
    if (x.kind == Kind::Map) {
        uint32_t ka = na + 1, kb = nb + 1;
        while (ka < x.end) {
            const uint32_t va = a[ka].end, vb = b[kb].end;
            if (a.keyText(ka) != b.keyText(kb))
                return false;
            const std::string key = a.keyText(ka);
            if (key != "dtype" && key != "bytes" && !sameLayout(a, va, b, vb, insideMetadata || key == "metadata"))
                return false;
            ka = a[va].end;
            kb = b[vb].end;
        }
        return true;
    }
    if (x.kind == Kind::Array) {
        for (uint32_t ca = na + 1, cb = nb + 1; ca < x.end; ca = a[ca].end, cb = b[cb].end)
            if (!sameLayout(a, ca, b, cb, insideMetadata))
                return false;
        return true;
    }
    if (insideMetadata)
        return true;
    return subtreeEqual(a, na, b, nb);
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

class TestBincode : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void trainingRecordMatchesSpecListing_data()
    {
        QTest::addColumn<int>("stepLr");
        QTest::addColumn<int>("zigzag");
        QTest::newRow("StepLr -1 (before the first step)") << -1 << 0x01;
        QTest::newRow("StepLr 2 (spec listing)") << 2 << 0x04;
    }
    void trainingRecordMatchesSpecListing()
    {
        QFETCH(int, stepLr);
        QFETCH(int, zigzag);
        const Tape t = trainingEnvelope(stepLr);
        const BincodeSchema s = trainingSchema();
        const auto bytes = encode(t, s);
        const auto expected = expectedTrainingBytes(static_cast<uint8_t>(zigzag));
        QCOMPARE(bytes.size(), expected.size());
        QVERIFY(bytes == expected);

        auto decoded = readBincode(makeBytes(bytes), s);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t(bytes.size()));
        QVERIFY(subtreeEqual(decoded->tape, 0, t, 0));
        QCOMPARE(encode(decoded->tape, decoded->resolved), bytes);
    }

    void derivedSchemaSettlesAmbiguitiesOnTheBytes()
    {
        // The schema derived from the self-describing record does not know that U is a tuple, nor
        // which Option fields are bare: decoding the bincode settles it, re-encoding is identical.
        const Tape t = trainingEnvelope(-1);
        auto derived = schemaFromRecord(t);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        QVERIFY(!derived->notes.empty()); // the caller-state array guess is reported
        const auto bytes = expectedTrainingBytes(0x01);
        auto decoded = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t(bytes.size()));
        QVERIFY(subtreeEqual(decoded->tape, 0, t, 0));
        QCOMPARE(encode(decoded->tape, decoded->resolved), bytes);
        // The resolved schema has no ambiguity left on the decoded paths: U became a 2-tuple.
        const auto json = decoded->resolved.toJson();
        QVERIFY(json.find("maybe_tuple") == std::string::npos);
    }

    void laterFieldUndoesAnEarlierReading()
    {
        // stop_step is an Option<u64> that MessagePack writes bare: read bare, its 01 tag is the value
        // 1 and `flags` then meets the u64's fd marker; only a decode that goes back to stop_step
        // reads it. The tuple (true, false) = 01 00 is also a Vec of one false: the twin's length 2
        // decides. The UTF-8 note comes last, so a misaligned reading would also fail there.
        const Tape t = trainingEnvelope(2, optionalFieldsState);
        auto derived = schemaFromRecord(t, SchemaFromRecordOptions{RecordRole::Auto, "i32"});
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        std::vector<uint8_t> bytes = expectedTrainingBytes(0x04);
        bytes.resize(bytes.size() - 2); // without U = (3, 1)
        append(bytes, optionalFieldsStateBytes());
        auto decoded = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t(bytes.size()));
        QVERIFY(subtreeEqual(decoded->tape, 0, t, 0));
        const Tape& d = decoded->tape;
        const uint32_t state = *d.element(*d.find(0, "item"), 4);
        QCOMPARE(d.str(*d.find(state, "note")), std::string_view(kNote));
        QCOMPARE(d.u64(*d.find(state, "stop_step")), kStopStep);
        // The settled layout writes the same bytes again: Some(..) with its tag, flags as a tuple.
        QCOMPARE(encode(decoded->tape, decoded->resolved), bytes);
        const BincodeSchema& r = decoded->resolved;
        const SchemaNode& stop = r.nodes[fieldType(r, "stop_step")];
        QCOMPARE(stop.kind, SchemaKind::Option);
        QVERIFY(!stop.maybeBare);
        QCOMPARE(r.nodes[fieldType(r, "flags")].kind, SchemaKind::Tuple);
    }

    void stringsOfAnyUtf8Content_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("latin-1 range, 2 bytes") << QByteArray("r\xc3\xa9sum\xc3\xa9") << true;
        QTest::newRow("BMP, 3 bytes") << QByteArray("\xe2\x9c\x93 \xe5\xad\xa6\xe4\xb9\xa0 \xe2\x80\xa8") << true;
        QTest::newRow("astral, 4 bytes") << QByteArray("\xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf") << true;
        QTest::newRow("controls and DEL") << QByteArray("\x01\x7f\t\n", 4) << true;
        QTest::newRow("overlong NUL") << QByteArray("\xc0\x80") << false;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false;
        QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << false;
        QTest::newRow("truncated sequence") << QByteArray("ok \xe2\x82") << false;
        QTest::newRow("lone continuation") << QByteArray("\x80") << false;
    }
    void stringsOfAnyUtf8Content()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        BincodeSchema s;
        s.root = s.structure("S", {{"name", s.primitive(SchemaKind::Str)}, {"after", s.primitive(SchemaKind::U8)}});
        std::vector<uint8_t> bytes;
        appendStr(bytes, std::string_view(text.constData(), size_t(text.size())));
        bytes.push_back(0x2a);
        auto decoded = readBincode(makeBytes(bytes), s);
        QCOMPARE(bool(decoded), valid);
        if (!valid) {
            QVERIFY(decoded.error().what.find("not valid UTF-8") != std::string::npos);
            QCOMPARE(decoded.error().recordPath, std::string("name"));
            return;
        }
        QCOMPARE(decoded->tape.str(*decoded->tape.find(0, "name")), std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(decoded->tape.u64(*decoded->tape.find(0, "after")), uint64_t(0x2a));
    }

    void modelStateTrainingRecordWithItsTwin()
    {
        // format-burn-record.md §9.6: (version u32, module, TrainableParameterContract, optimizer,
        // scheduler, gradients, caller state). The MessagePack twin alone must give its layout.
        const Tape twin = trainingEnvelope(2);
        TapeBuilder b;
        const Tape& t = twin;
        const uint32_t item = *t.find(0, "item");
        beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.21.44", true));
        b.beginArray();
        b.uinteger(1);
        b.copy(t, *t.element(item, 0));
        b.beginMap();
        b.key("entries");
        b.beginArray();
        b.beginArray();
        b.uinteger(123456);
        b.beginArray();
        b.uinteger(2);
        b.uinteger(1);
        b.end();
        b.str("F32");
        b.end();
        b.end();
        b.end();
        b.copy(t, *t.element(item, 1));
        b.uinteger(3); // a cosine current_iter
        b.copy(t, *t.element(item, 3));
        optionalFieldsState(b);
        b.end();
        endEnvelope(b);
        const Tape mpkTape = std::move(b).finish();

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string mpk = dir.path().toStdString() + "/model_state.mpk";
        QVERIFY(saveRecord(mpkTape, Recorder::NamedMpk, mpk));

        // The bincode twin, written with the exact Rust types (Option<u64> with its tag, a (bool, bool)).
        auto exact = schemaFromRecord(mpkTape);
        QVERIFY2(exact, exact ? "" : exact.error().message().c_str());
        BincodeSchema& rust = exact->schema;
        SchemaNode& stop = rust.nodes[fieldType(rust, "stop_step")];
        QVERIFY(stop.kind == SchemaKind::Option && stop.maybeBare);
        stop.maybeBare = false;
        stop.preferAlternative = false;
        SchemaNode& flags = rust.nodes[fieldType(rust, "flags")];
        QVERIFY(flags.kind == SchemaKind::Seq && flags.maybeTuple && flags.tupleArity == 2);
        flags.kind = SchemaKind::Tuple;
        flags.elements = {flags.elements[0], flags.elements[0]};
        flags.maybeTuple = false;
        const auto bytes = encode(mpkTape, rust);
        QVERIFY(!bytes.empty());

        OpenOptions o;
        o.schemaFrom = mpk;
        o.scheduler = "cosine";
        auto rec = openRecordBytes(makeBytes(bytes), "model_state.bin", o);
        QVERIFY2(rec, rec ? "" : rec.error().message().c_str());
        QCOMPARE((*rec)->kind, RecordKind::ModelStateTrainingRecord);
        QVERIFY(!(*rec)->partial);
        QCOMPARE((*rec)->tensors.size(), size_t(4)); // weight, two moments, one gradient
        QVERIFY(subtreeEqual((*rec)->tape, (*rec)->itemNode, mpkTape, *mpkTape.find(0, "item")));
        QVERIFY((*rec)->stateNode);
        QCOMPARE((*rec)->tape.str(*(*rec)->tape.find(*(*rec)->stateNode, "note")), std::string_view(kNote));
    }

    void builtinLayoutsLetTheBytesDecide()
    {
        // A scheduler record of one varint: usize and StepLr's i32 both read it. Not a guess in
        // silence: the other reading is named, and --scheduler settles it.
        const Tape sched = envelopeWith(Recorder::Bin, [](TapeBuilder& b) { b.integer(7); });
        BincodeSchema i32;
        {
            const uint32_t str = i32.primitive(SchemaKind::Str);
            const uint32_t meta = i32.structure("BurnMetadata", {{"float", str}, {"int", str}, {"format", str}, {"version", str}, {"settings", str}});
            i32.root = i32.structure("BurnRecord", {{"metadata", meta}, {"item", i32.primitive(SchemaKind::I32)}, {"_b", i32.primitive(SchemaKind::UnitStruct)}});
        }
        const auto bytes = encode(sched, i32);
        QCOMPARE(bytes.back(), uint8_t(0x0e)); // zigzag 7

        auto guessed = openRecordBytes(makeBytes(bytes), "scheduler-7.bin");
        QVERIFY2(guessed, guessed ? "" : guessed.error().message().c_str());
        QCOMPARE((*guessed)->kind, RecordKind::SchedulerRecord);
        QVERIFY((*guessed)->schemaSource.find("usize") != std::string::npos);
        const auto& w = (*guessed)->warnings;
        QVERIFY(std::any_of(w.begin(), w.end(), [](const std::string& x) { return x.find("i32 (StepLr") != std::string::npos && x.find("--scheduler") != std::string::npos; }));

        OpenOptions step;
        step.scheduler = "step";
        auto told = openRecordBytes(makeBytes(bytes), "scheduler-7.bin", step);
        QVERIFY2(told, told ? "" : told.error().message().c_str());
        QCOMPARE((*told)->tape.i64(*(*told)->schedulerNode), int64_t(7));
        QVERIFY((*told)->warnings.empty());

        OpenOptions bogus;
        bogus.scheduler = "warmup";
        auto refused = openRecordBytes(makeBytes(bytes), "scheduler-7.bin", bogus);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Usage);

        // An SGD optimizer record without momentum is `00` per entry: only the SGD layout reads it.
        const Tape sgd = envelopeWith(Recorder::Bin, [](TapeBuilder& b) {
            b.beginMap();
            b.key("83h0200000000");
            b.beginMap(); b.key("V1");
            b.beginMap(); b.key("Rank2");
            b.beginMap(); b.key("momentum"); b.nil(); b.end();
            b.end(); b.end();
            b.end();
        });
        const auto& layouts = builtinBincodeLayouts(DTypeTable::Burn021);
        auto it = std::find_if(layouts.begin(), layouts.end(), [](const BuiltinLayout& l) { return l.name == "built-in SGD optimizer record"; });
        QVERIFY(it != layouts.end());
        auto opened = openRecordBytes(makeBytes(encode(sgd, it->schema)), "optim-1.bin");
        QVERIFY2(opened, opened ? "" : opened.error().message().c_str());
        QCOMPARE((*opened)->kind, RecordKind::OptimizerRecord);
        QCOMPARE((*opened)->schemaSource, it->name);
        QVERIFY((*opened)->warnings.empty());
        QCOMPARE((*opened)->optimizer.size(), size_t(1));
    }

    void layoutGivesJsonFloatsTheirWidth()
    {
        // A JSON record's f32 field is an f64 on the tape; with the layout it becomes the f32 that
        // rmp-serde writes (`ca`), the f64 field stays f64, an unsigned value stays unsigned.
        const Tape json = envelopeWith(Recorder::PrettyJson, [](TapeBuilder& b) {
            b.beginMap();
            b.key("beta_1"); b.f64(0.9);
            b.key("lr"); b.f64(0.003);
            b.key("step"); b.uinteger(12);
            b.end();
        });
        BincodeSchema s;
        const uint32_t str = s.primitive(SchemaKind::Str);
        const uint32_t meta = s.structure("BurnMetadata", {{"float", str}, {"int", str}, {"format", str}, {"version", str}, {"settings", str}});
        const uint32_t item = s.structure("Config", {{"beta_1", s.primitive(SchemaKind::F32)}, {"lr", s.primitive(SchemaKind::F64)}, {"step", s.primitive(SchemaKind::Usize)}});
        s.root = s.structure("BurnRecord", {{"metadata", meta}, {"item", item}, {"_b", s.primitive(SchemaKind::UnitStruct)}});
        auto typed = withLayoutValueKinds(json, s);
        QVERIFY2(typed, typed ? "" : typed.error().message().c_str());
        const uint32_t it = *typed->find(0, "item");
        QCOMPARE((*typed)[*typed->find(it, "beta_1")].kind, Kind::F32);
        QCOMPARE(typed->f32(*typed->find(it, "beta_1")), 0.9f);
        QCOMPARE((*typed)[*typed->find(it, "lr")].kind, Kind::F64);
        QCOMPARE(typed->f64(*typed->find(it, "lr")), 0.003);
        QCOMPARE((*typed)[*typed->find(it, "step")].kind, Kind::UInt);
        // A record that does not fit the layout is refused, not half-converted.
        const Tape other = envelopeWith(Recorder::PrettyJson, [](TapeBuilder& b) { b.str("not a config"); });
        QVERIFY(!withLayoutValueKinds(other, s));
    }

    void genuineBinDecodesWithSchemaFromItsMpkTwin()
    {
        auto mpk = readMpkFile(kMpk);
        QVERIFY2(mpk, mpk ? "" : mpk.error().message().c_str()); // our own reader: a failure, never a skip
        auto derived = schemaFromRecord(*mpk);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        auto binBytes = mapFile(kBin);
        QVERIFY(binBytes);
        auto decoded = readBincode(*binBytes, derived->schema);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t((*binBytes)->size()));
        QCOMPARE(decoded->nonCanonicalVarints, uint64_t(0));
        {
            QElapsedTimer timer;
            timer.start();
            for (int k = 0; k < 10; ++k)
                QVERIFY(readBincode(*binBytes, decoded->resolved));
            const double decodeUs = timer.nsecsElapsed() / 1e3;
            timer.restart();
            for (int k = 0; k < 10; ++k)
                QVERIFY(scanBincode((*binBytes)->span()));
            qInfo("1.82 MB .bin: decode %.1f us, scan %.1f us (mean of 10)", decodeUs / 10.0, timer.nsecsElapsed() / 1e4);
        }
        const Tape& bin = decoded->tape;

        // Same layout as the .mpk (precision aside), same metadata values as the .bin says.
        QVERIFY(sameLayout(bin, 0, *mpk, 0));
        auto version = resolvePath(bin, *parsePath("metadata.version"));
        QVERIFY(version);
        QCOMPARE(bin.str(*version), std::string_view("0.18.0"));

        std::vector<ParamRef> binParams, mpkParams;
        collectParams(bin, 0, "", binParams);
        collectParams(*mpk, 0, "", mpkParams);
        QCOMPARE(binParams.size(), size_t(8));
        QCOMPARE(binParams.size(), mpkParams.size());
        uint64_t compared = 0;
        for (size_t i = 0; i < binParams.size(); ++i) {
            const auto& b = binParams[i];
            const auto& m = mpkParams[i];
            QCOMPARE(b.path, m.path);
            QCOMPARE(b.id, m.id);
            const uint32_t bShape = *bin.find(b.param, "shape"), mShape = *mpk->find(m.param, "shape");
            QVERIFY(subtreeEqual(bin, bShape, *mpk, mShape));
            QCOMPARE(bin.str(*bin.find(b.param, "dtype")), std::string_view("F32"));
            QCOMPARE(mpk->str(*mpk->find(m.param, "dtype")), std::string_view("F16"));
            uint64_t numel = 1;
            bin.forEachChild(bShape, [&](uint32_t c) { numel *= bin.u64(c); });
            const auto f32 = bin.bin(*bin.find(b.param, "bytes"));
            const auto f16 = mpk->bin(*mpk->find(m.param, "bytes"));
            QCOMPARE(uint64_t(f32.size()), numel * 4);
            QCOMPARE(uint64_t(f16.size()), numel * 2);
            // Zero copy: the payload is a view into the mapped file.
            QVERIFY(f32.data() >= (*binBytes)->data() && f32.data() + f32.size() <= (*binBytes)->data() + (*binBytes)->size());
            for (uint64_t k = 0; k < numel; ++k) {
                uint32_t fb;
                uint16_t hb;
                std::memcpy(&fb, f32.data() + 4 * k, 4);
                std::memcpy(&hb, f16.data() + 2 * k, 2);
                if (floatToHalf(std::bit_cast<float>(fb)) != hb)
                    QFAIL(qPrintable(QString::fromStdString(b.path + " element " + std::to_string(k) + ": f16 differs")));
                ++compared;
            }
        }
        QCOMPARE(compared, uint64_t(800 + 32 + 51200 + 64 + 401408 + 128 + 1280 + 10)); // every element compared
        qInfo("compared %llu weights", static_cast<unsigned long long>(compared));

        // Byte-identical re-encoding of the genuine file.
        const auto again = encode(bin, decoded->resolved);
        QCOMPARE(again.size(), (*binBytes)->size());
        QVERIFY(std::memcmp(again.data(), (*binBytes)->data(), again.size()) == 0);

        // The committed schema is what the derivation + decoding produce today.
        if (qEnvironmentVariableIsSet("CKPT_WRITE_SCHEMA")) {
            std::ofstream(kSchemaJson, std::ios::binary) << decoded->resolved.toJson();
        }
        QCOMPARE(decoded->resolved.toJson(), readText(kSchemaJson));
    }

    void everyMpkFixtureRoundTripsThroughBincode_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"models/burn-0.12.1_half_nannou-mnist.mpk", "models/burn-0.14.0_full_sysdesign.mpk",
                 "models/burn-0.16.0_half_glyphtool.mpk", "models/burn-0.16.1_full_connect4.mpk", "models/burn-0.17.0_half_modern-lstm.mpk",
                 "models/burn-0.18.0_half_lab-vision-mnist.mpk", "models/burn-0.21.0_full_minesweeper-ml.mpk",
                 "runs/mechint-0.20.0-pre.6/checkpoint/model-3.mpk", "runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk",
                 "runs/mechint-0.20.0-pre.6/checkpoint/scheduler-3.mpk", "runs/mlplay-0.16.1/checkpoint/model-10.mpk",
                 "runs/mlplay-0.16.1/checkpoint/optim-10.mpk", "runs/mlplay-0.16.1/checkpoint/scheduler-10.mpk"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void everyMpkFixtureRoundTripsThroughBincode()
    {
        // What a BinFileRecorder of the same Rust types would write: derive the layout from the
        // NamedMpk record, encode, decode, compare the trees, re-encode identically.
        QFETCH(QString, file);
        auto mpk = readMpkFile(kFixtures + "/" + file.toStdString());
        QVERIFY2(mpk, mpk ? "" : mpk.error().message().c_str()); // our own reader: a failure, never a skip
        auto derived = schemaFromRecord(*mpk);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        const auto bytes = encode(*mpk, derived->schema);
        QVERIFY(!bytes.empty());
        auto decoded = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t(bytes.size()));
        QVERIFY(subtreeEqual(decoded->tape, 0, *mpk, 0));
        QCOMPARE(encode(decoded->tape, decoded->resolved), bytes);
        auto scan = scanBincode(bytes);
        QVERIFY(scan);
        std::vector<ParamRef> params;
        collectParams(*mpk, 0, "", params);
        if (!file.contains(QLatin1String("0.12.1"))) // legacy {value, shape} tensors are not TensorData
            QVERIFY(scan->tensors.size() >= params.size());
    }

    void committedSchemaDecodesAndReencodes()
    {
        auto schema = BincodeSchema::fromJson(readText(kSchemaJson));
        QVERIFY2(schema, schema ? "" : schema.error().message().c_str());
        auto binBytes = mapFile(kBin);
        QVERIFY(binBytes);
        auto decoded = readBincode(*binBytes, *schema);
        QVERIFY2(decoded, decoded ? "" : decoded.error().message().c_str());
        QCOMPARE(decoded->consumed, uint64_t((*binBytes)->size()));
        std::vector<ParamRef> params;
        collectParams(decoded->tape, 0, "", params);
        QCOMPARE(params.size(), size_t(8));
        QCOMPARE(params[0].path, std::string("item.conv1.weight"));
        QCOMPARE(params[0].id, std::string("qelfenqpp1nn2"));
        // Streamed through a downstream sink: payloads arrive as spans, result identical.
        std::vector<uint8_t> streamed;
        uint64_t calls = 0;
        Sink sink([&](std::span<const uint8_t> s) -> Result<void> {
            streamed.insert(streamed.end(), s.begin(), s.end());
            ++calls;
            return {};
        });
        QVERIFY(writeBincode(decoded->tape, 0, *schema, sink));
        QVERIFY(sink.finish());
        QCOMPARE(streamed.size(), (*binBytes)->size());
        QVERIFY(std::memcmp(streamed.data(), (*binBytes)->data(), streamed.size()) == 0);
        // A cut file names the tensor it ends in.
        auto cut = makeBytes(std::vector<uint8_t>((*binBytes)->data(), (*binBytes)->data() + 1000000));
        auto truncated = readBincode(cut, *schema);
        QVERIFY(!truncated);
        QCOMPARE(truncated.error().code, ErrorCode::Truncated);
        QCOMPARE(truncated.error().recordPath, std::string("item.fc1.weight.param.bytes"));
        QVERIFY(truncated.error().message().starts_with("offset "));
        // JSON round trip is stable.
        auto again = BincodeSchema::fromJson(schema->toJson());
        QVERIFY(again);
        QCOMPARE(again->toJson(), schema->toJson());
    }

    void scanFindsEveryTensorOfTheGenuineFile()
    {
        auto binBytes = mapFile(kBin);
        QVERIFY(binBytes);
        auto scan = scanBincode((*binBytes)->span());
        QVERIFY(scan);
        QVERIFY(scan->partial);
        QVERIFY(scan->metadata);
        QCOMPARE(scan->metadata->version, std::string("0.18.0"));
        QCOMPARE(scan->metadata->settings, std::string("FullPrecisionSettings"));
        QCOMPARE(scan->tensors.size(), size_t(8));
        const char* ids[] = {"qelfenqpp1nn2", "824h7l2n4eq3c", "f4b499q8fnod6", "m7r5bcr05h36s", "9u3n1gsts2ivi", "pspld63g9pkog", "ca6pbvcbro876", "qs9mc4euah5ne"};
        const std::vector<std::vector<uint64_t>> shapes = {{32, 1, 5, 5}, {32}, {64, 32, 5, 5}, {64}, {3136, 128}, {128}, {128, 10}, {10}};
        uint64_t total = 0;
        for (size_t i = 0; i < 8; ++i) {
            QCOMPARE(scan->tensors[i].paramId, std::string(ids[i]));
            QCOMPARE(scan->tensors[i].shape, shapes[i]);
            QCOMPARE(scan->tensors[i].dtype, DType::F32);
            total += scan->tensors[i].length;
        }
        QCOMPARE(total, uint64_t(4 * (800 + 32 + 51200 + 64 + 401408 + 128 + 1280 + 10)));
    }

    void metadataWithoutSchema()
    {
        auto binBytes = mapFile(kBin);
        QVERIFY(binBytes);
        auto m = readBincodeMetadata((*binBytes)->span());
        QVERIFY(m);
        QCOMPARE(m->float_, std::string("f32"));
        QCOMPARE(m->int_, std::string("i32"));
        QCOMPARE(m->format, std::string("burn_core::record::memory::BinBytesRecorder<burn_core::record::settings::FullPrecisionSettings>"));
        auto bad = readBincodeMetadata(std::span<const uint8_t>((*binBytes)->data(), 50));
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::Truncated);
    }

    void truncationAtEveryByteFails()
    {
        const auto bytes = expectedTrainingBytes(0x01);
        const BincodeSchema s = trainingSchema();
        auto derived = schemaFromRecord(trainingEnvelope(-1));
        QVERIFY(derived);
        for (size_t n = 0; n < bytes.size(); ++n) {
            auto prefix = makeBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n));
            auto r = readBincode(prefix, s);
            QVERIFY2(!r, qPrintable(QString::number(n)));
            QVERIFY(r.error().offset.has_value());
            QVERIFY(*r.error().offset <= n);
            auto r2 = readBincode(prefix, derived->schema);
            QVERIFY2(!r2, qPrintable(QString::number(n)));
        }
    }

    void malformedInputGivesOneClearError_data()
    {
        QTest::addColumn<QByteArray>("patch");   // "offset:hex" applied to the §9.8 bytes (after metadata)
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("words");
        // Offsets are relative to the start of the item.
        QTest::newRow("option tag 02 (bias)") << QByteArray("27:02") << int(ErrorCode::Malformed) << "item[0].bias" << "Option tag";
        QTest::newRow("enum index 5 of AdaptorRecordItem") << QByteArray("43:05") << int(ErrorCode::Invalid) << "item[1].83h0200000000" << "invalid variant index 5";
        QTest::newRow("rank 9 does not exist") << QByteArray("44:09") << int(ErrorCode::Invalid) << "item[1].83h0200000000.V1" << "invalid variant index 9";
        QTest::newRow("huge string length") << QByteArray("0:fdffffffffffffff7f") << int(ErrorCode::Truncated) << "item[0].weight.id" << "declares";
        QTest::newRow("invalid UTF-8 in id") << QByteArray("1:ff") << int(ErrorCode::Malformed) << "item[0].weight.id" << "UTF-8";
        QTest::newRow("u128 varint marker") << QByteArray("14:fe") << int(ErrorCode::Malformed) << "item[0].weight.param.bytes" << "u128";
        QTest::newRow("DType index 99") << QByteArray("26:63") << int(ErrorCode::Invalid) << "item[0].weight.param.dtype" << "invalid DType index 99";
        QTest::newRow("huge map length") << QByteArray("28:fd0000000000000001") << int(ErrorCode::Limit) << "item[1]" << "elements";
    }
    void malformedInputGivesOneClearError()
    {
        QFETCH(QByteArray, patch);
        QFETCH(int, code);
        QFETCH(QString, path);
        QFETCH(QString, words);
        auto bytes = expectedTrainingBytes(0x01);
        auto meta = readBincodeMetadata(bytes);
        QVERIFY(meta);
        const auto parts = patch.split(':');
        const size_t at = meta->consumed + parts[0].toULongLong();
        const auto replacement = hexBytes(parts[1].toStdString());
        bytes.erase(bytes.begin() + at, bytes.begin() + std::min(bytes.size(), at + replacement.size()));
        bytes.insert(bytes.begin() + at, replacement.begin(), replacement.end());
        auto r = readBincode(makeBytes(bytes), trainingSchema());
        QVERIFY(!r);
        QCOMPARE(int(r.error().code), code);
        QCOMPARE(QString::fromStdString(r.error().recordPath), path);
        QVERIFY2(r.error().what.find(words.toStdString()) != std::string::npos, r.error().what.c_str());
        QVERIFY(r.error().offset.has_value());
        QVERIFY(*r.error().offset >= meta->consumed);
    }

    void primitiveRules()
    {
        // Non-canonical varints are accepted (as bincode 1.3 does) and counted; fe/ff are refused.
        BincodeSchema s;
        s.root = s.tuple({s.primitive(SchemaKind::Usize), s.primitive(SchemaKind::Bool), s.primitive(SchemaKind::I16)});
        auto ok = readBincode(makeBytes(hexBytes("fb0500 01 03")), s);
        QVERIFY(ok);
        QCOMPARE(ok->nonCanonicalVarints, uint64_t(1));
        QCOMPARE(ok->tape.u64(1), uint64_t(5));
        QCOMPARE(ok->tape.i64(3), int64_t(-2));
        auto badBool = readBincode(makeBytes(hexBytes("05 02 03")), s);
        QVERIFY(!badBool);
        QCOMPARE(badBool.error().code, ErrorCode::Malformed);
        QCOMPARE(*badBool.error().offset, uint64_t(1));
        QCOMPARE(badBool.error().recordPath, std::string("[1]"));
        auto i16Overflow = readBincode(makeBytes(hexBytes("05 01 fc00000100")), s);
        QVERIFY(!i16Overflow);
        QCOMPARE(i16Overflow.error().code, ErrorCode::Invalid);
        // Trailing bytes are ignored and reported through consumed.
        auto trailing = readBincode(makeBytes(hexBytes("05 01 03 99 99")), s);
        QVERIFY(trailing);
        QCOMPARE(trailing->consumed, uint64_t(3));
        // A Vec<()> with an absurd count cannot make us loop or allocate.
        BincodeSchema units;
        units.root = units.seq(units.primitive(SchemaKind::Unit));
        auto huge = readBincode(makeBytes(hexBytes("fdffffffffffffff7f")), units);
        QVERIFY(!huge);
        QCOMPARE(huge.error().code, ErrorCode::Limit);
        // Encoding checks types and ranges with paths.
        TapeBuilder b;
        b.beginArray();
        b.uinteger(1);
        b.boolean(true);
        b.integer(40000);
        b.end();
        Sink sink;
        auto w = writeBincode(std::move(b).finish(), 0, s, sink);
        QVERIFY(!w);
        QCOMPARE(w.error().recordPath, std::string("[2]"));
    }

    /**
     * Two readings of one value ({"either": [A, B]}): the bytes settle it, the settled schema names the
     * one taken, JSON round-trips it, an unsettled one encodes the first that takes the value, and a
     * choice whose other reading decodes the whole input into other values is reported.
     */
    void eitherIsSettledByTheBytes()
    {
        auto s = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,
            "root":{"tuple":[{"either":["usize","u8"]},{"either":[{"map":["str","u32"]},{"struct":"S","fields":[["a","u32"],["b","u32"]]}]}]}})");
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY(BincodeSchema::fromJson(s->toJson()));
        // ff is no varint: the u8 reading; 05 07 then 03 09 are two u32 fields, not a map (whose count 05
        // would need five string keys).
        auto r = readBincode(makeBytes(hexBytes("ff 07 03")), *s);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->tape.u64(1), uint64_t(255));
        QCOMPARE(r->consumed, uint64_t(3));
        QCOMPARE(r->resolved.nodes[r->resolved.nodes[r->resolved.root].elements[0]].kind, SchemaKind::U8);
        QCOMPARE(r->resolved.nodes[r->resolved.nodes[r->resolved.root].elements[1]].kind, SchemaKind::Struct);
        // 04 is a usize and a u8 alike: the same values, nothing to report.
        auto same = readBincode(makeBytes(hexBytes("04 00")), *s);
        QVERIFY(same);
        QVERIFY(same->ambiguities.empty());
        // A Vec<bool> or (bool, bool): 01 00 reads both ways into different values, and that is said.
        BincodeSchema v;
        SchemaNode pair;
        pair.kind = SchemaKind::Seq;
        pair.elements = {v.primitive(SchemaKind::Bool)};
        pair.maybeTuple = true;
        pair.tupleArity = 2;
        v.root = v.add(pair);
        auto both = readBincode(makeBytes(hexBytes("01 00")), v);
        QVERIFY(both);
        QCOMPARE(both->ambiguities.size(), size_t(1));
        QVERIFY2(both->ambiguities[0].find("also decodes the whole record") != std::string::npos, both->ambiguities[0].c_str());
        // An unsettled either encodes its first reading that takes the value (a string key: the map).
        TapeBuilder b;
        b.beginArray();
        b.uinteger(300);
        b.beginMap();
        b.key("x");
        b.uinteger(1);
        b.end();
        b.end();
        QCOMPARE(encode(std::move(b).finish(), *s), hexBytes("fb2c01 01 0178 01"));
    }

    /**
     * bincode ignores bytes after the record, but a reading that leaves some is kept only when it is the
     * preferred one: after a failed preferred reading, an Option read as None that stops short proves
     * nothing, and the preferred reading's failure is the error.
     */
    void shortReadingsOnlyAsPreferred()
    {
        BincodeSchema s;
        SchemaNode tensor;
        tensor.kind = SchemaKind::Struct;
        tensor.name = "TensorData";
        tensor.fields = {{"bytes", s.primitive(SchemaKind::Bytes)}, {"shape", s.seq(s.primitive(SchemaKind::Usize))}, {"dtype", s.dtype(DTypeTable::Burn021)}};
        const uint32_t t = s.add(tensor);
        s.root = s.option(t, true, true); // maybe a bare TensorData, bare first
        auto zeros = readBincode(makeBytes(std::vector<uint8_t>(64, 0)), s);
        QVERIFY(!zeros);
        QVERIFY2(zeros.error().what.find("rank 0 (one element)") != std::string::npos, zeros.error().message().c_str());
        // The preferred reading that leaves bytes is kept (Burn ignores them): a rank-0 F64 of 8 bytes.
        auto ok = readBincode(makeBytes(hexBytes("08 0000000000000000 00 00 ee ee")), s);
        QVERIFY2(ok, ok ? "" : ok.error().message().c_str());
        QCOMPARE(ok->consumed, uint64_t(11));
    }

    void schemaJsonErrors()
    {
        QVERIFY(!BincodeSchema::fromJson("{"));
        QVERIFY(!BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":"u256"})"));
        auto cycle = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":{"ref":"A"},"types":{"A":{"option":{"ref":"A"}}}})");
        QVERIFY(!cycle);
        QVERIFY(cycle.error().what.find("contains itself") != std::string::npos);
        std::string deep;
        for (int i = 0; i < 2000; ++i)
            deep += R"({"option":)";
        deep += "\"u8\"";
        for (int i = 0; i < 2000; ++i)
            deep += "}";
        auto tooDeep = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":)" + deep + "}");
        QVERIFY(!tooDeep);
        QCOMPARE(tooDeep.error().code, ErrorCode::Limit);
        // A hand schema survives the round trip.
        const BincodeSchema s = trainingSchema();
        auto back = BincodeSchema::fromJson(s.toJson());
        QVERIFY(back);
        const auto bytes = expectedTrainingBytes(0x01);
        auto decoded = readBincode(makeBytes(bytes), *back);
        QVERIFY(decoded);
        QCOMPARE(encode(decoded->tape, *back), bytes);
    }
};

QTEST_GUILESS_MAIN(TestBincode)
#include "tst_bincode.moc"
