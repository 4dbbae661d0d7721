// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "app/train/model.h"

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <string>

namespace ckpt::train {

/**
 * Burn 0.21's learning-rate schedulers (burn-optim/src/lr_scheduler), with their record values:
 *   constant    -> ()            (nil)
 *   step        -> i32 iter_idx, init -1;         lr = init_lr * gamma^(iter_idx / step_size)
 *   linear      -> usize remaining_iters, init num_iters + 1; lr = final - step_size * remaining
 *   cosine      -> usize current_iter, init usize::MAX (wraps to 0 on the first step)
 *   exponential -> f64 previous_lr, init initial_lr / gamma; lr = previous_lr * gamma
 *   noam        -> usize step (f64 inside Burn, recorded `as usize`)
 */
class Scheduler {
public:
    explicit Scheduler(const TrainConfig& c)
        : m_c(c)
    {
        reset();
    }

    void reset()
    {
        m_iterIdx = -1;
        m_remaining = m_c.schedIters + 1;
        m_currentIter = std::numeric_limits<uint64_t>::max();
        m_previousLr = m_c.lr / m_c.schedGamma;
        m_noamStep = 0.0;
    }

    /** Advances one step and returns the learning rate to use (Burn's LrScheduler::step). */
    double step()
    {
        switch (m_c.scheduler) {
        case SchedulerKind::Constant: return m_c.lr;
        case SchedulerKind::Step:
            m_iterIdx = m_iterIdx == std::numeric_limits<int32_t>::max() ? m_iterIdx : m_iterIdx + 1;
            // Burn: init_lr * gamma.powi((iter_idx as usize / step_size) as i32); powi is LLVM's repeated squaring.
            return m_c.lr * powi(m_c.schedGamma, static_cast<int>(static_cast<uint64_t>(m_iterIdx) / m_c.schedStepSize));
        case SchedulerKind::Linear: {
            const double stepSize = (m_c.schedFinalLr - m_c.lr) / static_cast<double>(m_c.schedIters);
            m_remaining -= m_remaining != 0 ? 1 : 0;
            return m_c.schedFinalLr - stepSize * static_cast<double>(m_remaining);
        }
        case SchedulerKind::Cosine:
            m_currentIter = (m_currentIter + 1) % (m_c.schedIters + 1); // wrapping_add, as Burn
            return m_c.schedFinalLr + 0.5 * (m_c.lr - m_c.schedFinalLr)
                * (1.0 + std::cos(static_cast<double>(m_currentIter) / static_cast<double>(m_c.schedIters) * std::numbers::pi));
        case SchedulerKind::Exponential:
            m_previousLr *= m_c.schedGamma;
            return m_previousLr;
        case SchedulerKind::Noam: {
            m_noamStep += 1.0;
            const double arg1 = std::pow(m_noamStep, -0.5);
            const double arg2 = m_noamStep * std::pow(static_cast<double>(m_c.warmupSteps), -1.5);
            return m_c.lr * std::pow(static_cast<double>(m_c.embeddingSize), -0.5) * std::min(arg1, arg2);
        }
        }
        return m_c.lr;
    }

    /** Appends the scheduler record item. */
    void write(TapeBuilder& b) const
    {
        switch (m_c.scheduler) {
        case SchedulerKind::Constant: b.nil(); break;
        case SchedulerKind::Step: b.integer(m_iterIdx); break;
        case SchedulerKind::Linear: b.uinteger(m_remaining); break;
        case SchedulerKind::Cosine: b.uinteger(m_currentIter); break;
        case SchedulerKind::Exponential: b.f64(m_previousLr); break;
        case SchedulerKind::Noam: b.uinteger(static_cast<uint64_t>(m_noamStep)); break;
        }
    }

    /** Loads the record item; the error says what the configured scheduler expects. */
    Result<void> read(const Tape& t, uint32_t node)
    {
        const Node& n = t[node];
        auto bad = [&](std::string expected) {
            auto e = fail(ErrorCode::Invalid,
                "the " + std::string(schedulerName(m_c.scheduler)) + " scheduler's record is " + expected + ", found "
                    + kindName(n.kind));
            e.error().recordPath = "item[2]";
            return e;
        };
        switch (m_c.scheduler) {
        case SchedulerKind::Constant:
            if (n.kind != Kind::Nil)
                return bad("nil");
            return {};
        case SchedulerKind::Step: {
            if (n.kind != Kind::Int && n.kind != Kind::UInt)
                return bad("an i32");
            const int64_t v = n.kind == Kind::Int ? t.i64(node) : static_cast<int64_t>(t.u64(node));
            if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
                return bad("an i32 in range");
            m_iterIdx = static_cast<int32_t>(v);
            return {};
        }
        case SchedulerKind::Linear:
        case SchedulerKind::Cosine:
        case SchedulerKind::Noam: {
            auto v = t.asU64(node);
            if (!v)
                return bad("a usize");
            if (m_c.scheduler == SchedulerKind::Linear)
                m_remaining = *v;
            else if (m_c.scheduler == SchedulerKind::Cosine)
                m_currentIter = *v;
            else
                m_noamStep = static_cast<double>(*v);
            return {};
        }
        case SchedulerKind::Exponential:
            if (n.kind != Kind::F64 && n.kind != Kind::F32)
                return bad("an f64");
            m_previousLr = t.f64(node);
            return {};
        }
        return {};
    }

    /** Human text of the position, for the resume line. */
    std::string position() const
    {
        switch (m_c.scheduler) {
        case SchedulerKind::Constant: return "()";
        case SchedulerKind::Step: return "iter_idx=" + std::to_string(m_iterIdx);
        case SchedulerKind::Linear: return "remaining_iters=" + std::to_string(m_remaining);
        case SchedulerKind::Cosine: return "current_iter=" + std::to_string(m_currentIter);
        case SchedulerKind::Exponential: return "previous_lr=" + std::to_string(m_previousLr);
        case SchedulerKind::Noam: return "step=" + std::to_string(static_cast<uint64_t>(m_noamStep));
        }
        return {};
    }

    bool samePosition(const Scheduler& o) const
    {
        return m_iterIdx == o.m_iterIdx && m_remaining == o.m_remaining && m_currentIter == o.m_currentIter
            && m_previousLr == o.m_previousLr && m_noamStep == o.m_noamStep;
    }

private:
    /** compiler-rt's __powidf2 (what Rust's f64::powi lowers to): multiply by squares of the base. */
    static double powi(double a, int b)
    {
        const bool recip = b < 0;
        double r = 1.0;
        while (true) {
            if (b & 1)
                r *= a;
            b /= 2;
            if (b == 0)
                break;
            a *= a;
        }
        return recip ? 1.0 / r : r;
    }

    TrainConfig m_c;
    int32_t m_iterIdx = -1;
    uint64_t m_remaining = 0;
    uint64_t m_currentIter = 0;
    double m_previousLr = 0.0;
    double m_noamStep = 0.0;
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
        : m_c(c)
    {
    }

    std::array<ParamState<T>, Mlp<T>::Count> state;

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
