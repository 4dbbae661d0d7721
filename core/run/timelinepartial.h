// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The partial a cluster share writes (`ckpt timeline RUN --shard I/N --partial OUT`) and the merge
// reads: its pieces in memory and its file format, CKPTPRT2. Not part of the public interface
// (core/run/timeline.h).
//
// A partial file: "CKPTPRT2", the run's absolute path (str), shard I and N (u32 each), the run's
// checkpoint count (u64), a string pool (u64 count, str each), then pieces (u64 count): each the
// checkpoint index, its tensor count and the first tensor of the piece (u64 each), the piece's scan as
// the cache stores one (writeScan: file identities, dependencies, valid/error, tensors with their
// statistics, update_l2 and link to the predecessor; update_ratio left to the merge), and one byte per
// tensor (1: an unchanged CID, statistics to be taken from its predecessor), then the piece's tensors
// whose chunks are shared with other shares (u64 count): each its index in the checkpoint, its first
// chunk here and its chunk count (u64 each), the moments of its chunks here (u64 count; count, finite,
// nan, zeros as u64, sum, sumSq, min, max, minAbs, shift, mean, m2 as f64) and, when it has an update,
// the update's sum of squares per chunk (a byte 1 and f64 each; else a byte 0); last, the FNV-1a hash
// of all bytes before it (u64). All little-endian.

#include "core/run/timelinecache.h"
#include "core/tensor/stats.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ckpt::run_detail {

inline constexpr char kPartialMagic[8] = {'C', 'K', 'P', 'T', 'P', 'R', 'T', '2'};

/**
 * A tensor of a piece whose statistics are shared with other shares: the mergeable moments of its
 * stats chunks [firstChunk, firstChunk + moments.size()) and the update's sums over the same chunks.
 * The merge folds every share's chunks in chunk order, as computeStats and updateNorms fold them.
 */
struct SharedChunks {
    uint64_t tensor = 0;                ///< in the checkpoint
    uint64_t firstChunk = 0;
    uint64_t chunks = 0;                ///< of the whole tensor
    std::vector<StatsMoments> moments;
    std::vector<double> updateSums;     ///< per chunk when the tensor has an update, else empty
};

/** One checkpoint's share of the work: all its tensors or a range of them. */
struct PartialPiece {
    uint64_t index = 0;   ///< the checkpoint
    uint64_t total = 0;   ///< its tensors
    uint64_t first = 0;   ///< the piece holds tensors [first, first + scan.tensors.size())
    CheckpointScan scan;  ///< update_ratio not yet set; unchanged-CID tensors without statistics, shared ones with theirs to be folded
    std::vector<uint8_t> sameCid;
    std::vector<SharedChunks> shared; ///< ascending by tensor: at most the piece's first and last
};

/** FNV-1a over a partial's bytes, stored as its last 8: a flipped bit in a number is found, not merged. */
uint64_t partialChecksum(std::span<const uint8_t> bytes);

/// The partial file's bytes (CKPTPRT2, see above): header, string table, pieces, checksum.
std::vector<uint8_t> encodePartial(const RunCheckpoints& run, TimelineShard shard, const StringPool& pool, const std::vector<PartialPiece>& pieces);

/**
 * The next piece of a partial of a run of \a checkpoints checkpoints, its strings read through
 * \a table; r.ok false when the bytes are damaged or the piece does not hold together.
 */
PartialPiece readPartialPiece(ByteReader& r, const StringTable& table, size_t checkpoints);

} // namespace ckpt::run_detail
