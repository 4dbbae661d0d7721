// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The record engine against the genuine Burn files, hand-built records and a malformed corpus.
#include "core/diff/diff.h"
#include "core/edit/edit.h"
#include "core/io/gzip.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/report/recordjson.h"
#include "core/run/run.h"
#include "core/util/text.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

using namespace ckpt;

namespace {

QString fixture(const char* rel)
{
    return QStringLiteral(CKPT_FIXTURES "/") + QString::fromUtf8(rel);
}

std::vector<uint8_t> readAll(const QString& path)
{
    auto b = mapFile(path.toStdString());
    if (!b)
        return {};
    return {(*b)->data(), (*b)->data() + (*b)->size()};
}

/// A small TrainingRecord: Linear [2,1] (ids 123456), Adam state, StepLr, one pending gradient, U = (3, 1) (spec §9.8).
Tape trainingRecord(Precision p = Precision::Full, int64_t stepLr = 2, bool duplicateGradient = false)
{
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, p));
    auto tensor = [&](std::vector<float> values, std::vector<uint64_t> shape) {
        b.beginMap();
        b.key("bytes");
        std::vector<uint8_t> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        b.bin(bytes);
        b.key("shape");
        b.beginArray();
        for (auto d : shape)
            b.uinteger(d);
        b.end();
        b.key("dtype");
        b.str("F32");
        b.end();
    };
    const std::string id = paramIdFromU64(123456);
    b.beginArray();
    // 0: module
    b.beginMap();
    b.key("weight");
    b.beginMap();
    b.key("id");
    b.str(id);
    b.key("param");
    tensor({0.25f, -0.5f}, {2, 1});
    b.end();
    b.key("bias");
    b.nil();
    b.end();
    // 1: optimizer
    b.beginMap();
    b.key(id);
    b.beginMap();
    b.key("V1");
    b.beginMap();
    b.key("Rank2");
    b.beginMap();
    b.key("momentum");
    b.beginMap();
    b.key("time");
    b.uinteger(1);
    b.key("moment_1");
    tensor({0.1f, 0.2f}, {2, 1});
    b.key("moment_2");
    tensor({0.01f, 0.04f}, {2, 1});
    b.key("max_moment_2");
    b.nil();
    b.end(); // momentum
    b.end(); // AdamState
    b.end(); // Rank2
    b.end(); // V1
    b.end(); // optimizer map
    // 2: scheduler
    b.integer(stepLr);
    // 3: gradients
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    for (int k = 0; k < (duplicateGradient ? 2 : 1); ++k) {
        b.beginArray();
        b.uinteger(123456);
        b.str("F32");
        tensor({1.0f, 2.0f}, {2, 1});
        b.end();
    }
    b.end();
    b.end();
    // 4: caller state
    b.beginArray();
    b.uinteger(3);
    b.uinteger(1);
    b.end();
    b.end();
    endEnvelope(b);
    return std::move(b).finish();
}

std::shared_ptr<const Record> openBytes(const std::vector<uint8_t>& bytes, const OpenOptions& o = {})
{
    auto r = openRecordBytes(makeBytes(bytes), "mem", o);
    if (!r)
        qWarning("%s", r.error().message().c_str());
    return r ? *r : nullptr;
}

Error openError(const std::vector<uint8_t>& bytes, const OpenOptions& o = {})
{
    auto r = openRecordBytes(makeBytes(bytes), "mem", o);
    if (r) {
        Error e;
        e.what = "<opened without error>";
        return e;
    }
    return r.error();
}

} // namespace

