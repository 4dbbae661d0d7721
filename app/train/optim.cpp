// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/optim.h"

namespace ckpt::train {

LrSchedulerConfig lrSchedulerConfigOf(const TrainConfig& c)
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

template<class T>
void Optimizer<T>::step(double lr, Param<T>& p, const Mat<T>& gradIn, ParamState<T>& s)
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

template<class T>
float Optimizer<T>::powi(float base, int n)
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

template class Optimizer<float>;
template class Optimizer<double>;

} // namespace ckpt::train
