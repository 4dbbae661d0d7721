// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The worker pool of the programs that link only core — `ckpt`, the Python module and the bench
// driver — kept out of core (which starts no threads of its own), beside the programs under app/.

#include "core/tensor/stats.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace ckpt::workers {

/**
 * Workers for the command-line tools, started once and parked between calls. The statistics run
 * a record in windows of a few MiB (one call each, so that a window's second sweep reads from cache),
 * hundreds of calls per GiB: starting threads per call would cost more than the work, and each
 * thread's stack mmap takes the address-space lock for writing, which stalls the page faults of the
 * first read of a mapped record.
 */
class WorkerPool {
public:
    explicit WorkerPool(unsigned helpers)
    {
        for (unsigned k = 0; k < helpers; ++k)
            threads_.emplace_back([this] { serve(); });
    }
    ~WorkerPool()
    {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
    }
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /**
     * Runs body(i) for i in [0, n) on the caller and at most \a helpers parked workers; false (and
     * nothing run) when the pool is busy with another call, nested or from another thread, or when
     * called in a forked child.
     */
    bool tryRun(size_t n, unsigned helpers, const std::function<void(size_t)>& body)
    {
        std::unique_lock busy(busy_, std::try_to_lock);
        if (!busy)
            return false;
        if (getpid() != owner_)
            return false; // a forked child: the workers stayed in the parent
        std::atomic<size_t> next{0};
        const std::function<void()> work = [&] {
            for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;)
                body(i);
        };
        const unsigned joined = unsigned(std::min<size_t>({helpers, threads_.size(), n > 0 ? n - 1 : 0}));
        {
            std::lock_guard lock(mutex_);
            job_ = &work;
            seats_ = joined;
            running_ = joined;
            ++generation_;
        }
        if (joined)
            wake_.notify_all();
        work();
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return running_ == 0; });
        job_ = nullptr;
        return true;
    }

private:
    void serve()
    {
        uint64_t seen = 0;
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && seats_ > 0); });
            if (stopping_)
                return;
            seen = generation_;
            --seats_;
            const auto* job = job_;
            lock.unlock();
            (*job)();
            lock.lock();
            if (--running_ == 0)
                done_.notify_one();
        }
    }

    const pid_t owner_ = getpid();
    std::mutex busy_;   ///< held for the length of one call
    std::mutex mutex_;  ///< guards the fields below
    std::condition_variable wake_, done_;
    const std::function<void()>* job_ = nullptr;
    unsigned seats_ = 0;    ///< workers still to join the current call
    unsigned running_ = 0;  ///< workers that joined and have not finished
    uint64_t generation_ = 0;
    bool stopping_ = false;
    std::vector<std::jthread> threads_; ///< last: joined before the fields they use are destroyed
};

/**
 * The thread count the environment asks for: CKPT_THREADS as a whole positive number (as the app
 * reads it, ui/async/executor.cpp), else 0. Lets a benchmark compare one thread with one thread.
 */
inline unsigned threadsFromEnvironment()
{
    const char* text = std::getenv("CKPT_THREADS");
    unsigned n = 0;
    if (!text || !*text)
        return 0;
    const auto r = std::from_chars(text, text + std::strlen(text), n);
    return r.ec == std::errc() && *r.ptr == '\0' && n <= 1024 ? n : 0;
}

/**
 * A ParallelFor for the command-line tools: \a threads workers (the caller is one of them) take
 * indices from a shared counter, so uneven chunks balance themselves. The workers are the process's
 * WorkerPool; a call made while the pool is busy (nested, or from a second thread, as Python threads
 * can) starts threads of its own instead. 0 threads means CKPT_THREADS, else one per hardware thread.
 */
inline ParallelFor threadedFor(unsigned threads = 0)
{
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    if (threads == 0)
        threads = threadsFromEnvironment();
    if (threads == 0)
        threads = hardware;
    return [threads, hardware](size_t n, const std::function<void(size_t)>& body) {
        static WorkerPool pool(hardware - 1);
        if (pool.tryRun(n, threads - 1, body))
            return;
        std::atomic<size_t> next{0};
        const auto work = [&] {
            for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;)
                body(i);
        };
        std::vector<std::jthread> helpers;
        for (unsigned k = 1; k < std::min<size_t>(threads, n); ++k)
            helpers.emplace_back(work);
        work();
    };
}

} // namespace ckpt::workers