class TestRecord : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void genuineFixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("params");
        QTest::addColumn<int>("optimizerEntries");
        QTest::addColumn<int>("tensors");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("precision");
        QTest::addRow("0.12.1 legacy") << fixture("models/burn-0.12.1_half_nannou-mnist.mpk") << "module_record" << 4 << 0 << 4 << "0.12.1" << "half";
        QTest::addRow("0.14.0") << fixture("models/burn-0.14.0_full_sysdesign.mpk") << "module_record" << 28 << 0 << 28 << "0.14.0" << "full";
        QTest::addRow("0.16.0") << fixture("models/burn-0.16.0_half_glyphtool.mpk") << "module_record" << 9 << 0 << 9 << "0.16.0" << "half";
        QTest::addRow("0.16.1") << fixture("models/burn-0.16.1_full_connect4.mpk") << "module_record" << 6 << 0 << 6 << "0.16.1" << "full";
        QTest::addRow("0.17.0") << fixture("models/burn-0.17.0_half_modern-lstm.mpk") << "module_record" << 42 << 0 << 42 << "0.17.0" << "half";
        QTest::addRow("0.18.0") << fixture("models/burn-0.18.0_half_lab-vision-mnist.mpk") << "module_record" << 8 << 0 << 8 << "0.18.0" << "half";
        QTest::addRow("0.21.0") << fixture("models/burn-0.21.0_full_minesweeper-ml.mpk") << "module_record" << 12 << 0 << 12 << "0.21.0" << "full";
        QTest::addRow("mechint model") << fixture("runs/mechint-0.20.0-pre.6/checkpoint/model-3.mpk") << "module_record" << 16 << 0 << 16 << "0.20.0-pre.6" << "half";
        QTest::addRow("mechint optim") << fixture("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk") << "optimizer_record" << 0 << 16 << 32 << "0.20.0-pre.6" << "half";
        QTest::addRow("mechint scheduler") << fixture("runs/mechint-0.20.0-pre.6/checkpoint/scheduler-3.mpk") << "scheduler_record" << 0 << 0 << 0 << "0.20.0-pre.6" << "half";
        QTest::addRow("mlplay model") << fixture("runs/mlplay-0.16.1/checkpoint/model-10.mpk") << "module_record" << 8 << 0 << 8 << "0.16.1" << "half";
        QTest::addRow("mlplay optim") << fixture("runs/mlplay-0.16.1/checkpoint/optim-10.mpk") << "optimizer_record" << 0 << 8 << 16 << "0.16.1" << "half";
        QTest::addRow("mlplay scheduler") << fixture("runs/mlplay-0.16.1/checkpoint/scheduler-10.mpk") << "scheduler_record" << 0 << 0 << 0 << "0.16.1" << "half";
        QTest::addRow("0.18.0 bincode (scan)") << fixture("models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin") << "module_record" << 8 << 0 << 8 << "0.18.0" << "full";
    }

    void genuineFixtures()
    {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        QFETCH(int, params);
        QFETCH(int, optimizerEntries);
        QFETCH(int, tensors);
        QFETCH(QString, version);
        QFETCH(QString, precision);
        auto r = openRecord(file.toStdString());
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        const Record& rec = **r;
        QCOMPARE(QString::fromStdString(std::string(recordKindName(rec.kind))), kind);
        QCOMPARE(int(rec.params.size()), params);
        QCOMPARE(int(rec.optimizer.size()), optimizerEntries);
        QCOMPARE(int(rec.tensors.size()), tensors);
        QCOMPARE(QString::fromStdString(rec.metadata.version), version);
        QCOMPARE(QString::fromStdString(std::string(precisionName(rec.precision))), precision);
        // Every tensor's payload has exactly numel x element size bytes, and statistics are finite-or-counted.
        for (const auto& t : rec.tensors) {
            if (!t.legacy)
                QCOMPARE(uint64_t(rec.payload(t).size()), t.numel * dtypeSize(t.dtype));
            const auto s = rec.stats(t);
            QCOMPARE(s.count, t.numel);
            QCOMPARE(s.finite + s.nan + s.inf, s.count);
        }
        // Every optimizer state tensor has its parameter's shape, in the real AdamW/Adam files.
        for (const auto& oe : rec.optimizer) {
            QVERIFY(oe.time.has_value());
            QCOMPARE(oe.optimizer, std::string("Adam/AdamW"));
            QCOMPARE(oe.tensors.size(), size_t(2));
            QCOMPARE(rec.tensors[oe.tensors[0]].shape.size(), size_t(oe.rank));
        }
        // Re-saving in its own recorder and precision gives identical bytes.
        if (!rec.partial) {
            QTemporaryDir dir;
            const std::string out = dir.filePath(QStringLiteral("resaved")).toStdString();
            auto w = resaveRecord(rec, out);
            QVERIFY2(w, w ? "" : w.error().message().c_str());
            QCOMPARE(readAll(QString::fromStdString(out)), readAll(file));
        }
    }

    void legacyHalfValuesWiden()
    {
        // Burn <= 0.13 stores f16 values as u16 bit patterns: they must come out as the floats they encode.
        auto r = openRecord(fixture("models/burn-0.12.1_half_nannou-mnist.mpk").toStdString());
        QVERIFY(r);
        const auto& t = (*r)->tensors.front();
        QVERIFY(t.legacy);
        QCOMPARE(t.dtype, DType::F16);
        auto v = (*r)->values(t, 0, 8);
        QCOMPARE(v.size(), size_t(8));
        for (double x : v)
            QVERIFY(std::isfinite(x) && std::fabs(x) < 10);
        const std::string id = (*r)->params.front().id;
        QCOMPARE(id.size(), size_t(36)); // UUID-style ids of Burn <= 0.13
    }

    void boolStoresAndQuantSchemesAreNamed()
    {
        // Burn >= 0.21's TensorData dtype is Bool(BoolStore): a U32 store holds each element in four
        // bytes. The contract names the stores Bool(U8) / Bool(U32) (Native stays Bool) and shows a
        // QFloat's scheme as "quant"; statistics read a Bool(U32)'s elements as u32, not as bytes.
        TapeBuilder b;
        beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.21.0"));
        auto tensor = [&](const char* name, std::vector<uint8_t> bytes, uint64_t numel, const std::function<void()>& dtype) {
            b.key(name);
            b.beginMap();
            b.key("bytes");
            b.bin(bytes);
            b.key("shape");
            b.beginArray();
            b.uinteger(numel);
            b.end();
            b.key("dtype");
            dtype();
            b.end();
        };
        auto boolStore = [&](const char* store) {
            return [&b, store] {
                b.beginMap();
                b.key("Bool");
                b.str(store);
                b.end();
            };
        };
        b.beginMap();
        tensor("mask", {1, 0, 1}, 3, boolStore("Native"));
        tensor("mask_u8", {0, 1, 1}, 3, boolStore("U8"));
        tensor("mask_u32", {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 3, boolStore("U32"));
        tensor("q", {1, 2, 3, 4, 0, 0, 128, 63}, 4, [&] {
            b.beginMap();
            b.key("QFloat");
            b.beginMap();
            b.key("value");
            b.str("Q8S");
            b.key("level");
            b.str("Tensor");
            b.end();
            b.end();
        });
        b.end();
        endEnvelope(b);
        auto r = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "stores");
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        const Record& rec = **r;
        QCOMPARE(rec.tensors.size(), size_t(4));
        QCOMPARE(rec.tensors[0].dtypeLabel(), std::string("Bool"));
        QCOMPARE(rec.tensors[1].dtypeLabel(), std::string("Bool(U8)"));
        QCOMPARE(rec.tensors[2].dtypeLabel(), std::string("Bool(U32)"));
        QCOMPARE(rec.tensors[3].dtypeLabel(), std::string("QFloat"));
        QCOMPARE(rec.tensors[3].quant, std::string(R"({"value":"Q8S","level":"Tensor"})"));
        for (size_t i : {0, 1, 2}) { // the same three values, stored three ways: [1, 0, 1], [0, 1, 1], [1, 0, 1]
            const auto st = rec.stats(rec.tensors[i]);
            QCOMPARE(st.count, uint64_t(3));
            QCOMPARE(st.sum, 2.0);
            QCOMPARE(st.zeros, uint64_t(1));
        }
        QCOMPARE(rec.values(rec.tensors[2], 0, 3), (std::vector<double>{1, 0, 1}));

        const auto rows = nlohmann::ordered_json::parse(tensorsJson(rec, tensorRows(rec, "")));
        QCOMPARE(rows[2]["dtype"].get<std::string>(), std::string("Bool(U32)"));
        QVERIFY(!rows[2].contains("quant"));
        QCOMPARE(rows[3]["quant"].dump(), std::string(R"({"value":"Q8S","level":"Tensor"})"));

        // a Bool(U32) needs four bytes an element, as Burn's own check says
        b = TapeBuilder();
        beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.21.0"));
        b.beginMap();
        tensor("mask_u32", {1, 0, 1}, 3, boolStore("U32"));
        b.end();
        endEnvelope(b);
        auto bad = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "short");
        QVERIFY(!bad);
        QVERIFY2(bad.error().message().find("dtype Bool(U32) needs 12 bytes, found 3") != std::string::npos, bad.error().message().c_str());
    }

    void halfPayloadsMatchFullPayloads()
    {
        // The 0.18 pair holds the same model at full (bincode) and half (msgpack) precision.
        OpenOptions o;
        o.schemaFrom = fixture("models/burn-0.18.0_half_lab-vision-mnist.mpk").toStdString();
        auto full = openRecord(fixture("models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin").toStdString(), o);
        QVERIFY2(full, full ? "" : full.error().message().c_str());
        QVERIFY(!(*full)->partial);
        auto half = openRecord(fixture("models/burn-0.18.0_half_lab-vision-mnist.mpk").toStdString());
        QVERIFY(half);
        QCOMPARE((*full)->tensors.size(), (*half)->tensors.size());
        for (size_t i = 0; i < (*full)->tensors.size(); ++i) {
            const auto& tf = (*full)->tensors[i];
            const auto& th = (*half)->tensors[i];
            QCOMPARE(tf.path, th.path);
            QCOMPARE(tf.paramId, th.paramId);
            QCOMPARE(tf.dtype, DType::F32);
            QCOMPARE(th.dtype, DType::F16);
            auto pf = (*full)->payload(tf);
            auto ph = (*half)->payload(th);
            for (uint64_t k = 0; k < tf.numel; ++k) {
                float f;
                uint16_t h;
                std::memcpy(&f, pf.data() + 4 * k, 4);
                std::memcpy(&h, ph.data() + 2 * k, 2);
                QCOMPARE(floatToHalf(f), h);
            }
        }
        // Converting the full record to half precision msgpack reproduces the genuine half file's payloads.
        ConvertResult rep;
        auto env = convertedEnvelope(**full, Recorder::NamedMpk, Precision::Half, rep);
        QVERIFY(env);
        auto conv = indexRecord(std::move(*env), Recorder::NamedMpk, "converted");
        QVERIFY(conv);
        for (size_t i = 0; i < (*conv)->tensors.size(); ++i) {
            auto a = (*conv)->payload((*conv)->tensors[i]);
            auto b = (*half)->payload((*half)->tensors[i]);
            QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
        }
        QVERIFY(!rep.warnings.empty()); // f32 -> f16 rounds: the user is told
    }

    void trainingRecordIndex()
    {
        auto bytes = encodeRecord(trainingRecord(), Recorder::NamedMpk);
        QVERIFY(bytes);
        auto r = openBytes(*bytes);
        QVERIFY(r);
        QCOMPARE(r->kind, RecordKind::TrainingRecord);
        QCOMPARE(r->params.size(), size_t(1));
        QCOMPARE(r->params[0].numericId, std::optional<uint64_t>(123456));
        QCOMPARE(r->optimizer.size(), size_t(1));
        QCOMPARE(r->optimizer[0].rank, 2u);
        QCOMPARE(r->optimizer[0].time, std::optional<uint64_t>(1));
        QVERIFY(!r->optimizer[0].amsgrad);
        QCOMPARE(r->gradients.size(), size_t(1));
        QCOMPARE(r->gradients[0].paramId, r->params[0].id);
        QCOMPARE(r->scheduler->kind, std::string("usize"));
        QCOMPARE(r->tensors.size(), size_t(4));
        QCOMPARE(r->tensors[1].path, std::string("item[1].83h0200000000.V1.Rank2.momentum.moment_1"));
        QCOMPARE(r->tensors[1].stateName, std::string("moment_1"));
        QCOMPARE(r->tensors[3].path, std::string("item[3].gradients[0][2]"));
        QCOMPARE(r->tensors[3].role, TensorRole::Gradient);
        auto s = stateJson(*r);
        QVERIFY(s);
        QCOMPARE(QByteArray::fromStdString(*s), QByteArray("[\n  3,\n  1\n]"));
        const auto checks = checkResume(*r);
        for (const auto& c : checks)
            QVERIFY2(c.status != ResumeCheck::Status::Error, c.detail.c_str());
        QCOMPARE(paramIdFromU64(123456), std::string("83h0200000000"));
        QCOMPARE(paramIdToU64("p9vkb80ukhqou"), std::optional<uint64_t>(10337348971143725002ull));
    }

    void spec98Bytes()
    {
        // The annotated example of format spec §9.8 starts 83 a8 "metadata" 85 ... and the module record
        // 82 a6 "weight" 82 a2 "id" ad "83h0200000000" a5 "param" 83 a5 "bytes" c4 08 0000803e 000000bf.
        auto bytes = encodeRecord(trainingRecord(), Recorder::NamedMpk);
        QVERIFY(bytes);
        const QByteArray b(reinterpret_cast<const char*>(bytes->data()), qsizetype(bytes->size()));
        QVERIFY(b.startsWith(QByteArray::fromHex("83a86d65746164617461")));
        QVERIFY(b.contains(QByteArray(QByteArray::fromHex("82a677656967687482a26964ad") + QByteArray("83h0200000000"))));
        QVERIFY(b.contains(QByteArray::fromHex("c4080000803e000000bf")));
        QVERIFY(b.contains(QByteArray::fromHex("a462696173c0"))); // bias: nil
        QVERIFY(b.endsWith(QByteArray::fromHex("920301a25f6290")));
    }

    void convertMatrixRoundTrips()
    {
        // All 18 recorder x precision combinations: write, reopen, same structure; full <-> double is lossless.
        auto src = indexRecord(trainingRecord(), Recorder::NamedMpk, "src");
        QVERIFY(src);
        QTemporaryDir dir;
        const Recorder recorders[] = {Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson, Recorder::JsonGz, Recorder::Bin, Recorder::BinGz};
        const Precision precisions[] = {Precision::Full, Precision::Half, Precision::Double};
        for (auto rec : recorders) {
            for (auto p : precisions) {
                const std::string path = dir.filePath(QStringLiteral("r.") + QString::fromUtf8(recorderExtension(rec).data())).toStdString();
                auto c = convertRecord(**src, rec, p, path);
                QVERIFY2(c, c ? "" : c.error().message().c_str());
                // Bincode has no names: decode it with the layout of the same record in MessagePack.
                OpenOptions o;
                if (rec == Recorder::Bin || rec == Recorder::BinGz) {
                    o.schemaFrom = dir.filePath(QStringLiteral("layout.mpk")).toStdString();
                    QVERIFY(saveRecord((*src)->tape, Recorder::NamedMpk, o.schemaFrom));
                }
                auto back = openRecord(path, o);
                QVERIFY2(back, back ? "" : back.error().message().c_str());
                QCOMPARE((*back)->recorder, rec);
                QCOMPARE((*back)->precision, p);
                QCOMPARE((*back)->kind, RecordKind::TrainingRecord);
                QCOMPARE((*back)->tensors.size(), (*src)->tensors.size());
                QCOMPARE((*back)->gradients.size(), size_t(1));
                for (size_t i = 0; i < (*src)->tensors.size(); ++i) {
                    auto a = (*src)->values((*src)->tensors[i], 0, 100);
                    auto b = (*back)->values((*back)->tensors[i], 0, 100);
                    QCOMPARE(b.size(), a.size());
                    for (size_t k = 0; k < a.size(); ++k)
                        QCOMPARE(b[k], p == Precision::Half ? double(halfToFloat(floatToHalf(float(a[k])))) : a[k]);
                }
                // Re-saving what we wrote is the identity (gzip: same payload).
                const std::string again = path + ".again";
                QVERIFY(resaveRecord(**back, again));
                auto x = readAll(QString::fromStdString(path)), y = readAll(QString::fromStdString(again));
                if (isGzipped(rec)) {
                    auto ux = gunzip(x), uy = gunzip(y);
                    QVERIFY(ux && uy);
                    QVERIFY(std::equal((*ux)->span().begin(), (*ux)->span().end(), (*uy)->span().begin(), (*uy)->span().end()));
                } else {
                    QCOMPARE(x, y);
                }
            }
        }
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("messagePart");
        QTest::addColumn<QString>("recordPath");
        QTest::addColumn<qint64>("offset");

        auto enc = [](const Tape& t) {
            auto b = encodeRecord(t, Recorder::NamedMpk);
            return QByteArray(reinterpret_cast<const char*>(b->data()), qsizetype(b->size()));
        };
        const QByteArray good = enc(trainingRecord());
        const qint64 weightBytes = good.indexOf(QByteArray::fromHex("c408")); // the weight's bin8 header

        // bin8 of 4 bytes instead of 8: the weight's second float (00 00 00 bf) is then read as the
        // param map's next entries, key 0 => 0, key 0 => fixstr of 31 bytes, whose first byte is the
        // 0xa5 header of "shape" - not UTF-8. The reader must name that string, not run past it.
        QByteArray wrongLength = good;
        wrongLength[weightBytes + 1] = 0x04;
        QTest::addRow("bin8 shorter than its tensor")
            << wrongLength << int(ErrorCode::Malformed)
            << QString(QStringLiteral("expected UTF-8 text in a fixstr of 31 bytes (starting at offset ") + QString::number(weightBytes + 9)
                   + QStringLiteral("), found invalid byte 0xa5"))
            << "item[0].weight.param.0" << qint64(weightBytes + 10);
        QTest::addRow("empty") << QByteArray() << int(ErrorCode::Truncated) << "empty" << "" << qint64(0);
        QTest::addRow("truncated") << good.left(good.size() / 2) << int(ErrorCode::Truncated) << "" << "" << qint64(-1);

        // Declared length larger than the file: refused before any allocation.
        QByteArray huge = QByteArray::fromHex("83a86d65746164617461c6ffffffff");
        QTest::addRow("bin32 of 4 GiB") << huge << int(ErrorCode::Truncated) << "" << "" << qint64(-1);
        QByteArray hugeArray = QByteArray::fromHex("81a161dd7fffffff00");
        QTest::addRow("array32 of 2^31") << hugeArray << int(ErrorCode::Limit) << "declares 2147483647 elements" << "" << qint64(3);

        // Unknown dtype: "F32" -> "F99" everywhere; the first one (the weight's) is reported.
        QByteArray unknownDtype = good;
        const QByteArray f32Key = QByteArray::fromHex("a56474797065a3463332");
        const qint64 firstDtype = good.indexOf(f32Key) + 6;
        unknownDtype.replace(f32Key, QByteArray::fromHex("a56474797065a3463939"));
        QTest::addRow("unknown dtype") << unknownDtype << int(ErrorCode::Invalid) << "unknown dtype \"F99\"" << "item[0].weight.param.dtype" << firstDtype;

        // Length that disagrees with shape x dtype: shape [2, 1] F32 with 8 bytes -> make the shape [3, 1].
        QByteArray badShape = good;
        const qint64 shapeAt = good.indexOf(QByteArray::fromHex("a5736861706592 0201").replace(' ', ""));
        badShape[shapeAt + 7] = 0x03;
        QTest::addRow("bytes vs shape") << badShape << int(ErrorCode::Invalid) << "needs 12 bytes, found 8"
                                        << "item[0].weight.param.bytes" << qint64(weightBytes);

        // Wrong type: the shape is a string.
        QByteArray shapeString = good;
        shapeString.replace(shapeAt + 6, 3, QByteArray::fromHex("a2 7878").replace(' ', ""));
        QTest::addRow("shape is a string") << shapeString << int(ErrorCode::Invalid) << "expected the shape as an array" << "item[0].weight.param.shape" << qint64(shapeAt + 6);

        // Duplicate pending gradients.
        QTest::addRow("duplicate gradient ids") << enc(trainingRecord(Precision::Full, 2, true)) << int(ErrorCode::Invalid)
                                                << "duplicate pending gradient" << "item[3].gradients[1][0]" << qint64(-1);

        // Missing envelope fields.
        QTest::addRow("no item") << QByteArray::fromHex("81a86d6574616461746180") << int(ErrorCode::Invalid) << "missing field `item`" << "" << qint64(0);
        QTest::addRow("metadata not a struct") << QByteArray::fromHex("82a86d6574616461746101a46974656dc0") << int(ErrorCode::Invalid)
                                               << "expected the metadata struct" << "metadata" << qint64(10);
        // Issue 10's cases: each is what the typed decoders reject, so it must not open.
        const qint64 itemAt = good.indexOf(QByteArray::fromHex("a46974656d95")) + 5;
        QByteArray fourTuple = good;
        fourTuple[itemAt] = char(0x94);
        fourTuple.remove(fourTuple.size() - 7, 3); // U = (3, 1): 92 03 01 before "_b"
        QTest::addRow("item tuple of 4") << fourTuple << int(ErrorCode::Invalid) << "expected a TrainingRecord (a tuple of 5" << "item" << itemAt;
        QByteArray noB = good;
        noB[0] = char(0x82);
        noB.chop(4); // a2 "_b" 90
        QTest::addRow("no _b") << noB << int(ErrorCode::Invalid) << "missing field `_b`" << "" << qint64(0);
        QByteArray intGradient = good;
        const qint64 gradDtype = good.indexOf(QByteArray::fromHex("ce0001e240a3463332")) + 5;
        intGradient[gradDtype + 1] = 'I';
        QTest::addRow("integer pending gradient") << intGradient << int(ErrorCode::Invalid) << "must have a float dtype, found I32"
                                                  << "item[3].gradients[0][1]" << gradDtype;
        QByteArray momentumless = good;
        const qint64 momentumAt = good.indexOf(QByteArray::fromHex("a86d6f6d656e74756d")); // "momentum"
        momentumless[momentumAt + 8] = 'x'; // "momentux": an AdamState without its field
        QTest::addRow("optimizer state without momentum") << momentumless << int(ErrorCode::Invalid) << "missing field `momentum`"
                                                          << "item[1].83h0200000000.V1.Rank2" << qint64(momentumAt - 1);
        QTest::addRow("4 KiB of zeros") << QByteArray(4096, '\0') << int(ErrorCode::Invalid) << "metadata strings are empty" << "" << qint64(0);
        // Reserved marker.
        QTest::addRow("marker c1") << QByteArray::fromHex("81a1 61c1").replace(' ', "") << int(ErrorCode::Malformed) << "c1" << "" << qint64(3);
    }

    void malformed()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, code);
        QFETCH(QString, messagePart);
        QFETCH(QString, recordPath);
        QFETCH(qint64, offset);
        const Error e = openError(std::vector<uint8_t>(bytes.begin(), bytes.end()));
        QVERIFY2(e.what != "<opened without error>", "a malformed record opened");
        QCOMPARE(int(e.code), code);
        QVERIFY2(QString::fromStdString(e.message()).contains(messagePart), e.message().c_str());
        QVERIFY2(e.message().starts_with("mem: "), e.message().c_str());
        if (!recordPath.isEmpty())
            QCOMPARE(QString::fromStdString(e.recordPath), recordPath);
        if (offset >= 0)
            QCOMPARE(qint64(e.offset.value_or(UINT64_MAX)), offset);
        else if (offset == -1)
            QVERIFY(e.offset.has_value() && *e.offset <= uint64_t(bytes.size()));
    }

    void truncationAtEveryByteNeverCrashes()
    {
        const auto good = readAll(fixture("models/burn-0.16.1_full_connect4.mpk"));
        QVERIFY(!good.empty());
        for (size_t n = 0; n < good.size(); n += (n < 2000 ? 1 : 97)) {
            std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
            const Error e = openError(cut);
            QVERIFY2(e.what != "<opened without error>", qPrintable(QString::number(n)));
            QVERIFY(e.offset.value_or(0) <= n);
        }
    }

    void extraEnvelopeFieldIsIgnoredLikeSerde()
    {
        // serde's derived Deserialize skips unknown fields (BurnRecord has no deny_unknown_fields).
        TapeBuilder b;
        const Tape good = trainingRecord();
        b.beginMap();
        good.forEachEntry(0, [&](uint32_t k, uint32_t v) {
            b.copy(good, k);
            b.copy(good, v);
        });
        b.key("extra");
        b.uinteger(1);
        b.end();
        auto r = openBytes(*encodeRecord(std::move(b).finish(), Recorder::NamedMpk));
        QVERIFY(r);
        QCOMPARE(r->kind, RecordKind::TrainingRecord);
    }

    void lenientOpensDamagedFilesMarked()
    {
        auto bytes = *encodeRecord(trainingRecord(Precision::Full, 2, true), Recorder::NamedMpk);
        QVERIFY(!openBytes(bytes));
        OpenOptions o;
        o.lenient = true;
        auto r = openBytes(bytes, o);
        QVERIFY(r);
        QVERIFY(r->partial);
        QVERIFY2(r->damage.find("duplicate pending gradient") != std::string::npos, r->damage.c_str());
        QCOMPARE(r->tensors.size(), size_t(5)); // weight, two moments, both gradients: still all listed
        // A valid record opened leniently is not marked.
        auto fine = openBytes(*encodeRecord(trainingRecord(), Recorder::NamedMpk), o);
        QVERIFY(fine && !fine->partial && fine->damage.empty());
        // Zeros are no envelope: salvage shows the structural scan, marked.
        auto zeros = openBytes(std::vector<uint8_t>(4096, 0), o);
        QVERIFY(zeros && zeros->partial);
        QVERIFY2(zeros->damage.find("metadata strings are empty") != std::string::npos, zeros->damage.c_str());
    }

    void trailingBytesWarn()
    {
        auto bytes = *encodeRecord(trainingRecord(), Recorder::NamedMpk);
        bytes.push_back(0x00);
        auto r = openBytes(bytes);
        QVERIFY(r);
        QVERIFY(!r->warnings.empty());
        QVERIFY(r->warnings[0].find("trailing") != std::string::npos);
    }

    void gzipBombIsRefused()
    {
        // A record of 64 MiB of zeros gzips to ~64 KiB; with a 1 MiB ceiling it must stop, not allocate.
        std::vector<uint8_t> zeros(64 << 20, 0);
        auto gz = gzip(zeros);
        QVERIFY(gz);
        OpenOptions o;
        o.limits.maxOutputBytes = 1 << 20;
        const Error e = openError(*gz, o);
        QCOMPARE(e.code, ErrorCode::Limit);
        QVERIFY(QString::fromStdString(e.message()).contains(QStringLiteral("limit")));
    }

    void editContinuationState()
    {
        auto r = indexRecord(trainingRecord(), Recorder::NamedMpk, "mem");
        QVERIFY(r);
        auto ok = applyEdits(**r, {{"item[4][0]", "7"}, {"item[2]", "-1"}, {"metadata.version", "\"0.21.44\""}});
        QVERIFY2(ok, ok ? "" : ok.error().message().c_str());
        auto edited = indexRecord(std::move(*ok), Recorder::NamedMpk, "edited");
        QVERIFY(edited);
        QCOMPARE(*stateJson(**edited), std::string("[\n  7,\n  1\n]"));
        QCOMPARE((*edited)->metadata.version, std::string("0.21.44"));
        QCOMPARE((*edited)->scheduler->kind, std::string("step"));
        // Wrong type, negative counter, tensors, bad JSON: refused with the path named.
        auto wrongType = applyEdits(**r, {{"item[4][0]", "\"seven\""}});
        QVERIFY(!wrongType);
        QCOMPARE(wrongType.error().recordPath, std::string("item[4][0]"));
        QVERIFY(wrongType.error().what.find("expected a non-negative integer") != std::string::npos);
        QVERIFY(!applyEdits(**r, {{"item[4][1]", "-3"}}));
        QVERIFY(!applyEdits(**r, {{"item[0].weight.param.shape[0]", "4"}}));
        QVERIFY(!applyEdits(**r, {{"item[4][0]", "{"}}));
        QVERIFY(!applyEdits(**r, {{"item[9]", "1"}}));
        // StepLr's i32 range is enforced.
        auto r2 = indexRecord(trainingRecord(Precision::Full, -1), Recorder::NamedMpk, "mem");
        QVERIFY(r2);
        QVERIFY(!applyEdits(**r2, {{"item[2]", "3000000000"}}));
        QVERIFY(applyEdits(**r2, {{"item[2]", "5"}}));
    }

    void wideIntegersInPrettyJsonStayExact()
    {
        // A caller state with u128 / i128 values beyond 64 bits (serde_json writes their digits) and a
        // u64 next to them: re-saved byte-identically, printed exactly, edited within each one's range.
        auto src = indexRecord(trainingRecord(), Recorder::NamedMpk, "src");
        QVERIFY(src);
        TapeBuilder b;
        copyReplacing(b, (*src)->tape, 0, [&](uint32_t node) {
            if (node != *(*src)->stateNode)
                return false;
            b.beginMap();
            b.key("rng");
            b.uinteger128(kUInt128Max);
            b.key("offset");
            b.integer128(kInt128Min);
            b.key("limit");
            b.uinteger128(UInt128(kInt128Max));
            b.key("seen");
            b.uinteger128(UInt128(1) << 64);
            b.key("debt");
            b.integer128(Int128(INT64_MIN) - 1);
            b.key("count");
            b.uinteger(5);
            b.end();
            return true;
        });
        auto wide = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "wide");
        QVERIFY(wide);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("wide.json")).toStdString();
        QVERIFY(convertRecord(**wide, Recorder::PrettyJson, Precision::Full, path));
        const QByteArray stateText = "{\n  \"rng\": 340282366920938463463374607431768211455,\n"
                                     "  \"offset\": -170141183460469231731687303715884105728,\n"
                                     "  \"limit\": 170141183460469231731687303715884105727,\n"
                                     "  \"seen\": 18446744073709551616,\n"
                                     "  \"debt\": -9223372036854775809,\n"
                                     "  \"count\": 5\n}";
        auto r = openRecord(path);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(QByteArray::fromStdString(*stateJson(**r)), stateText);
        const std::string again = path + ".again";
        QVERIFY(resaveRecord(**r, again));
        QCOMPARE(readAll(QString::fromStdString(again)), readAll(QString::fromStdString(path)));

        // Edits: a wide field takes any value of its type, a 64-bit one stays within 64 bits.
        auto edited = applyEdits(**r,
            {{"item[4].rng", "340282366920938463463374607431768211454"}, {"item[4].offset", "-170141183460469231731687303715884105727"},
                {"item[4].debt", "7"}});
        QVERIFY2(edited, edited ? "" : edited.error().message().c_str());
        auto reopened = indexRecord(std::move(*edited), Recorder::PrettyJson, "edited");
        QVERIFY(reopened);
        QCOMPARE(QByteArray::fromStdString(*stateJson(**reopened)),
            QByteArray(stateText).replace("211455", "211454").replace("105728", "105727").replace("-9223372036854775809", "7"));
        const auto refused = [&](const char* at, const char* json, const char* why) {
            auto e = applyEdits(**r, {{at, json}});
            if (e)
                return std::string("accepted");
            return e.error().what.find(why) != std::string::npos ? std::string() : e.error().what;
        };
        QCOMPARE(refused("item[4].count", "18446744073709551616", "out of the u64 range"), std::string());
        QCOMPARE(refused("item[4].rng", "340282366920938463463374607431768211456", "found a f64"), std::string()); // 129 bits
        QCOMPARE(refused("item[4].rng", "-1", "(negative)"), std::string());
        QCOMPARE(refused("item[4].offset", "170141183460469231731687303715884105728", "out of the i128 range"), std::string());
        QCOMPARE(refused("item[4].debt", "-170141183460469231731687303715884105729", "expected an integer, found a f64"), std::string());
    }

    void diffFindsChanges()
    {
        auto a = indexRecord(trainingRecord(), Recorder::NamedMpk, "a");
        auto edited = applyEdits(**a, {{"item[4][0]", "4"}});
        auto b = indexRecord(std::move(*edited), Recorder::NamedMpk, "b");
        QVERIFY(a && b);
        auto d = diffRecords(**a, **b);
        QVERIFY(d);
        QCOMPARE(d->unchanged, uint64_t(4));
        QCOMPARE(d->changed, uint64_t(0));
        QCOMPARE(d->state.size(), size_t(1));
        QCOMPARE(d->state[0].path, std::string("item[4][0]"));
        // Half precision: same tensors, every dtype changed, small differences.
        ConvertResult rep;
        auto half = indexRecord(*convertedEnvelope(**a, Recorder::NamedMpk, Precision::Half, rep), Recorder::NamedMpk, "h");
        auto dh = diffRecords(**a, **half);
        QCOMPARE(dh->changed, uint64_t(4));
        for (const auto& e : dh->entries) {
            QCOMPARE(e.status, DiffStatus::DTypeChanged);
            QVERIFY(*e.maxAbs < 1e-3);
            QVERIFY(*e.cosine > 0.999999);
        }
    }

    void statsAgreeWithNaiveLoops()
    {
        std::vector<float> v = {1.0f, -2.0f, 0.0f, -0.0f, NAN, INFINITY, 3.5f};
        std::vector<uint8_t> bytes(v.size() * 4);
        std::memcpy(bytes.data(), v.data(), bytes.size());
        const auto s = computeStats(DType::F32, bytes);
        QCOMPARE(s.count, uint64_t(7));
        QCOMPARE(s.nan, uint64_t(1));
        QCOMPARE(s.inf, uint64_t(1));
        QCOMPARE(s.zeros, uint64_t(2));
        QCOMPARE(s.sum, 2.5);
        QCOMPARE(s.min, -2.0);
        QCOMPARE(s.max, 3.5);
        QCOMPARE(s.l2, std::sqrt(1.0 + 4.0 + 12.25));
        QCOMPARE(s.mean, 0.5);
        uint64_t total = 0;
        for (auto c : s.histogram)
            total += c;
        QCOMPARE(total, uint64_t(5));
        QCOMPARE(s.histogram.front(), uint64_t(1)); // -2.0
        QCOMPARE(s.histogram.back(), uint64_t(1));  // 3.5
        const auto empty = computeStats(DType::F32, {});
        QCOMPARE(empty.count, uint64_t(0));
        QVERIFY(std::isnan(empty.mean));
    }

    void runDirectories()
    {
        auto run = openRunDirectory(fixture("runs/mechint-0.20.0-pre.6").toStdString());
        QVERIFY(run);
        QCOMPARE(run->checkpoints.size(), size_t(3));
        QCOMPARE(run->latest("model")->index, uint64_t(3));
        QCOMPARE(run->series.size(), size_t(4)); // train/valid x Loss/Accuracy
        for (const auto& s : run->series) {
            QVERIFY(!s.points.empty());
            QCOMPARE(s.epochMeans().size(), size_t(3));
        }
        const auto series = parseMetricLog("5.100183486938477,1\n96.875,64\nNaN,1\n1024/8192\n", "train", "Loss", 1);
        QCOMPARE(series.points.size(), size_t(4));
        QCOMPARE(series.points[1].count, uint64_t(64));
        QVERIFY(std::isnan(series.points[2].value));
        QCOMPARE(series.points[3].text, std::string("1024/8192"));
        // Burn's epoch value: sum(value * count) / sum(count).
        const auto means = parseMetricLog("1,1\n4,3\n", "train", "Loss", 2).epochMeans();
        QCOMPARE(means[0].second, 13.0 / 4.0);
    }

    void metricLogFinalLines()
    {
        // burn-train 0.22 (NumericEntry::Final): `value,final` is the epoch's aggregate, not a batch
        const auto s = parseMetricLog("1,1\n4,3\n0.75,final\n", "valid", "Auroc", 2);
        QCOMPARE(s.points.size(), size_t(3));
        QVERIFY(!s.points[0].final && !s.points[1].final);
        QVERIFY(s.points[2].final);
        QCOMPARE(s.points[2].value, 0.75);
        QVERIFY(s.points[2].text.empty());
        QCOMPARE(s.points[2].item, uint64_t(2));
        auto means = s.epochMeans();
        QCOMPARE(means.size(), size_t(1));
        QCOMPARE(means[0], std::make_pair(uint32_t(2), 0.75));
        // a global-only metric writes no per-batch lines; CRLF and Rust's NaN spelling are kept
        means = parseMetricLog("0.5,final\r\n", "valid", "Auroc", 1).epochMeans();
        QCOMPARE(means, (std::vector<std::pair<uint32_t, double>>{{1, 0.5}}));
        QVERIFY(std::isnan(parseMetricLog("NaN,final\n", "valid", "Auroc", 1).epochMeans().at(0).second));
        // a final line that is not the file's last is no batch either: the batches' mean stands
        means = parseMetricLog("1,1\n9,final\n4,3\n", "train", "Loss", 1).epochMeans();
        QCOMPARE(means.size(), size_t(1));
        QCOMPARE(means[0].second, 13.0 / 4.0);
        // per epoch: the file (epoch) whose last line is final takes it, the other keeps the weighted mean
        MetricSeries both = parseMetricLog("1,1\n4,3\n", "train", "Loss", 1);
        const auto e2 = parseMetricLog("2,1\n2,1\n7.5,final\n", "train", "Loss", 2);
        both.points.insert(both.points.end(), e2.points.begin(), e2.points.end());
        QCOMPARE(both.epochMeans(), (std::vector<std::pair<uint32_t, double>>{{1, 13.0 / 4.0}, {2, 7.5}}));
        // anything else after the comma is still text, with the warning a numeric-looking line gets
        std::vector<std::string> warnings;
        const auto bad = parseMetricLog("1,finally\n2,Final\n", "train", "Loss", 3, &warnings);
        QVERIFY(!bad.points[0].final && !bad.points[1].final);
        QCOMPARE(bad.points[0].text, std::string("1,finally"));
        QCOMPARE(bad.points[1].text, std::string("2,Final"));
        QCOMPARE(warnings.size(), size_t(2));
        QVERIFY(bad.epochMeans().empty());
    }

    void burnpackRunDirectory()
    {
        // burn-train 0.22: checkpoint/{model,optim,scheduler}-EPOCH.bpk (the listing opens no file)
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("checkpoint")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("valid/epoch-1")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("valid/epoch-2")));
        auto write = [&](const QString& rel, const QByteArray& bytes) {
            QFile f(dir.filePath(rel));
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(bytes), qint64(bytes.size()));
        };
        for (int epoch : {1, 2})
            for (const char* kind : {"model", "optim", "scheduler"})
                write(QStringLiteral("checkpoint/%1-%2.bpk").arg(QLatin1String(kind)).arg(epoch), QByteArrayLiteral("NRUB\x01\x00"));
        write(QStringLiteral("checkpoint/policy-2.bpk"), "NRUB"); // RL paradigm names: not listed (yet)
        write(QStringLiteral("checkpoint/model-x.bpk"), "NRUB");
        write(QStringLiteral("valid/epoch-1/Loss.log"), "2,2\n5,2\n");
        write(QStringLiteral("valid/epoch-2/Loss.log"), "1,2\n3,2\n2.5,final\n");
        const std::string root = dir.path().toStdString();
        QVERIFY(isRunDirectory(root));
        auto run = openRunDirectory(root);
        QVERIFY(run);
        QCOMPARE(run->checkpoints.size(), size_t(6));
        const char* kinds[] = {"model", "optim", "scheduler"};
        for (size_t i = 0; i < run->checkpoints.size(); ++i) {
            QCOMPARE(run->checkpoints[i].index, uint64_t(i / 3 + 1));
            QCOMPARE(run->checkpoints[i].kind, std::string(kinds[i % 3]));
            QVERIFY(run->checkpoints[i].path.ends_with(".bpk"));
        }
        QCOMPARE(run->latest("model")->path, (std::filesystem::path(root) / "checkpoint" / "model-2.bpk").string());
        auto pick = recordOfRunDirectory(root);
        QVERIFY(pick);
        QCOMPARE(pick->path, run->latest("model")->path);
        QCOMPARE(run->series.size(), size_t(1));
        QCOMPARE(run->series[0].points.size(), size_t(5));
        QCOMPARE(run->series[0].epochMeans(), (std::vector<std::pair<uint32_t, double>>{{1, 3.5}, {2, 2.5}}));
        QVERIFY(run->warnings.empty());
    }

    void globFilterTreatsBracketsLiterally()
    {
        QVERIFY(globMatch("item[0].*", "item[0].fc.weight.param"));
        QVERIFY(!globMatch("item[0].*", "item[1].fc.weight.param"));
        QVERIFY(globMatch("*moment_?", "item[1][\"x\"].V1.Rank2.momentum.moment_1"));
    }
};

QTEST_GUILESS_MAIN(TestRecord)
#include "tst_record.moc"
