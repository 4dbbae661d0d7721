// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// What a bincode file leaves to its self-describing twin and the twin alone cannot say: enum variant
// indices (read from the bytes where the twin names the variant), tuples of different types, and
// u128/i128 (16 bytes in MessagePack; u128 or i128 only the value tells). The records of the real
// crates for the same shapes are in tests/interopcheck/tst_interop_enums.cpp; these are the rules.

#include "core/codec/bincode.h"
#include "core/codec/schema.h"
#include "core/io/bytes.h"
#include "core/io/sink.h"
#include "tests/common/bincodebytes.h"

#include <QTest>

#include <array>
#include <functional>

using namespace ckpt;
using ckpt::test::encode;
using ckpt::test::hexBytes;

namespace {

const std::array<std::string_view, 5> kMetadata{"f32", "i64", "bin", "0.21.0", "s"};

/** A Burn record envelope around the item \a item writes, as the twin's tape. */
Tape envelope(const std::function<void(TapeBuilder&)>& item)
{
    TapeBuilder b;
    b.beginMap();
    b.key("metadata");
    b.beginMap();
    const std::array<std::string_view, 5> keys{"float", "int", "format", "version", "settings"};
    for (size_t k = 0; k < keys.size(); ++k) {
        b.key(keys[k]);
        b.str(kMetadata[k]);
    }
    b.end();
    b.key("item");
    item(b);
    b.key("_b");
    b.beginArray();
    b.end();
    b.end();
    return std::move(b).finish();
}

/** The bincode bytes of that envelope: the five metadata strings, then \a item (`_b` is nothing). */
std::vector<uint8_t> envelopeBytes(const std::vector<uint8_t>& item)
{
    std::vector<uint8_t> out;
    for (std::string_view m : kMetadata) {
        out.push_back(static_cast<uint8_t>(m.size()));
        out.insert(out.end(), m.begin(), m.end());
    }
    out.insert(out.end(), item.begin(), item.end());
    return out;
}

/** A {Name: payload} enum value as rmp-serde writes a newtype variant. */
void variant(TapeBuilder& b, std::string_view name, uint64_t payload)
{
    b.beginMap();
    b.key(name);
    b.uinteger(payload);
    b.end();
}

/** The 16 big-endian bytes rmp-serde writes for a u128/i128 whose low 64 bits are \a low, high 64 bits \a high. */
std::array<uint8_t, 16> wide(uint64_t high, uint64_t low)
{
    std::array<uint8_t, 16> out{};
    for (int k = 0; k < 8; ++k) {
        out[size_t(k)] = static_cast<uint8_t>(high >> (56 - 8 * k));
        out[size_t(8 + k)] = static_cast<uint8_t>(low >> (56 - 8 * k));
    }
    return out;
}

} // namespace

class TestBincodeTwin : public QObject {
    Q_OBJECT

private slots:
    /**
     * A Vec of an enum whose twin shows B, A, B: the bytes give B index 3 and A index 1 (declared
     * after variants the record never uses). Read at the twin's positions, re-encoded identically,
     * and the settled layout says the indices.
     */
    void enumIndicesComeFromTheBytes()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginArray();
            variant(b, "B", 7);
            variant(b, "A", 300);
            variant(b, "B", 9);
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        const auto bytes = envelopeBytes(hexBytes("03 03 07 01 fb2c01 03 09"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        const Tape& t = r->tape;
        const uint32_t item = *t.find(0, "item");
        QCOMPARE(t.nodes[item].count, uint64_t(3));
        QVERIFY(t.find(*t.element(item, 0), "B") && t.find(*t.element(item, 1), "A") && t.find(*t.element(item, 2), "B"));
        QCOMPARE(t.u64(*t.find(*t.element(item, 1), "A")), uint64_t(300));
        QCOMPARE(encode(r->tape, r->resolved), bytes);
        const std::string json = r->resolved.toJson();
        QVERIFY2(json.find("\"indices\":[1,3]") != std::string::npos, json.c_str());
        // The settled layout read back from its JSON decodes the same bytes without the twin.
        auto again = BincodeSchema::fromJson(json);
        QVERIFY2(again, again ? "" : again.error().message().c_str());
        auto r2 = readBincode(makeBytes(bytes), *again);
        QVERIFY2(r2, r2 ? "" : r2.error().message().c_str());
        QCOMPARE(encode(r2->tape, *again), bytes);
    }

    /** One index for two variants: not this twin's record, and the path says where. */
    void enumIndicesMustAgree()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginArray();
            variant(b, "B", 7);
            variant(b, "A", 8);
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        auto sameIndex = readBincode(makeBytes(envelopeBytes(hexBytes("02 03 07 03 08"))), derived->schema);
        QVERIFY(!sameIndex);
        QVERIFY2(sameIndex.error().what.find("twin") != std::string::npos, sameIndex.error().message().c_str());
    }

