// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// CBOR depth and length bombs (issue 44, item 6): core/codec/cbor's Decoder, the burnpack metadata
// it decodes and the CAR header's reader must refuse nesting past their limits and counts and lengths
// the input cannot hold, with the error code and offset they name, and must never allocate what the
// input cannot justify. The allocation probe below replaces the global operator new of this test
// program: it measures the peak of the heap bytes allocated (and not yet freed) while a decoder runs.
#include "core/codec/cbor.h"
#include "core/graph/car.h"
#include "core/io/bytes.h"
#include "core/pack/burnpack.h"
#include "tests/common/cborbuilder.h"
#include "tests/common/cbordecode.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <vector>

using namespace ckpt;

// ---- the allocation probe ----------------------------------------------------------------------
// Each block carries its size and whether it was allocated while probing in a 16-byte header, so
// that what was allocated before the probe and freed during it does not count against the peak.

namespace {

struct Probe {
    bool on = false;
    int64_t live = 0;
    int64_t peak = 0;
    size_t largest = 0;
};
Probe g_probe; // the decoders run on this thread only

constexpr size_t kHeader = 16;

} // namespace

void* operator new(std::size_t n)
{
    auto* base = static_cast<unsigned char*>(std::malloc(n + kHeader));
    if (!base)
        throw std::bad_alloc();
    auto* size = reinterpret_cast<size_t*>(base);
    size[0] = n;
    size[1] = g_probe.on ? 1 : 0;
    if (g_probe.on) {
        g_probe.live += static_cast<int64_t>(n);
        g_probe.peak = std::max(g_probe.peak, g_probe.live);
        g_probe.largest = std::max(g_probe.largest, n);
    }
    return base + kHeader;
}

void operator delete(void* p) noexcept
{
    if (!p)
        return;
    auto* base = static_cast<unsigned char*>(p) - kHeader;
    const auto* size = reinterpret_cast<const size_t*>(base);
    if (g_probe.on && size[1])
        g_probe.live -= static_cast<int64_t>(size[0]);
    std::free(base);
}

