// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The judgement of `ckpt verify-resume` (cli-contract.md, "Repair and verify"): a checkpoint produced
// by resuming from RECORD up to LATER's step, diffed against LATER, is identical, within tolerance or
// diverged. Running the resumption (a child process) is the caller's business: core starts nothing.

#include "core/diff/diff.h"
#include "core/util/error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

enum class ResumeTolerance { Exact, Strict, Relaxed };
std::string_view resumeToleranceName(ResumeTolerance t); ///< "exact", "strict", "relaxed"
std::optional<ResumeTolerance> resumeToleranceFromName(std::string_view name);

/**
 * The bounds of the three tolerances, on a tensor's rel_l2 (|later - resumed|_2 / |later|_2, the
 * absolute |Δ|_2 when LATER's tensor is all zeros).
 *
 * - exact: byte-identical payloads and equal state. ckpt-train's resumption is bit-exact (tests/train
 *   checks N straight steps against k steps plus a resume byte for byte), so any other answer from
 *   it is a bug in the resume path, not noise.
 * - strict: 1e-6, a few f32 ulps of the tensor's norm: another trainer that resumes correctly but
 *   reorders a reduction (different thread count, fused kernels) lands here; dropped optimizer state,
 *   another seed or data order moves tensors by far more after even one step.
 * - relaxed: 1e-3, for nondeterministic GPU kernels and mixed precision, where the same resume
 *   legitimately drifts a little over several steps.
 *
 * A NaN in one side where the other has a number, or an infinite |Δ|, is always a difference.
 */
inline constexpr double kStrictRelL2 = 1e-6;
inline constexpr double kRelaxedRelL2 = 1e-3;

/** One tensor or state field that differs between LATER and the resumed checkpoint. */
struct ResumeDifference {
    std::string path;
    bool isState = false;              ///< a non-tensor leaf: no numbers
    std::string status;                ///< diffStatusName of the tensor, or the state section's name
    std::optional<double> maxAbs, relL2;
    bool aboveTolerance = true;        ///< counts against the tolerance (false: differs, but within it)
    std::optional<std::string> later, resumed; ///< a state field's JSON text on each side
};

enum class ResumeVerdict { Identical, WithinTolerance, Diverged };
std::string_view resumeVerdictName(ResumeVerdict v); ///< "identical", "within_tolerance", "diverged"

struct ResumeJudgement {
    ResumeVerdict verdict = ResumeVerdict::Identical;
    /** Everything that is not identical, largest first: tensors by rel_l2 (missing, reshaped or
        retyped tensors first, as infinitely far), then state fields in the diff's order. */
    std::vector<ResumeDifference> differences;
};

/**
 * Judges \a d = diffRecords(LATER, RESUMED, {tolerance = DBL_MAX}) (DBL_MAX: `differing` then counts
 * exactly the NaN-vs-number and infinite-|Δ| pairs; byteEqual and the numbers do not depend on it).
 *
 * State fields (scheduler, caller state, optimizer step counters, metadata) that differ are
 * differences for exact and strict. For relaxed, metadata fields are ignored (a timestamp or a
 * host name of another trainer's run is no divergence) and two numbers within kRelaxedRelL2 of each
 * other (relative to the larger magnitude: a logged loss or learning rate) are within tolerance; any
 * other differing field counts.
 */
ResumeJudgement judgeResume(const RecordDiff& d, ResumeTolerance tolerance);

/** The DiffOptions judgeResume expects its diff to be made with. */
DiffOptions resumeDiffOptions();

class Record;

/** Where stepOfCheckpoint found the step. */
enum class StepSource { Record, FileName };
std::string_view stepSourceName(StepSource s); ///< "record", "file_name"

struct CheckpointStep {
    uint64_t step = 0;
    StepSource source = StepSource::Record;
};

/**
 * The training step a checkpoint was written at: the record's own caller state
 * (item[4].progress.step, as ckpt-train stores it) when it has one, because a renamed or copied
 * file keeps it; otherwise its file name (record-STEP.<ext>, graph/step-N.json: checkpointPlaceOf).
 * ErrorCode::Invalid when neither tells.
 */
Result<CheckpointStep> stepOfCheckpoint(const Record& record, const std::string& path);

} // namespace ckpt
