// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/processheap.h"

#include <cstdint>
#include <cstdlib> // first: it defines __GLIBC__, which the test below needs

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#define CKPT_HUGE_PAGE_HEAP 1
#endif

namespace ckpt::cli {

bool reserveHugePageHeap()
{
#ifdef CKPT_HUGE_PAGE_HEAP
    constexpr uintptr_t HugePage = uintptr_t(2) << 20;
    constexpr int Reserve = 64 << 20;
    // glibc's own knob for this (the tunable glibc.malloc.hugetlb=1) is read from the environment at
    // start-up only; these three calls and the madvise below do what it does, for the first Reserve
    // bytes of the heap on:
    // - blocks of up to 32 MiB come from the heap, not from mappings of their own (a fresh mapping is
    //   first-touched afresh every time; glibc raises its threshold only once such a block is freed,
    //   by which time a share has allocated most of what it needs);
    // - freed memory stays in the heap (up to twice Reserve) rather than going back to be faulted in again;
    // - the heap grows by Reserve at once, so that one madvise covers it.
    if (mallopt(M_MMAP_THRESHOLD, 32 << 20) == 0 || mallopt(M_TRIM_THRESHOLD, 2 * Reserve) == 0 || mallopt(M_TOP_PAD, Reserve) == 0)
        return false;
    auto* const before = static_cast<char*>(sbrk(0));
    void* grow = std::malloc(4 * HugePage); // more than the heap has left at start-up: it grows, by Reserve more
    asm volatile("" : : "g"(grow) : "memory"); // else the compiler drops an unused malloc and free
    auto* const after = static_cast<char*>(sbrk(0));
    std::free(grow);
    // The huge pages are given on first touch, each whole 2 MiB of the range (a partial one at either
    // end stays in 4 KiB pages); where the kernel has none to give, it falls back to small pages. Not
    // resident until touched: the reservation costs address space, not memory (a touched 2 MiB is
    // resident whole: a share's peak resident set grows by about 20 MB).
    char* const from = before + (HugePage - reinterpret_cast<uintptr_t>(before) % HugePage) % HugePage;
    char* const to = after - reinterpret_cast<uintptr_t>(after) % HugePage;
    return to > from && ::madvise(from, size_t(to - from), MADV_HUGEPAGE) == 0;
#else
    return false;
#endif
}

} // namespace ckpt::cli
