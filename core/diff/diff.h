// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

namespace ckpt {

enum class DiffStatus { Added, Removed, Changed, Unchanged, ShapeChanged, DTypeChanged };
std::string_view diffStatusName(DiffStatus s); ///< "added", "removed", "changed", "unchanged", "shape_changed", "dtype_changed"

/** One tensor compared by path. Numbers are present when both sides exist with the same element count. */
struct TensorDiff {
    std::string path;
    DiffStatus status = DiffStatus::Unchanged;
    std::optional<size_t> a, b;          ///< indexes into the records' tensors
    std::optional<double> maxAbs;        ///< max |a - b| over finite pairs
    std::optional<double> relL2;         ///< |a - b|_2 / |a|_2 (|a - b|_2 when |a|_2 = 0)
    std::optional<double> cosine;        ///< <a, b> / (|a| |b|), absent when a norm is 0
    uint64_t differing = 0;              ///< elements whose difference exceeds the tolerance (NaN vs number counts)
};

/** A non-tensor leaf (metadata, scheduler, caller state, optimizer step counters) that differs. */
struct StateDiff {
    std::string path;
    std::optional<std::string> a, b;     ///< JSON text of the value; absent on that side
};

struct RecordDiff {
    std::string a, b;
    uint64_t added = 0, removed = 0, changed = 0, unchanged = 0;
    std::vector<TensorDiff> entries;     ///< in A's tensor order, then B's additions
    std::vector<StateDiff> state;
};

struct DiffOptions {
    double tolerance = 0;                ///< |a - b| above this counts as a change
};

/**
 * Compares two records tensor by tensor (matched by path, which includes parameter ids for optimizer
 * entries and gradients) in one pass over both payloads, and every non-tensor leaf by path.
 */
Result<RecordDiff> diffRecords(const Record& a, const Record& b, const DiffOptions& options = {},
    const Progress& progress = Progress::none());

/** JSON text of a non-tensor subtree (compact serde_json form), used for state diffs and `ckpt state`. */
std::string valueToJson(const Tape& t, uint32_t node, bool pretty = false);

} // namespace ckpt