void* operator new[](std::size_t n)
{
    return operator new(n);
}
void operator delete[](void* p) noexcept
{
    operator delete(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    operator delete(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
    operator delete(p);
}
// the nothrow forms too (std::stable_sort's buffer): a sanitizer's runtime has its own otherwise
void* operator new(std::size_t n, const std::nothrow_t&) noexcept
{
    try {
        return operator new(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept
{
    return operator new(n, std::nothrow);
}
void operator delete(void* p, const std::nothrow_t&) noexcept
{
    operator delete(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    operator delete(p);
}

namespace {

/** Runs \a f with the probe on; returns the peak of live heap bytes it allocated. */
size_t peakHeapOf(const std::function<void()>& f)
{
    g_probe = Probe{true};
    f();
    g_probe.on = false;
    return static_cast<size_t>(g_probe.peak);
}

// What an input of \a n bytes may cost: the decoded form of every byte several times over (a
// u64 per byte of a shape, a warning per entry), plus the fixed costs of error texts and paths.
size_t justified(size_t n)
{
    return size_t{64} * 1024 + 16 * n;
}

// bombs are spelled with the tests' own encoder (tests/common/cborbuilder.h), not core's writer
using C = testing::CborBuilder;

constexpr uint64_t k2to32 = 1ull << 32;
constexpr uint64_t k2to63 = 1ull << 63;
constexpr size_t kDeep = 100000;
constexpr uint32_t kLimit = 128; // burn-pack's recursion limit

/** A burnpack file: header, then \a meta as its metadata. */
std::vector<uint8_t> burnpack(const C& meta)
{
    const auto m = static_cast<uint32_t>(meta.b.size());
    std::vector<uint8_t> out = {0x4e, 0x52, 0x55, 0x42, 1, 0, static_cast<uint8_t>(m), static_cast<uint8_t>(m >> 8), static_cast<uint8_t>(m >> 16),
        static_cast<uint8_t>(m >> 24)};
    out.insert(out.end(), meta.b.begin(), meta.b.end());
    return out;
}

void appendVarint(std::vector<uint8_t>& out, uint64_t v)
{
    do {
        const auto low = static_cast<uint8_t>(v & 0x7f);
        v >>= 7;
        out.push_back(v ? (low | 0x80) : low);
    } while (v);
}

/** A CAR file: the header map (its length varint first), then \a blocks as whole sections. */
std::vector<uint8_t> car(const C& header, const std::vector<std::vector<uint8_t>>& blocks = {})
{
    std::vector<uint8_t> out;
    appendVarint(out, header.b.size());
    out.insert(out.end(), header.b.begin(), header.b.end());
    for (const auto& section : blocks) {
        appendVarint(out, section.size());
        out.insert(out.end(), section.begin(), section.end());
    }
    return out;
}

/** {"version": 1, "roots": [], "x": \a extra}: a valid CAR header with one more key. */
C carHeaderWith(const C& extra)
{
    return C().map(3).t("version").u(1).t("roots").head(4, 0).t("x").add(extra);
}

enum class Read { Any, String, SeqU64, MapEntries };

/** Reads \a bytes with the decoder as \a how says; the error if it is refused. */
Result<void> decode(const std::vector<uint8_t>& bytes, Read how)
{
    cbor::Decoder d(bytes, 0, "test: ", kLimit);
    switch (how) {
    case Read::Any: return d.deAny("");
    case Read::String: return testing::discardValue(d.deString(""));
    case Read::SeqU64: return testing::discardValue(d.deSeqU64("", std::nullopt));
    case Read::MapEntries: return testing::readTextKeyedMap(d);
    }
    return {};
}

} // namespace

Q_DECLARE_METATYPE(Read)
Q_DECLARE_METATYPE(std::vector<uint8_t>)

class TestCbor : public QObject {
    Q_OBJECT
private slots:
    void decoderDepthBombs_data();
    void decoderDepthBombs();
    void decoderLengthBombs_data();
    void decoderLengthBombs();
    void tagsBeforeATypedValue();
    void burnpackBombs_data();
    void burnpackBombs();
    void burnpackWarningBomb();
    void carBombs_data();
    void carBombs();
    void carBlockHoldingABomb();
};

void TestCbor::decoderDepthBombs_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<qulonglong>("offset");
    // one level per head: the 129th container (or tag) is the one over the limit
    QTest::newRow("arrays") << C().repeat({0x81}, kDeep).u(0).b << qulonglong(kLimit);
    QTest::newRow("indefinite-arrays") << C().repeat({0x9f}, kDeep).b << qulonglong(kLimit);
    QTest::newRow("maps") << C().repeat({0xa1, 0x00}, kDeep).u(0).b << qulonglong(2 * kLimit);
    QTest::newRow("map-keys") << C().repeat({0xa1}, kDeep).u(0).b << qulonglong(kLimit);
    QTest::newRow("tags") << C().repeat({0xc6}, kDeep).u(0).b << qulonglong(kLimit);
    QTest::newRow("tags-and-arrays") << C().repeat({0xd8, 0x2a, 0x81}, kDeep).u(0).b << qulonglong(3 * kLimit / 2);
}

void TestCbor::decoderDepthBombs()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(qulonglong, offset);
    Result<void> r;
    const size_t peak = peakHeapOf([&] { r = decode(bytes, Read::Any); });
    QVERIFY(!r);
    QCOMPARE(r.error().code, ErrorCode::Limit);
    QCOMPARE(*r.error().offset, uint64_t(offset));
    QVERIFY2(r.error().what.find("recursion limit of 128") != std::string::npos, r.error().what.c_str());
    QVERIFY2(peak <= justified(0), qPrintable(QString::number(peak)));
}

void TestCbor::decoderLengthBombs_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<Read>("how");
    auto row = [](const char* name, const C& c, Read how) {
        QTest::newRow(name) << c.b << how;
    };
    const C few = C().u(1).u(2).u(3);
    for (auto [what, n] : {std::pair{"2^32", k2to32}, {"2^63", k2to63}, {"2^64-1", UINT64_MAX}}) {
        const std::string w = what;
        row(("array-" + w).c_str(), C().head8(4, n).add(few), Read::Any);
        row(("map-" + w).c_str(), C().head8(5, n).add(few), Read::Any);
        row(("seq-" + w).c_str(), C().head8(4, n).add(few), Read::SeqU64);
        row(("map-entries-" + w).c_str(), C().head8(5, n).t("k").u(1), Read::MapEntries);
        row(("bytes-" + w).c_str(), C().head8(2, n).add(few), Read::Any);
        row(("text-" + w).c_str(), C().head8(3, n).add(few), Read::String);
        row(("text-chunk-" + w).c_str(), C().raw({0x7f}).t("ab").head8(3, n).add(few), Read::String);
    }
    row("indefinite-array-no-break", C().raw({0x9f}).add(few), Read::Any);
    row("indefinite-map-no-break", C().raw({0xbf}).add(few).u(4), Read::Any);
    row("indefinite-seq-no-break", C().raw({0x9f}).add(few), Read::SeqU64);
    row("indefinite-map-entries-no-break", C().raw({0xbf}).t("k").u(1), Read::MapEntries);
    row("indefinite-bytes-no-break", C().raw({0x5f, 0x41, 0x00}), Read::Any);
    row("indefinite-text-empty-chunks-no-break", C().raw({0x7f}).repeat({0x60}, kDeep), Read::String);
    row("array-of-arrays-2^63", C().head8(4, k2to63).repeat({0x9b, 0x80, 0, 0, 0, 0, 0, 0, 0}, 100), Read::Any);
}

void TestCbor::decoderLengthBombs()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(Read, how);
    Result<void> r;
    const size_t peak = peakHeapOf([&] { r = decode(bytes, how); });
    QVERIFY(!r);
    // ciborium reads item by item and stops where the input does: Io(UnexpectedEof) at its end
    QCOMPARE(r.error().code, ErrorCode::Truncated);
    QCOMPARE(*r.error().offset, uint64_t(bytes.size()));
    QVERIFY2(r.error().what.find("ends inside a CBOR item") != std::string::npos, r.error().what.c_str());
    QVERIFY2(peak <= justified(bytes.size()), qPrintable(QString::number(peak)));
}

void TestCbor::tagsBeforeATypedValue()
{
    // ciborium skips the tags in front of a typed item in a loop that counts no recursion: 100000 of
    // them are read (not refused) and cost neither stack nor heap
    const C c = C().repeat({0xc6}, kDeep).u(7);
    cbor::Decoder d(c.b, 0, "test: ", kLimit);
    Result<uint64_t> v;
    const size_t peak = peakHeapOf([&] { v = d.deU64(""); });
    QVERIFY2(v, v ? "" : v.error().what.c_str());
    QCOMPARE(*v, uint64_t(7));
    QVERIFY2(peak <= justified(0), qPrintable(QString::number(peak)));
}

void TestCbor::burnpackBombs_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const auto trunc = static_cast<int>(ErrorCode::Truncated);
    const auto limit = static_cast<int>(ErrorCode::Limit);
    auto row = [&](const char* name, const C& meta, int code, const char* msg) {
        QTest::newRow(name) << burnpack(meta) << code << QString::fromUtf8(msg);
    };
    const char* eof = "ends inside a CBOR item";
    row("tensors-map-2^63", C().map(1).t("tensors").head8(5, k2to63).t("w"), trunc, eof);
    row("tensors-map-2^32", C().map(1).t("tensors").head8(5, k2to32).t("w"), trunc, eof);
    row("metadata-map-2^63", C().map(2).t("tensors").map(0).t("metadata").head8(5, k2to63).t("k").t("v"), trunc, eof);
    row("scalars-map-2^63", C().map(2).t("tensors").map(0).t("scalars").head8(5, k2to63).t("k"), trunc, eof);
    row("top-map-2^63", C().head8(5, k2to63).t("tensors").map(0), trunc, eof);
    row("descriptor-map-2^63", C().map(1).t("tensors").map(1).t("w").head8(5, k2to63).t("dtype").t("F32"), trunc, eof);
    row("shape-2^63", C().map(1).t("tensors").map(1).t("w").map(3).t("dtype").t("F32").t("shape").head8(4, k2to63).u(1).u(2), trunc, eof);
    row("tensor-name-2^63", C().map(1).t("tensors").map(1).head8(3, k2to63).raw({'w'}), trunc, eof);
    row("metadata-value-2^32", C().map(2).t("tensors").map(0).t("metadata").map(1).t("k").head8(3, k2to32).raw({'v'}), trunc, eof);
    row("unknown-key-bytes-2^63", C().map(2).t("x").head8(2, k2to63).raw({0}), trunc, eof);
    row("tensors-indefinite-no-break", C().map(1).t("tensors").raw({0xbf}), trunc, eof);
    row("unknown-key-arrays-deep", C().map(2).t("x").repeat({0x81}, kDeep).u(0), limit, "RecursionLimitExceeded");
    row("unknown-key-maps-deep", C().map(2).t("x").repeat({0xa1, 0x00}, kDeep).u(0), limit, "RecursionLimitExceeded");
    row("unknown-key-tags-deep", C().map(2).t("x").repeat({0xc6}, kDeep).u(0), limit, "RecursionLimitExceeded");
    row("qfloat-scheme-deep", C().map(1).t("tensors").map(1).t("w").map(1).t("dtype").map(1).t("QFloat").repeat({0xa1, 0x00}, kDeep), limit,
        "RecursionLimitExceeded");
}

void TestCbor::burnpackBombs()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(int, code);
    QFETCH(QString, message);
    const auto in = makeBytes(bytes);
    Result<pack::BurnpackFile> f;
    const size_t peak = peakHeapOf([&] { f = pack::readBurnpack(in); });
    QVERIFY(!f);
    QCOMPARE(static_cast<int>(f.error().code), code);
    QVERIFY(f.error().offset && *f.error().offset <= bytes.size());
    QVERIFY2(f.error().what.find(message.toStdString()) != std::string::npos, f.error().what.c_str());
    QVERIFY2(peak <= justified(bytes.size()), qPrintable(QString::number(peak)));
}

