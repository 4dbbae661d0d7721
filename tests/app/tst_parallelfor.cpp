// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The command-line tools' ParallelFor (app/workers/parallelfor.h): its parked workers run every index
// once, and a call it cannot take (nested, concurrent, in a forked child) still runs, on threads of
// its own.
#include "app/workers/parallelfor.h"
#include "tests/ckptskip.h"

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ckpt;

namespace {

/** Runs \a parallel over n indices and says whether each ran exactly once. */
bool everyIndexOnce(const ParallelFor& parallel, size_t n)
{
    std::vector<std::atomic<int>> seen(n);
    parallel(n, [&](size_t i) { seen[i].fetch_add(1); });
    for (const auto& s : seen)
        if (s.load() != 1)
            return false;
    return true;
}

} // namespace

class TestParallelFor : public QObject {
    Q_OBJECT
private slots:
    void everyIndexRunsOnce()
    {
        const ParallelFor parallel = workers::threadedFor();
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(1000)})
            for (int round = 0; round < 50; ++round)
                QVERIFY2(everyIndexOnce(parallel, n), qPrintable(QStringLiteral("n = %1").arg(n)));
    }

    void workersJoinTheCall()
    {
        if (std::thread::hardware_concurrency() < 2)
            CKPT_SKIP(QStringLiteral("one hardware thread: the caller runs every index"));
        // each index waits until two threads are inside the call: only a helper can let it finish
        std::atomic<int> inside{0};
        std::set<std::thread::id> threads;
        std::mutex m;
        workers::threadedFor()(2, [&](size_t) {
            inside.fetch_add(1);
            for (int spin = 0; inside.load() < 2 && spin < 20'000'000; ++spin)
                std::this_thread::yield();
            std::lock_guard lock(m);
            threads.insert(std::this_thread::get_id());
        });
        QCOMPARE(threads.size(), size_t(2));
    }

    void nestedCallRuns()
    {
        const ParallelFor parallel = workers::threadedFor();
        std::atomic<int> inner{0};
        parallel(4, [&](size_t) { parallel(8, [&](size_t) { inner.fetch_add(1); }); });
        QCOMPARE(inner.load(), 32);
    }

    void concurrentCallsRun()
    {
        const ParallelFor parallel = workers::threadedFor();
        std::atomic<bool> ok{true};
        std::vector<std::thread> callers;
        for (int k = 0; k < 4; ++k)
            callers.emplace_back([&] {
                for (int round = 0; round < 100; ++round)
                    if (!everyIndexOnce(parallel, 97))
                        ok = false;
            });
        for (auto& t : callers)
            t.join();
        QVERIFY(ok);
    }

    void forkedChildRuns()
    {
        const ParallelFor parallel = workers::threadedFor();
        QVERIFY(everyIndexOnce(parallel, 64)); // the workers exist, in this process
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            alarm(20); // a child waiting for workers it does not have fails the test instead of hanging it
            _exit(everyIndexOnce(parallel, 64) ? 0 : 1);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }
};

QTEST_GUILESS_MAIN(TestParallelFor)
#include "tst_parallelfor.moc"
