// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/record.h"
#include "core/util/error.h"
#include "core/value/tape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt {

/**
 * Burn 0.21's learning-rate schedulers (burn-optim/src/lr_scheduler) and what their records hold:
 *   constant    -> ()            (nil)
 *   step        -> i32 iter_idx, init -1;                lr = init_lr * gamma^(iter_idx / step_size)
 *   linear      -> usize remaining_iters, init num_iters + 1; lr = final - step_size * remaining
 *   cosine      -> usize current_iter, init usize::MAX (wraps to 0 on the first step)
 *   exponential -> f64 previous_lr, init initial_lr / gamma; lr = previous_lr * gamma
 *   noam        -> usize step (f64 inside Burn, recorded `as usize`)
 *
 * This is the one implementation of the formulas: the reference trainer (app/train) steps its
 * scheduler with stepLrScheduler(), and learningRateCurve() predicts with the same function, so the
 * curve the UI draws is, bit for bit, the `lr=` a resumed ckpt-train run prints.
 */
enum class LrSchedulerKind { Constant, Step, Linear, Cosine, Exponential, Noam };

std::string_view lrSchedulerName(LrSchedulerKind kind); ///< "constant", "step", ... (the caller state's names)
std::optional<LrSchedulerKind> lrSchedulerFromName(std::string_view name);

/** A scheduler's configuration (Burn's *LrSchedulerConfig fields; learning rates are f64 as in Burn). */
struct LrSchedulerConfig {
    LrSchedulerKind kind = LrSchedulerKind::Constant;
    double initialLr = 3e-3;     ///< constant/step/exponential/linear/cosine initial lr; noam's factor
    double gamma = 0.5;          ///< step: factor per step_size; exponential: factor per step
    uint64_t stepSize = 500;     ///< step
    double finalLr = 3e-4;       ///< linear: final lr; cosine: min lr
    uint64_t numIters = 2000;    ///< linear / cosine
    uint64_t warmupSteps = 100;  ///< noam
    uint64_t embeddingSize = 32; ///< noam
};

/**
 * Why a configuration cannot be stepped safely (division by zero, i32 overflow of the step index);
 * empty if it can. stepLrScheduler() requires a configuration without a problem.
 */
std::string lrSchedulerConfigProblem(const LrSchedulerConfig& config);

/** The position of a scheduler: only the field of the configured kind is meaningful. */
struct LrSchedulerState {
    int32_t iterIdx = -1;        ///< step
    uint64_t remainingIters = 0; ///< linear
    uint64_t currentIter = 0;    ///< cosine
    double previousLr = 0.0;     ///< exponential
    double noamStep = 0.0;       ///< noam
    friend bool operator==(const LrSchedulerState&, const LrSchedulerState&) = default;
};

/** The state a freshly built scheduler starts from (before its first step). */
LrSchedulerState initialLrSchedulerState(const LrSchedulerConfig& config);

/** Advances one step and returns the learning rate to use (Burn's LrScheduler::step). */
double stepLrScheduler(const LrSchedulerConfig& config, LrSchedulerState& state);

/**
 * Loads a scheduler record item (TrainingRecord item[2], or a scheduler-N record's item) into \a state
 * (the other fields keep their values). The error says what the configured scheduler expects, with
 * record path `item[2]`.
 */
Result<void> readLrSchedulerState(const Tape& tape, uint32_t node, const LrSchedulerConfig& config, LrSchedulerState& state);

/** Appends the scheduler record item (the value Burn's recorder writes). */
void writeLrSchedulerState(TapeBuilder& builder, const LrSchedulerConfig& config, const LrSchedulerState& state);

/** Human text of the position, e.g. "iter_idx=41". */
std::string lrSchedulerPosition(const LrSchedulerConfig& config, const LrSchedulerState& state);

/** The schedule of a record written by the reference trainer, seen from the record's position. */
struct LearningRateSchedule {
    LrSchedulerConfig config;
    LrSchedulerState state;       ///< the record's scheduler item (edits honoured, as ckpt-train does)
    uint64_t gradAccum = 1;       ///< micro-batches per optimizer (and scheduler) step
    uint64_t step = 0;            ///< progress.step: micro-batches trained so far
    uint64_t pendingMicroBatches = 0;
    uint64_t stopStep = 0;        ///< progress.stop_step
    double currentLr = 0.0;       ///< progress.last_lr: the lr of the current accumulation window
    /** (micro-batch step, lr) for steps step+1 .. step+N: the `step=N ... lr=Y` a resumed run prints. */
    std::vector<std::pair<uint64_t, double>> ahead;
    /** (step, lr) for steps 1 .. step as an unedited run with this configuration followed them. */
    std::vector<std::pair<uint64_t, double>> behind;
};

/** The scheduler ckpt-train's caller state names (item[4] config.scheduler.name: "linear", ...), or "" when it names none. */
std::string schedulerNamedByCallerState(const Record& record);

/** Upper bound for the number of steps learningRateSchedule() computes in either direction. */
inline constexpr uint64_t kMaxScheduleSteps = 10'000'000;

/**
 * Reads the scheduler configuration from the caller state the reference trainer writes (item[4]:
 * config.optimizer.lr, config.scheduler {name, gamma, step_size, final_lr, num_iters, warmup_steps,
 * embedding_size}, config.grad_accum, progress {step, pending_micro_batches, stop_step, last_lr}), the
 * scheduler's state from item[2], and predicts the next \a steps learning rates exactly as ckpt-train
 * applies them (one scheduler step per optimizer step, at the first micro-batch of its window).
 * \a behindSteps caps the reconstructed history (0 = none).
 *
 * Errors: ErrorCode::Unsupported "the learning-rate schedule is not stored in this record ..." when the
 * record has no caller state or the caller state has no scheduler configuration (Burn records store
 * only the scheduler's state); ErrorCode::Invalid with the field's record path for mistyped fields,
 * unknown scheduler names, or configurations that cannot be stepped; \a steps above kMaxScheduleSteps.
 */
Result<LearningRateSchedule> learningRateSchedule(const Record& record, uint64_t steps, uint64_t behindSteps = 0);

/** learningRateSchedule(record, steps).ahead: the curve the scheduler follows from the record's position. */
Result<std::vector<std::pair<uint64_t, double>>> learningRateCurve(const Record& record, uint64_t steps);

} // namespace ckpt
