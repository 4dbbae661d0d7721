// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The MessagePack codec: byte-identical round trips of every genuine Burn .mpk, every marker
// boundary, a malformed corpus with exact codes/offsets/messages, and an independent oracle
// (Python's msgpack module) that must agree with our tape on every fixture.
#include "core/codec/msgpack.h"
#include "core/io/bytes.h"
#include "core/value/tape.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <random>

using namespace ckpt;

namespace {

BytesPtr bytesFromHex(const QByteArray& hex)
{
    const QByteArray raw = QByteArray::fromHex(hex);
    return makeBytes(std::vector<uint8_t>(raw.begin(), raw.end()));
}

QByteArray toHex(std::span<const uint8_t> bytes)
{
    return QByteArray(reinterpret_cast<const char*>(bytes.data()), static_cast<qsizetype>(bytes.size())).toHex();
}

std::vector<uint8_t> encode(const Tape& tape, uint32_t node = 0)
{
    Sink sink;
    writeMsgpack(tape, node, sink);
    return std::move(sink.buffer());
}

QString fixturePath(const QString& relative)
{
    return QStringLiteral(CKPT_FIXTURES) + QLatin1Char('/') + relative;
}

BytesPtr mapFixture(const QString& relative)
{
    auto bytes = mapFile(fixturePath(relative).toStdString());
    if (!bytes)
        qFatal("cannot map fixture %s: %s", qPrintable(relative), bytes.error().message().c_str());
    return *bytes;
}

/** Every .mpk under the fixture directory, relative and sorted (13 files, Burn 0.12 - 0.21). */
QStringList fixtureFiles()
{
    QStringList files;
    const QString root = QStringLiteral(CKPT_FIXTURES);
    QDirIterator it(root, {QStringLiteral("*.mpk")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next().mid(root.size() + 1);
    files.sort();
    return files;
}

/** What the Python oracle counts, computed from our tape. */
QJsonObject summarize(const Tape& t)
{
    std::map<QString, qint64> c;
    for (const char* k : {"nil", "bool", "int", "float", "str", "bin", "array", "map", "strBytes", "binBytes", "tensors"})
        c[QLatin1String(k)] = 0;
    for (uint32_t i = 0; i < t.nodes.size(); ++i) {
        const Node& n = t[i];
        switch (n.kind) {
        case Kind::Nil: ++c[QStringLiteral("nil")]; break;
        case Kind::Bool: ++c[QStringLiteral("bool")]; break;
        case Kind::UInt:
        case Kind::Int: ++c[QStringLiteral("int")]; break;
        case Kind::F32:
        case Kind::F64: ++c[QStringLiteral("float")]; break;
        case Kind::Str:
            ++c[QStringLiteral("str")];
            c[QStringLiteral("strBytes")] += static_cast<qint64>(n.count);
            break;
        case Kind::Bin:
            ++c[QStringLiteral("bin")];
            c[QStringLiteral("binBytes")] += static_cast<qint64>(n.count);
            break;
        case Kind::Array: ++c[QStringLiteral("array")]; break;
        case Kind::Map:
            ++c[QStringLiteral("map")];
            if (t.find(i, "bytes") && t.find(i, "shape") && t.find(i, "dtype"))
                ++c[QStringLiteral("tensors")];
            break;
        }
    }
    QJsonObject o;
    for (const auto& [k, v] : c)
        o.insert(k, v);
    return o;
}

constexpr auto kPythonOracle = R"PY(
import json, sys
try:
    import msgpack
except ImportError:
    sys.exit(3)
class Pairs(list):
    pass
def walk(root, c):
    todo = [root]
    while todo:
        v = todo.pop()
        if v is None: c['nil'] += 1
        elif isinstance(v, bool): c['bool'] += 1
        elif isinstance(v, int): c['int'] += 1
        elif isinstance(v, float): c['float'] += 1
        elif isinstance(v, str):
            c['str'] += 1; c['strBytes'] += len(v.encode('utf-8'))
        elif isinstance(v, bytes):
            c['bin'] += 1; c['binBytes'] += len(v)
        elif isinstance(v, Pairs):
            c['map'] += 1
            keys = [k for k, _ in v]
            if 'bytes' in keys and 'shape' in keys and 'dtype' in keys: c['tensors'] += 1
            for k, x in v: todo.append(k); todo.append(x)
        elif isinstance(v, list):
            c['array'] += 1; todo.extend(v)
        else:
            raise TypeError(type(v))
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    c = dict.fromkeys(['nil','bool','int','float','str','bin','array','map','strBytes','binBytes','tensors'], 0)
    walk(msgpack.unpackb(data, raw=False, strict_map_key=False, object_pairs_hook=Pairs), c)
    print(json.dumps(c))
)PY";

/** A byte vector of exactly the prefix, so sanitizers catch any read past the end. */
BytesPtr prefixCopy(const BytesPtr& whole, size_t n)
{
    return makeBytes(std::vector<uint8_t>(whole->data(), whole->data() + n));
}

} // namespace

class TestMsgpack : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void wideIntegersAsRmpSerdeWritesU128()
    {
        // rmp-serde writes every u128 / i128 as serialize_bytes(to_be_bytes()): a bin 8 of 16 bytes.
        TapeBuilder b;
        b.beginArray();
        b.uinteger128(kUInt128Max);
        b.integer128(kInt128Min);
        b.uinteger128(UInt128(1) << 64);
        b.integer128(Int128(INT64_MIN) - 1);
        b.uinteger128(5); // fits 64 bits: an ordinary integer node, written as one
        b.end();
        const Tape t = std::move(b).finish();
        QCOMPARE(toHex(encode(t)),
            QByteArray("95"
                       "c410ffffffffffffffffffffffffffffffff"
                       "c41080000000000000000000000000000000"
                       "c41000000000000000010000000000000000"
                       "c410ffffffffffffffff7fffffffffffffff"
                       "05"));
    }

