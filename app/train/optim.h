// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "app/train/model.h"
#include "core/record/schedule.h"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::train {

/** The trainer's scheduler configuration in core's terms (core/record/schedule.h holds the formulas). */
inline LrSchedulerConfig lrSchedulerConfigOf(const TrainConfig& c)
{
    LrSchedulerConfig s;
    switch (c.scheduler) {
    case SchedulerKind::Constant: s.kind = LrSchedulerKind::Constant; break;
    case SchedulerKind::Step: s.kind = LrSchedulerKind::Step; break;
    case SchedulerKind::Linear: s.kind = LrSchedulerKind::Linear; break;
    case SchedulerKind::Cosine: s.kind = LrSchedulerKind::Cosine; break;
    case SchedulerKind::Exponential: s.kind = LrSchedulerKind::Exponential; break;
    case SchedulerKind::Noam: s.kind = LrSchedulerKind::Noam; break;
    }
    s.initialLr = c.lr;
    s.gamma = c.schedGamma;
    s.stepSize = c.schedStepSize;
    s.finalLr = c.schedFinalLr;
    s.numIters = c.schedIters;
    s.warmupSteps = c.warmupSteps;
    s.embeddingSize = c.embeddingSize;
    return s;
}

/**
 * Burn 0.21's learning-rate schedulers with their record values. The formulas, the record reading and
 * writing live in core (core/record/schedule.h) so that the inspector's learning-rate curve
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

    void step(double lr, Param<T>& p, const Mat<T>& gradIn, ParamState<T>& s)
    {
        using A = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        const T lrT = static_cast<T>(lr);
        switch (m_c.optimizer) {
        case OptimizerKind::Sgd: {
            A grad = gradIn.array();
            if (m_c.weightDecay != 0.0f) // WeightDecay::transform: tensor * penalty + grad
                grad = p.value.array() * static_cast<T>(m_c.weightDecay) + grad;
            if (m_c.momentum != 0.0) {
                A velocity;
                if (s.present && s.velocity)
                    velocity = grad * static_cast<T>(1.0 - m_c.dampening) + s.velocity->array() * static_cast<T>(m_c.momentum);
                else
                    velocity = grad;
                if (m_c.nesterov)
                    grad = velocity * static_cast<T>(m_c.momentum) + grad;
                else
                    grad = velocity;
                s.velocity = velocity.matrix();
            } else {
                s.velocity.reset();
            }
            s.present = true;
            p.value = (p.value.array() - grad * lrT).matrix();
            return;
        }
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: {
            A grad = gradIn.array();
            const bool adamw = m_c.optimizer == OptimizerKind::AdamW;
            if (!adamw && m_c.weightDecay != 0.0f)
                grad = p.value.array() * static_cast<T>(m_c.weightDecay) + grad;
            const float f1 = 1.0f - m_c.beta1, f2 = 1.0f - m_c.beta2;
            if (s.present) {
                s.moment1 = (s.moment1.array() * static_cast<T>(m_c.beta1) + grad * static_cast<T>(f1)).matrix();
                s.moment2 = (s.moment2.array() * static_cast<T>(m_c.beta2) + grad.square() * static_cast<T>(f2)).matrix();
                if (m_c.amsgrad) {
                    if (s.maxMoment2)
                        s.maxMoment2 = s.maxMoment2->array().max(s.moment2.array()).matrix();
                    else
                        s.maxMoment2 = s.moment2;
                }
                s.time += 1;
            } else {
                s.moment1 = (grad * static_cast<T>(f1)).matrix();
                s.moment2 = (grad.square() * static_cast<T>(f2)).matrix();
                if (m_c.amsgrad)
                    s.maxMoment2 = s.moment2;
                s.time = 1;
                s.present = true;
            }
            const int time = static_cast<int>(s.time);
            const T c1 = static_cast<T>(1.0f - powi(m_c.beta1, time));
            const T c2 = static_cast<T>(1.0f - powi(m_c.beta2, time));
            const A m1 = s.moment1.array() / c1;
            const A m2 = (m_c.amsgrad && s.maxMoment2 ? s.maxMoment2->array() : s.moment2.array()) / c2;
            const A delta = m1 / (m2.sqrt() + static_cast<T>(m_c.epsilon));
            if (adamw) {
                const double decayRate = lr * static_cast<double>(m_c.weightDecay);
                A decayed = p.value.array();
                if (decayRate != 0.0)
                    decayed = decayed * static_cast<T>(1.0 - decayRate);
                p.value = (decayed - delta * lrT).matrix();
            } else {
                p.value = (p.value.array() - delta * lrT).matrix();
            }
            return;
        }
        }
    }

private:
    /** Rust's f32::powi: repeated multiplication (what LLVM's powi intrinsic does for a runtime exponent, in order). */
    static float powi(float base, int n)
    {
        float r = 1.0f;
        float b = base;
        unsigned e = static_cast<unsigned>(n < 0 ? -n : n);
        while (e) {
            if (e & 1u)
                r *= b;
            b *= b;
            e >>= 1u;
        }
        return n < 0 ? 1.0f / r : r;
    }
    TrainConfig m_c;
};

} // namespace ckpt::train
