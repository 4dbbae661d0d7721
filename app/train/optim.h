// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "app/train/model.h"
#include "core/model/schedule.h"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::train {

/** The trainer's scheduler configuration in core's terms (core/model/schedule.h holds the formulas). */
LrSchedulerConfig lrSchedulerConfigOf(const TrainConfig& c);

/**
 * Burn 0.21's learning-rate schedulers with their record values. The formulas, the record reading and
 * writing live in core (core/model/schedule.h) so that the inspector's learning-rate curve
 * (learningRateCurve) runs the very code the trainer steps with.
 */
class Scheduler {
public:
    explicit Scheduler(const TrainConfig& c)
        : m_c(lrSchedulerConfigOf(c))
    {
        reset();
    }

    void reset() { m_s = initialLrSchedulerState(m_c); }

    /** Advances one step and returns the learning rate to use (Burn's LrScheduler::step). */
    double step() { return stepLrScheduler(m_c, m_s); }

    /** Appends the scheduler record item. */
    void write(TapeBuilder& b) const { writeLrSchedulerState(b, m_c, m_s); }

    /** Loads the record item; the error says what the configured scheduler expects. */
    Result<void> read(const Tape& t, uint32_t node) { return readLrSchedulerState(t, node, m_c, m_s); }

    /** Human text of the position, for the resume line. */
    std::string position() const { return lrSchedulerPosition(m_c, m_s); }

    bool samePosition(const Scheduler& o) const { return m_s == o.m_s; }

private:
    LrSchedulerConfig m_c;
    LrSchedulerState m_s;
};

/** Per-parameter optimizer state, laid out like Burn's state records. */
template<class T>
struct ParamState {
    bool present = false;        ///< Burn's adaptor map has an entry only after a parameter's first step
    uint64_t time = 0;           ///< AdaptiveMomentumState.time
    Mat<T> moment1, moment2;
    std::optional<Mat<T>> maxMoment2;
    std::optional<Mat<T>> velocity; ///< SGD MomentumState (None when momentum is disabled)
};

/**
 * SGD / Adam / AdamW exactly as burn-optim computes them (scalar hyperparameters keep their Rust types
 * and are converted to the element type where Burn's mul_scalar/div_scalar converts them).
 */
template<class T>
class Optimizer {
public:
    explicit Optimizer(const TrainConfig& c)
        : state(static_cast<size_t>(c.paramCount()))
        , m_c(c)
    {
    }

    std::vector<ParamState<T>> state; ///< one per parameter, in the model's parameter order

    void step(double lr, Param<T>& p, const Mat<T>& gradIn, ParamState<T>& s);

private:
    /** Rust's f32::powi: repeated multiplication (what LLVM's powi intrinsic does for a runtime exponent, in order). */
    static float powi(float base, int n);
    TrainConfig m_c;
};

// Defined in optim.cpp for the two training dtypes.
extern template class Optimizer<float>;
extern template class Optimizer<double>;

} // namespace ckpt::train