void TestCbor::burnpackWarningBomb()
{
    // Burn accepts a repeated map key (the last one wins) and an unknown field; each is worth a
    // warning, but a warning costs a hundred bytes and its entry two: a bounded list of them
    const size_t n = 200000;
    const C meta = C().map(2 + n).t("tensors").map(0).t("metadata").map(n).repeat({0x60, 0x60}, n).repeat({0x61, 'x', 0x00}, n);
    const auto bytes = burnpack(meta);
    const auto in = makeBytes(bytes);
    Result<pack::BurnpackFile> f;
    const size_t peak = peakHeapOf([&] { f = pack::readBurnpack(in); });
    QVERIFY2(f, f ? "" : f.error().what.c_str());
    QCOMPARE(f->metadata.size(), size_t(1));
    // the decoder's first kMaxWarnings and the one that counts the rest, then the file's own few
    QVERIFY2(f->warnings.size() <= cbor::kMaxWarnings + 8, qPrintable(QString::number(f->warnings.size())));
    QVERIFY(std::any_of(f->warnings.begin(), f->warnings.end(), [](const auto& w) { return w.what.find("more warnings") != std::string::npos; }));
    QVERIFY2(peak <= justified(bytes.size()), qPrintable(QString::number(peak) + QStringLiteral(" bytes for ") + QString::number(bytes.size())));
}

