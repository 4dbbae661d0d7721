// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One checkpoint of a run, opened: its tensors as spans over the mapped files, whatever the layout
// (a record, a burn-train epoch of three records, a GradientCheckpoint with its CAR). Shared by the
// timeline and bisect (core/run/timelinescan.cpp, timelineshares.cpp, bisect.cpp); not part of the public interface.

#include "core/graph/car.h"
#include "core/run/timeline.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::run_detail {

struct LoadedTensor {
    std::string path;
    TensorRole role = TensorRole::Other;
    std::string paramId, stateName, owner;
    DType dtype = DType::F32;
    BoolStore boolStore = BoolStore::Native; ///< TensorEntry::boolStore
    uint64_t numel = 0;
    std::span<const uint8_t> bytes;      ///< empty for legacy {value, shape} tensors
    const Record* record = nullptr;      ///< the record part holding it (legacy statistics); null for CAR blocks
    size_t entry = 0;                    ///< index into record->tensors
    uint32_t part = 0;                   ///< 0 model/record, 1 optimizer, 2 scheduler; 0 for a GradientCheckpoint
    std::string cid;                     ///< GradientCheckpoint tensors: the CID the bytes were resolved from

    /** What the bytes' elements are read as (TensorEntry::elementType). */
    DType elementType() const { return elementDType(dtype, boolStore); }
};

struct LoadedCheckpoint {
    std::vector<std::shared_ptr<const Record>> parts; ///< per part, null where absent
    std::optional<CarStore> car;
    std::vector<LoadedTensor> tensors;
    std::vector<std::vector<size_t>> byPart;           ///< part -> record tensor index -> index into tensors (npos if filtered out)
    bool graph = false;                                ///< a GradientCheckpoint
    std::vector<std::shared_ptr<std::vector<uint8_t>>> blobs; ///< optimizer_state blobs the tensors' spans point into
};

/** Opens checkpoint \a p of \a run; only tensors whose path matches \a filter (empty: all) are listed. */
Result<std::shared_ptr<LoadedCheckpoint>> loadCheckpoint(const RunCheckpoints& run, const RunPoint& p, const std::string& filter);

/** For each tensor of \a cur, its partner in \a prev (index into prev.tensors), paired as the diff pairs them. */
std::vector<std::optional<size_t>> pairWithPrevious(const LoadedCheckpoint& cur, const LoadedCheckpoint& prev);

/** Statistics of every tensor at \a indices (no histogram), chunks spread over \a parallel. */
std::vector<TensorStats> statsOf(const LoadedCheckpoint& c, const std::vector<size_t>& indices, const ParallelFor& parallel);

/**
 * ||b - a||2 over the element pairs finite on both sides, for each pair of equally long tensors;
 * every chunk of StatsChunkElements is one task for \a parallel, summed in chunk order (the result does
 * not depend on the thread count).
 */
struct UpdatePair {
    const LoadedTensor* a;
    const LoadedTensor* b;
};
std::vector<double> updateNorms(const std::vector<UpdatePair>& pairs, const ParallelFor& parallel);

/**
 * The pieces of one pair's update norm: the sums of squared differences of chunks [firstChunk,
 * firstChunk + chunks) (clamped to the tensor), one per chunk. updateNorms is the square root of all of
 * them summed in chunk order from 0, so a tensor's chunks may be summed in different processes.
 */
std::vector<double> updateChunkSums(const UpdatePair& pair, size_t firstChunk, size_t chunks, const ParallelFor& parallel);

} // namespace ckpt::run_detail