    /** Unit variants are a name in the twin and an index alone in bincode; a String of that name stays a String. */
    void unitVariantOrString()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginMap();
            b.key("phase");
            b.str("Cooldown");
            b.key("note");
            b.str("Warmup");
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        // {phase: Phase::Cooldown = index 2, note: String "Warmup"}
        const auto bytes = envelopeBytes(hexBytes("02 06 5761726d7570"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        const Tape& t = r->tape;
        const uint32_t item = *t.find(0, "item");
        QCOMPARE(t.str(*t.find(item, "phase")), std::string_view("Cooldown"));
        QCOMPARE(t.str(*t.find(item, "note")), std::string_view("Warmup"));
        QCOMPARE(encode(r->tape, r->resolved), bytes);
    }

    /**
     * u128::MAX and i128::MIN beside small ones: the fe marker and 16 little-endian bytes beyond 64
     * bits, zigzag for i128; on the tape the 16 big-endian bytes rmp-serde writes. The twin's values
     * say which field is which type.
     */
    void wideIntegersByTheTwinsValues()
    {
        const std::array<std::pair<const char*, std::array<uint8_t, 16>>, 4> fields{
            {{"tokens", wide(~0ull, ~0ull)}, {"small", wide(0, 5)}, {"offset", wide(0x8000000000000000ull, 0)}, {"delta", wide(~0ull, ~0ull - 2)}}};
        const Tape twin = envelope([&](TapeBuilder& b) {
            b.beginMap();
            for (const auto& [name, value] : fields) {
                b.key(name);
                b.bin(value);
            }
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        const auto bytes = envelopeBytes(hexBytes("fe ffffffffffffffffffffffffffffffff 05 fe ffffffffffffffffffffffffffffffff 05"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        QVERIFY(r->ambiguities.empty());
        const Tape& t = r->tape;
        const uint32_t item = *t.find(0, "item");
        for (const auto& [name, value] : fields) {
            const auto got = t.bin(*t.find(item, name));
            QVERIFY2(std::equal(value.begin(), value.end(), got.begin(), got.end()), name);
        }
        QCOMPARE(encode(r->tape, r->resolved), bytes);
        const std::string json = r->resolved.toJson();
        QVERIFY2(json.find("\"u128\"") != std::string::npos && json.find("\"i128\"") != std::string::npos, json.c_str());
    }

    /**
     * A JSON twin writes a u128/i128 as its digits (a wide integer on the tape beyond 64 bits): the
     * layout is u128/i128 at once, and the JSON tape encodes to the same bincode bytes.
     */
    void wideIntegersFromAJsonTwin()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginMap();
            b.key("tokens");
            b.uinteger128(kUInt128Max);
            b.key("offset");
            b.integer128(kInt128Min);
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY2(derived, derived ? "" : derived.error().message().c_str());
        const auto bytes = envelopeBytes(hexBytes("fe ffffffffffffffffffffffffffffffff fe ffffffffffffffffffffffffffffffff"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        QCOMPARE(encode(twin, r->resolved), bytes);
        const Tape& t = r->tape;
        const auto offset = t.bin(*t.find(*t.find(0, "item"), "offset"));
        QCOMPARE(offset.size(), size_t(16));
        QCOMPARE(offset[0], uint8_t(0x80));
        // A wide value where the layout says u64 or i64 is refused, not cut to its low bits.
        auto narrow = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":{"struct":"BurnRecord","fields":[
            ["metadata",{"struct":"M","fields":[["float","str"],["int","str"],["format","str"],["version","str"],["settings","str"]]}],
            ["item",{"struct":"S","fields":[["tokens","u64"],["offset","i64"]]}],["_b","unit_struct"]]}})");
        QVERIFY2(narrow, narrow ? "" : narrow.error().message().c_str());
        Sink sink;
        auto w = writeBincode(twin, twin.root(), *narrow, sink);
        QVERIFY(!w);
        QVERIFY2(w.error().what.find("340282366920938463463374607431768211455 does not fit in a u64") != std::string::npos, w.error().what.c_str());
    }

    /** A twin of another record: neither reading gives its value, both decode everything: said, not guessed. */
    void wideIntegerTheBytesCannotSettle()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginMap();
            b.key("n");
            b.bin(wide(0, 5));
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        auto r = readBincode(makeBytes(envelopeBytes(hexBytes("0c"))), derived->schema); // u128 12 or i128 6
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->ambiguities.size(), size_t(1));
        QVERIFY2(r->ambiguities[0].find("also decodes the whole record") != std::string::npos, r->ambiguities[0].c_str());
    }