void TestCbor::carBombs_data()
{
    QTest::addColumn<std::vector<uint8_t>>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    auto row = [&](const char* name, const std::vector<uint8_t>& bytes, ErrorCode code, const char* msg) {
        QTest::newRow(name) << bytes << static_cast<int>(code) << QString::fromUtf8(msg);
    };
    const char* count = "exceeds the header (";
    // an unknown key's value is skipped: its count must fit the bytes that are left
    row("skipped-map-2^63", car(carHeaderWith(C().head8(5, k2to63))), ErrorCode::Truncated, count);
    row("skipped-map-2^63+1", car(carHeaderWith(C().head8(5, k2to63 + 1).u(0).u(0).u(0).u(0))), ErrorCode::Truncated, count);
    row("skipped-map-2^64-1", car(carHeaderWith(C().head8(5, UINT64_MAX).u(0))), ErrorCode::Truncated, count);
    row("skipped-array-2^32", car(carHeaderWith(C().head8(4, k2to32).u(0))), ErrorCode::Truncated, count);
    row("skipped-array-2^63", car(carHeaderWith(C().head8(4, k2to63).u(0))), ErrorCode::Truncated, count);
    row("skipped-text-2^63", car(carHeaderWith(C().head8(3, k2to63).u(0))), ErrorCode::Truncated, "runs past the header");
    row("skipped-arrays-deep", car(carHeaderWith(C().repeat({0x81}, kDeep).u(0))), ErrorCode::Limit, "nesting deeper than 16");
    row("skipped-tags-deep", car(carHeaderWith(C().repeat({0xc6}, kDeep).u(0))), ErrorCode::Limit, "nesting deeper than 16");
    row("header-map-2^63", car(C().head8(5, k2to63).t("version").u(1)), ErrorCode::Truncated, "map count 9223372036854775808 exceeds the header");
    row("roots-2^63", car(C().map(2).t("version").u(1).t("roots").head8(4, k2to63).raw({0xd8, 0x2a})), ErrorCode::Truncated, "roots count");
    row("key-2^63", car(C().map(2).head8(3, k2to63).raw({'v'})), ErrorCode::Truncated, "runs past the header");
    row("root-cid-2^63", car(C().map(2).t("version").u(1).t("roots").head(4, 1).raw({0xd8, 0x2a}).head8(2, k2to63).raw({0})), ErrorCode::Truncated,
        "runs past the header");
    row("header-indefinite-map", car(C().raw({0xbf}).t("version").u(1).raw({0xff})), ErrorCode::Unsupported, "indefinite");
}

