// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/async/executor.h"

#include "ui/async/activity.h"

#include <QCoreApplication>
#include <QThread>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <vector>

#ifdef __linux__
#include <sys/resource.h>
#endif

namespace ckpt::ui {

void markBackgroundThread()
{
#ifdef __linux__
    thread_local bool marked = false;
    // never the GUI thread, which may run a loop's share itself (a loop called from it, as tests do)
    const QCoreApplication* app = QCoreApplication::instance();
    if (!marked && !(app && QThread::currentThread() == app->thread())) {
        // Linux keeps nice values per thread: PRIO_PROCESS with 0 is the calling thread only
        setpriority(PRIO_PROCESS, 0, 10);
        marked = true;
    }
#endif
}

int defaultBackgroundThreadCount()
{
    bool ok = false;
    const int fromEnvironment = qEnvironmentVariableIntValue("CKPT_THREADS", &ok);
    if (ok && fromEnvironment > 0)
        return fromEnvironment;
    return QThread::idealThreadCount() + 1;
}

QThreadPool* backgroundPool()
{
    static QThreadPool* const pool = [] {
        // Owned by the application, whose end waits for the pool's threads. The first use can be on a
        // worker (a diff job's parallel pass), where a parent in the GUI thread cannot be given to a new
        // object ("Cannot create children for a parent that is in a different thread": the pool was
        // then ownerless); created here and pushed to the application's thread, it can take it.
        auto* p = new QThreadPool;
        p->setMaxThreadCount(defaultBackgroundThreadCount());
        if (QCoreApplication* app = QCoreApplication::instance()) {
            p->moveToThread(app->thread());
            p->setParent(app);
        }
        return p;
    }();
    return pool;
}

void setBackgroundThreadCount(int threads)
{
    backgroundPool()->setMaxThreadCount(threads > 0 ? threads : defaultBackgroundThreadCount());
}

namespace {

/**
 * One parallel loop. Shared with its helpers, which may start after the loop has ended (a helper
 * that finds no index left returns without touching \a body, which by then may be gone).
 */
struct Loop {
    size_t n = 0;
    const std::function<void(size_t)>* body = nullptr;
    std::shared_ptr<ActivityBoard::Entry> activity;
    std::atomic<size_t> next{0};
    std::atomic<size_t> finished{0};
    std::mutex mutex;
    std::condition_variable allFinished;
    std::exception_ptr failure; // guarded by mutex; core throws nothing, but a helper must not lose the count

    /** Claims and runs indices until none is left; returns after its last claimed index finished. */
    void work()
    {
        size_t ran = 0;
        for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
            try {
                (*body)(i);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure)
                    failure = std::current_exception();
            }
            ++ran;
            Activity::tickEntry(activity.get());
        }
        if (ran && finished.fetch_add(ran, std::memory_order_acq_rel) + ran == n) {
            // the caller may be between its check and its wait: take the mutex so the wake is not lost
            std::lock_guard lock(mutex);
            allFinished.notify_all();
        }
    }
};

class LoopHelper final : public QRunnable {
public:
    explicit LoopHelper(std::shared_ptr<Loop> loop)
        : m_loop(std::move(loop))
    {
        setAutoDelete(true);
    }
    void run() override
    {
        markBackgroundThread();
        m_loop->work();
    }

private:
    std::shared_ptr<Loop> m_loop;
};

void runLoop(size_t n, const std::function<void(size_t)>& body)
{
    if (n == 0)
        return;
    markBackgroundThread();
    auto loop = std::make_shared<Loop>();
    loop->n = n;
    loop->body = &body;
    loop->activity = Activity::current();
    // Helpers only on threads that are idle now: tryStart never queues, so nothing this loop waits
    // for can be stuck behind other work. A thread that frees up later joins the next loop instead
    // (the statistics run a record as hundreds of short loops, one per cache window).
    QThreadPool* pool = backgroundPool();
    const size_t wanted = std::min<size_t>(n - 1, size_t(std::max(0, pool->maxThreadCount() - 1)));
    for (size_t k = 0; k < wanted; ++k) {
        auto* helper = new LoopHelper(loop);
        if (!pool->tryStart(helper)) {
            delete helper;
            break;
        }
    }
    loop->work();
    std::unique_lock lock(loop->mutex);
    // only indices that running threads have claimed are left: they finish without us
    loop->allFinished.wait(lock, [&] { return loop->finished.load(std::memory_order_acquire) == n; });
    if (loop->failure)
        std::rethrow_exception(loop->failure);
}

} // namespace

ParallelFor poolParallelFor()
{
    return [](size_t n, const std::function<void(size_t)>& body) { runLoop(n, body); };
}

void runTogether(std::initializer_list<std::function<void()>> tasks)
{
    const std::vector<std::function<void()>> list(tasks);
    runLoop(list.size(), [&list](size_t i) {
        if (list[i])
            list[i]();
    });
}

} // namespace ckpt::ui
