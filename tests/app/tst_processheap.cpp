// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt's huge-page heap (app/cli/processheap.h): the range it advises, where the blocks a checkpoint's
// decode allocates land, and the switch CKPT_HUGE_PAGE_HEAP=0 in the real binary. Read from the
// kernel's own account of the process's mappings (/proc/PID/smaps, "hg": advised for huge pages).
#include "app/cli/processheap.h"

#include <QFile>
#include <QProcess>
#include <QTest>

#include <cstdint>
#include <cstdlib>
#include <sys/syscall.h>

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kHugePageHeap = false; // documented: nothing under AddressSanitizer, whose allocator is not glibc's
#else
constexpr bool kHugePageHeap = true;
#endif

struct Mapping {
    uintptr_t from = 0, to = 0;
    bool hugeAdvised = false;
    qint64 anonHugeKiB = 0;
};

/** Every mapping of process \a pid, from /proc/PID/smaps. */
QList<Mapping> mappingsOf(const QString& pid)
{
    QFile f(QStringLiteral("/proc/%1/smaps").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QList<Mapping> out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const int dash = line.indexOf('-'), space = line.indexOf(' ');
        bool ok1 = false, ok2 = false;
        if (dash > 0 && space > dash) {
            const uintptr_t a = line.left(dash).toULongLong(&ok1, 16), b = line.mid(dash + 1, space - dash - 1).toULongLong(&ok2, 16);
            if (ok1 && ok2) {
                out.append({a, b});
                continue;
            }
        }
        if (out.isEmpty())
            continue;
        if (line.startsWith("VmFlags:"))
            out.last().hugeAdvised = line.split(' ').contains("hg");
        else if (line.startsWith("AnonHugePages:"))
            out.last().anonHugeKiB = line.simplified().split(' ').value(1).toLongLong();
    }
    return out;
}

qsizetype hugeAdvisedCount(const QList<Mapping>& ms)
{
    return std::count_if(ms.begin(), ms.end(), [](const Mapping& m) { return m.hugeAdvised; });
}

} // namespace

class TestProcessHeap : public QObject {
    Q_OBJECT
private slots:
    void advisesTheHeapAndKeepsBlocksInIt()
    {
        QCOMPARE(hugeAdvisedCount(mappingsOf(QStringLiteral("self"))), 0); // nothing of ours before the call
        const bool reserved = ckpt::cli::reserveHugePageHeap();
        QCOMPARE(reserved, kHugePageHeap);
        if (!kHugePageHeap)
            return;
        // A block the size of a large decode tape: it comes from the heap, inside the advised range,
        // not from a mapping of its own (glibc's default for blocks over 128 KiB at start-up).
        constexpr size_t Block = size_t(8) << 20;
        auto* block = static_cast<unsigned char*>(std::malloc(Block));
        QVERIFY(block);
        for (size_t i = 0; i < Block; i += 4096) // first touch: the kernel hands out the pages now
            block[i] = 1;
        // its middle: the heap's first partial 2 MiB before the advised range stays in 4 KiB pages
        const auto at = reinterpret_cast<uintptr_t>(block) + Block / 2;
        const auto ms = mappingsOf(QStringLiteral("self"));
        const auto holder = std::find_if(ms.begin(), ms.end(), [&](const Mapping& m) { return m.from <= at && at < m.to; });
        QVERIFY(holder != ms.end());
        QVERIFY2(holder->hugeAdvised, "the block is not in a range advised for huge pages");
        QVERIFY2(holder->to - holder->from >= (uintptr_t(60) << 20), "less than the 64 MiB reservation was advised");
        // Whether the kernel had huge pages to give is its matter (it falls back to 4 KiB pages): said, not asserted.
        qInfo("huge pages in the advised range after touching 8 MiB: %lld KiB", holder->anonHugeKiB);
        std::free(block);
    }

    void ckptHonoursTheSwitch_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("advised");
        QTest::newRow("unset") << QByteArray() << kHugePageHeap;
        QTest::newRow("1") << QByteArray("1") << kHugePageHeap;
        QTest::newRow("0: the heap as glibc makes it") << QByteArray("0") << false;
    }
    void ckptHonoursTheSwitch()
    {
        QFETCH(QByteArray, value);
        QFETCH(bool, advised);
        // `ckpt info -` reads standard input to its end: held open, the process waits there, its heap set up.
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("CKPT_HUGE_PAGE_HEAP"));
        if (!value.isNull())
            env.insert(QStringLiteral("CKPT_HUGE_PAGE_HEAP"), QString::fromLatin1(value));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt"), {QStringLiteral("info"), QStringLiteral("-")});
        QVERIFY(p.waitForStarted());
        // main() sets the heap up before it reads: wait until the kernel says it is in read(0, ...)
        const QString pid = QString::number(p.processId());
        bool reading = false;
        for (int i = 0; i < 1000 && !reading; ++i) {
            QFile syscall(QStringLiteral("/proc/%1/syscall").arg(pid)); // "NR 0x0 ...": the read syscall's number, on fd 0
            reading = syscall.open(QIODevice::ReadOnly) && syscall.readAll().startsWith(QByteArray(QByteArray::number(SYS_read) + " 0x0 "));
            if (!reading)
                QTest::qWait(10);
        }
        const QList<Mapping> ms = mappingsOf(pid);
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(10000));
        QVERIFY2(reading, "ckpt info - was never seen reading its standard input (/proc/PID/syscall)");
        QVERIFY(!ms.isEmpty());
        QCOMPARE(hugeAdvisedCount(ms) > 0, advised);
    }
};

QTEST_GUILESS_MAIN(TestProcessHeap)
#include "tst_processheap.moc"
