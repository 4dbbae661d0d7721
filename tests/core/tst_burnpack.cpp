// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The burnpack container (core/pack, ../shared/docs/format-burnpack.md): the genuine Burn 0.22 file
// parses as §12 says and re-saves byte for byte; files from an independent generator (its own CBOR
// encoder, following §3 and §7) parse and re-save byte for byte in both layouts; every reader rule
// of §6.1 / §6.3 is a regression case with its code and offset; what §6.2 accepts is accepted, with
// its warning. nlohmann::json's from_cbor is the independent oracle for the decoded metadata.
#include "core/codec/cbor.h"
#include "core/io/bytes.h"
#include "core/pack/burnpack.h"
#include "tests/common/cborbuilder.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>

using namespace ckpt;
using namespace ckpt::pack;

namespace {

// the generators write CBOR with the tests' own encoder (tests/common/cborbuilder.h), not core's writer
using C = testing::CborBuilder;

/** A descriptor map as ciborium writes it. */
C desc(const C& dtype, std::vector<uint64_t> shape, uint64_t start, uint64_t end, std::optional<uint64_t> pid)
{
    C c;
    c.map(pid ? 4 : 3).t("dtype").add(dtype).t("shape").arr(shape.size());
    for (auto s : shape)
        c.u(s);
    c.t("data_offsets").arr(2).u(start).u(end);
    if (pid)
        c.t("param_id").u(*pid);
    return c;
}
C dt(const char* n) { return C().t(n); }
C boolDt(const char* store) { return C().map(1).t("Bool").t(store); }

std::vector<uint8_t> header(uint32_t m, uint16_t version = 1)
{
    return {0x4e, 0x52, 0x55, 0x42, static_cast<uint8_t>(version), static_cast<uint8_t>(version >> 8),
        static_cast<uint8_t>(m), static_cast<uint8_t>(m >> 8), static_cast<uint8_t>(m >> 16), static_cast<uint8_t>(m >> 24)};
}

/** header + metadata + (aligned: zero padding) + data. */
std::vector<uint8_t> file(const C& meta, const std::vector<uint8_t>& data = {}, bool aligned = true, uint16_t version = 1)
{
    auto out = header(static_cast<uint32_t>(meta.b.size()), version);
    out.insert(out.end(), meta.b.begin(), meta.b.end());
    if (aligned)
        out.resize((out.size() + 255) / 256 * 256, 0);
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

/** A metadata map holding one tensor map (and nothing else). */
C oneTensor(const C& descriptor, const char* name = "w")
{
    return C().map(1).t("tensors").map(1).t(name).add(descriptor);
}

// ---- the generator: §7's recipe, written independently of core's writer ----
struct GenTensor {
    std::string name;
    C dtype;
    std::vector<uint64_t> shape;
    std::optional<uint64_t> pid;
    std::vector<uint8_t> bytes;
};
struct GenFile {
    std::vector<GenTensor> tensors; // writer order
    std::map<std::string, std::string> metadata;
    std::map<std::string, C> scalars; // value = the Scalar's CBOR
    bool aligned = true;
};

std::vector<uint8_t> generate(const GenFile& g)
{
    std::vector<std::pair<uint64_t, uint64_t>> offs;
    uint64_t cur = 0;
    for (const auto& t : g.tensors) {
        const uint64_t start = g.aligned ? (cur + 255) / 256 * 256 : cur;
        offs.push_back({start, start + t.bytes.size()});
        cur = start + t.bytes.size();
    }
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < g.tensors.size(); ++i)
        byName[g.tensors[i].name] = i;
    C m;
    m.map(1 + !g.metadata.empty() + !g.scalars.empty()).t("tensors").map(byName.size());
    for (const auto& [name, i] : byName)
        m.t(name).add(desc(g.tensors[i].dtype, g.tensors[i].shape, offs[i].first, offs[i].second, g.tensors[i].pid));
    if (!g.metadata.empty()) {
        m.t("metadata").map(g.metadata.size());
        for (const auto& [k, v] : g.metadata)
            m.t(k).t(v);
    }
    if (!g.scalars.empty()) {
        m.t("scalars").map(g.scalars.size());
        for (const auto& [k, v] : g.scalars)
            m.t(k).add(v);
    }
    auto out = file(m, {}, g.aligned);
    const uint64_t d = out.size();
    for (size_t i = 0; i < g.tensors.size(); ++i) {
        out.resize(d + offs[i].first, 0);
        out.insert(out.end(), g.tensors[i].bytes.begin(), g.tensors[i].bytes.end());
    }
    return out;
}

std::vector<uint8_t> seq(size_t n, uint8_t seed)
{
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<uint8_t>(seed + i * 7);
    return v;
}

Result<BurnpackFile> parse(const std::vector<uint8_t>& bytes, BurnpackReadOptions o = {})
{
    return readBurnpack(makeBytes(bytes), o);
}

bool hasWarning(const BurnpackFile& f, const std::string& needle)
{
    for (const auto& w : f.warnings)
        if (w.what.find(needle) != std::string::npos)
            return true;
    return false;
}

QString warningsOf(const BurnpackFile& f)
{
    QString s;
    for (const auto& w : f.warnings)
        s += QString::number(w.offset) + QStringLiteral(": ") + QString::fromStdString(w.what) + QLatin1Char('\n');
    return s;
}

/** nlohmann's view of the metadata must agree with ours (tensors, shapes, offsets, ids, metadata, scalars). */
void checkAgainstNlohmann(const std::vector<uint8_t>& bytes, const BurnpackFile& f)
{
    const uint32_t m = f.metadataSize;
    const auto j = nlohmann::json::from_cbor(bytes.begin() + 10, bytes.begin() + 10 + m);
    QVERIFY(j.contains("tensors"));
    QCOMPARE(j["tensors"].size(), f.tensors.size());
    for (const auto& t : f.tensors) {
        const auto& d = j["tensors"][t.name];
        QCOMPARE(d["shape"].get<std::vector<uint64_t>>(), t.shape);
        QCOMPARE(d["data_offsets"][0].get<uint64_t>(), t.start);
        QCOMPARE(d["data_offsets"][1].get<uint64_t>(), t.end);
        QCOMPARE(d.contains("param_id"), t.paramId.has_value());
        if (t.paramId)
            QCOMPARE(d["param_id"].get<uint64_t>(), *t.paramId);
        const std::string dtype = d["dtype"].is_string() ? d["dtype"].get<std::string>()
                                                         : d["dtype"].begin().key() + (d["dtype"].begin()->is_string() ? "(" + d["dtype"].begin()->get<std::string>() + ")" : "");
        QCOMPARE(QString::fromStdString(dtype), QString::fromStdString(t.dtype.name()));
    }
    QCOMPARE(j.value("metadata", nlohmann::json::object()).size(), f.metadata.size());
    for (const auto& [k, v] : f.metadata)
        QCOMPARE(j["metadata"][k].get<std::string>(), v);
    QCOMPARE(j.value("scalars", nlohmann::json::object()).size(), f.scalars.size());
    for (const auto& [k, v] : f.scalars) {
        const auto& s = j["scalars"][k];
        switch (v.kind) {
        case BurnpackScalar::Kind::Int: QCOMPARE(s["Int"].get<int64_t>(), v.i); break;
        case BurnpackScalar::Kind::UInt: QCOMPARE(s["UInt"].get<uint64_t>(), v.u); break;
        case BurnpackScalar::Kind::Float:
            if (std::isnan(v.f))
                QVERIFY(std::isnan(s["Float"].get<double>()));
            else
                QCOMPARE(std::bit_cast<uint64_t>(s["Float"].get<double>()), std::bit_cast<uint64_t>(v.f));
            break;
        case BurnpackScalar::Kind::Bool: QCOMPARE(s["Bool"].get<bool>(), v.b); break;
        }
    }
}

/** CKPT_BURNPACK_SEEDS=DIR: every generated, rejected and accepted case is also written there (the fuzz corpus). */
void dumpSeed(const char* group, const std::vector<uint8_t>& bytes)
{
    const QByteArray dir = qgetenv("CKPT_BURNPACK_SEEDS");
    if (dir.isEmpty() || !QTest::currentDataTag())
        return;
    QDir().mkpath(QString::fromLocal8Bit(dir));
    QFile out(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(group) + QLatin1Char('-') + QLatin1String(QTest::currentDataTag()) + QStringLiteral(".bpk"));
    if (out.open(QIODevice::WriteOnly))
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
}

QString genuinePath()
{
    return QStringLiteral(CKPT_FIXTURES "/models/burn-0.22.0-pre_mnist-inference-web.bpk");
}

} // namespace

