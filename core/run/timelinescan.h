// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The timeline's scan: checkpoints opened in order, their statistics and updates computed block by
// block and window by window, scans taken from the cache where it still holds them, and the series
// assembled as they come (computeTimeline). The pieces the cluster shares use in the same way
// (core/run/timelineshares.cpp, timelinemerge.cpp). Not part of the public interface.

#include "core/run/loadedcheckpoint.h"
#include "core/run/timelinecache.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ckpt::run_detail {

using Link = std::optional<std::pair<size_t, size_t>>; ///< (checkpoint, tensor) of a tensor's predecessor

/**
 * Checkpoints scanned together (the engine's blocks, a share's): each window of their tensors is read
 * for all of them in checkpoint order, so that a checkpoint's window is still in the caches when the
 * next one's update reads it as its predecessor.
 */
inline constexpr size_t ScanBlockSize = 8;
inline constexpr uint64_t ScanWindowBytes = uint64_t(4) << 20;

/**
 * The windows of a block: tensor index bounds cutting \a tensors (the block's first checkpoint) into
 * ranges of about ScanWindowBytes, from 0; the last bound is SIZE_MAX, so that the last window takes
 * whatever a checkpoint has beyond the first's tensors.
 */
std::vector<size_t> windowBounds(const std::vector<LoadedTensor>& tensors);

/** The statistics of a scanned tensor (scanOf; a merge's tensor split over shares, from its folded chunks). */
void setStats(TensorScan& out, const TensorStats& s);

/** A tensor's scan with its names (ids of \a pool) and statistics; no update, no link. */
TensorScan scanOf(const LoadedTensor& t, const TensorStats& s, StringPool& pool);

/**
 * The engine behind computeTimeline and mergeTimelinePartials: with \a given, the scans of every
 * checkpoint come from there (the merged partials, checked by the caller) instead of the cache file.
 */
Result<Timeline> timelineOf(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress,
    const ParallelFor& parallel, StringPool& pool, std::unordered_map<std::string, CheckpointScan>* given);

} // namespace ckpt::run_detail
