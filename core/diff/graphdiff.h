// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diff/diff.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"

namespace ckpt {

/** How a tensor named by CID on both sides was compared. */
enum class CidComparison {
    SameCid,       ///< equal CIDs are equal tensors: no byte read
    SameBytes,     ///< different CIDs (another codec or hash) over identical CAR blocks
    ValuesCompared,///< both blocks read from the CARs and compared as f32 values
    BytesDiffer,   ///< both blocks present but not comparable as f32 (lengths differ or not a multiple of 4)
    Unresolved,    ///< CIDs differ and at least one block is not available: only "different" is known
    OneSided,      ///< present on one side only (an input added, a gradient dropped)
};
std::string_view cidComparisonName(CidComparison c); ///< "same_cid", "same_bytes", "values_compared", "bytes_differ", "unresolved", "one_sided"

/** One tensor slot of a matched node: `output`, `gradient` or `input[i]`. */
struct CidSlotDiff {
    std::string slot;
    std::optional<std::string> cidA, cidB;
    CidComparison how = CidComparison::SameCid;
    std::optional<TensorDiff> values; ///< ValuesCompared: the numbers as for a record tensor
    bool changed() const;
};

enum class NodeMatch { Id, OpPosition };
std::string_view nodeMatchName(NodeMatch m); ///< "id", "op_position"

struct NodeDiff {
    std::string keyA, keyB;           ///< node keys ("" on the absent side)
    std::string opA, opB;
    DiffStatus status = DiffStatus::Unchanged; ///< Added, Removed, Changed or Unchanged
    std::optional<NodeMatch> match;
    bool opChanged = false;
    std::vector<CidSlotDiff> tensors;   ///< every slot of a matched node, changed or not
    std::vector<std::pair<std::string, std::pair<std::optional<std::string>, std::optional<std::string>>>> metadata; ///< changed metadata keys: a, b
};

/** An optimizer_state blob compared by key. */
struct BlobDiff {
    std::string key;
    DiffStatus status = DiffStatus::Unchanged;
    uint64_t sizeA = 0, sizeB = 0;
    std::optional<TensorDiff> values;                ///< f32 blobs of equal length
    std::optional<uint64_t> counterA, counterB;      ///< 8-byte `step` counters, exact
};

/** What the summary says of one checkpoint of the pair. */
struct GraphDiffSide {
    uint64_t step = 0, timestamp = 0;
    std::optional<std::string> lossCid;
    bool hasCar = false;                             ///< whether a CAR file was given (tensor values compared)
};

struct GraphDiff : DiffCounts {
    GraphDiffSide sideA, sideB;
    std::optional<TensorDiff> lossValues;            ///< when both loss blocks are in the CARs
    uint64_t matchedByPosition = 0;
    std::vector<NodeDiff> nodes;                     ///< A's nodes in topological order, then B's additions
    std::vector<std::pair<std::string, std::string>> edgesAdded;   ///< B's keys
    std::vector<std::pair<std::string, std::string>> edgesRemoved; ///< A's keys
    std::vector<BlobDiff> optimizer;
    uint64_t blockBytesRead = 0;                     ///< CAR block bytes touched (0 when every differing CID is unresolved)
};

/**
 * Compares two GradientCheckpoints. Nodes are matched by key, then the rest by operation and
 * position (the k-th node of an operation in topological order: ids are fresh per checkpoint when a
 * trainer mints them). Tensors are compared by CID first, and only when the CIDs differ and both
 * CARs hold the blocks, by the blocks' bytes.
 */
GraphDiff diffGradientCheckpoints(const GradientCheckpoint& a, const GradientCheckpoint& b, const CarStore* carA, const CarStore* carB,
    const DiffOptions& options = {});

} // namespace ckpt
