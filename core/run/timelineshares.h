// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How N cluster shares divide a run's timeline work (SharePlan): the plan every share
// (writeTimelinePartial, core/run/timelineshares.cpp) and the merge (timelinemerge.cpp) compute
// alike. Not part of the public interface (core/run/timeline.h).

#include "core/run/loadedcheckpoint.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ckpt::run_detail {

// NOLINTNEXTLINE(modernize-use-using): only a typedef takes __extension__, which keeps -Wpedantic quiet about __int128
__extension__ typedef unsigned __int128 U128; ///< byte positions times N: no overflow for any run

/** Where one tensor of a checkpoint spread over several shares goes (SharePlan::tensorShares). */
struct TensorShares {
    uint32_t first = 0, last = 0;   ///< the shares that have a part of it (equal: it goes whole to that one)
    std::vector<uint32_t> chunks;   ///< split tensors (first != last): the share of each stats chunk, non-decreasing
    bool has(uint32_t share) const
    {
        return chunks.empty() ? first == share : std::binary_search(chunks.begin(), chunks.end(), share);
    }
    /** The chunks [begin, end) that go to \a share (split tensors). */
    std::pair<size_t, size_t> chunksOf(uint32_t share) const
    {
        const auto [from, to] = std::equal_range(chunks.begin(), chunks.end(), share);
        return {size_t(from - chunks.begin()), size_t(to - chunks.begin())};
    }
};

/**
 * A tensor whose statistics may be computed chunk by chunk in several shares: raw elements of more
 * than one stats chunk. Not a legacy {value, shape} tensor (its statistics come from the record) nor a
 * GradientCheckpoint block (an unchanged CID takes its predecessor's statistics whole).
 */
bool chunkSplittable(const LoadedTensor& t);

/**
 * How N shares divide a run: in G groups of consecutive checkpoints, each group's C shares taking
 * the same column of every checkpoint in it. The checkpoints lie end to end by bytes, and a checkpoint
 * belongs to the group holding its byte midpoint (group g: [g T/G, (g+1) T/G)); group g has shares
 * [g N/G, (g+1) N/G). Within a checkpoint, a column is a range of its tensors by their byte midpoints
 * (column c of C: [c/C, (c+1)/C) of the checkpoint's tensor bytes), a tensor of several stats chunks
 * that straddles columns going chunk by chunk. Why columns: a share computes each checkpoint's
 * update against its predecessor, so it reads the predecessor's part too; within a group that part
 * is its own (the previous checkpoint's same column, still in the caches), and only the group's
 * first checkpoint needs one read from outside: a share reads 1/K more than its own bytes, K the
 * group's checkpoints. Split by checkpoints alone, a share holding part of one checkpoint would read
 * as much again of the previous one.
 * C: enough that the largest checkpoint is in columns of at most T/N bytes (no share is left with
 * more than its part), and more while a column stays at least kMinColumnBytes of an average
 * checkpoint (each share parses every checkpoint of its group: a column must be worth that); G =
 * N / C (floor). Many small checkpoints: C = 1, G = N, a share takes whole checkpoints. Integer
 * arithmetic: every process computes the same plan.
 */
class SharePlan {
public:
    static constexpr uint64_t kMinColumnBytes = uint64_t(256) << 20;

    SharePlan(const RunCheckpoints& run, uint32_t n);
    /** The shares checkpoint \a i goes to, first and last (0-based; equal: whole to that share): its group's. */
    std::pair<uint32_t, uint32_t> sharesOf(size_t i) const;
    /**
     * Where each tensor of checkpoint \a i goes among sharesOf(i): whole, to the column holding its byte
     * midpoint among the checkpoint's tensors, or (a tensor of several stats chunks that would straddle
     * columns) chunk by chunk, each to the column holding the chunk's midpoint. Non-decreasing along
     * the tensors and their chunks, so every share's part is one contiguous range.
     */
    std::vector<TensorShares> tensorShares(size_t i, const LoadedCheckpoint& c) const;

private:
    uint32_t firstShare(uint32_t group) const { return uint32_t(uint64_t(group) * m_n / m_groups); }
    uint32_t m_n = 1;
    uint32_t m_groups = 1;
    uint64_t m_total = 0;
    std::vector<uint64_t> m_start, m_width;
};

} // namespace ckpt::run_detail
