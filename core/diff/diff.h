// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/crossframework.h"
#include "core/record/record.h"
#include "core/tensor/stats.h"

#include <array>

namespace ckpt {

enum class DiffStatus { Added, Removed, Changed, Unchanged, ShapeChanged, DTypeChanged };
std::string_view diffStatusName(DiffStatus s); ///< "added", "removed", "changed", "unchanged", "shape_changed", "dtype_changed"

/**
 * How a tensor of A found its partner in B. Parameter ids survive renames (the module path changes,
 * the id does not); paths survive re-initialisation (a fresh id at the same module path). Optimizer
 * states and pending gradients are keyed by their parameter, so for them "path" means the module
 * path of the parameter they belong to.
 */
enum class MatchKind { None, PathAndId, Path, ParamId, Framework };
/** "", "path_and_id", "path", "param_id", "framework" (a PyTorch tensor and a Burn one, by Burn's PyTorch rules: core/model/crossframework.h) */
std::string_view matchKindName(MatchKind m);

/**
 * Histogram of d = b - a in signed powers of two: bin k of `positive` counts 2^(minExp+k) <= d <
 * 2^(minExp+k+1) (the first bin also takes everything smaller, the last everything larger, infinity
 * included); `negative` mirrors it for d < 0. Binary magnitudes need no first pass for a range, so
 * the histogram is filled in the same single pass as the other numbers.
 */
struct DeltaHistogram {
    static constexpr int minExp = -40;
    static constexpr int maxExp = 8;
    static constexpr size_t bins = maxExp - minExp + 1;
    uint64_t zero = 0;
    std::array<uint64_t, bins> negative{}, positive{};
    void add(double d);
    uint64_t total() const;
    /** Lower magnitude of bin \a k (2^(minExp+k)); 0 for the first bin, which also holds the tiny ones. */
    static double binLow(size_t k);
    static double binHigh(size_t k); ///< upper magnitude; infinity for the last bin
};

/** One tensor of A, B or both, matched by path or by parameter id. Numbers are present when both sides exist with the same element count. */
struct TensorDiff {
    std::string path;                    ///< A's path (B's for an addition)
    std::string pathB;                   ///< B's path when it differs from A's (a rename, a re-keyed optimizer state)
    TensorRole role = TensorRole::Other;
    std::string paramId, paramIdB;       ///< the parameter on each side ("" if none)
    std::string stateName;               ///< optimizer state ("moment_1", ...) as indexed
    DiffStatus status = DiffStatus::Unchanged;
    MatchKind match = MatchKind::None;
    std::optional<size_t> a, b;          ///< indexes into the records' tensors
    bool byteEqual = false;              ///< payload bytes identical: unchanged without decoding a value
    bool precisionChange = false;        ///< dtype differs and the narrower side is exactly the wider side rounded to it
    /** Across frameworks: how B's layout relates to A's (a Linear weight is transposed); nullopt within one framework or unmatched. */
    std::optional<CrossLayout> layout;
    std::optional<double> maxAbs;        ///< max |a - b| over finite pairs
    std::optional<double> meanAbs;       ///< mean |a - b| over finite pairs
    std::optional<double> relL2;         ///< |a - b|_2 / |a|_2 (|a - b|_2 when |a|_2 = 0)
    std::optional<double> cosine;        ///< <a, b> / (|a| |b|), absent when a norm is 0 or the bytes are equal (not decoded)
    uint64_t differing = 0;              ///< elements whose difference exceeds the tolerance (NaN vs number counts)
    DeltaHistogram histogram;            ///< of b - a (finite and infinite pairs; NaN pairs are only counted in differing)

