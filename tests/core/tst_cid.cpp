// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// SHA-256, CIDs and CAR block stores (spec format-ipfrs-gradient-checkpoint.md §3).
#include "core/graph/car.h"
#include "core/graph/cid.h"
#include "core/graph/sha256.h"

#include <QTest>

#include <openssl/evp.h>

#include <cstdlib>
#include <cstring>

using namespace ckpt;

namespace {

std::vector<uint8_t> f32Bytes(std::initializer_list<float> values)
{
    std::vector<uint8_t> out(values.size() * 4);
    size_t i = 0;
    for (float v : values) {
        std::memcpy(out.data() + i, &v, 4);
        i += 4;
    }
    return out;
}

std::span<const uint8_t> text(const char* s) { return {reinterpret_cast<const uint8_t*>(s), std::strlen(s)}; }

} // namespace

class TestCid : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // tst_cid_portable_fallback (tests/core/CMakeLists.txt): libcrypto must offer no SHA2-256 here,
        // so that the vectors below go through core's portable fallback.
        if (std::getenv("CKPT_EXPECT_NO_LIBCRYPTO_SHA256")) {
            EVP_MD* md = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
            const bool offered = md != nullptr;
            EVP_MD_free(md);
            QVERIFY2(!offered, "OPENSSL_CONF did not take SHA2-256 away: the fallback is not what this run tests");
        }
    }

    void sha256Vectors_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("digest");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        QTest::newRow("abc") << QByteArray("abc") << QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                                  << QStringLiteral("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        QTest::newRow("896 bits") << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                                  << QStringLiteral("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
        QTest::newRow("million a") << QByteArray(1000000, 'a') << QStringLiteral("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        QTest::newRow("55 bytes") << QByteArray(55, 'x') << QString();
        QTest::newRow("56 bytes") << QByteArray(56, 'x') << QString();
        QTest::newRow("64 bytes") << QByteArray(64, 'x') << QString();
    }
    void sha256Vectors()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, digest);
        const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(input.constData()), size_t(input.size()));
        const auto oneShot = toHex(sha256(in));
        if (!digest.isEmpty())
            QCOMPARE(QString::fromStdString(oneShot), digest);
        // Incremental updates in odd pieces must agree with the one-shot hash (block-boundary handling).
        Sha256 h;
        for (size_t pos = 0; pos < in.size();) {
            const size_t n = std::min<size_t>(in.size() - pos, 1 + pos % 67);
            h.update(in.subspan(pos, n));
            pos += n;
        }
        QCOMPARE(toHex(h.finish()), oneShot);
        // The portable code that hashes when libcrypto refuses (core/graph/sha256.cpp) gives the same
        // digests, one-shot and in the same odd pieces.
        QCOMPARE(toHex(detail::portableSha256(in)), oneShot);
        detail::PortableSha256 p;
        for (size_t pos = 0; pos < in.size();) {
            const size_t n = std::min<size_t>(in.size() - pos, 1 + pos % 67);
            p.update(in.subspan(pos, n));
            pos += n;
        }
        QCOMPARE(toHex(p.finish()), oneShot);
        // A moved Sha256 goes on with its state.
        Sha256 first;
        first.update(in.first(in.size() / 2));
        Sha256 moved(std::move(first));
        moved.update(in.subspan(in.size() / 2));
        QCOMPARE(toHex(moved.finish()), oneShot);
    }

    void specCids_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<quint64>("codec");
        QTest::addColumn<QString>("cid");
        auto b = [](std::vector<uint8_t> v) { return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size())); };
        QTest::newRow("empty raw") << QByteArray() << quint64(0x55) << QStringLiteral("bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku");
        QTest::newRow("x") << b(f32Bytes({1.0f, -2.0f})) << quint64(0x55) << QStringLiteral("bafkreihojldtyk6so5lkxatyb4t4oot3ytj7bo3kzm36acf4e7wm27syrm");
        QTest::newRow("W") << b(f32Bytes({0.5f, 1.0f, -0.25f, 0.75f})) << quint64(0x55) << QStringLiteral("bafkreib2cj24pbqff2yazy74ctemn3hhmhc2szu6fvrorxjklqfs3ameda");
        QTest::newRow("y") << b(f32Bytes({1.0f, -0.5f})) << quint64(0x55) << QStringLiteral("bafkreihf4dhdt6wittmtv5n2rpfnf7rv3cghkql4pzcjih7f5zher4opou");
        QTest::newRow("relu") << b(f32Bytes({1.0f, 0.0f})) << quint64(0x55) << QStringLiteral("bafkreicdjmtaikx7h64ejjgey27a3anapgym5bgpxamqm6iciqcolxciei");
        QTest::newRow("loss") << b(f32Bytes({1.0f})) << quint64(0x55) << QStringLiteral("bafkreihabzplsrcbqlzvemrtotxu4chlzn4eojp52t6wcllxgbkawpqmrq");
        QTest::newRow("dL/dr") << b(f32Bytes({2.0f, 0.0f})) << quint64(0x55) << QStringLiteral("bafkreib6tegulsb7uaozx4ggjn4625ty346henqu6d36ztod2glpumdt5e");
        QTest::newRow("dL/dW dag-cbor") << b(f32Bytes({2.0f, 0.0f, -4.0f, 0.0f})) << quint64(0x71) << QStringLiteral("bafyreictoepr7ufd5aer5flw2lcnwoxxpqtuwgxelpfnxsqkzdzngd6owe");
    }
    void specCids()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(quint64, codec);
        QFETCH(QString, cid);
        const std::span<const uint8_t> in(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size()));
        const Cid computed = computeCid(in, codec);
        QCOMPARE(QString::fromStdString(computed.toString()), cid);
        QCOMPARE(computed.bytes.size(), size_t(36));
        auto parsed = parseCid(cid.toStdString());
        QVERIFY2(parsed.has_value(), parsed ? "" : parsed.error().what.c_str());
        QCOMPARE(parsed->codec, codec);
        QCOMPARE(parsed->hashCode, uint64_t(0x12));
        QVERIFY(*parsed == computed);
        QVERIFY(parsed->matches(in));
        // One flipped byte no longer matches.
        std::vector<uint8_t> changed(in.begin(), in.end());
        changed.push_back(0);
        QVERIFY(!parsed->matches(changed));
    }

    void otherSpellings()
    {
        const Cid c = computeCid(f32Bytes({1.0f, -2.0f}));
        // base32 upper, base58btc and base16 spellings of the same CIDv1 parse to the same bytes.
        std::string upper = c.toString();
        for (auto& ch : upper)
            ch = char(std::toupper(static_cast<unsigned char>(ch)));
        auto u = parseCid(upper);
        QVERIFY(u.has_value());
        QVERIFY(*u == c);
        auto z = parseCid("z" + base58btc(c.bytes));
        QVERIFY(z.has_value());
        QVERIFY(*z == c);
        auto f = parseCid("f" + toHex(c.bytes));
        QVERIFY(f.has_value());
        QVERIFY(*f == c);
        // CIDv0: base58btc of the bare multihash.
        std::vector<uint8_t> mh{0x12, 0x20};
        const auto d = sha256(text("hello"));
        mh.insert(mh.end(), d.begin(), d.end());
        const std::string v0 = base58btc(mh);
        QCOMPARE(v0.size(), size_t(46));
        QVERIFY(v0.starts_with("Qm"));
        auto p = parseCid(v0);
        QVERIFY(p.has_value());
        QCOMPARE(p->version, uint64_t(0));
        QCOMPARE(p->codec, uint64_t(0x70));
        QCOMPARE(p->toString(), v0);
        QVERIFY(p->matches(text("hello")));
    }

    void notCids_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("crate test label") << QStringLiteral("cid_a");
        QTest::newRow("loss label") << QStringLiteral("cid_loss_xyz");
        QTest::newRow("Qm1") << QStringLiteral("Qm1");
        QTest::newRow("empty") << QString();
        QTest::newRow("bad base32 char") << QStringLiteral("bafkreihojldtyk6so5lkxatyb4t4oot3ytj7bo3kzm36acf4e7wm27syr1");
        QTest::newRow("truncated") << QStringLiteral("bafkreihojldtyk6so5lkxatyb4t4oot3ytj7bo3kzm36acf4e7wm27s");
        QTest::newRow("trailing bytes") << QStringLiteral("bafkreihojldtyk6so5lkxatyb4t4oot3ytj7bo3kzm36acf4e7wm27syrmaa");
        QTest::newRow("version 2") << QStringLiteral("bai");
    }
    void notCids()
    {
        QFETCH(QString, text);
        const auto r = parseCid(text.toStdString());
        QVERIFY(!r.has_value());
        QVERIFY(r.error().what.starts_with("not a CID"));
        const auto c = classifyCid(text.toStdString());
        QCOMPARE(c.kind, CidClass::Opaque);
        QVERIFY(!c.cid);
    }

    void classify()
    {
        QCOMPARE(classifyCid("grad-0123456789abcdef").kind, CidClass::GarwPseudo);
        QCOMPARE(classifyCid("grad-0123456789abcdeg").kind, CidClass::Opaque);
        const auto c = classifyCid("bafyreictoepr7ufd5aer5flw2lcnwoxxpqtuwgxelpfnxsqkzdzngd6owe");
        QCOMPARE(c.kind, CidClass::V1);
        QCOMPARE(c.note, std::string("dag-cbor/sha2-256"));
    }

    void varints()
    {
        for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 300ull, 0x0129ull, 16384ull, (1ull << 63) - 1}) {
            std::vector<uint8_t> b;
            appendVarint(b, v);
            size_t pos = 0;
            auto r = readVarint(b, pos);
            QVERIFY(r.has_value());
            QCOMPARE(*r, v);
            QCOMPARE(pos, b.size());
        }
        const std::vector<uint8_t> unterminated{0x80, 0x80};
        size_t pos = 0;
        auto r = readVarint(unterminated, pos, 10);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Truncated);
        QCOMPARE(*r.error().offset, uint64_t(10));
        const std::vector<uint8_t> tooLong(10, 0xff);
        pos = 0;
        QVERIFY(!readVarint(tooLong, pos));
    }

    void carRoundTrip_data()
    {
        QTest::addColumn<bool>("ipfrsStyle");
        QTest::newRow("spec header") << false;
        QTest::newRow("ipfrs header") << true;
    }
    void carRoundTrip()
    {
        QFETCH(bool, ipfrsStyle);
        std::vector<CarEntry> blocks;
        for (auto values : {std::vector<float>{1.0f, -2.0f}, {1.0f}, {2.0f, 0.0f, -4.0f, 0.0f}}) {
            std::vector<uint8_t> bytes(values.size() * 4);
            std::memcpy(bytes.data(), values.data(), bytes.size());
            blocks.push_back(CarEntry{computeCid(bytes), bytes});
        }
        blocks.push_back(CarEntry{computeCid({}, multicodec::DagCbor), {}});
        const std::vector<Cid> roots{blocks[1].cid};
        auto car = writeCar(roots, blocks, ipfrsStyle ? CarHeaderStyle::Ipfrs : CarHeaderStyle::Spec);
        const BytesPtr carBytes = makeBytes(car);
        auto store = CarStore::open(carBytes);
        QVERIFY2(store.has_value(), store ? "" : store.error().message().c_str());
        QCOMPARE(store->header().version, uint64_t(1));
        QCOMPARE(store->header().roots.size(), size_t(1));
        QVERIFY(store->header().roots[0] == blocks[1].cid);
        QCOMPARE(store->header().rootsWithZeroPrefix, !ipfrsStyle);
        QCOMPARE(store->header().versionKeyFirst, ipfrsStyle);
        QCOMPARE(store->blocks().size(), blocks.size());
        for (size_t i = 0; i < blocks.size(); ++i) {
            QVERIFY(store->blocks()[i].cid == blocks[i].cid);
            QCOMPARE(store->blocks()[i].dataSize, blocks[i].data.size());
            QCOMPARE(store->verify(i), BlockCheck::Ok);
            auto data = store->resolve(blocks[i].cid.toString());
            QVERIFY(data.has_value());
            QVERIFY(std::equal(data->begin(), data->end(), blocks[i].data.begin(), blocks[i].data.end()));
            // Zero copy: the span points into the CAR bytes.
            if (!data->empty())
                QVERIFY(data->data() >= carBytes->data() && data->data() + data->size() <= carBytes->data() + carBytes->size());
        }
        QVERIFY(!store->resolve("cid_a").has_value());
        QVERIFY(store->resolve("cid_a").error().what.find("not a CID") != std::string::npos);
        const Cid absent = computeCid(text("absent"));
        QVERIFY(store->resolve(absent.toString()).error().what.find("not in the CAR") != std::string::npos);

        // Corrupt one data byte of block 0: its section is still well-formed, the hash check fails.
        auto corrupted = car;
        corrupted[store->blocks()[0].dataOffset] ^= 0x01;
        auto bad = CarStore::open(makeBytes(corrupted));
        QVERIFY(bad.has_value());
        QCOMPARE(bad->verify(0), BlockCheck::Corrupted);
        QCOMPARE(bad->verify(1), BlockCheck::Ok);
    }

    void carRejects()
    {
        std::vector<CarEntry> blocks{{computeCid(text("abc")), {'a', 'b', 'c'}}};
        const auto car = writeCar({blocks[0].cid}, blocks);
        // Every truncation is an error with an offset inside the file, never a crash.
        for (size_t n = 0; n < car.size(); ++n) {
            std::vector<uint8_t> cut(car.begin(), car.begin() + n);
            auto r = CarStore::open(makeBytes(cut));
            if (r.has_value()) {
                // Cutting exactly between sections leaves a valid CAR with fewer blocks.
                QVERIFY(r->blocks().size() < blocks.size());
                continue;
            }
            QVERIFY(r.error().offset.has_value());
            QVERIFY(*r.error().offset <= n);
        }
        // A section length far beyond the file is rejected before anything is allocated.
        auto huge = car;
        std::vector<uint8_t> header(car.begin(), car.begin() + 1 + car[0]);
        header.push_back(0xff);
        header.push_back(0xff);
        header.push_back(0xff);
        header.push_back(0x7f);
        auto r = CarStore::open(makeBytes(header));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Truncated);
        // Not CBOR map / wrong version.
        std::vector<uint8_t> notMap{0x01, 0x80};
        QVERIFY(!CarStore::open(makeBytes(notMap)));
        std::vector<uint8_t> v2{0x0a, 0xa1, 0x67, 'v', 'e', 'r', 's', 'i', 'o', 'n', 0x02};
        auto rv = CarStore::open(makeBytes(v2));
        QVERIFY(!rv);
        QVERIFY(rv.error().what.find("CARv1") != std::string::npos);
        // Duplicate blocks are counted, the first one is kept.
        auto twice = writeCar({}, {blocks[0], blocks[0]});
        auto d = CarStore::open(makeBytes(twice));
        QVERIFY(d.has_value());
        QCOMPARE(d->duplicateBlocks(), size_t(1));
        QCOMPARE(*d->find(blocks[0].cid), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestCid)
#include "tst_cid.moc"