Q_DECLARE_METATYPE(std::vector<uint8_t>)

class TestBurnpack : public QObject {
    Q_OBJECT

private slots:
    void genuineFile();
    void specVectors();
    void floatWidths();
    void generatedRoundTrip_data();
    void generatedRoundTrip();
    void atomicWrite();
    void rejected_data();
    void rejected();
    void accepted_data();
    void accepted();
    void recursionLimit();
    void tensorCountLimit();
    void layoutDetection();
    void schedulerIgnoresRanges();
    void lenientRefusesPartialTensors();
    void writerRefuses();
};

void TestBurnpack::genuineFile()
{
    auto bytes = mapFile(genuinePath().toStdString());
    QVERIFY2(bytes, bytes ? "" : bytes.error().message().c_str());
    QCOMPARE((*bytes)->size(), size_t(1044776));
    auto f = readBurnpack(*bytes);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QCOMPARE(f->version, uint16_t(1));
    QCOMPARE(f->metadataSize, uint32_t(1398));
    QCOMPARE(f->dataStart, uint64_t(1536));
    QVERIFY(f->layout == BurnpackLayout::Aligned256);
    QCOMPARE(f->tensors.size(), size_t(18));
    QVERIFY(f->metadata.empty());
    QVERIFY(f->scalars.empty());
    QVERIFY2(f->warnings.empty(), qPrintable(warningsOf(*f)));
    QVERIFY(f->canonicalMetadata);
    QCOMPARE(QString::fromStdString(f->tensors[0].name), QStringLiteral("conv1.conv.bias"));
    QCOMPARE(f->tensors[0].shape, std::vector<uint64_t>{64});
    QCOMPARE(f->tensors[0].start, uint64_t(2304));
    QCOMPARE(f->tensors[0].end, uint64_t(2560));
    QCOMPARE(*f->tensors[0].paramId, uint64_t(9505838338724798577ull));
    QCOMPARE(static_cast<const void*>(f->tensors[0].data.data()), static_cast<const void*>((*bytes)->data() + 1536 + 2304));
    uint64_t total = 0, maxEnd = 0;
    for (const auto& t : f->tensors) {
        QCOMPARE(QString::fromStdString(t.dtype.name()), QStringLiteral("F32"));
        QVERIFY(t.paramId);
        QCOMPARE(t.expectedByteLength().value(), t.end - t.start);
        total += t.end - t.start;
        maxEnd = std::max(maxEnd, t.end);
    }
    QCOMPARE(1536 + maxEnd, uint64_t(1044776));
    QVERIFY(f->find("conv1.conv.weight"));
    QVERIFY(!f->find("nope"));
    // module-visitor order: conv1.conv.weight is written before conv1.conv.bias
    auto order = f->physicalOrder();
    QCOMPARE(QString::fromStdString(f->tensors[order[0]].name), QStringLiteral("conv1.conv.weight"));

    auto again = encodeBurnpack(contentOf(*f));
    QVERIFY2(again, again ? "" : again.error().message().c_str());
    QCOMPARE(again->size(), (*bytes)->size());
    QVERIFY(std::equal(again->begin(), again->end(), (*bytes)->data()));
    std::vector<uint8_t> copy((*bytes)->data(), (*bytes)->data() + (*bytes)->size());
    checkAgainstNlohmann(copy, *f);
}

