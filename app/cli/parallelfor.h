// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/stats.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ckpt::cli {

/**
 * A ParallelFor on std::thread for the command-line tools: \a threads workers (the caller is one of
 * them) take indices from a shared counter, so uneven chunks balance themselves. Threads are started
 * per call: a call is a batch of tens of MiB of statistics, against which starting a thread is noise.
 * 0 threads means one per hardware thread.
 */
inline ParallelFor threadedFor(unsigned threads = 0)
{
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    return [threads](size_t n, const std::function<void(size_t)>& body) {
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

} // namespace ckpt::cli
