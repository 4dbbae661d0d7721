// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * Optimizer-state forensics (`ckpt optimizer`, cli-contract.md "Repair and verify"): per parameter,
 * what its optimizer state says about the health of training, and which parameters look suspect.
 *
 * Definitions (Adam family; Burn's AdaptiveMomentum with bias correction from the recorded time t):
 *   m̂ = m / (1 − β1^t),  v̂ = v / (1 − β2^t),  per-element effective step s = |m̂| / (√v̂ + ε)
 * (the update before the learning rate). In the steady state s ≤ ~1: it reaches 1 for a gradient
 * constant in sign and size (m̂ = g, v̂ = g²) and is smaller for a noisy one, so 1 is the bound the lr
 * scales; "saturated" is s ≥ kSaturatedStep (0.99) of that bound, a sign-SGD-like step at the full lr.
 */
struct AdamHyperparameters {
    double beta1 = 0.9;   ///< Burn's AdamConfig default (burn-optim adam.rs; ckpt-train's too)
    double beta2 = 0.999;
    double epsilon = 1e-5;
};

/** An element counts as saturated at this fraction of the effective step's bound of 1. */
inline constexpr double kSaturatedStep = 0.99;
/** saturated_step: at least this fraction of the elements saturated (most of the tensor moves at the full lr, sign-SGD-like). */
inline constexpr double kSaturatedFlagFraction = 0.5;
/** v_floor: at least this fraction of v̂ ≤ ε² (most steps are then set by ε, not by the gradients). */
inline constexpr double kVFloorFlagFraction = 0.5;
/** dead_moments: at least this fraction of the elements with m = v = 0 after steps (a few dead ReLU units are normal, a tenth is not). */
inline constexpr double kDeadFlagFraction = 0.1;
/** g2_far_below_v: mean g²/v̂ below this (the pending gradient is 100x weaker than the history Adam divides by). */
inline constexpr double kG2FarBelowV = 1e-2;

/** One parameter's optimizer state, analysed. Fields an optimizer cannot have are nullopt (JSON null). */
struct ParamForensics {
    std::string paramId;
    std::string path;                   ///< the optimizer state item's record path
    std::optional<uint64_t> time;       ///< the recorded step counter
    std::optional<double> mL2;          ///< ‖m‖₂ (Adam moment_1, SGD momentum velocity), finite elements
    std::optional<double> vL2;          ///< ‖v‖₂ (Adam moment_2)
    struct EffectiveStep {
        double mean = 0;                ///< over elements whose step is finite
        double max = 0;
        double saturated = 0;           ///< fraction of those with s ≥ kSaturatedStep
    };
    std::optional<EffectiveStep> effectiveStep; ///< Adam family with a time ≥ 1
    std::optional<double> vFloorFraction;       ///< fraction of elements with v̂ ≤ ε² (Adam, time ≥ 1)
    std::optional<double> deadFraction;         ///< fraction with m = v = 0 exactly (Adam, time ≥ 1)
    uint64_t nonfinite = 0;                     ///< NaN/±Inf elements over all of the entry's state tensors
    /**
     * Mean of g²/v̂ over the elements with v̂ > ε² and a finite g (g: the pending gradient of this
     * parameter). A mean, not a median, so that it streams in one pass over tensors of any size; a
     * handful of large ratios can lift it, which errs on the side of not flagging.
     */
    std::optional<double> g2OverV;
    std::vector<std::string> flags;     ///< "nonfinite_moments", "dead_moments", "saturated_step", "v_floor", "time_mismatch", "g2_far_below_v"
};

struct OptimizerForensics {
    std::string optimizer;              ///< "adam", "adamw", "sgd" (the caller state's name if recorded), else the state's kind lowercased
    AdamHyperparameters hyper;          ///< what the analysis used
    std::optional<double> learningRate; ///< the current lr where the record's caller state configures the scheduler
    std::vector<ParamForensics> parameters; ///< the record's optimizer entries, in file order
    /**
     * Indexes into parameters of those with a flag, worst first: non-finite moments first (the
     * state cannot be resumed as is), then more flags before fewer, then the larger saturated
     * fraction, then file order.
     */
    std::vector<size_t> suspects;
};

/** What the caller fixes; unset values come from the record's caller state (ckpt-train's config) or Burn's defaults. */
struct ForensicsOptions {
    std::optional<double> beta1, beta2, epsilon;
};

/**
 * Reads every optimizer entry of \a record, one tensor chunk at a time (the record's tensors are
 * never widened whole), reporting progress after each entry (the app's watchdog wants a sign of life
 * on records of gigabytes) and stopping when cancelled. Errors: a record without optimizer state;
 * hyperparameters out of range (β in [0, 1), ε > 0 and finite); cancelled.
 */
Result<OptimizerForensics> optimizerForensics(const Record& record, const ForensicsOptions& options = {},
    const Progress& progress = Progress::none());

} // namespace ckpt