void TestBurnpack::specVectors()
{
    // §3.5: no tensors, no metadata, no scalars: exactly 256 bytes
    BurnpackContent empty;
    auto e = encodeBurnpack(empty);
    QVERIFY(e);
    std::vector<uint8_t> want = {0x4e, 0x52, 0x55, 0x42, 0x01, 0x00, 0x0a, 0x00, 0x00, 0x00, 0xa1, 0x67, 't', 'e', 'n', 's', 'o', 'r', 's', 0xa0};
    want.resize(256, 0);
    QCOMPARE(*e, want);
    auto back = parse(want);
    QVERIFY(back);
    QVERIFY(back->tensors.empty());
    QVERIFY2(back->warnings.empty(), qPrintable(warningsOf(*back)));

    // §3.5: the step-LR scheduler before its first step
    BurnpackContent step;
    step.scalars = {{"0.iter_idx", BurnpackScalar::makeInt(-1)}};
    auto s = encodeBurnpack(step);
    QVERIFY(s);
    QCOMPARE(s->size(), size_t(256));
    const QByteArray sh = QByteArray(reinterpret_cast<const char*>(s->data()), 10 + 0x24).toHex();
    QCOMPARE(sh, QByteArray("4e52554201002400000" "0a267" "74656e736f7273" "a0" "67" "7363616c617273" "a1" "6a" "302e697465725f696478" "a1" "63" "496e74" "20"));

    // §3.4: the Scalar examples
    auto scalarBytes = [](BurnpackScalar v) {
        BurnpackContent c;
        c.scalars = {{"k", v}};
        auto m = encodeBurnpackMetadata(c);
        // skip a2 "tensors" a0 "scalars" a1 "k"
        const size_t skip = 1 + 8 + 1 + 8 + 1 + 2;
        return QByteArray(reinterpret_cast<const char*>(m->data() + skip), static_cast<qsizetype>(m->size() - skip)).toHex();
    };
    QCOMPARE(scalarBytes(BurnpackScalar::makeInt(-1)), QByteArray("a163496e7420"));
    QCOMPARE(scalarBytes(BurnpackScalar::makeUInt(7)), QByteArray("a16455496e7407"));
    QCOMPARE(scalarBytes(BurnpackScalar::makeUInt(UINT64_MAX)), QByteArray("a16455496e741bffffffffffffffff"));
    QCOMPARE(scalarBytes(BurnpackScalar::makeFloat(0.5)), QByteArray("a165466c6f6174f93800"));
    QCOMPARE(scalarBytes(BurnpackScalar::makeBool(true)), QByteArray("a164426f6f6cf5"));
}

void TestBurnpack::floatWidths()
{
    // §3.2: ciborium's narrowest exact float, and our generator's (independent) agrees
    const std::pair<double, const char*> vectors[] = {
        {0.5, "f93800"}, {static_cast<double>(0.1f), "fa3dcccccd"}, {0.1, "fb3fb999999999999a"}, {-0.0, "f98000"},
        {INFINITY, "f97c00"}, {-INFINITY, "f9fc00"}, {NAN, "f97e00"}, {5e-324, "fb0000000000000001"},
        {65504.0, "f97bff"}, {5.960464477539063e-08, "f90001"}, {100000.0, "fa47c35000"}, {1.0e300, "fb7e37e43c8800759c"},
        {0.0, "f90000"}, {1.5, "f93e00"}, {3.4028234663852886e38, "fa7f7fffff"},
    };
    for (const auto& [v, hexs] : vectors) {
        std::vector<uint8_t> ours;
        cbor::appendFloat(ours, v);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(ours.data()), static_cast<qsizetype>(ours.size())).toHex(), QByteArray(hexs));
        C gen;
        gen.f(v);
        QCOMPARE(gen.b, ours);
    }
    const std::pair<int64_t, const char*> ints[] = {{-1, "20"}, {-25, "3818"}, {INT64_MIN, "3b7fffffffffffffff"}, {23, "17"}, {24, "1818"}, {256, "190100"}, {65536, "1a00010000"}};
    for (const auto& [v, hexs] : ints) {
        std::vector<uint8_t> ours;
        cbor::appendInt(ours, v);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(ours.data()), static_cast<qsizetype>(ours.size())).toHex(), QByteArray(hexs));
    }
}

void TestBurnpack::generatedRoundTrip_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<bool>("aligned");
    auto all = [](bool aligned, bool legacyBool) {
        GenFile g;
        g.aligned = aligned;
        g.tensors = {
            {"z.weight", dt("F32"), {3, 5}, 16061783045794352194ull, seq(60, 1)},
            {"a.half", dt("F16"), {7}, 1, seq(14, 2)},
            {"a.bf16", dt("BF16"), {2, 2}, std::nullopt, seq(8, 3)},
            {"scalar", dt("F64"), {}, 42, seq(8, 4)},                       // rank 0
            {"empty", dt("I32"), {0, 4}, 7, {}},                             // no bytes
            {"mask", legacyBool ? dt("Bool") : boolDt("Native"), {5}, std::nullopt, {1, 0, 1, 1, 0}},
            {"ids", dt("I64"), {3}, 9, seq(24, 5)},
            {"u8", dt("U8"), {300}, 10, seq(300, 6)},
            {"flex", dt("Flex32"), {1}, 11, seq(4, 7)},
            {"small", dt("I8"), {1}, 12, {0xff}},
            {"i16", dt("I16"), {2}, 13, seq(4, 8)},
            {"u16", dt("U16"), {2}, 14, seq(4, 9)},
            {"u32", dt("U32"), {2}, 15, seq(8, 10)},
            {"u64", dt("U64"), {1}, 16, seq(8, 11)},
            {"\xc3\xa9t\xc3\xa9", dt("F32"), {1}, 17, seq(4, 12)},            // UTF-8 name: sorted by bytes
        };
        if (!legacyBool) {
            g.tensors.push_back({"maskU8", boolDt("U8"), {2}, 18, {0, 1}});
            g.tensors.push_back({"maskU32", boolDt("U32"), {2}, 19, {1, 0, 0, 0, 0, 0, 0, 0}});
        }
        g.tensors.push_back({"last.empty", dt("F32"), {0}, 20, {}}); // a zero-length last tensor moves E up (aligned)
        return g;
    };
    for (bool aligned : {true, false}) {
        const char* l = aligned ? "aligned" : "unaligned";
        QTest::newRow(qPrintable(QStringLiteral("all-dtypes-%1").arg(QLatin1String(l)))) << generate(all(aligned, !aligned)) << aligned;
        GenFile store; // BurnpackStore (0.19 metadata)
        store.aligned = aligned;
        store.metadata = {{"format", "burnpack"}, {"producer", "burn"}, {"version", aligned ? "0.21.0" : "0.19.1"}};
        store.tensors = {{"fc.weight", dt("F32"), {4, 3}, 123456, seq(48, 1)}, {"fc.bias", dt("F32"), {3}, 123457, seq(12, 2)}};
        QTest::newRow(qPrintable(QStringLiteral("store-%1").arg(QLatin1String(l)))) << generate(store) << aligned;
        GenFile big; // metadata longer than 255 bytes (2-byte size heads)
        big.aligned = aligned;
        for (int i = 0; i < 40; ++i)
            big.tensors.push_back({"layers." + std::to_string(i) + ".w", dt("F16"), {uint64_t(i + 1)}, uint64_t(1) << (i + 20), seq(2 * (i + 1), uint8_t(i))});
        QTest::newRow(qPrintable(QStringLiteral("many-%1").arg(QLatin1String(l)))) << generate(big) << aligned;
        if (!aligned)
            continue; // records with scalars are Burn 0.22's, always aligned: unaligned they are refused (rejected_data)
        GenFile opt; // an AdamW optimizer record (§8.3), 0.22 style
        opt.aligned = aligned;
        const std::string id = "16061783045794352194";
        opt.tensors = {{id + ".momentum.moment_1", dt("F32"), {3}, 16061783045794352194ull, seq(12, 1)},
            {id + ".momentum.moment_2", dt("F32"), {3}, 16061783045794352194ull, seq(12, 2)},
            {id + ".momentum.max_moment_2", dt("F32"), {3}, 16061783045794352194ull, seq(12, 3)},
            {"5.momentum.moment_1", dt("F32"), {}, 5, seq(4, 4)}};
        opt.scalars = {{id + ".__rank", C().map(1).t("UInt").u(1)}, {id + ".momentum.time", C().map(1).t("UInt").u(8)}};
        opt.metadata = {{id, "linear1.bias"}, {"5", "b"}};
        QTest::newRow(qPrintable(QStringLiteral("optimizer-%1").arg(QLatin1String(l)))) << generate(opt) << aligned;
        GenFile sched; // scalars of every kind, no tensors
        sched.aligned = aligned;
        sched.scalars = {{"0.iter_idx", C().map(1).t("Int").i(-1)}, {"0.current_iter", C().map(1).t("UInt").u(UINT64_MAX)},
            {"0.previous_lr", C().map(1).t("Float").f(0.1)}, {"0.step", C().map(1).t("Float").f(0.0)},
            {"1.flag", C().map(1).t("Bool").raw({0xf4})}, {"1.min", C().map(1).t("Int").i(INT64_MIN)},
            {"1.half", C().map(1).t("Float").f(0.5)}, {"1.f32", C().map(1).t("Float").f(static_cast<double>(1.1f))}};
        QTest::newRow(qPrintable(QStringLiteral("scheduler-%1").arg(QLatin1String(l)))) << generate(sched) << aligned;
    }
    QTest::newRow("no-tensors-aligned") << generate(GenFile{}) << true;
}

