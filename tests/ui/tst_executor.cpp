// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The app's executor (ui/async/executor.h): parallel loops nested inside jobs that fill the whole
// pool complete for every pool size, 1 thread included, and run every index exactly once. Under
// the old design (QtConcurrent::blockingMap from a pool job) the first case hung for good.
#include "ui/async/activity.h"
#include "ui/async/executor.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace ckpt;
using namespace ckpt::ui;

class TestExecutor : public QObject {
    Q_OBJECT

    /** Waits for every future, failing (instead of hanging the suite) when they do not finish in time. */
    static bool finishAll(std::vector<QFuture<void>>& futures, int limitMs)
    {
        QElapsedTimer clock;
        clock.start();
        for (auto& f : futures)
            while (!f.isFinished()) {
                if (clock.elapsed() > limitMs)
                    return false;
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        return true;
    }

private Q_SLOTS:
    void cleanup() { setBackgroundThreadCount(0); }

    void nestedLoopsInJobsThatFillThePool_data()
    {
        QTest::addColumn<int>("threads");
        for (int t : {1, 2, 3, 8})
            QTest::addRow("%d threads", t) << t;
    }

    // Three times as many jobs as threads, each a loop whose every index runs a loop of its own and
    // a runTogether: all pool threads end up inside loops at once, with more jobs queued behind them.
    void nestedLoopsInJobsThatFillThePool()
    {
        QFETCH(int, threads);
        setBackgroundThreadCount(threads);
        const int jobs = 3 * threads;
        constexpr size_t Outer = 24, Inner = 16;
        std::vector<std::atomic<int>> hits(size_t(jobs) * Outer * (Inner + 2));
        std::vector<QFuture<void>> futures;
        for (int j = 0; j < jobs; ++j)
            futures.push_back(runInBackground([&hits, j] {
                const ParallelFor parallel = poolParallelFor();
                parallel(Outer, [&](size_t o) {
                    const size_t base = (size_t(j) * Outer + o) * (Inner + 2);
                    parallel(Inner, [&](size_t i) {
                        std::this_thread::sleep_for(std::chrono::microseconds(200)); // long enough to overlap
                        hits[base + i].fetch_add(1);
                    });
                    runTogether({[&] { hits[base + Inner].fetch_add(1); }, [&] { hits[base + Inner + 1].fetch_add(1); }});
                });
            }));
        QVERIFY2(finishAll(futures, 60000), "nested loops did not finish: a thread waits for work queued behind it");
        for (size_t k = 0; k < hits.size(); ++k)
            QVERIFY2(hits[k].load() == 1, qPrintable(QStringLiteral("index %1 ran %2 times").arg(k).arg(hits[k].load())));
    }

    // A loop called from a thread outside the pool (the GUI thread in tests) completes too, with
    // helpers from the pool when they are free.
    void loopFromOutsideThePool()
    {
        setBackgroundThreadCount(2);
        std::vector<std::atomic<int>> hits(1000);
        poolParallelFor()(hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
        for (const auto& h : hits)
            QCOMPARE(h.load(), 1);
        poolParallelFor()(0, [](size_t) { QFAIL("an empty loop ran its body"); });
    }

    // Every finished index is progress of the caller's activity (the watchdog's view of a long loop).
    void loopsTickTheCallersActivity()
    {
        setBackgroundThreadCount(4);
        const Activity activity(QStringLiteral("a loop"));
        const auto entry = Activity::current();
        QVERIFY(entry);
        const uint64_t before = entry->ticks.load();
        poolParallelFor()(100, [](size_t) {});
        QCOMPARE(entry->ticks.load() - before, uint64_t(100));
    }
};

QTEST_GUILESS_MAIN(TestExecutor)
#include "tst_executor.moc"
