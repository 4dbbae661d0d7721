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
 *
 * Exploded but finite state. Adam's moments cannot be judged by their size alone: the state is
 * invariant to the scale of the loss (a loss × c gives m × c, v × c² and the same steps), and a
 * consistent state that saw exploding gradients (m and v grown together, ckpt-train --diverge-at) has
 * ordinary steps. What has a designed scale is the parameter: initialisations put weights at
 * O(1/√fan_in) to O(1) (LayerNorm gains 1, biases 0, embeddings N(0,1)), and Adam moves an element by
 * at most ~lr per step, so the rules compare with that:
 *   - exploded_parameter: ‖w‖₂/√n ≥ kExplodedParameterRms (1e3), a parameter a thousand times the
 *     scale of any initialisation, which Adam at lr 1e-3 would need a million full steps to reach;
 *   - exploded_moments: the first moment's RMS (m̂ = m/(1−β1^t) for Adam, the velocity for SGD)
 *     ≥ kExplodedMomentRatio (1e3) × max(‖w‖₂/√n, 1): the gradient average is a thousand times the
 *     parameter it trains. Healthy ckpt-train runs stay below 0.7 (without the unit floor a bias
 *     near 0 reaches 20: hence the floor); the run of --diverge-at 45 is at 8e2 to 2e6 at step 60
 *     (parameters ~1e4, m̂ ~1e9). A loss summed, not averaged, over millions of elements can trip
 *     it (Adam is blind to that scale, this rule is not).
 * Both need the parameter's tensor: in the record, or ForensicsOptions::model (burn-train's model-N
 * beside optim-N); without it they are not judged. They judge finite values only.
 *   - inconsistent_moments (scale-free): max s > kInconsistentStepMargin × adamStepBound(t). From
 *     m_t = (1−β1)Σβ1^(t−k)g_k and v_t = (1−β2)Σβ2^(t−k)g_k², Cauchy–Schwarz gives, for any gradients,
 *     |m̂|/√v̂ ≤ B(t) = (1−β1)/(1−β1^t) · √((1−β2^t)/(1−β2)) · √(Σ_{j<t}(β1²/β2)^j), reached by a gradient
 *     growing as (β2/β1)^k (B(1) = 1, B(∞) ≈ 7.3 for 0.9/0.999). A larger step cannot come from one
 *     gradient history: m and v were damaged, edited or mixed from different states, or analysed with
 *     betas other than those of the run. Judged over the elements with v > 0: a half-precision record
 *     flushes a v below 3e-8 to 0 while its m survives (ckpt-train --precision half, the first steps),
 *     so m ≠ 0 beside v = 0 is not taken as proof. The margin covers the rounding of stored moments
 *     (f16 subnormals included: a non-zero v is stored at no less than 2/3 of its value).
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
/** exploded_parameter: the parameter's RMS ‖w‖₂/√n at or above this. */
inline constexpr double kExplodedParameterRms = 1e3;
/** exploded_moments: the first moment's RMS at or above this times max(parameter RMS, 1). */
inline constexpr double kExplodedMomentRatio = 1e3;
/** inconsistent_moments: the largest effective step above this times adamStepBound(). */
inline constexpr double kInconsistentStepMargin = 1.5;

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
        double maxVPositive = 0;        ///< the max over elements with v > 0 (inconsistent_moments; see above)
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
    std::optional<double> paramRms;     ///< ‖w‖₂/√n of the parameter (finite elements), when its tensor is at hand
    std::optional<double> mHatRms;      ///< RMS of m̂ (Adam, time ≥ 1; raw m at time 0) or of the SGD velocity, over finite elements
    std::optional<double> stepBound;    ///< adamStepBound(hyper, time): Adam family with a time ≥ 1
    /**
     * "nonfinite_moments", "exploded_parameter", "exploded_moments", "inconsistent_moments",
     * "dead_moments", "saturated_step", "v_floor", "time_mismatch", "g2_far_below_v"
     */
    std::vector<std::string> flags;
};

/**
 * How bad a flag is, higher worse: nonfinite_moments, then exploded_parameter, exploded_moments,
 * inconsistent_moments (the state is unusable or cannot be trusted), then time_mismatch,
 * dead_moments, saturated_step, v_floor, g2_far_below_v; 0 for a name it does not know.
 */
int flagSeverity(std::string_view flag);
/** The parameter's worst flag by flagSeverity(), empty when it has none. */
std::string_view worstFlag(const ParamForensics& p);

/**
 * The largest |m̂|/√v̂ any gradient history gives Adam at time \a time (see the definitions above);
 * +inf when it is unbounded (β2 = 0, or a sum too large for a double), nullopt at time 0.
 */
std::optional<double> adamStepBound(const AdamHyperparameters& h, uint64_t time);

struct OptimizerForensics {
    std::string optimizer;              ///< "adam", "adamw", "sgd" (the caller state's name if recorded), else the state's kind lowercased
    AdamHyperparameters hyper;          ///< what the analysis used
    std::optional<double> learningRate; ///< the current lr where the record's caller state configures the scheduler
    std::vector<ParamForensics> parameters; ///< the record's optimizer entries, in file order
    /**
     * Indexes into parameters of those with a flag, worst first: non-finite moments first (the
     * state cannot be resumed as is), then exploded_parameter or exploded_moments, then
     * inconsistent_moments, then more flags before fewer, then the larger saturated fraction, then
     * file order.
     */
    std::vector<size_t> suspects;
};

/** What the caller fixes; unset values come from the record's caller state (ckpt-train's config) or Burn's defaults. */
struct ForensicsOptions {
    std::optional<double> beta1, beta2, epsilon;
    /**
     * Where the parameters are when \a record holds optimizer state only (burn-train's model-N beside
     * optim-N): the parameter of an entry is looked up in the record first, then here. Not owned.
     */
    const Record* model = nullptr;
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