void TestBurnpack::generatedRoundTrip()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(bool, aligned);
    dumpSeed("generated", bytes);
    auto f = parse(bytes);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QVERIFY(f->canonicalMetadata);
    QCOMPARE(f->layout == BurnpackLayout::Aligned256, aligned);
    for (const auto& w : f->warnings) // the only warnings a generated file may carry
        QVERIFY2(w.what.find("0.19") != std::string::npos, w.what.c_str());
    for (const auto& t : f->tensors) {
        QCOMPARE(t.data.size(), size_t(t.end - t.start));
        QCOMPARE(t.expectedByteLength().value(), t.end - t.start);
        QCOMPARE(static_cast<const void*>(t.data.data()), static_cast<const void*>(f->source->data() + f->dataStart + t.start));
    }
    checkAgainstNlohmann(bytes, *f);
    auto again = encodeBurnpack(contentOf(*f));
    QVERIFY2(again, again ? "" : again.error().message().c_str());
    QCOMPARE(again->size(), bytes.size());
    QVERIFY(*again == bytes);
}

void TestBurnpack::atomicWrite()
{
    QTemporaryDir dir;
    auto f = readBurnpackFile(genuinePath().toStdString());
    QVERIFY(f);
    const std::string out = dir.filePath(QStringLiteral("copy.bpk")).toStdString();
    auto w = writeBurnpack(out, contentOf(*f));
    QVERIFY2(w, w ? "" : w.error().message().c_str());
    auto a = mapFile(out);
    QVERIFY(a);
    QCOMPARE((*a)->size(), f->source->size());
    QVERIFY(std::equal((*a)->data(), (*a)->data() + (*a)->size(), f->source->data()));
    // an unwritable destination leaves nothing and says so
    auto bad = writeBurnpack(dir.filePath(QStringLiteral("no/such/dir/x.bpk")).toStdString(), contentOf(*f));
    QVERIFY(!bad);
    QVERIFY(bad.error().message().find("x.bpk") != std::string::npos);
}