    bool renamed() const { return match == MatchKind::ParamId && !pathB.empty(); }
    bool reinitialised() const { return match == MatchKind::Path && !paramId.empty() && !paramIdB.empty() && paramId != paramIdB; }
};

/** Which part of the record a non-tensor leaf belongs to. */
enum class StateSection { Metadata, Module, Optimizer, Scheduler, Gradients, CallerState, Other };
std::string_view stateSectionName(StateSection s); ///< "metadata", "module", "optimizer", "scheduler", "gradients", "caller_state", "other"

/** A non-tensor leaf (metadata, scheduler, caller state field, optimizer step counter) that differs. */
struct StateDiff {
    std::string path;
    std::optional<std::string> a, b;     ///< JSON text of the value, exact as stored (u64 included); absent on that side
    StateSection section = StateSection::Other;
    std::string pathB;                   ///< B's path when it differs (an optimizer step counter of a re-initialised parameter)
};

/** A full vs half (or double) copy: recognised when every dtype change is exact rounding. */
struct PrecisionChange {
    Precision a = Precision::Full, b = Precision::Full;
    bool roundingOnly = false;           ///< every tensor difference is explained by the narrower dtype's rounding
};

/** What every diff counts, whatever it compares: the files and their entries added, removed, changed, unchanged. */
struct DiffCounts {
    std::string a, b;
    uint64_t added = 0, removed = 0, changed = 0, unchanged = 0;
};

struct RecordDiff : DiffCounts {
    uint64_t renamed = 0;                ///< pairs matched by parameter id across a path change (counted in changed/unchanged too)
    std::vector<TensorDiff> entries;     ///< in A's tensor order, then B's additions
    std::vector<StateDiff> state;
    std::optional<PrecisionChange> precision; ///< set when the records' precisions or any tensor dtype differ
    bool acrossFrameworks = false;       ///< one side is a PyTorch or safetensors checkpoint, the other a Burn record
    std::vector<std::string> notes;      ///< what a cross-framework diff left out, and why
};

struct DiffOptions {
    double tolerance = 0;                ///< |a - b| above this counts as a change
    /** Payload bytes per batch (progress and cancellation between batches; a pair is never split). Tests make it small. */
    uint64_t batchBytes = uint64_t(64) << 20;
    /** Across frameworks: `--map FROM=TO` rewrites of the PyTorch side's names, in order. */
    std::vector<NameRewrite> rewrites;
};

/**
 * Compares two records tensor by tensor in one pass over both payloads (byte-equal payloads are not
 * decoded), and every non-tensor leaf by path. Tensors are paired by path and parameter id first,
 * then by parameter id alone (renames), then by path alone (re-initialised parameters). Across
 * frameworks (one side PyTorch's, core/model/crossframework.h) by Burn's PyTorch rules and
 * DiffOptions::rewrites instead: a transposed tensor is compared after transposing; PyTorch's step
 * counts are compared with Burn's `time` as state; other state is not compared (RecordDiff::notes).
 *
 * The payloads are streamed in batches of about DiffOptions::batchBytes (progress and cancellation per batch); every
 * chunk of StatsChunkElements elements of every pair in a batch is one task for \a parallel (the
 * caller's executor: core starts no thread). Chunk partials are merged in chunk order, so the
 * numbers do not depend on the number of threads.
 */
Result<RecordDiff> diffRecords(const Record& a, const Record& b, const DiffOptions& options = {},
    const Progress& progress = Progress::none(), const ParallelFor& parallel = {});

/**
 * Pairs A's tensors with B's as diffRecords does: path and parameter id, then the id alone (renames),
 * then the path alone (re-initialised parameters; optimizer states and gradients by their parameter's
 * module path). Returns B's partner (index into b.tensors) and how it was found, per tensor of A.
 */
std::vector<std::pair<std::optional<size_t>, MatchKind>> matchTensors(const Record& a, const Record& b);

/** Numbers of one pair of equally long payloads (exposed for the GradientCheckpoint diff's CAR blocks). */
void compareTensorValues(DType dtypeA, std::span<const uint8_t> a, DType dtypeB, std::span<const uint8_t> b, uint64_t numel,
    double tolerance, TensorDiff& out);

} // namespace ckpt