    void fixturesArePresent()
    {
        QCOMPARE(fixtureFiles().size(), 13);
    }

    void fixturesRoundTripByteIdentical_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString& f : fixtureFiles())
            QTest::newRow(qPrintable(f)) << f;
    }
    void fixturesRoundTripByteIdentical()
    {
        QFETCH(QString, file);
        const BytesPtr bytes = mapFixture(file);
        auto read = readMsgpack(bytes);
        QVERIFY2(read, read ? "" : read.error().message().c_str());
        QCOMPARE(read->consumed, static_cast<uint64_t>(bytes->size()));
        const std::vector<uint8_t> again = encode(read->tape);
        QCOMPARE(again.size(), bytes->size());
        const auto mismatch = std::mismatch(again.begin(), again.end(), bytes->data());
        QVERIFY2(mismatch.first == again.end(),
            qPrintable(QStringLiteral("first difference at offset %1").arg(mismatch.first - again.begin())));
    }

    void fixtureEnvelopeFacts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("settings");
        QTest::addColumn<int>("itemKind");
        const auto half = QStringLiteral("HalfPrecisionSettings");
        const auto full = QStringLiteral("FullPrecisionSettings");
        const int map = int(Kind::Map);
        auto row = [](const char* f, const char* v, const QString& s, int kind) {
            QTest::newRow(f) << QString::fromLatin1(f) << QString::fromLatin1(v) << s << kind;
        };
        row("models/burn-0.12.1_half_nannou-mnist.mpk", "0.12.1", half, map);
        row("models/burn-0.14.0_full_sysdesign.mpk", "0.14.0", full, map);
        row("models/burn-0.16.0_half_glyphtool.mpk", "0.16.0", half, map);
        row("models/burn-0.16.1_full_connect4.mpk", "0.16.1", full, map);
        row("models/burn-0.17.0_half_modern-lstm.mpk", "0.17.0", half, map);
        row("models/burn-0.18.0_half_lab-vision-mnist.mpk", "0.18.0", half, map);
        row("models/burn-0.21.0_full_minesweeper-ml.mpk", "0.21.0", full, map);
        row("runs/mechint-0.20.0-pre.6/checkpoint/model-3.mpk", "0.20.0-pre.6", half, map);
        row("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk", "0.20.0-pre.6", half, map);
        row("runs/mechint-0.20.0-pre.6/checkpoint/scheduler-3.mpk", "0.20.0-pre.6", half, int(Kind::UInt));
        row("runs/mlplay-0.16.1/checkpoint/model-10.mpk", "0.16.1", half, map);
        row("runs/mlplay-0.16.1/checkpoint/optim-10.mpk", "0.16.1", half, map);
        row("runs/mlplay-0.16.1/checkpoint/scheduler-10.mpk", "0.16.1", half, int(Kind::Nil));
    }
    void fixtureEnvelopeFacts()
    {
        QFETCH(QString, file);
        QFETCH(QString, version);
        QFETCH(QString, settings);
        QFETCH(int, itemKind);
        auto read = readMsgpack(mapFixture(file));
        QVERIFY(read);
        const Tape& t = read->tape;
        QCOMPARE(t[0].kind, Kind::Map);
        QCOMPARE(t[0].count, 3u);
        std::vector<std::string> keys;
        t.forEachEntry(0, [&](uint32_t k, uint32_t) { keys.push_back(t.keyText(k)); });
        QCOMPARE(keys, (std::vector<std::string>{"metadata", "item", "_b"}));
        const uint32_t phantom = *t.find(0, "_b");
        QCOMPARE(t[phantom].kind, Kind::Array);
        QCOMPARE(t[phantom].count, 0u);
        const uint32_t metadata = *t.find(0, "metadata");
        QCOMPARE(t[metadata].count, 5u);
        QCOMPARE(QString::fromStdString(std::string(t.str(*t.find(metadata, "version")))), version);
        QCOMPARE(QString::fromStdString(std::string(t.str(*t.find(metadata, "settings")))), settings);
        QCOMPARE(int(t[*t.find(0, "item")].kind), itemKind);
        QCOMPARE(t[0].srcOffset, 0u);
        QCOMPARE(t[metadata].srcOffset, 10u); // 0x83, fixstr "metadata" (9 bytes), then the metadata map
    }

    void payloadsAreReferencedNotCopied()
    {
        const BytesPtr bytes = mapFixture(QStringLiteral("models/burn-0.16.1_full_connect4.mpk"));
        auto read = readMsgpack(bytes);
        QVERIFY(read);
        const Tape& t = read->tape;
        QCOMPARE(t.source.get(), bytes.get());
        QVERIFY(t.pool.empty());
        int bins = 0;
        for (uint32_t i = 0; i < t.nodes.size(); ++i) {
            if (t[i].kind != Kind::Bin && t[i].kind != Kind::Str)
                continue;
            QCOMPARE(t[i].flags & InPool, 0);
            QCOMPARE(t.bin(i).data(), bytes->data() + t[i].payload);
            // The marker sits before the payload: 1 byte + 0/1/2/4 length bytes.
            QVERIFY(t[i].payload > t[i].srcOffset && t[i].payload <= t[i].srcOffset + 5);
            bins += t[i].kind == Kind::Bin;
        }
        QCOMPARE(bins, 6); // 3 Linear layers: weight and bias each
    }

    void largePayloadsStreamWithoutACopy()
    {
        // A Sink with a downstream function passes payloads of 64 KiB and more straight through:
        // the spans it receives must point into the mapping itself.
        const BytesPtr bytes = mapFixture(QStringLiteral("runs/mlplay-0.16.1/checkpoint/optim-10.mpk"));
        auto read = readMsgpack(bytes);
        QVERIFY(read);
        std::vector<uint8_t> written;
        int directFromMapping = 0;
        Sink sink([&](std::span<const uint8_t> s) -> Result<void> {
            if (s.data() >= bytes->data() && s.data() + s.size() <= bytes->data() + bytes->size())
                ++directFromMapping;
            written.insert(written.end(), s.begin(), s.end());
            return {};
        });
        writeMsgpack(read->tape, 0, sink);
        QVERIFY(sink.finish());
        QVERIFY(directFromMapping > 0);
        QCOMPARE(written.size(), bytes->size());
        QVERIFY(std::equal(written.begin(), written.end(), bytes->data()));
    }

    void integerMarkerBoundaries_data()
    {
        QTest::addColumn<bool>("isSigned");
        QTest::addColumn<qint64>("signedValue");
        QTest::addColumn<quint64>("unsignedValue");
        QTest::addColumn<QByteArray>("wire");
        auto u = [](quint64 v, const char* hex) {
            QTest::addRow("u %llu", v) << false << qint64(0) << v << QByteArray(hex);
        };
        auto i = [](qint64 v, const char* hex) { QTest::addRow("i %lld", v) << true << v << quint64(0) << QByteArray(hex); };
        u(0, "00");
        u(127, "7f");
        u(128, "cc80");
        u(255, "ccff");
        u(256, "cd0100");
        u(65535, "cdffff");
        u(65536, "ce00010000");
        u(0xffffffffull, "ceffffffff");
        u(0x100000000ull, "cf0000000100000000");
        u(std::numeric_limits<quint64>::max(), "cfffffffffffffffff");
        i(-1, "ff");
        i(-32, "e0");
        i(-33, "d0df");
        i(-128, "d080");
        i(-129, "d1ff7f");
        i(-32768, "d18000");
        i(-32769, "d2ffff7fff");
        i(-2147483648ll, "d280000000");
        i(-2147483649ll, "d3ffffffff7fffffff");
        i(std::numeric_limits<qint64>::min(), "d38000000000000000");
        // Signed types with non-negative values use the unsigned markers, as rmp-serde writes them.
        i(0, "00");
        i(300, "cd012c");
        i(std::numeric_limits<qint64>::max(), "cf7fffffffffffffff");
    }
    void integerMarkerBoundaries()
    {
        QFETCH(bool, isSigned);
        QFETCH(qint64, signedValue);
        QFETCH(quint64, unsignedValue);
        QFETCH(QByteArray, wire);
        TapeBuilder b;
        if (isSigned)
            b.integer(signedValue);
        else
            b.uinteger(unsignedValue);
        const Tape t = std::move(b).finish();
        const auto bytes = encode(t);
        QCOMPARE(toHex(bytes), wire);

        auto back = readMsgpack(makeBytes(bytes));
        QVERIFY(back);
        QCOMPARE(back->consumed, static_cast<uint64_t>(bytes.size()));
        const Tape& r = back->tape;
        if (isSigned && signedValue < 0) {
            QCOMPARE(r[0].kind, Kind::Int);
            QCOMPARE(qint64(r.i64(0)), signedValue);
        } else {
            QCOMPARE(r[0].kind, Kind::UInt);
            QCOMPARE(*r.asU64(0), isSigned ? quint64(signedValue) : unsignedValue);
        }
    }

    void signedMarkersWithNonNegativeValuesDecode()
    {
        // Other encoders write small values in int markers; rmp-serde accepts them, so do we.
        auto r = readMsgpack(bytesFromHex("94d005d10100d200000007d30000000000000009"));
        QVERIFY(r);
        const Tape& t = r->tape;
        QCOMPARE(t[0].count, 4u);
        QCOMPARE(t[1].kind, Kind::Int);
        QCOMPARE(*t.asU64(1), 5u);
        QCOMPARE(*t.asU64(2), 256u);
        QCOMPARE(*t.asU64(3), 7u);
        QCOMPARE(*t.asU64(4), 9u);
        QCOMPARE(toHex(encode(t)), QByteArray("9405cd01000709")); // written canonically
    }

    void lengthHeaderBoundaries_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("length");
        QTest::addColumn<QByteArray>("header");
        const struct {
            Kind kind;
            const char* name;
            std::vector<std::pair<int, const char*>> rows;
        } table[] = {
            {Kind::Str, "str", {{0, "a0"}, {31, "bf"}, {32, "d920"}, {255, "d9ff"}, {256, "da0100"}, {65535, "daffff"}, {65536, "db00010000"}}},
            {Kind::Bin, "bin", {{0, "c400"}, {31, "c41f"}, {32, "c420"}, {255, "c4ff"}, {256, "c50100"}, {65535, "c5ffff"}, {65536, "c600010000"}}},
            {Kind::Array, "array", {{0, "90"}, {15, "9f"}, {16, "dc0010"}, {31, "dc001f"}, {32, "dc0020"}, {255, "dc00ff"}, {256, "dc0100"}, {65535, "dcffff"}, {65536, "dd00010000"}}},
            {Kind::Map, "map", {{0, "80"}, {15, "8f"}, {16, "de0010"}, {31, "de001f"}, {32, "de0020"}, {255, "de00ff"}, {256, "de0100"}, {65535, "deffff"}, {65536, "df00010000"}}},
        };
        for (const auto& k : table)
            for (const auto& [n, hex] : k.rows)
                QTest::addRow("%s %d", k.name, n) << int(k.kind) << n << QByteArray(hex);
    }
    void lengthHeaderBoundaries()
    {
        QFETCH(int, kind);
        QFETCH(int, length);
        QFETCH(QByteArray, header);
        TapeBuilder b;
        switch (Kind(kind)) {
        case Kind::Str: b.str(std::string(static_cast<size_t>(length), 'x')); break;
        case Kind::Bin: b.bin(std::vector<uint8_t>(static_cast<size_t>(length), 0xab)); break;
        case Kind::Array:
            b.beginArray();
            for (int i = 0; i < length; ++i)
                b.nil();
            b.end();
            break;
        default:
            b.beginMap();
            for (int i = 0; i < length; ++i) {
                b.uinteger(static_cast<uint64_t>(i) % 100); // keys need not be unique or strings
                b.boolean(i % 2);
            }
            b.end();
            break;
        }
        const Tape t = std::move(b).finish();
        const auto bytes = encode(t);
        QCOMPARE(toHex(std::span(bytes).first(static_cast<size_t>(header.size() / 2))), header);
        const size_t perElement = Kind(kind) == Kind::Map ? 2 : 1;
        QCOMPARE(bytes.size(), static_cast<size_t>(header.size() / 2) + perElement * static_cast<size_t>(length));

        auto back = readMsgpack(makeBytes(bytes));
        QVERIFY2(back, back ? "" : back.error().message().c_str());
        QCOMPARE(int(back->tape[0].kind), kind);
        QCOMPARE(back->tape[0].count, static_cast<uint64_t>(length));
        QVERIFY(subtreeEqual(t, 0, back->tape, 0));
        QCOMPARE(encode(back->tape), bytes);
    }

    void floatsKeepWidthAndBits()
    {
        TapeBuilder b;
        b.beginArray();
        const uint32_t f32Bits[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0x7f800000u, 0x7fc00001u, 0x00000001u};
        const uint64_t f64Bits[] = {0x8000000000000000ull, 0x3ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000123ull, 1ull};
        for (uint32_t bits : f32Bits)
            b.f32(std::bit_cast<float>(bits));
        for (uint64_t bits : f64Bits)
            b.f64(std::bit_cast<double>(bits));
        b.end();
        const Tape t = std::move(b).finish();
        const auto bytes = encode(t);
        QCOMPARE(toHex(std::span(bytes).first(11)), QByteArray("9bca00000000ca80000000"));
        QCOMPARE(bytes.size(), 1 + 6 * 5 + 5 * 9u); // never shrunk: 1.0 stays ca/cb
        auto back = readMsgpack(makeBytes(bytes));
        QVERIFY(back);
        const Tape& r = back->tape;
        for (uint32_t i = 0; i < 6; ++i) {
            QCOMPARE(r[1 + i].kind, Kind::F32);
            QCOMPARE(r[1 + i].payload, uint64_t(f32Bits[i]));
        }
        for (uint32_t i = 0; i < 5; ++i) {
            QCOMPARE(r[7 + i].kind, Kind::F64);
            QCOMPARE(r[7 + i].payload, f64Bits[i]);
        }
    }

    void scalarsAndSourceOffsets()
    {
        // {"a": nil, "b": [true, false, -5], "c": bin "xy"}
        auto r = readMsgpack(bytesFromHex("83a161c0a16293c3c2fba163c4027879"));
        QVERIFY(r);
        const Tape& t = r->tape;
        QCOMPARE(t.nodes.size(), size_t(10));
        QCOMPARE(t[2].kind, Kind::Nil);
        QCOMPARE(t[2].srcOffset, 3u);
        QCOMPARE(t[4].kind, Kind::Array);
        QCOMPARE(t[4].srcOffset, 6u);
        QCOMPARE(t.boolean(5), true);
        QCOMPARE(t.boolean(6), false);
        QCOMPARE(t.i64(7), -5);
        QCOMPARE(t[9].kind, Kind::Bin);
        QCOMPARE(t[9].srcOffset, 12u);
        QCOMPARE(t[9].payload, 14u);
        QCOMPARE(toHex(t.bin(9)), QByteArray("7879"));
    }

    void writerRestoresBinArrays()
    {
        TapeBuilder b;
        b.beginArray();
        const uint32_t bytesArray = b.beginArray();
        for (uint64_t v : {1u, 2u, 255u})
            b.uinteger(v);
        b.end();
        const uint32_t notBytes = b.beginArray();
        b.uinteger(256); // not a byte: stays an array
        b.end();
        b.end();
        b.node(bytesArray).flags |= FromBinArray;
        b.node(notBytes).flags |= FromBinArray;
        const Tape t = std::move(b).finish();
        QCOMPARE(toHex(encode(t)), QByteArray("92c4030102ff91cd0100"));
    }

    void consumedStartOffsetAndTrailingBytes()
    {
        const BytesPtr bytes = bytesFromHex("ff92a178c0c1c1");
        MsgpackReadOptions o;
        o.startOffset = 1;
        auto r = readMsgpack(bytes, o);
        QVERIFY(r);
        QCOMPARE(r->consumed, 4u); // trailing 0xc1 bytes are left to the caller, as rmp-serde does
        QCOMPARE(r->tape[0].srcOffset, 1u);
        QCOMPARE(r->tape.str(1), std::string_view("x"));
        QCOMPARE(r->tape[2].kind, Kind::Nil);

        o.startOffset = 7;
        auto atEnd = readMsgpack(bytes, o);
        QVERIFY(!atEnd);
        QCOMPARE(atEnd.error().code, ErrorCode::Truncated);
        QCOMPARE(atEnd.error().offset, std::optional<uint64_t>(7));

        o.startOffset = 8;
        auto beyond = readMsgpack(bytes, o);
        QVERIFY(!beyond);
        QCOMPARE(beyond.error().code, ErrorCode::Usage);

        QCOMPARE(readMsgpack(nullptr).error().code, ErrorCode::Usage);
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("hex");
        QTest::addColumn<int>("code");
        QTest::addColumn<qulonglong>("offset");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("path");
        auto row = [](const char* name, const char* hex, ErrorCode code, qulonglong offset, const char* message, const char* path = "") {
            QTest::newRow(name) << QByteArray(hex) << int(code) << offset << QString::fromUtf8(message) << QString::fromUtf8(path);
        };
        using E = ErrorCode;
        row("empty input", "", E::Truncated, 0, "found the end of the input (the input is empty)");
        row("marker c1", "c1", E::Malformed, 0, "unknown MessagePack marker 0xc1");
        row("c1 as a map value", "81a161c1", E::Malformed, 3, "unknown MessagePack marker 0xc1", "a");
        row("fixext1", "d40100", E::Unsupported, 0, "extension type (marker 0xd4)");
        row("fixext16", "d801" "00000000000000000000000000000000", E::Unsupported, 0, "marker 0xd8");
        row("ext8", "c7010500", E::Unsupported, 0, "marker 0xc7");
        row("ext16", "c800010500", E::Unsupported, 0, "marker 0xc8");
        row("ext32 in an array", "9201c90000000105ff", E::Unsupported, 2, "marker 0xc9", "[1]");
        row("bin32 declaring 4 GiB", "c6ffffffff000000", E::Truncated, 0,
            "truncated: bin32 header declares 4294967295 bytes but only 3 bytes remain");
        row("bin8 cut short", "c40a0102", E::Truncated, 0, "bin8 header declares 10 bytes but only 2 bytes remain");
        row("str32 declaring 4 GiB", "dbfffffff0", E::Truncated, 0, "str32 header declares 4294967280 bytes but only 0 bytes remain");
        row("fixstr cut short", "a5616263", E::Truncated, 0, "fixstr header declares 5 bytes but only 3 bytes remain");
        row("array32 huge count", "ddffffffff010203", E::Limit, 0,
            "array header (array32) declares 4294967295 elements but only 3 bytes remain");
        row("map32 huge count", "dfffffffffc0", E::Limit, 0, "map header (map32) declares 4294967295 entries but only 1 byte remains");
        row("map16 needs two bytes per entry", "de0002a16101", E::Limit, 0, "declares 2 entries but only 3 bytes remain (each entry needs at least 2)");
        row("fixarray count beyond input", "9501", E::Limit, 0, "array header (fixarray) declares 5 elements but only 1 byte remains");
        row("str8 without length", "d9", E::Truncated, 0, "truncated: str8 needs 1 length byte but only 0 bytes remain");
        row("array32 without full length", "dd0000", E::Truncated, 0, "truncated: array32 needs 4 length bytes but only 2 bytes remain");
        row("uint64 cut short", "cf0000", E::Truncated, 0, "truncated: uint64 needs 8 value bytes but only 2 bytes remain");
        row("float32 cut short", "91ca3f80", E::Truncated, 1, "float32 needs 4 value bytes but only 2 bytes remain", "[0]");
        row("int16 cut short", "d1ff", E::Truncated, 0, "int16 needs 2 value bytes but only 1 byte remains");
        row("array ends early", "9301c400", E::Truncated, 4, "the array at offset 0 has 2 of its 3 elements", "[2]");
        row("map ends after a key", "82a161c0a162", E::Truncated, 6, "the map at offset 0 has 1 of its 2 entries", "b");
        row("invalid UTF-8 byte", "a56865ff6c6f", E::Malformed, 3,
            "expected UTF-8 text in a fixstr of 5 bytes (starting at offset 0), found invalid byte 0xff at position 2");
        row("overlong UTF-8", "a2c080", E::Malformed, 1, "invalid byte 0xc0 at position 0");
        row("UTF-16 surrogate", "a3eda080", E::Malformed, 1, "invalid byte 0xed");
        row("above U+10FFFF", "a4f4908080", E::Malformed, 1, "invalid byte 0xf4");
        row("UTF-8 cut inside the str", "a261e2", E::Malformed, 2, "invalid byte 0xe2 at position 1");
        row("invalid UTF-8 in a key", "81a2ff61c0", E::Malformed, 2, "invalid byte 0xff");
        row("error path through maps and arrays", "81a46974656d81a177930102c40a0102", E::Truncated, 12,
            "bin8 header declares 10 bytes", "item.w[2]");
        row("error path quotes odd keys", "81a3612e62c1", E::Malformed, 5, "0xc1", R"(["a.b"])");
        row("error path with integer keys", "81059201", E::Limit, 2, "array header (fixarray) declares 2 elements but only 1 byte remains", "5");
    }
    void malformed()
    {
        QFETCH(QByteArray, hex);
        QFETCH(int, code);
        QFETCH(qulonglong, offset);
        QFETCH(QString, message);
        QFETCH(QString, path);
        auto r = readMsgpack(bytesFromHex(hex));
        QVERIFY(!r);
        const Error& e = r.error();
        QCOMPARE(int(e.code), code);
        QCOMPARE(e.offset, std::optional<uint64_t>(offset));
        QVERIFY2(QString::fromStdString(e.what).contains(message), e.what.c_str());
        QCOMPARE(QString::fromStdString(e.recordPath), path);
    }

    void validUtf8IsAccepted()
    {
        // 2-, 3- and 4-byte sequences at their boundaries, and a long ASCII run for the fast path.
        const QByteArray text = QStringLiteral("é€\U0010FFFF\u07FF\uFFFF\U00010000 ascii padding ascii padding").toUtf8();
        QByteArray hex = "d9" + QByteArray::number(text.size(), 16).rightJustified(2, '0') + text.toHex();
        auto r = readMsgpack(bytesFromHex(hex));
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(QByteArray(r->tape.str(0).data(), qsizetype(r->tape.str(0).size())), text);
    }

    void truncatedAtEveryByte_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("scheduler-10") << QStringLiteral("runs/mlplay-0.16.1/checkpoint/scheduler-10.mpk");
        QTest::newRow("scheduler-3") << QStringLiteral("runs/mechint-0.20.0-pre.6/checkpoint/scheduler-3.mpk");
        QTest::newRow("connect4") << QStringLiteral("models/burn-0.16.1_full_connect4.mpk");
    }
    void truncatedAtEveryByte()
    {
        QFETCH(QString, file);
        const BytesPtr whole = mapFixture(file);
        for (size_t n = 0; n < whole->size(); ++n) {
            auto r = readMsgpack(prefixCopy(whole, n));
            // The root map ends with the file, so every proper prefix is incomplete.
            if (r)
                QFAIL(qPrintable(QStringLiteral("prefix of %1 bytes decoded").arg(n)));
            const Error& e = r.error();
            if (e.code != ErrorCode::Truncated && e.code != ErrorCode::Limit)
                QFAIL(qPrintable(QStringLiteral("prefix %1: unexpected error %2").arg(n).arg(QString::fromStdString(e.message()))));
            if (!e.offset || *e.offset > n)
                QFAIL(qPrintable(QStringLiteral("prefix %1: bad offset in %2").arg(n).arg(QString::fromStdString(e.message()))));
        }
    }

    void deepNestingIsRefusedWithoutRecursion()
    {
        constexpr size_t depth = 100000;
        std::vector<uint8_t> deep(depth, 0x91);
        deep.push_back(0xc0);
        const BytesPtr bytes = makeBytes(deep);

        auto refused = readMsgpack(bytes);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Limit);
        QCOMPARE(refused.error().offset, std::optional<uint64_t>(1024));
        QVERIFY(refused.error().what.find("nesting deeper than 1024") != std::string::npos);
        QVERIFY(refused.error().recordPath.size() < 400); // the middle of a hostile path is elided
        QVERIFY(refused.error().recordPath.find("976 levels") != std::string::npos);

        // Exactly maxDepth levels are fine.
        std::vector<uint8_t> atLimit(1024, 0x91);
        atLimit.push_back(0x01);
        QVERIFY(readMsgpack(makeBytes(atLimit)));

        // Nested maps are containers too.
        std::vector<uint8_t> maps;
        for (int i = 0; i < 2000; ++i)
            maps.insert(maps.end(), {0x81, 0xa1, 'k'});
        maps.push_back(0xc0);
        auto mapRefused = readMsgpack(makeBytes(maps));
        QVERIFY(!mapRefused);
        QCOMPARE(mapRefused.error().code, ErrorCode::Limit);
        QCOMPARE(mapRefused.error().offset, std::optional<uint64_t>(1024 * 3));

        // With the limit raised the iterative decoder and the linear writer handle any depth.
        MsgpackReadOptions o;
        o.maxDepth = depth;
        auto accepted = readMsgpack(bytes, o);
        QVERIFY(accepted);
        QCOMPARE(accepted->tape.nodes.size(), depth + 1);
        QCOMPARE(accepted->tape[0].end, uint32_t(depth + 1));
        QCOMPARE(encode(accepted->tape), deep);
    }

    void mutatedFixturesNeverCrash()
    {
        // Deterministic mutations aimed at markers and length fields (payload bytes would mostly hit
        // tensor data, which the decoder never looks at).
        const BytesPtr original = mapFixture(QStringLiteral("models/burn-0.17.0_half_modern-lstm.mpk"));
        auto good = readMsgpack(original);
        QVERIFY(good);
        std::vector<uint64_t> markers;
        for (const Node& n : good->tape.nodes)
            markers.push_back(n.srcOffset);
        std::mt19937_64 rng(20260101);
        const uint8_t interesting[] = {0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc4, 0xc5, 0xc6,
            0xc7, 0xca, 0xcb, 0xcf, 0xd3, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff};
        int decoded = 0, rejected = 0;
        for (int round = 0; round < 3000; ++round) {
            std::vector<uint8_t> bytes(original->data(), original->data() + original->size());
            const int edits = 1 + static_cast<int>(rng() % 3);
            for (int k = 0; k < edits; ++k) {
                const uint64_t at = std::min<uint64_t>(markers[rng() % markers.size()] + rng() % 5, bytes.size() - 1);
                bytes[at] = rng() % 2 ? interesting[rng() % sizeof interesting] : static_cast<uint8_t>(rng());
            }
            if (rng() % 4 == 0)
                bytes.resize(rng() % bytes.size());
            const BytesPtr input = makeBytes(std::move(bytes));
            auto r = readMsgpack(input);
            if (!r) {
                ++rejected;
                QVERIFY(r.error().offset && *r.error().offset <= input->size());
                QVERIFY(!r.error().what.empty());
                continue;
            }
            ++decoded;
            QVERIFY(r->consumed <= input->size());
            // Whatever decodes re-encodes; the canonical form is a fixed point (int markers holding
            // non-negative values become uint markers, so compare encodings, not kinds).
            const std::vector<uint8_t> canonical = encode(r->tape);
            auto again = readMsgpack(makeBytes(canonical));
            QVERIFY(again);
            QCOMPARE(again->consumed, static_cast<uint64_t>(canonical.size()));
            QCOMPARE(again->tape.nodes.size(), r->tape.nodes.size());
            QVERIFY(encode(again->tape) == canonical);
        }
        QVERIFY(decoded > 0);
        QVERIFY(rejected > 0);
    }

    void progressAndCancel()
    {
        // The 0.12 record stores tensors as arrays of numbers: hundreds of thousands of nodes.
        const BytesPtr bytes = mapFixture(QStringLiteral("models/burn-0.12.1_half_nannou-mnist.mpk"));
        std::vector<double> reports;
        Progress p;
        p.onProgress = [&](double f) { reports.push_back(f); };
        auto r = readMsgpack(bytes, {}, p);
        QVERIFY(r);
        QVERIFY(r->tape.nodes.size() > 200000);
        QVERIFY(reports.size() >= 3);
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        QCOMPARE(reports.back(), 1.0);

        Progress cancel;
        cancel.isCancelled = [] { return true; };
        auto c = readMsgpack(bytes, {}, cancel);
        QVERIFY(!c);
        QCOMPARE(c.error().code, ErrorCode::Cancelled);
    }

    void agreesWithPythonMsgpack()
    {
        // The configure (tests/require_test_tools.cmake) made sure the oracle is installed: its absence
        // now is a broken machine, which must not pass as green.
        const QString python = QStringLiteral("/usr/bin/python3");
        QVERIFY2(QFileInfo::exists(python), "/usr/bin/python3 is not installed (packaging/install-deps.sh)");
        QStringList args{QStringLiteral("-c"), QString::fromUtf8(kPythonOracle)};
        const QStringList files = fixtureFiles();
        for (const QString& f : files)
            args << fixturePath(f);
        QProcess proc;
        proc.start(python, args);
        QVERIFY(proc.waitForFinished(60000));
        QVERIFY2(proc.exitCode() != 3, "the Python msgpack module is not installed for /usr/bin/python3 (python3-msgpack)");
        QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
        const QList<QByteArray> lines = proc.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), files.size());
        for (qsizetype i = 0; i < files.size(); ++i) {
            const QJsonObject oracle = QJsonDocument::fromJson(lines[i]).object();
            auto r = readMsgpack(mapFixture(files[i]));
            QVERIFY(r);
            const QJsonObject ours = summarize(r->tape);
            if (ours != oracle) {
                qWarning().noquote() << files[i] << "ours" << QJsonDocument(ours).toJson(QJsonDocument::Compact)
                                     << "python" << lines[i];
                QFAIL("the tape disagrees with Python's msgpack");
            }
            // Something to agree about: every fixture but the schedulers holds tensors.
            if (!files[i].contains(QLatin1String("scheduler")))
                QVERIFY(oracle.value(QLatin1String("binBytes")).toInteger() > 0
                    || oracle.value(QLatin1String("float")).toInteger() + oracle.value(QLatin1String("int")).toInteger() > 1000);
        }
    }
};

QTEST_GUILESS_MAIN(TestMsgpack)
#include "tst_msgpack.moc"