void TestBurnpack::rejected_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<qulonglong>("offset");
    QTest::addColumn<QString>("message");
    using E = ErrorCode;
    auto row = [](const char* name, std::vector<uint8_t> b, E code, uint64_t off, const char* msg) {
        QTest::newRow(name) << std::move(b) << int(code) << qulonglong(off) << QString::fromUtf8(msg);
    };
    const C okDesc = desc(dt("F32"), {2}, 0, 8, 1);
    const auto good = file(oneTensor(okDesc), seq(8, 0));
    // §6.1 header
    row("1-short", {0x4e, 0x52, 0x55}, E::Truncated, 3, "Invalid header: insufficient bytes");
    row("1-empty", {}, E::Truncated, 0, "insufficient bytes");
    {
        auto b = good;
        b[0] = 'B';
        row("2-magic", b, E::Malformed, 0, "Invalid magic number: expected 4e 52 55 42");
    }
    {
        auto b = good;
        b[4] = 2;
        row("3-version-2", b, E::Unsupported, 4, "Unsupported version");
    }
    {
        auto b = good;
        const uint32_t m = 104857601;
        std::memcpy(b.data() + 6, &m, 4);
        row("4-metadata-too-large", b, E::Limit, 6, "exceeds maximum allowed size of 104857600");
    }
    {
        auto b = header(500);
        b.push_back(0xa0);
        row("5-metadata-beyond-input", b, E::Truncated, 11, "declares 500 bytes of metadata");
    }
    // §6.1 step 8 and 9
    {
        auto b = file(oneTensor(desc(dt("F32"), {2}, 0, 8, 1)), seq(7, 0), false); // one byte short (no padding to hide it)
        row("8-truncated", b, E::Truncated, b.size(), "File truncated: expected at least");
    }
    {
        C m = oneTensor(desc(dt("F32"), {2}, 0, UINT64_MAX, 1));
        // data_offsets value: 10 + a1 "tensors"(8) a1 "w"(2) a3/a4 ... find it by searching below
        auto b = file(m);
        const uint64_t at = 10 + 1 + 8 + 1 + 2 + 1 + 6 + 4 + 6 + 2 + 13;
        row("8-overflow", b, E::Limit, at, "File size calculation overflow");
    }
    {
        auto b = file(oneTensor(desc(dt("F32"), {2}, 8, 4, 1)), seq(8, 0));
        row("9-end-before-start", b, E::Invalid, 10 + 1 + 8 + 1 + 2 + 1 + 6 + 4 + 6 + 2 + 13, "corrupted offset data: end 260 < start 264");
    }
    {
        auto b = file(oneTensor(desc(dt("F32"), {2}, UINT64_MAX, 0, 1)));
        row("9-start-overflow", b, E::Limit, 10 + 1 + 8 + 1 + 2 + 1 + 6 + 4 + 6 + 2 + 13, "offsets overflow");
    }
    {
        // aligned file cut inside the last tensor by less than the padding: step 8 passes, step 9 fails
        auto b = file(oneTensor(desc(dt("F32"), {64}, 0, 256, 1)), seq(256, 0));
        b.erase(b.end() - 100, b.end());
        row("9-range-outside", b, E::Truncated, 10 + 1 + 8 + 1 + 2 + 1 + 6 + 4 + 6 + 3 + 13, "data range 256..512 could not be viewed (source is 412 bytes)");
    }
    // Burn 0.22.1 (cli-contract "burnpack"): bytes = numel x size, no element count past 2^64, and no
    // 0.22 content in 0.19's layout. The offset is the tensor's data_offsets value: 52 + its shape's bytes.
    row("10-short-by-4", file(oneTensor(desc(dt("F32"), {3}, 0, 8, 1)), seq(8, 0)), E::Invalid, 54, "8 bytes stored, shape [3] of F32 needs 12");
    row("10-961-over-960", file(oneTensor(desc(dt("F32"), {961}, 0, 3840, 1)), seq(3840, 0)), E::Invalid, 56,
        "3840 bytes stored, shape [961] of F32 needs 3844");
    row("10-1048576-over-960", file(oneTensor(desc(dt("F32"), {1048576}, 0, 3840, 1)), seq(3840, 0)), E::Invalid, 58,
        "3840 bytes stored, shape [1048576] of F32 needs 4194304");
    row("10-numel-overflow", file(oneTensor(desc(dt("F32"), {uint64_t(1) << 62, uint64_t(1) << 62, 16}, 0, 64, 1)), seq(64, 0)), E::Invalid, 72,
        "shape [4611686018427387904, 4611686018427387904, 16] has more than 2^64 elements");
    {
        const C meta = C().map(2).t("tensors").map(1).t("w").add(desc(dt("U8"), {2}, 0, 2, 1)).t("scalars").map(1).t("k").map(1).t("Int").u(1);
        auto b = file(meta, seq(2, 0), false);
        row("0.22-scalars-unaligned", b, E::Invalid, b.size() - 2, "no Burn version reads it");
    }
    {
        auto b = file(oneTensor(desc(boolDt("U8"), {2}, 0, 2, 1)), seq(2, 0), false);
        row("0.21-bool-store-unaligned", b, E::Invalid, b.size() - 2, "a {\"Bool\": store} dtype");
    }
    // §6.3 the CBOR layer
    row("top-not-a-map", file(C().arr(0)), E::Invalid, 10, "expected the Metadata struct (a map), found array of 0");
    row("missing-tensors", file(C().map(0)), E::Invalid, 10, "missing field `tensors`");
    row("duplicate-tensors", file(C().map(2).t("tensors").map(0).t("tensors").map(0)), E::Invalid, 20, "duplicate field `tensors`");
    row("chunked-field-name", file(C().map(1).raw({0x7f}).t("tensors").raw({0xff}).map(0)), E::Invalid, 11, "expected a definite text or byte string");
    row("long-field-name", file(C().map(1).t(std::string(4097, 'x')).u(0)), E::Invalid, 11, "at most 4096 bytes");
    row("descriptor-not-a-map", file(oneTensor(C().arr(0))), E::Invalid, 22, "expected a TensorDescriptor (a map)");
    row("missing-dtype", file(oneTensor(C().map(2).t("shape").arr(0).t("data_offsets").arr(2).u(0).u(0)), seq(0, 0)), E::Invalid, 22, "missing field `dtype`");
    row("missing-shape", file(oneTensor(C().map(2).t("dtype").t("U8").t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 22, "missing field `shape`");
    row("missing-offsets", file(oneTensor(C().map(2).t("dtype").t("U8").t("shape").arr(0))), E::Invalid, 22, "missing field `data_offsets`");
    row("duplicate-dtype", file(oneTensor(C().map(4).t("dtype").t("U8").t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 32, "duplicate field `dtype`");
    row("unknown-dtype", file(oneTensor(desc(dt("F8"), {}, 0, 0, {}))), E::Invalid, 29, "unknown variant `F8`");
    row("dtype-index", file(oneTensor(desc(C().u(1), {}, 0, 0, {}))), E::Invalid, 29, "expected a DType");
    row("dtype-two-entry-map", file(oneTensor(desc(C().map(2).t("F32").u(0).t("x").u(0), {}, 0, 0, {}))), E::Invalid, 29, "expected a DType");
    // {"F32": 0}: the payload stays in the stream and is read as the next field name
    row("unit-variant-as-map", file(oneTensor(desc(C().map(1).t("F32").u(0), {}, 0, 0, {}))), E::Invalid, 34, "expected a definite text or byte string");
    row("bare-qfloat", file(oneTensor(desc(dt("QFloat"), {}, 0, 0, {}))), E::Invalid, 29, "QFloat needs its quantization scheme");
    row("unknown-boolstore", file(oneTensor(desc(boolDt("U16"), {}, 0, 0, {}))), E::Invalid, 35, "unknown variant `U16`, expected one of `Native`, `U8`, `U32`");
    row("shape-not-array", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").t("x").t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 38, "expected an array of unsigned integers, found text");
    row("shape-negative", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(1).i(-1).t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 39, "found a negative integer");
    row("shape-bignum-too-large", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(1).rawHex("c249010000000000000000").t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 39, "larger than 2^64-1");
    row("shape-negative-bignum", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(1).rawHex("c34101").t("data_offsets").arr(2).u(0).u(0))), E::Invalid, 39, "negative");
    row("offsets-one-element", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(1).u(0))), E::Invalid, 52, "invalid length 1, expected a tuple of size 2");
    row("offsets-not-array", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").u(0))), E::Invalid, 52, "expected an array of 2 unsigned integers");
    // three offsets, not the last item: the third is read as the next field name
    row("offsets-three-then-key", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(3).u(0).u(0).u(0).t("param_id").u(1))), E::Invalid, 55, "expected a definite text or byte string");
    row("param-id-negative", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(0).t("param_id").i(-5))), E::Invalid, 64, "negative integer");
    row("param-id-text", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(0).t("param_id").t("p9vkb80ukhqou"))), E::Invalid, 64, "expected an integer");
    row("tensor-key-not-text", file(C().map(1).t("tensors").map(1).u(3).add(desc(dt("U8"), {}, 0, 0, {}))), E::Invalid, 20, "expected a text string, found unsigned integer 3");
    row("tensor-name-bytes", file(C().map(1).t("tensors").map(1).rawHex("4161").add(desc(dt("U8"), {}, 0, 0, {}))), E::Invalid, 20, "expected a text string, found byte string");
    row("tensor-name-bad-utf8", file(C().map(1).t("tensors").map(1).rawHex("6261ff").add(desc(dt("U8"), {}, 0, 0, {}))), E::Malformed, 22, "invalid UTF-8");
    row("metadata-value-not-text", file(C().map(2).t("tensors").map(0).t("metadata").map(1).t("k").u(1)), E::Invalid, 32, "expected a text string, found unsigned integer 1");
    row("scalar-not-enum", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").u(1)), E::Invalid, 31, "expected a Scalar");
    row("scalar-two-entries", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(2).t("Int").u(1).t("UInt").u(1)), E::Invalid, 31, "expected a Scalar");
    row("scalar-indefinite-map", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").raw({0xbf}).t("Int").u(1).raw({0xff})), E::Invalid, 31, "expected a Scalar");
    row("scalar-unknown-variant", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(1).t("Double").f(1.5)), E::Invalid, 32, "unknown variant `Double`");
    row("scalar-float-from-int", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(1).t("Float").u(1)), E::Invalid, 38, "expected a float");
    row("scalar-bool-from-int", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(1).t("Bool").u(1)), E::Invalid, 37, "expected a bool");
    row("scalar-int-too-large", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(1).t("Int").u(UINT64_MAX)), E::Invalid, 36, "outside i64");
    row("scalar-uint-negative", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("k").map(1).t("UInt").i(-1)), E::Invalid, 37, "negative");
    row("reserved-info", file(C().map(1).t("tensors").raw({0xbc})), E::Malformed, 19, "reserved CBOR additional information 28");
    row("stray-break", file(C().map(1).t("x").raw({0xff}).t("tensors").map(0)), E::Malformed, 13, "unexpected break");
    row("indefinite-integer", file(C().map(1).t("x").raw({0x1f})), E::Malformed, 13, "indefinite length on an integer");
    row("truncated-cbor", file(C().map(1).t("tensors").map(1).t("w")), E::Truncated, 22, "ends inside a CBOR item");
    row("truncated-text", file(C().map(1).raw({0x67, 't', 'e', 'n'})), E::Truncated, 15, "UnexpectedEof");
    row("unknown-simple-in-ignored", file(C().map(2).t("x").raw({0xf8, 0x20}).t("tensors").map(0)), E::Invalid, 13, "expected a known simple value");
    row("bad-utf8-in-ignored", file(C().map(2).t("x").rawHex("62c328").t("tensors").map(0)), E::Malformed, 14, "invalid UTF-8");
}

