// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// core/export: safetensors and .npz as written byte by byte, the safetensors reader's verdicts and
// offsets on malformed files, and import back into a record (validation, untouched tensors) - on a
// hand-built TrainingRecord with every role and BF16/Bool/I64 tensors, and on the genuine fixtures.
#include "core/export/export.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <zlib.h>

using namespace ckpt;

namespace {

void tensor(TapeBuilder& b, std::string_view dtype, std::vector<uint64_t> shape, const std::vector<uint8_t>& bytes)
{
    writeTensorData(b, dtype, shape, bytes);
}

std::vector<uint8_t> f32Bytes(const std::vector<float>& v)
{
    std::vector<uint8_t> out(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

std::vector<uint8_t> bf16Bytes(const std::vector<float>& v)
{
    std::vector<uint8_t> out;
    for (float f : v) {
        const uint16_t h = floatToBf16(f);
        out.push_back(uint8_t(h));
        out.push_back(uint8_t(h >> 8));
    }
    return out;
}

/**
 * A TrainingRecord: params fc (F32 [2, 3]) and emb (BF16 [4]), a module field mask (Bool [3]) that
 * is no parameter; Adam state for fc; one pending gradient; state {step: u64 max, seed, counts (I64 [2])}.
 */
std::shared_ptr<const Record> buildRecord(uint64_t countsLength = 2)
{
    TapeBuilder b;
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.20.0")); // bare Bool dtype
    b.beginArray();
    b.beginMap();
    b.key("fc");
    b.beginMap();
    b.key("id");
    b.str(paramIdFromU64(11));
    b.key("param");
    tensor(b, "F32", {2, 3}, f32Bytes({1, -2, 3.5f, 0, 0.25f, -7}));
    b.end();
    b.key("emb");
    b.beginMap();
    b.key("id");
    b.str(paramIdFromU64(12));
    b.key("param");
    tensor(b, "BF16", {4}, bf16Bytes({1.5f, -0.5f, 256, 0.0078125f}));
    b.end();
    b.key("mask");
    tensor(b, "Bool", {3}, {1, 0, 1});
    b.end();
    b.beginMap();
    b.key(paramIdFromU64(11));
    b.beginMap();
    b.key("V1");
    b.beginMap();
    b.key("Rank2");
    b.beginMap();
    b.key("momentum");
    b.beginMap();
    b.key("time");
    b.uinteger(3);
    b.key("moment_1");
    tensor(b, "F32", {2, 3}, f32Bytes({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}));
    b.key("moment_2");
    tensor(b, "F32", {2, 3}, f32Bytes({1, 2, 3, 4, 5, 6}));
    b.key("max_moment_2");
    b.nil();
    b.end();
    b.end();
    b.end();
    b.end();
    b.end();
    b.uinteger(3); // scheduler
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    b.beginArray();
    b.uinteger(11);
    b.str("F32");
    tensor(b, "F32", {2, 3}, f32Bytes({9, 8, 7, 6, 5, 4}));
    b.end();
    b.end();
    b.end();
    b.beginMap();
    b.key("step");
    b.uinteger(UINT64_MAX);
    b.key("seed");
    b.uinteger(7);
    b.key("counts");
    std::vector<uint8_t> counts(countsLength * 8);
    const int64_t c[2] = {-5, int64_t(1) << 40};
    std::memcpy(counts.data(), c, 16);
    tensor(b, "I64", {countsLength}, counts);
    b.end();
    b.end();
    endEnvelope(b);
    auto r = indexRecord(std::move(b).finish(), Recorder::NamedMpk, "built.mpk");
    if (!r)
        qFatal("%s", r.error().message().c_str());
    return *r;
}

uint64_t le(std::span<const uint8_t> s, size_t at, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | s[at + size_t(i)];
    return v;
}

std::vector<uint8_t> readAll(const std::string& path)
{
    auto b = mapFile(path);
    if (!b)
        qFatal("%s", b.error().message().c_str());
    return std::vector<uint8_t>((*b)->span().begin(), (*b)->span().end());
}

std::vector<uint8_t> withLength(std::string header, std::vector<uint8_t> data = {})
{
    std::vector<uint8_t> out;
    out.reserve(8 + header.size() + data.size());
    for (int i = 0; i < 8; ++i)
        out.push_back(uint8_t(uint64_t(header.size()) >> (8 * i)));
    for (char c : header)
        out.push_back(uint8_t(c));
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

const TensorEntry& entry(const Record& r, std::string_view path)
{
    auto i = r.findTensor(path);
    if (!i)
        qFatal("no tensor %s", std::string(path).c_str());
    return r.tensors[*i];
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void selectionAndFormat()
    {
        QCOMPARE(exportFormatFromPath("a/b.safetensors"), std::optional(ExportFormat::Safetensors));
        QCOMPARE(exportFormatFromPath("X.NPZ"), std::optional(ExportFormat::Npz));
        QCOMPARE(exportFormatFromPath("x.pt"), std::optional(ExportFormat::PyTorch));
        QCOMPARE(exportFormatFromPath("x.PTH"), std::optional(ExportFormat::PyTorch));
        QVERIFY(!exportFormatFromPath("x.bin"));
        auto s = parseExportSelection("params,gradients");
        QVERIFY(s);
        QVERIFY(s->params && s->gradients && !s->optimizer && !s->other);
        auto bad = parseExportSelection("params,weights");
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::Usage);
        QVERIFY(bad.error().what.find("'weights'") != std::string::npos);
        QVERIFY(!parseExportSelection(""));
    }

    void safetensorsBytes()
    {
        auto r = buildRecord();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("x.safetensors")).toStdString();
        auto summary = exportSafetensors(*r, {}, path);
        QVERIFY2(summary, summary ? "" : summary.error().message().c_str());
        QCOMPARE(summary->tensors, uint64_t(r->tensors.size()));
        const auto bytes = readAll(path);
        const uint64_t n = le(bytes, 0, 8);
        QCOMPARE((8 + n) % 8, uint64_t(0));
        QCOMPARE(bytes[8], uint8_t('{'));
        // The header opens with the first tensor in file order, spelled as the format spells it.
        const std::string header(bytes.begin() + 8, bytes.begin() + 8 + long(n));
        QVERIFY(header.starts_with(R"({"item[0].fc.param":{"dtype":"F32","shape":[2,3],"data_offsets":[)"));
        QVERIFY(header.find(R"("item[0].mask":{"dtype":"BOOL","shape":[3],)") != std::string::npos);
        QVERIFY(header.find(R"("item[0].emb.param":{"dtype":"BF16","shape":[4],)") != std::string::npos);
        QVERIFY(header.find(R"("item[4].counts":{"dtype":"I64","shape":[2],"data_offsets":[0,16]})") != std::string::npos);
        QVERIFY(header.find(R"(\"state\":{\"step\":18446744073709551615,\"seed\":7,\"counts\":{)") != std::string::npos);
        auto file = readSafetensors(makeBytes(bytes), path);
        QVERIFY2(file, file ? "" : file.error().message().c_str());
        QCOMPARE(file->tensors.size(), r->tensors.size());
        QCOMPARE(file->metadata.size(), size_t(1));
        QCOMPARE(file->metadata[0].first, std::string("ckpt"));
        QCOMPARE(file->metadata[0].second, exportMetadataJson(*r, {}));
        for (size_t i = 0; i < r->tensors.size(); ++i) {
            const auto& t = r->tensors[i];
            const auto& st = file->tensors[i];
            QCOMPARE(st.name, t.path);
            QCOMPARE(st.shape, t.shape);
            const auto payload = r->payload(t);
            QVERIFY(std::equal(payload.begin(), payload.end(), st.data.begin(), st.data.end()));
            // Aligned without gaps: largest elements first.
            QCOMPARE(st.begin % dtypeSize(t.dtype), uint64_t(0));
            QCOMPARE(uint64_t(st.data.data() - file->bytes->data()), 8 + n + st.begin);
        }
        QCOMPARE(file->find("item[3].gradients[0][2]") ? file->find("item[3].gradients[0][2]")->dtype : std::string(), std::string("F32"));
    }

    void metadataOmitsALargeState()
    {
        // 8 KiB of tensor in the caller state: written as numbers, it stays in the metadata.
        const std::string small = exportMetadataJson(*buildRecord(1024), {});
        QVERIFY(small.find("\"state\":{\"step\":18446744073709551615") != std::string::npos);
        QVERIFY(small.find("state_omitted") == std::string::npos);
        // 80 KiB would make a metadata string of hundreds of KiB: omitted, and said so.
        const std::string large = exportMetadataJson(*buildRecord(10240), {});
        QVERIFY(large.find("\"state\":null,\"state_omitted\":\"the continuation state holds 81920 payload bytes") != std::string::npos);
        QVERIFY(large.size() < 4096);
    }

    void selectionByRole()
    {
        auto r = buildRecord();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("g.safetensors")).toStdString();
        QVERIFY(exportSafetensors(*r, *parseExportSelection("gradients"), path));
        auto file = openSafetensors(path);
        QVERIFY(file);
        QCOMPARE(file->tensors.size(), size_t(1));
        QCOMPARE(entry(*r, file->tensors[0].name).role, TensorRole::Gradient);
        QVERIFY(exportSafetensors(*r, *parseExportSelection("other"), path));
        file = openSafetensors(path);
        QVERIFY(file);
        QCOMPARE(file->tensors.size(), size_t(1)); // counts, in the caller state
        for (const auto& t : file->tensors)
            QCOMPARE(entry(*r, t.name).role, TensorRole::Other);
    }

    void readerRejects_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        auto qb = [](const std::vector<uint8_t>& v) { return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size())); };
        const std::vector<uint8_t> four(4, 0);
        QTest::newRow("short") << QByteArray("abc") << QStringLiteral("f: offset 0: expected an 8-byte little-endian header length, found 3 bytes");
        QTest::newRow("length") << qb(withLength("{}")).left(9) << QStringLiteral("f: offset 0: header length 2 exceeds the 1 bytes after it");
        QTest::newRow("not-object") << qb(withLength("[1]")) << QStringLiteral("f: offset 8: expected the JSON header to start with '{'");
        QTest::newRow("json") << qb(withLength("{\"a\":}")) << QStringLiteral("f: offset 13: header JSON: expected value");
        QTest::newRow("dtype") << qb(withLength(R"({"a":{"dtype":"F12","shape":[1],"data_offsets":[0,4]}})", four))
                               << QStringLiteral("f: offset 22: at a: unknown dtype F12 (expected BOOL U8 I8 F8_E5M2 F8_E4M3 I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64)");
        QTest::newRow("size") << qb(withLength(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four))
                              << QStringLiteral("f: offset 55: at a: data_offsets span 4 bytes, but shape [2] of F32 needs 8");
        QTest::newRow("outside") << qb(withLength(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", four))
                                 << QStringLiteral("f: offset 55: at a: data_offsets [0, 8] lie outside the 4 data bytes");
        QTest::newRow("twice") << qb(withLength(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", four))
                               << QStringLiteral("f: offset 61: at a: tensor name given twice");
        QTest::newRow("hole") << qb(withLength(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", four))
                              << QStringLiteral("f: offset 61: at a: a hole in the data: bytes [0, 2) belong to no tensor");
        QTest::newRow("overlap") << qb(withLength(R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", four))
                                 << QStringLiteral("f: offset 115: at b: overlaps the tensor before it (data_offsets begin 2, expected 3)");
        QTest::newRow("tail") << qb(withLength(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", four))
                              << QStringLiteral("f: offset 63: 2 data bytes after the last tensor belong to no tensor");
        QTest::newRow("metadata") << qb(withLength(R"({"__metadata__":{"k":1}})"))
                                  << QStringLiteral("f: offset 29: at __metadata__: expected metadata value k to be a string");
        QTest::newRow("shape") << qb(withLength(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}})"))
                               << QStringLiteral("f: offset 35: at a: expected a shape of non-negative integers whose product fits in 64 bits");
        QTest::newRow("overflow") << qb(withLength(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})"))
                                  << QStringLiteral("f: offset 36: at a: expected a shape of non-negative integers whose product fits in 64 bits");
    }

    void readerRejects()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        auto r = readSafetensors(makeBytes(std::string_view(bytes.constData(), size_t(bytes.size()))), "f");
        QVERIFY(!r);
        QCOMPARE(QString::fromStdString(r.error().message()).left(message.size()), message);
    }

    void readerAccepts()
    {
        // Empty header, trailing spaces, null metadata, zero-size tensors, unknown fields ignored.
        auto r = readSafetensors(makeBytes(withLength(R"({"__metadata__":null, "e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0],"x":1}}   )")), "f");
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->tensors.size(), size_t(1));
        QCOMPARE(r->tensors[0].shape, (std::vector<uint64_t>{0, 3}));
        QVERIFY(readSafetensors(makeBytes(withLength("{}")), "f"));
    }

    void importBack()
    {
        auto r = buildRecord();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("x.safetensors")).toStdString();
        QVERIFY(exportSafetensors(*r, {}, path));
        auto bytes = readAll(path);
        // Unchanged: nothing replaced, the envelope is the record's own.
        {
            auto file = readSafetensors(makeBytes(bytes), path);
            QVERIFY(file);
            ImportSummary s;
            auto tape = importedEnvelope(*r, *file, s);
            QVERIFY(tape);
            QCOMPARE(s.replaced, uint64_t(0));
            QCOMPARE(s.unchanged, uint64_t(r->tensors.size()));
            QVERIFY(s.warnings.empty());
            QVERIFY(tape->pool == r->tape.pool);
            QVERIFY(subtreeEqual(*tape, 0, r->tape, 0));
        }
        // fc's first value changed in the file: only fc takes new bytes.
        auto file = readSafetensors(makeBytes(bytes), path);
        const auto* fc = file->find("item[0].fc.param");
        const float changed = 42.5f;
        std::memcpy(bytes.data() + (fc->data.data() - file->bytes->data()), &changed, 4);
        file = readSafetensors(makeBytes(bytes), path);
        QVERIFY(file);
        ImportSummary s;
        auto tape = importedEnvelope(*r, *file, s);
        QVERIFY(tape);
        QCOMPARE(s.replaced, uint64_t(1));
        auto back = indexRecord(std::move(*tape), Recorder::NamedMpk, "back");
        QVERIFY(back);
        QCOMPARE((*back)->values(entry(**back, "item[0].fc.param"), 0, 2), (std::vector<double>{42.5, -2}));
        for (const auto& t : r->tensors) {
            if (t.path == "item[0].fc.param")
                continue;
            const auto a = r->payload(t);
            const auto b = (*back)->payload(entry(**back, t.path));
            QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
        }
        // A continuation state the file recorded differently is kept from the target, with a warning.
        QTemporaryDir d2;
        const std::string out = d2.filePath(QStringLiteral("out.mpk")).toStdString();
        auto written = importSafetensors(*r, *file, out);
        QVERIFY2(written, written ? "" : written.error().message().c_str());
        auto reopened = openRecord(out);
        QVERIFY2(reopened, reopened ? "" : reopened.error().message().c_str());
        QCOMPARE((*reopened)->values(entry(**reopened, "item[0].fc.param"), 0, 1), (std::vector<double>{42.5}));
    }

    void importRejects()
    {
        auto r = buildRecord();
        auto check = [&](const std::string& header, size_t dataBytes, const std::string& expected) {
            auto file = readSafetensors(makeBytes(withLength(header, std::vector<uint8_t>(dataBytes, 0))), "in.safetensors");
            QVERIFY2(file, file ? "" : file.error().message().c_str());
            ImportSummary s;
            auto tape = importedEnvelope(*r, *file, s);
            QVERIFY(!tape);
            QCOMPARE(QString::fromStdString(tape.error().message()), QString::fromStdString(expected));
        };
        check(R"({"item[0].fc.param":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]}})", 24,
            "in.safetensors: at item[0].fc.param: expected shape [2, 3], found [3, 2]");
        check(R"({"item[0].fc.param":{"dtype":"I32","shape":[2,3],"data_offsets":[0,24]}})", 24,
            "in.safetensors: at item[0].fc.param: expected dtype F32 (the record's F32), found I32");
        check(R"({"item[0].emb.param":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})", 8,
            "in.safetensors: at item[0].emb.param: expected dtype BF16 (the record's BF16), found F16");
        check(R"({"item[0].nope":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1,
            "in.safetensors: at item[0].nope: the target record has no tensor of this path");
    }

    void npzArchive()
    {
        auto r = buildRecord();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("x.npz")).toStdString();
        auto summary = exportNpz(*r, {}, path);
        QVERIFY2(summary, summary ? "" : summary.error().message().c_str());
        QCOMPARE(summary->notes.size(), size_t(1)); // the BF16 widening
        const auto z = readAll(path);
        // End of central directory: entries, then walk the local headers.
        const size_t eocd = z.size() - 22;
        QCOMPARE(le(z, eocd, 4), uint64_t(0x06054b50));
        const uint64_t entries = le(z, eocd + 10, 2);
        QCOMPARE(entries, uint64_t(r->tensors.size() + 1));
        size_t at = 0;
        for (uint64_t i = 0; i < entries; ++i) {
            QCOMPARE(le(z, at, 4), uint64_t(0x04034b50));
            QCOMPARE(le(z, at + 8, 2), uint64_t(0)); // stored
            const uint64_t crc = le(z, at + 14, 4), size = le(z, at + 18, 4), nameLen = le(z, at + 26, 2);
            QCOMPARE(le(z, at + 22, 4), size);
            const std::string name(z.begin() + long(at + 30), z.begin() + long(at + 30 + nameLen));
            const uint8_t* body = z.data() + at + 30 + nameLen;
            QCOMPARE(uint64_t(crc32(0, body, uInt(size))), crc);
            if (i + 1 == entries) {
                QCOMPARE(name, std::string("ckpt-metadata.json"));
                QCOMPARE(std::string(reinterpret_cast<const char*>(body), size), exportMetadataJson(*r, {}));
            } else {
                const auto& t = r->tensors[i];
                QCOMPARE(name, t.path + ".npy");
                QCOMPARE(std::string(reinterpret_cast<const char*>(body), 6), std::string("\x93NUMPY"));
                const uint64_t headerLen = le(std::span<const uint8_t>(body, size), 8, 2);
                QCOMPARE((10 + headerLen) % 64, uint64_t(0));
                const std::string dict(reinterpret_cast<const char*>(body) + 10, headerLen);
                const char* descr = t.dtype == DType::BF16 ? "'<f4'" : t.dtype == DType::Bool ? "'|b1'" : t.dtype == DType::I64 ? "'<i8'" : "'<f4'";
                QVERIFY2(dict.find(std::string("'descr': ") + descr) != std::string::npos, dict.c_str());
                QCOMPARE(dict.back(), '\n');
                const uint8_t* data = body + 10 + headerLen;
                if (t.dtype == DType::BF16) {
                    float f[4];
                    std::memcpy(f, data, 16);
                    QCOMPARE(f[2], 256.0f);
                    QCOMPARE(f[3], 0.0078125f);
                } else {
                    const auto p = r->payload(t);
                    QVERIFY(std::equal(p.begin(), p.end(), data));
                }
            }
            at += 30 + nameLen + size;
        }
        QCOMPARE(le(z, at, 4), uint64_t(0x02014b50)); // the central directory follows
        QCOMPARE(le(z, eocd + 16, 4), uint64_t(at));
    }

    void fixturesRoundTrip()
    {
        const QString models = QStringLiteral(CKPT_FIXTURES "/models");
        int checked = 0;
        for (const char* name : {"burn-0.12.1_half_nannou-mnist.mpk", "burn-0.16.1_full_connect4.mpk", "burn-0.21.0_full_minesweeper-ml.mpk"}) {
            auto r = openRecord(QString(models + QLatin1Char('/') + QLatin1String(name)).toStdString());
            QVERIFY2(r, r ? "" : r.error().message().c_str());
            QTemporaryDir dir;
            const std::string st = dir.filePath(QStringLiteral("x.safetensors")).toStdString();
            QVERIFY(exportSafetensors(**r, {}, st));
            auto file = openSafetensors(st);
            QVERIFY(file);
            ImportSummary s;
            auto tape = importedEnvelope(**r, *file, s);
            QVERIFY2(tape, tape ? "" : tape.error().message().c_str());
            QCOMPARE(s.replaced, uint64_t(0));
            auto original = encodeRecord((*r)->tape, (*r)->recorder);
            auto back = encodeRecord(*tape, (*r)->recorder);
            QVERIFY(original && back);
            QVERIFY(*original == *back);
            for (const auto& t : (*r)->tensors) {
                const auto* e = file->find(t.path);
                QVERIFY(e);
                // Legacy tensors (0.12) are encoded from their numbers; the values are the same.
                std::vector<double> values(t.numel);
                for (uint64_t i = 0; i < t.numel; ++i)
                    values[i] = elementAt(t.dtype, e->data, i);
                QCOMPARE(values, (*r)->values(t, 0, t.numel));
            }
            ++checked;
        }
        QCOMPARE(checked, 3);
    }

    void legacyCannotTakeNewValues()
    {
        auto r = openRecord(CKPT_FIXTURES "/models/burn-0.12.1_half_nannou-mnist.mpk");
        QVERIFY(r);
        QVERIFY((*r)->tensors[0].legacy);
        QTemporaryDir dir;
        const std::string st = dir.filePath(QStringLiteral("x.safetensors")).toStdString();
        QVERIFY(exportSafetensors(**r, {}, st));
        auto bytes = readAll(st);
        auto file = readSafetensors(makeBytes(bytes), st);
        const auto* t = file->find((*r)->tensors[0].path);
        bytes[size_t(t->data.data() - file->bytes->data())] ^= 1;
        file = readSafetensors(makeBytes(bytes), st);
        ImportSummary s;
        auto tape = importedEnvelope(**r, *file, s);
        QVERIFY(!tape);
        QCOMPARE(tape.error().code, ErrorCode::Unsupported);
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