    /** A u128 varint of more than 64 bits where the type is u64 is an error, and truncation inside the 16 bytes too. */
    void wideMarkerOnlyWhereTheTypeIsWide()
    {
        auto s = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":"u64"})");
        QVERIFY(s);
        auto r = readBincode(makeBytes(hexBytes("fe 00000000000000000000000000000001")), *s);
        QVERIFY(!r);
        QVERIFY2(r.error().what.find("u128, not valid here") != std::string::npos, r.error().what.c_str());
        auto w = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":"u128"})");
        QVERIFY(w);
        auto cut = readBincode(makeBytes(hexBytes("fe 0000")), *w);
        QVERIFY(!cut);
        QCOMPARE(cut.error().code, ErrorCode::Truncated);
    }

    /** A char is its UTF-8 bytes alone in bincode; the twin shows a one-character string. */
    void charOrString()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginMap();
            b.key("initial");
            b.str("\xc3\xa9");
            b.key("grade");
            b.str("x");
            b.key("name");
            b.str("y");
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        const auto bytes = envelopeBytes(hexBytes("c3a9 78 01 79"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        const Tape& t = r->tape;
        const uint32_t item = *t.find(0, "item");
        QCOMPARE(t.str(*t.find(item, "initial")), std::string_view("\xc3\xa9"));
        QCOMPARE(t.str(*t.find(item, "grade")), std::string_view("x"));
        QCOMPARE(t.str(*t.find(item, "name")), std::string_view("y"));
        QCOMPARE(encode(r->tape, r->resolved), bytes);
        auto bad = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":"char"})");
        QVERIFY(bad);
        QVERIFY(!readBincode(makeBytes(hexBytes("c3 28")), *bad)); // not one UTF-8 sequence
        QVERIFY(!readBincode(makeBytes(hexBytes("e2 82")), *bad)); // cut inside it
    }

    /** A pair of different modules: a tuple of the two types, not a Vec of the first's. */
    void tupleOfDifferentTypes()
    {
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginArray();
            b.beginMap();
            b.key("weight");
            b.uinteger(1);
            b.end();
            b.beginMap();
            b.key("gamma");
            b.f64(0.5);
            b.end();
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        const auto bytes = envelopeBytes(hexBytes("01 000000000000e03f"));
        auto r = readBincode(makeBytes(bytes), derived->schema);
        QVERIFY2(r, r ? "" : r.error().message().c_str());
        QCOMPARE(r->consumed, uint64_t(bytes.size()));
        QCOMPARE(encode(r->tape, r->resolved), bytes);
    }

    void schemaIndicesJson()
    {
        auto dup = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":{"enum":"E","variants":[["A"],["B"]],"indices":[4,4]}})");
        QVERIFY(!dup);
        QVERIFY2(dup.error().what.find("two variants of index 4") != std::string::npos, dup.error().what.c_str());
        auto bad = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":{"enum":"E","variants":[["A"]],"indices":[1,2]}})");
        QVERIFY(!bad);
        auto ok = BincodeSchema::fromJson(R"({"format":"ckpt-bincode-schema","version":1,"root":{"enum":"E","variants":[["A"],["B"]],"indices":[4,1]}})");
        QVERIFY2(ok, ok ? "" : ok.error().message().c_str());
        auto r = readBincode(makeBytes(hexBytes("01")), *ok);
        QVERIFY(r);
        QCOMPARE(r->tape.str(0), std::string_view("B"));
        auto none = readBincode(makeBytes(hexBytes("00")), *ok);
        QVERIFY(!none);
        // A layout derived from a twin alone does not know its enums' indices, and its JSON says so.
        const Tape twin = envelope([](TapeBuilder& b) {
            b.beginArray();
            variant(b, "B", 7);
            b.end();
        });
        auto derived = schemaFromRecord(twin);
        QVERIFY(derived);
        const std::string json = derived->schema.toJson();
        QVERIFY2(json.find("\"unknown\"") != std::string::npos, json.c_str());
        auto unknown = BincodeSchema::fromJson(json);
        QVERIFY2(unknown, unknown ? "" : unknown.error().message().c_str());
        auto read = readBincode(makeBytes(envelopeBytes(hexBytes("01 00 07"))), *unknown);
        QVERIFY(!read); // never by position: the enum reading fails, and so does the struct's
        QVERIFY2(read.error().message().find("indices") != std::string::npos || read.error().message().find("no reading") != std::string::npos,
            read.error().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestBincodeTwin)
#include "tst_bincodetwin.moc"