void TestBurnpack::rejected()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(int, code);
    QFETCH(qulonglong, offset);
    QFETCH(QString, message);
    dumpSeed("rejected", bytes);
    auto f = parse(bytes);
    QVERIFY2(!f, "accepted a file burn-pack rejects");
    const QString msg = QString::fromStdString(f.error().message());
    QVERIFY2(msg.contains(message), qPrintable(msg));
    QVERIFY2(msg.startsWith(QStringLiteral("offset %1: ").arg(offset)), qPrintable(msg));
    QCOMPARE(int(f.error().code), code);
}

void TestBurnpack::accepted_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<QString>("warning");  // a warning that must be there ("" = no warning at all)
    QTest::addColumn<int>("tensors");
    auto row = [](const char* name, std::vector<uint8_t> b, const char* w, int n) { QTest::newRow(name) << std::move(b) << QString::fromUtf8(w) << n; };
    const C two = C().map(1).t("tensors").map(2).t("a").add(desc(dt("U8"), {4}, 0, 4, 1)).t("b").add(desc(dt("U8"), {4}, 2, 6, 2));
    row("overlap", file(two, seq(6, 0)), "overlaps", 2);
    row("unaligned-start", file(two, seq(6, 0)), "not a multiple of 256", 2);
    {
        auto b = file(oneTensor(desc(dt("U8"), {2}, 0, 2, 1)), seq(2, 0));
        b.push_back(9);
        row("trailing-bytes", b, "1 bytes after the last tensor", 1);
    }
    {
        auto b = file(oneTensor(desc(dt("U8"), {2}, 0, 2, 1)), seq(2, 0));
        b[200] = 1;
        row("nonzero-padding", b, "non-zero padding", 1);
    }
    {
        C m = oneTensor(desc(dt("U8"), {2}, 0, 2, 1));
        m.raw({0x00, 0x01});
        row("bytes-after-cbor", file(m, seq(2, 0)), "2 bytes after the metadata's CBOR item", 1);
    }
    row("version-0", file(oneTensor(desc(dt("U8"), {2}, 0, 2, 1)), seq(2, 0), true, 0), "format version 0", 1);
    row("duplicate-tensor-key", file(C().map(1).t("tensors").map(2).t("a").add(desc(dt("U8"), {2}, 0, 2, 1)).t("a").add(desc(dt("U8"), {1}, 0, 1, 2)), seq(2, 0)), "Burn keeps this last entry", 1);
    row("duplicate-metadata-key", file(C().map(2).t("tensors").map(0).t("metadata").map(2).t("k").t("1").t("k").t("2")), "Burn keeps this last entry", 0);
    row("unknown-top-key", file(C().map(2).t("extra").arr(1).u(1).t("tensors").map(0)), "unknown top-level key", 0);
    row("unknown-descriptor-key", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(1).t("note").t("x")), seq(1, 0)), "unknown descriptor key", 1);
    row("param-id-null", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(1).t("param_id").raw({0xf6})), seq(1, 0)), "param_id is null", 1);
    row("param-id-undefined", file(oneTensor(C().map(4).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(1).t("param_id").raw({0xf7})), seq(1, 0)), "param_id is null", 1);
    row("wide-integers", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(1).rawHex("1b0000000000000002").t("data_offsets").arr(2).rawHex("1900 00").rawHex("1a00000002")), seq(2, 0)), "not byte for byte", 1);
    row("bignum-fits", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").arr(1).rawHex("c2420002").t("data_offsets").arr(2).u(0).u(2)), seq(2, 0)), "not byte for byte", 1);
    row("tag-before-values", file(C().map(1).t("tensors").rawHex("d818").map(1).t("w").rawHex("d903e8").add(desc(dt("U8"), {2}, 0, 2, 1)), seq(2, 0)), "not byte for byte", 1);
    row("indefinite-containers", file(C().raw({0xbf}).t("tensors").raw({0xbf}).t("w").raw({0xbf}).t("dtype").t("U8").t("shape").raw({0x9f, 0x02, 0xff}).t("data_offsets").arr(2).u(0).u(2).raw({0xff, 0xff, 0xff}), seq(2, 0)), "not byte for byte", 1);
    row("chunked-tensor-name", file(C().map(1).t("tensors").map(1).raw({0x7f}).t("conv").t(".w").raw({0xff}).add(desc(dt("U8"), {2}, 0, 2, 1)), seq(2, 0)), "not byte for byte", 1);
    row("shape-as-bytes", file(oneTensor(C().map(3).t("dtype").t("U8").t("shape").rawHex("420203").t("data_offsets").rawHex("420006")), seq(6, 0)), "not byte for byte", 1);
    row("field-names-as-bytes", file(C().map(1).rawHex("4774656e736f7273").map(1).t("w").map(3).rawHex("456474797065").t("U8").t("shape").arr(0).t("data_offsets").arr(2).u(0).u(1), seq(1, 0)), "not byte for byte", 1);
    row("float-any-width", file(C().map(2).t("tensors").map(0).t("scalars").map(1).t("lr").map(1).t("Float").rawHex("fb3fe0000000000000")), "not byte for byte", 0);
    row("offsets-three-last", file(C().map(1).t("tensors").map(1).t("w").map(3).t("dtype").t("U8").t("shape").arr(0).t("data_offsets").arr(3).u(0).u(1).u(5), seq(1, 0)), "more than 2 elements", 1);
    {
        auto b = file(C().map(1).t("tensors").map(2).t("a").add(desc(dt("U8"), {2}, 0, 2, 1)).t("b").add(desc(dt("U8"), {2}, 256, 258, 2)), seq(258, 1));
        row("nonzero-gap", b, "non-zero byte between tensors", 2);
    }
    {
        auto b = file(C().map(1).t("tensors").map(0)); // no tensors: Burn never looks past the metadata
        b.resize(146);
        row("short-padding-no-tensors", b, "before the end of its data section", 0);
    }
    row("legacy-bool", file(oneTensor(desc(dt("Bool"), {2}, 0, 2, {})), {1, 0}), "Burn >= 0.21.0-pre.3 rejects it", 1);
    row("depth-4-genuine", file(oneTensor(desc(dt("F32"), {1}, 0, 4, 1)), seq(4, 0)), "", 1);
    row("bool-depth-5", file(oneTensor(desc(boolDt("Native"), {1}, 0, 1, 1)), {1}), "", 1);
    row("qfloat-opaque", file(oneTensor(desc(C().map(1).t("QFloat").map(2).t("value").t("Q8S").t("store").t("Native"), {4}, 0, 8, 1)), seq(8, 0)), "", 1);
}