void TestCbor::carBombs()
{
    QFETCH(std::vector<uint8_t>, bytes);
    QFETCH(int, code);
    QFETCH(QString, message);
    const auto in = makeBytes(bytes);
    Result<CarStore> store;
    const size_t peak = peakHeapOf([&] { store = CarStore::open(in); });
    QVERIFY2(!store, "accepted");
    QCOMPARE(static_cast<int>(store.error().code), code);
    QVERIFY(store.error().offset && *store.error().offset <= bytes.size());
    QVERIFY2(store.error().what.find(message.toStdString()) != std::string::npos, store.error().what.c_str());
    QVERIFY2(peak <= justified(bytes.size()), qPrintable(QString::number(peak)));
}

void TestCbor::carBlockHoldingABomb()
{
    // A block's bytes are never decoded by the store (they are a tensor's payload or a node's
    // DAG-CBOR, read by whoever asks): a block that is a CBOR count bomb is kept as the bytes it is.
    const std::vector<uint8_t> cid = {0x01, 0x71, 0x00, 0x00}; // CIDv1, dag-cbor, identity hash, empty digest
    std::vector<uint8_t> section = cid;
    const C bomb = C().head8(5, UINT64_MAX).head8(4, k2to63).head8(2, k2to63);
    section.insert(section.end(), bomb.b.begin(), bomb.b.end());
    const auto bytes = car(C().map(2).t("version").u(1).t("roots").head(4, 0), {section});
    const auto in = makeBytes(bytes);
    Result<CarStore> store;
    const size_t peak = peakHeapOf([&] { store = CarStore::open(in); });
    QVERIFY2(store, store ? "" : store.error().what.c_str());
    QCOMPARE(store->blocks().size(), size_t(1));
    const auto data = store->data(store->blocks()[0]);
    QVERIFY(std::equal(data.begin(), data.end(), bomb.b.begin(), bomb.b.end()));
    QVERIFY2(peak <= justified(bytes.size()), qPrintable(QString::number(peak)));
}

QTEST_APPLESS_MAIN(TestCbor)
#include "tst_cbor.moc"
