// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace ckpt::cli {

/**
 * Gives the process's heap transparent huge pages before any command runs (Linux with glibc; elsewhere
 * and under AddressSanitizer, nothing). Opening a checkpoint allocates its decode tape and index
 * afresh, about a megabyte for a checkpoint of 500 tensors, and a process that opens a dozen of them
 * (a share of `ckpt timeline --shard`) first-touches every page of that: thousands of 4 KiB page
 * faults, each costing microseconds (over ten in a virtual machine), which a run split into N shares
 * pays N times. In 2 MiB pages that is a handful. Measured in tests/bench (the shares section: the
 * rows with CKPT_HUGE_PAGE_HEAP=0, which main() reads to leave the heap as glibc makes it).
 * True when a range of the heap was advised.
 */
bool reserveHugePageHeap();

} // namespace ckpt::cli