void TestBurnpack::accepted()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(QString, warning);
    QFETCH(int, tensors);
    dumpSeed("accepted", bytes);
    auto f = parse(bytes);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QCOMPARE(int(f->tensors.size()), tensors);
    if (warning.isEmpty())
        QVERIFY2(f->warnings.empty(), qPrintable(warningsOf(*f)));
    else
        QVERIFY2(hasWarning(*f, warning.toStdString()), qPrintable(warningsOf(*f)));
    // what we accept we can write again, and read back to the same content
    auto again = encodeBurnpack(contentOf(*f));
    QVERIFY2(again, again ? "" : again.error().message().c_str());
    auto back = parse(*again);
    QVERIFY2(back, back ? "" : back.error().message().c_str());
    QCOMPARE(back->tensors.size(), f->tensors.size());
    for (size_t i = 0; i < f->tensors.size(); ++i) {
        QCOMPARE(back->tensors[i].name, f->tensors[i].name);
        QVERIFY(back->tensors[i].dtype == f->tensors[i].dtype);
        QCOMPARE(back->tensors[i].shape, f->tensors[i].shape);
        QVERIFY(std::equal(back->tensors[i].data.begin(), back->tensors[i].data.end(), f->tensors[i].data.begin(), f->tensors[i].data.end()));
    }
    if (warning.isEmpty())
        QVERIFY(*again == bytes); // a canonical file re-saves byte for byte
}

void TestBurnpack::recursionLimit()
{
    // §6.3: the top-level map is level 1; an unknown key holding 127 nested arrays is accepted, 128 are not
    for (int n : {127, 128}) {
        C m;
        m.map(2).t("x");
        for (int i = 0; i < n; ++i)
            m.arr(1);
        m.u(0).t("tensors").map(0);
        auto f = parse(file(m));
        if (n == 127) {
            QVERIFY2(f, f ? "" : f.error().message().c_str());
        } else {
            QVERIFY(!f);
            QCOMPARE(f.error().code, ErrorCode::Limit);
            QCOMPARE(*f.error().offset, uint64_t(10 + 1 + 2 + 127)); // the 128th array
            QVERIFY(f.error().what.find("RecursionLimitExceeded") != std::string::npos);
        }
    }
    // non-bignum tags inside ignored values count too
    C m;
    m.map(2).t("x");
    for (int i = 0; i < 127; ++i)
        m.rawHex("c6");
    m.u(0).t("tensors").map(0);
    QVERIFY(parse(file(m)));
    C m2;
    m2.map(2).t("x");
    for (int i = 0; i < 128; ++i)
        m2.rawHex("c6");
    m2.u(0).t("tensors").map(0);
    QVERIFY(!parse(file(m2)));
    // a deep file never overflows the stack, whatever its depth
    C deep;
    deep.map(2).t("x");
    for (int i = 0; i < 200000; ++i)
        deep.arr(1);
    QVERIFY(!parse(file(deep)));
}

void TestBurnpack::tensorCountLimit()
{
    for (uint64_t n : {uint64_t(100000), uint64_t(100001)}) {
        C m;
        m.map(1).t("tensors").map(n);
        for (uint64_t i = 0; i < n; ++i)
            m.t(std::to_string(i)).map(3).t("dtype").t("U8").t("shape").arr(1).u(0).t("data_offsets").arr(2).u(0).u(0);
        auto f = parse(file(m));
        if (n == 100000) {
            QVERIFY2(f, f ? "" : f.error().message().c_str());
            QCOMPARE(f->tensors.size(), size_t(n));
        } else {
            QVERIFY(!f);
            QCOMPARE(f.error().code, ErrorCode::Limit);
            QCOMPARE(*f.error().offset, uint64_t(10 + 1 + 8));
            QVERIFY(f.error().what.find("File contains 100001 tensors, exceeding maximum of 100000") != std::string::npos);
        }
    }
}

