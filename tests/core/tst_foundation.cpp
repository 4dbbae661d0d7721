// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The shared plumbing: tape building and paths, dtype conversion, gzip, atomic writes.
#include "core/io/bytes.h"
#include "core/io/gzip.h"
#include "core/tensor/dtype.h"
#include "core/value/tape.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <csignal>
#include <cstring>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <cmath>
#include <fstream>

using namespace ckpt;

class TestFoundation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tapeBuildAndFind()
    {
        TapeBuilder b;
        b.beginMap();
        b.key("a");
        b.uinteger(7);
        b.key("weird.key");
        b.beginArray();
        b.integer(-1);
        b.str("x");
        b.end();
        b.end();
        Tape t = std::move(b).finish();
        QCOMPARE(t[0].count, 2u);
        auto a = t.find(0, "a");
        QVERIFY(a);
        QCOMPARE(t.u64(*a), 7u);
        auto steps = parsePath(R"(["weird.key"][1])");
        QVERIFY(steps);
        auto n = resolvePath(t, *steps);
        QVERIFY(n);
        QCOMPARE(t.str(*n), std::string_view("x"));
        QCOMPARE(appendKeyToPath("item", "weird.key"), std::string(R"(item["weird.key"])"));
        auto missing = resolvePath(t, *parsePath("nope"));
        QVERIFY(!missing);
        QVERIFY(missing.error().what.find("'nope' does not exist") != std::string::npos);
    }

    void halfConversionIsExactBothWays()
    {
        // Every finite half widens exactly and narrows back to itself.
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const float f = halfToFloat(static_cast<uint16_t>(h));
            if (std::isnan(f))
                continue;
            QCOMPARE(floatToHalf(f), static_cast<uint16_t>(h));
            QCOMPARE(doubleToHalf(static_cast<double>(f)), static_cast<uint16_t>(h));
        }
        QCOMPARE(floatToHalf(1.0f), uint16_t(0x3c00));
        QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7c00)); // rounds to infinity
        QCOMPARE(floatToHalf(1.0f + 1.0f / 2048), uint16_t(0x3c00)); // tie -> even
        QCOMPARE(bf16ToFloat(floatToBf16(1.5f)), 1.5f);
    }

    void dtypeTables()
    {
        QCOMPARE(dtypeFromIndex(dtypeTableForVersion("0.16.1"), 11), std::optional<DType>(DType::U8));
        QCOMPARE(dtypeFromIndex(dtypeTableForVersion("0.20.0-pre.6"), 3), std::optional<DType>(DType::F16));
        QCOMPARE(dtypeFromIndex(dtypeTableForVersion("0.14.0"), 11), std::optional<DType>(DType::Bool));
        QCOMPARE(dtypeTableForVersion("0.21.44"), DTypeTable::Burn021);
    }

    void gzipRoundTripAndBomb()
    {
        std::vector<uint8_t> payload(100000);
        for (size_t i = 0; i < payload.size(); ++i)
            payload[i] = static_cast<uint8_t>(i * 7 % 251);
        auto gz = gzip(payload);
        QVERIFY(gz);
        QCOMPARE((*gz)[9], uint8_t(0xff)); // OS byte as flate2 writes it
        auto back = gunzip(*gz);
        QVERIFY(back);
        QVERIFY(std::equal(payload.begin(), payload.end(), (*back)->data()));

        // A bomb: 64 MiB of zeros, and a limit of 1 MiB.
        std::vector<uint8_t> zeros(64 << 20);
        auto bomb = gzip(zeros);
        QVERIFY(bomb);
        InflateLimits lim;
        lim.maxOutputBytes = 1 << 20;
        auto r = gunzip(*bomb, lim);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Limit);

        // Truncation is reported, not crashed on.
        auto cut = std::span<const uint8_t>(*gz).first(gz->size() / 2);
        auto t = gunzip(cut);
        QVERIFY(!t);
        QVERIFY(t.error().offset.has_value());
    }

    // A record rewritten by its training run while we read it: the pages past the new end would raise
    // SIGBUS. Guarded, they read as zeros, the mapping says so, and a mapping left whole says nothing.
    void fileTruncatedWhileMappedReadsZeros()
    {
        QVERIFY(guardMappedFiles());
        QTemporaryDir dir;
        const long page = ::sysconf(_SC_PAGESIZE);
        const std::string cutPath = dir.filePath(QStringLiteral("cut.bin")).toStdString();
        const std::string wholePath = dir.filePath(QStringLiteral("whole.bin")).toStdString();
        const std::vector<uint8_t> content(size_t(page) * 8, 0xab);
        QVERIFY(writeFileAtomic(cutPath, content));
        QVERIFY(writeFileAtomic(wholePath, content));
        auto cut = mapFile(cutPath);
        auto whole = mapFile(wholePath);
        QVERIFY(cut && whole);
        const uint8_t* bytes = (*cut)->data();
        QCOMPARE(bytes[0], uint8_t(0xab)); // a page of the file is resident before the cut
        const size_t kept = size_t(page) + 10;
        QCOMPARE(::truncate(cutPath.c_str(), off_t(kept)), 0);

        // Read as a statistics thread would, from another thread: the handler runs in the reader.
        std::vector<uint8_t> seen((*cut)->size());
        std::thread reader([&] { std::memcpy(seen.data(), bytes, seen.size()); });
        reader.join();
        QVERIFY((*cut)->truncatedWhileMapped());
        QVERIFY(std::all_of(seen.begin(), seen.begin() + long(kept), [](uint8_t b) { return b == 0xab; }));
        QVERIFY(std::all_of(seen.begin() + long(kept), seen.end(), [](uint8_t b) { return b == 0; }));
        QCOMPARE((*cut)->size(), content.size()); // the span keeps its length: every index stays in bounds

        const auto* w = (*whole)->data();
        QVERIFY(std::all_of(w, w + (*whole)->size(), [](uint8_t b) { return b == 0xab; }));
        QVERIFY(!(*whole)->truncatedWhileMapped());

        // Unmapping and mapping again reuses the guard's slot, clean.
        cut->reset();
        auto again = mapFile(cutPath);
        QVERIFY(again);
        QCOMPARE((*again)->size(), kept);
        QVERIFY(!(*again)->truncatedWhileMapped());
    }

    // The guard repairs only its own mappings: any other SIGBUS still ends the process.
    void foreignBusErrorStillKills()
    {
        QVERIFY(guardMappedFiles());
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            ::raise(SIGBUS);
            ::_exit(0); // reached only if the signal was swallowed
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY2(WIFSIGNALED(status), "a SIGBUS outside our mappings was swallowed");
    }

    void atomicWriteKeepsOriginalOnFailure()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("f.bin")).toStdString();
        const std::string orig = "original";
        QVERIFY(writeFileAtomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(orig.data()), orig.size())));
        auto r = writeFileAtomic(path, [](const auto& sink) -> Result<void> {
            std::string part = "partial";
            if (auto s = sink(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(part.data()), part.size())); !s)
                return s;
            return fail(ErrorCode::Invalid, "encoder failed half way");
        });
        QVERIFY(!r);
        auto m = mapFile(path);
        QVERIFY(m);
        QCOMPARE(std::string(reinterpret_cast<const char*>((*m)->data()), (*m)->size()), orig);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temp file left
    }

    void largeMappingIsReleasedWhole()
    {
        // Over 64 MiB the mapping's pages are dropped a chunk at a time before munmap (bytes.cpp):
        // the bytes read back as written, and once the last holder lets go nothing of it stays mapped.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sparse.bin"));
        const qint64 size = (qint64(64) << 20) * 2 + 12345; // two whole chunks and a tail
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(size)); // sparse: no disk blocks for the zeros
            QVERIFY(f.seek(size - 4));
            QCOMPARE(f.write("tail", 4), qint64(4));
        }
        const auto mapped = [] {
            QFile maps(QStringLiteral("/proc/self/maps"));
            return maps.open(QIODevice::ReadOnly) ? QString::fromUtf8(maps.readAll()).count(QStringLiteral("sparse.bin")) : -1;
        };
        {
            auto m = mapFile(path.toStdString());
            QVERIFY(m);
            QCOMPARE(qint64((*m)->size()), size);
            uint64_t sum = 0;
            for (size_t i = 0; i < (*m)->size(); i += 4096)
                sum += (*m)->data()[i]; // every page resident, as after a statistics pass
            QCOMPARE(sum, uint64_t(0));
            QCOMPARE(std::string(reinterpret_cast<const char*>((*m)->data()) + size - 4, 4), std::string("tail"));
#ifdef __linux__
            QCOMPARE(mapped(), 1);
#endif
        }
#ifdef __linux__
        QCOMPARE(mapped(), 0);
#endif
    }
};

QTEST_GUILESS_MAIN(TestFoundation)
#include "tst_foundation.moc"