void TestBurnpack::layoutDetection()
{
    // 0.19: data right after the metadata
    GenFile g;
    g.aligned = false;
    g.metadata = {{"format", "burnpack"}, {"producer", "burn"}, {"version", "0.19.0"}};
    g.tensors = {{"b", dt("F32"), {3}, 2, seq(12, 1)}, {"a", dt("U8"), {5}, 1, seq(5, 2)}};
    auto un = generate(g);
    auto f = parse(un);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QVERIFY(f->layout == BurnpackLayout::Unaligned);
    QCOMPARE(f->dataStart, uint64_t(10 + f->metadataSize));
    QVERIFY(hasWarning(*f, "wrong offsets"));
    QCOMPARE(f->find("a")->data[0], uint8_t(2));
    // with trailing bytes: the ranges tile [0, E) and a start is unaligned -> still 0.19
    auto trailing = un;
    trailing.push_back(0);
    f = parse(trailing);
    QVERIFY(f);
    QVERIFY(f->layout == BurnpackLayout::Unaligned);
    QVERIFY(hasWarning(*f, "after the last tensor"));
    // the same content aligned
    g.aligned = true;
    g.metadata["version"] = "0.20.1";
    auto al = generate(g);
    f = parse(al);
    QVERIFY(f);
    QVERIFY(f->layout == BurnpackLayout::Aligned256);
    QCOMPARE(f->dataStart, uint64_t(256));
    // hint disagreeing with the length
    g.aligned = false;
    g.metadata["version"] = "0.21.0";
    f = parse(generate(g));
    QVERIFY(f);
    QVERIFY(hasWarning(*f, "suggests the aligned layout"));
    // unknown: neither layout fits, not tiling, not aligned -> read as aligned with a warning
    C m = C().map(1).t("tensors").map(2).t("a").add(desc(dt("U8"), {2}, 0, 2, 1)).t("b").add(desc(dt("U8"), {2}, 5, 7, 2));
    auto odd = file(m, seq(7, 0), true);
    odd.push_back(0);
    f = parse(odd);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QVERIFY(hasWarning(*f, "unknown layout"));
    // metadata ending exactly at 256: both layouts coincide, read as aligned
    GenFile exact;
    exact.aligned = true;
    std::string pad;
    exact.tensors = {{"w", dt("U8"), {1}, std::nullopt, {7}}};
    for (int len = 0; len < 300; ++len) {
        exact.metadata = {{"p", std::string(len, 'x')}};
        auto b = generate(exact);
        if (10 + uint64_t(b[6]) + (uint64_t(b[7]) << 8) == 256) {
            auto e = parse(b);
            QVERIFY(e);
            QVERIFY(e->layout == BurnpackLayout::Aligned256);
            QVERIFY2(e->warnings.empty(), qPrintable(warningsOf(*e)));
            exact.aligned = false;
            QVERIFY(generate(exact) == b);
            return;
        }
    }
    QFAIL("no metadata length hit 246");
}

void TestBurnpack::schedulerIgnoresRanges()
{
    // LrSchedulerRecord never takes the tensors: with checkTensorRanges off a broken range is a warning
    auto b = file(C().map(2).t("tensors").map(1).t("w").add(desc(dt("U8"), {2}, 9, 4, 1)).t("scalars").map(1).t("0.step").map(1).t("Float").f(3.0), seq(9, 0));
    QVERIFY(!parse(b));
    BurnpackReadOptions o;
    o.checkTensorRanges = false;
    auto f = parse(b, o);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QVERIFY(f->tensors[0].data.empty());
    QVERIFY(hasWarning(*f, "a scheduler record never takes them"));
    QCOMPARE(f->scalars[0].second.f, 3.0);
}

void TestBurnpack::lenientRefusesPartialTensors()
{
    // [961] F32 over 960 elements' bytes: read leniently, the file shows, the tensor is refused (no
    // view: nothing computes statistics over 960 of its 961 values) and the file is damaged
    auto b = file(C().map(1).t("tensors").map(2).t("a").add(desc(dt("F32"), {961}, 0, 3840, 1)).t("b").add(desc(dt("U8"), {4}, 3840, 3844, 2)), seq(3844, 0));
    QVERIFY(!parse(b));
    BurnpackReadOptions o;
    o.lenient = true;
    auto f = parse(b, o);
    QVERIFY2(f, f ? "" : f.error().message().c_str());
    QCOMPARE(f->tensors.size(), size_t(2));
    QVERIFY(f->tensors[0].data.empty());
    QCOMPARE(QString::fromStdString(f->tensors[0].refused), QStringLiteral("3840 bytes stored, shape [961] of F32 needs 3844"));
    QVERIFY(f->tensors[1].refused.empty());
    QCOMPARE(f->tensors[1].data.size(), size_t(4));
    QVERIFY2(f->damage.find("Burn 0.22.1 rejects it") != std::string::npos, f->damage.c_str());
    QVERIFY(hasWarning(*f, "needs 3844"));

    // a scheduler file's tensors are never taken: refused, with a warning, but the file is not damaged
    BurnpackReadOptions s;
    s.checkTensorRanges = false;
    auto g = parse(b, s);
    QVERIFY2(g, g ? "" : g.error().message().c_str());
    QVERIFY(g->damage.empty());
    QVERIFY(!g->tensors[0].refused.empty());
}

void TestBurnpack::writerRefuses()
{
    BurnpackContent c;
    const std::vector<uint8_t> data = {1, 2};
    c.tensors = {{"a", {}, {2}, {}, data}, {"a", {}, {2}, {}, data}};
    auto e = encodeBurnpack(c);
    QVERIFY(!e);
    QVERIFY(e.error().what.find("Duplicate tensor name 'a'") != std::string::npos);
    BurnpackContent m;
    m.metadata = {{"k", "1"}, {"k", "2"}};
    QVERIFY(!encodeBurnpack(m));
    BurnpackContent s;
    s.scalars = {{"k", BurnpackScalar::makeBool(true)}, {"k", BurnpackScalar::makeBool(false)}};
    QVERIFY(!encodeBurnpack(s));
    // unsorted input is written sorted (BTreeMap order by bytes)
    BurnpackContent u;
    u.metadata = {{"b", "2"}, {"\xc3\xa9", "3"}, {"a", "1"}};
    auto w = encodeBurnpack(u);
    QVERIFY(w);
    auto f = parse(*w);
    QVERIFY(f);
    QCOMPARE(f->metadata[0].first, std::string("a"));
    QCOMPARE(f->metadata[2].first, std::string("\xc3\xa9"));
    QVERIFY(f->canonicalMetadata);
}

QTEST_APPLESS_MAIN(TestBurnpack)
#include "tst_burnpack.moc"
