// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "app/train/rng.h"

#include <Eigen/Core>

#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace ckpt::train {

template<class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/** One trainable tensor: value, gradient of the current micro-batch, and Burn's record shape. */
template<class T>
struct Param {
    std::string modulePath;     ///< Rust field path, e.g. "input.weight"
    uint64_t id = 0;            ///< Burn ParamId (u64)
    std::vector<uint64_t> shape;///< [d_in, d_out] for Linear weights (Burn's layout), [n] for vectors
    Mat<T> value;               ///< rows x cols; a vector is 1 x n
    Mat<T> grad;
    uint64_t numel() const { return static_cast<uint64_t>(value.size()); }
};

/** The data set: generated from the seed, identical for every process that uses the same config. */
struct Dataset {
    Mat<double> trainX, validX;
    Mat<double> trainY, validY;              ///< regression targets [n, out]
    std::vector<uint32_t> trainLabel, validLabel; ///< classification

    static Dataset generate(const TrainConfig& c)
    {
        Dataset d;
        const auto in = static_cast<Eigen::Index>(c.inputDim);
        const auto out = static_cast<Eigen::Index>(c.outputDim);
        // The teacher: a fixed random tanh network (regression) or blob centres (classification).
        constexpr Eigen::Index teacherHidden = 16;
        Mat<double> t1(in, teacherHidden), t2(teacherHidden, out), centres(out, in);
        uint64_t k = 0;
        for (Eigen::Index i = 0; i < t1.size(); ++i)
            t1.data()[i] = counterNormal(c.seed, stream::Teacher, k++) / std::sqrt(double(in));
        for (Eigen::Index i = 0; i < t2.size(); ++i)
            t2.data()[i] = counterNormal(c.seed, stream::Teacher, k++) / std::sqrt(double(teacherHidden));
        for (Eigen::Index i = 0; i < centres.size(); ++i)
            centres.data()[i] = 2.0 * counterNormal(c.seed, stream::Teacher, k++);

        auto fill = [&](uint64_t n, uint64_t streamId, Mat<double>& x, Mat<double>& y, std::vector<uint32_t>& label) {
            const auto rows = static_cast<Eigen::Index>(n);
            x.resize(rows, in);
            uint64_t ctr = 0;
            if (c.task == Task::Regression) {
                for (Eigen::Index i = 0; i < x.size(); ++i)
                    x.data()[i] = counterNormal(c.seed, streamId, ctr++);
                Mat<double> h = (x * t1).array().tanh().matrix();
                y = h * t2;
                for (Eigen::Index i = 0; i < y.size(); ++i)
                    y.data()[i] += 0.01 * counterNormal(c.seed, streamId, ctr++);
            } else {
                label.resize(n);
                for (Eigen::Index r = 0; r < rows; ++r) {
                    const auto cls = static_cast<uint32_t>(counterRandom(c.seed, streamId, ctr++) % c.outputDim);
                    label[r] = cls;
                    for (Eigen::Index j = 0; j < in; ++j)
                        x(r, j) = centres(cls, j) + counterNormal(c.seed, streamId, ctr++);
                }
            }
        };
        fill(c.datasetSize, stream::TrainData, d.trainX, d.trainY, d.trainLabel);
        fill(c.validSize, stream::ValidData, d.validX, d.validY, d.validLabel);
        return d;
    }
};

/** A mini-batch in the training dtype. */
template<class T>
struct Batch {
    Mat<T> x, y;
    std::vector<uint32_t> label;
};

/**
 * input -> Linear -> LayerNorm -> ReLU|GELU -> Linear -> output, as a Burn module would declare it:
 *   struct Mlp { input: Linear, norm: LayerNorm, activation: Relu, output: Linear }
 * Forward and backward are written out by hand with a fixed summation order (explicit loops for every
 * reduction, Eigen's single-threaded GEMM for the products), so a step is bit-for-bit reproducible.
 */
template<class T>
class Mlp {
public:
    enum : size_t { W1, B1, Gamma, Beta, W2, B2, Count };
    std::array<Param<T>, Count> params;
    Activation activation = Activation::Relu;
    Task task = Task::Regression;
    static constexpr double kLayerNormEpsilon = 1e-5; ///< Burn's LayerNormConfig default

    Mlp() = default;

    /** Burn-like init: Linear weights and biases ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (KaimingUniform with gain 1/sqrt(3)), LayerNorm gamma 1, beta 0. */
    static Mlp create(const TrainConfig& c)
    {
        Mlp m;
        m.activation = c.activation;
        m.task = c.task;
        const auto in = static_cast<Eigen::Index>(c.inputDim), hid = static_cast<Eigen::Index>(c.hidden),
                   out = static_cast<Eigen::Index>(c.outputDim);
        const std::array<const char*, Count> names = {"input.weight", "input.bias", "norm.gamma", "norm.beta", "output.weight", "output.bias"};
        const std::array<std::pair<Eigen::Index, Eigen::Index>, Count> dims = {{{in, hid}, {1, hid}, {1, hid}, {1, hid}, {hid, out}, {1, out}}};
        for (size_t i = 0; i < Count; ++i) {
            Param<T>& p = m.params[i];
            p.modulePath = names[i];
            p.id = counterRandom(c.seed, stream::ParamIds, i);
            p.value.resize(dims[i].first, dims[i].second);
            p.grad.setZero(dims[i].first, dims[i].second);
            p.shape = dims[i].first == 1 ? std::vector<uint64_t>{uint64_t(dims[i].second)}
                                         : std::vector<uint64_t>{uint64_t(dims[i].first), uint64_t(dims[i].second)};
            if (i == Gamma) {
                p.value.setOnes();
            } else if (i == Beta) {
                p.value.setZero();
            } else {
                const double fanIn = double(i == W1 || i == B1 ? in : hid);
                const double bound = 1.0 / std::sqrt(fanIn);
                for (Eigen::Index k = 0; k < p.value.size(); ++k)
                    p.value.data()[k] = static_cast<T>((2.0 * counterUniform(c.seed, stream::Init + i, k) - 1.0) * bound);
            }
        }
        return m;
    }

    /** Forward + backward of one batch; leaves the gradients in params[i].grad and returns the mean loss. */
    T forwardBackward(const Batch<T>& b)
    {
        forward(b.x);
        const Eigen::Index n = b.x.rows(), out = m_out.cols();
        T loss = 0;
        Mat<T> dOut(n, out);
        if (task == Task::Regression) {
            const T scale = T(2) / T(n * out);
            for (Eigen::Index r = 0; r < n; ++r)
                for (Eigen::Index j = 0; j < out; ++j) {
                    const T d = m_out(r, j) - b.y(r, j);
                    loss += d * d;
                    dOut(r, j) = d * scale;
                }
            loss /= T(n * out);
        } else {
            for (Eigen::Index r = 0; r < n; ++r) {
                T mx = m_out(r, 0);
                for (Eigen::Index j = 1; j < out; ++j)
                    mx = std::max(mx, m_out(r, j));
                T sum = 0;
                for (Eigen::Index j = 0; j < out; ++j)
                    sum += std::exp(m_out(r, j) - mx);
                const T logSum = std::log(sum) + mx;
                loss += logSum - m_out(r, b.label[r]);
                for (Eigen::Index j = 0; j < out; ++j)
                    dOut(r, j) = (std::exp(m_out(r, j) - logSum) - (j == Eigen::Index(b.label[r]) ? T(1) : T(0))) / T(n);
            }
            loss /= T(n);
        }
        backward(b.x, dOut);
        return loss;
    }

    /** Loss only (validation). */
    T evaluate(const Batch<T>& b)
    {
        forward(b.x);
        const Eigen::Index n = b.x.rows(), out = m_out.cols();
        T loss = 0;
        for (Eigen::Index r = 0; r < n; ++r) {
            if (task == Task::Regression) {
                for (Eigen::Index j = 0; j < out; ++j) {
                    const T d = m_out(r, j) - b.y(r, j);
                    loss += d * d;
                }
            } else {
                T mx = m_out(r, 0);
                for (Eigen::Index j = 1; j < out; ++j)
                    mx = std::max(mx, m_out(r, j));
                T sum = 0;
                for (Eigen::Index j = 0; j < out; ++j)
                    sum += std::exp(m_out(r, j) - mx);
                loss += std::log(sum) + mx - m_out(r, b.label[r]);
            }
        }
        return task == Task::Regression ? loss / T(n * out) : loss / T(n);
    }

    // Intermediate tensors of the last forward pass (for the GradientCheckpoint graph).
    const Mat<T>& preNorm() const { return m_h; }
    const Mat<T>& normalized() const { return m_y; }
    const Mat<T>& activated() const { return m_a; }
    const Mat<T>& output() const { return m_out; }

private:
    static void addRow(Mat<T>& m, const Mat<T>& row)
    {
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                m(r, j) += row(0, j);
    }
    static void columnSums(const Mat<T>& m, Mat<T>& out)
    {
        out.setZero(1, m.cols());
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                out(0, j) += m(r, j);
    }
    static T gelu(T x) { return x * T(0.5) * (T(1) + std::erf(x / std::numbers::sqrt2_v<T>)); }
    static T geluGrad(T x)
    {
        const T cdf = T(0.5) * (T(1) + std::erf(x / std::numbers::sqrt2_v<T>));
        const T pdf = std::exp(T(-0.5) * x * x) / std::sqrt(T(2) * std::numbers::pi_v<T>);
        return cdf + x * pdf;
    }

    void forward(const Mat<T>& x)
    {
        const Eigen::Index n = x.rows(), hid = params[W1].value.cols();
        m_h.noalias() = x * params[W1].value;
        addRow(m_h, params[B1].value);
        m_norm.resize(n, hid);
        m_rstd.resize(n);
        const T eps = static_cast<T>(kLayerNormEpsilon);
        for (Eigen::Index r = 0; r < n; ++r) {
            T mean = 0;
            for (Eigen::Index j = 0; j < hid; ++j)
                mean += m_h(r, j);
            mean /= T(hid);
            T var = 0;
            for (Eigen::Index j = 0; j < hid; ++j) {
                const T d = m_h(r, j) - mean;
                var += d * d;
            }
            var /= T(hid);
            const T stdev = std::sqrt(var + eps);
            m_rstd[r] = T(1) / stdev;
            for (Eigen::Index j = 0; j < hid; ++j)
                m_norm(r, j) = (m_h(r, j) - mean) / stdev;
        }
        m_y.resize(n, hid);
        m_a.resize(n, hid);
        for (Eigen::Index r = 0; r < n; ++r)
            for (Eigen::Index j = 0; j < hid; ++j) {
                const T y = m_norm(r, j) * params[Gamma].value(0, j) + params[Beta].value(0, j);
                m_y(r, j) = y;
                m_a(r, j) = activation == Activation::Relu ? std::max(y, T(0)) : gelu(y);
            }
        m_out.noalias() = m_a * params[W2].value;
        addRow(m_out, params[B2].value);
    }

    void backward(const Mat<T>& x, const Mat<T>& dOut)
    {
        const Eigen::Index n = x.rows(), hid = params[W1].value.cols();
        params[W2].grad.noalias() = m_a.transpose() * dOut;
        columnSums(dOut, params[B2].grad);
        Mat<T> dA;
        dA.noalias() = dOut * params[W2].value.transpose();
        Mat<T> dY(n, hid);
        for (Eigen::Index r = 0; r < n; ++r)
            for (Eigen::Index j = 0; j < hid; ++j) {
                const T y = m_y(r, j);
                dY(r, j) = dA(r, j) * (activation == Activation::Relu ? (y > T(0) ? T(1) : T(0)) : geluGrad(y));
            }
        Mat<T>& dGamma = params[Gamma].grad;
        Mat<T>& dBeta = params[Beta].grad;
        dGamma.setZero(1, hid);
        dBeta.setZero(1, hid);
        for (Eigen::Index r = 0; r < n; ++r)
            for (Eigen::Index j = 0; j < hid; ++j) {
                dGamma(0, j) += dY(r, j) * m_norm(r, j);
                dBeta(0, j) += dY(r, j);
            }
        Mat<T> dH(n, hid);
        for (Eigen::Index r = 0; r < n; ++r) {
            T meanD = 0, meanDN = 0;
            for (Eigen::Index j = 0; j < hid; ++j) {
                const T dn = dY(r, j) * params[Gamma].value(0, j);
                meanD += dn;
                meanDN += dn * m_norm(r, j);
            }
            meanD /= T(hid);
            meanDN /= T(hid);
            for (Eigen::Index j = 0; j < hid; ++j) {
                const T dn = dY(r, j) * params[Gamma].value(0, j);
                dH(r, j) = m_rstd[r] * (dn - meanD - m_norm(r, j) * meanDN);
            }
        }
        params[W1].grad.noalias() = x.transpose() * dH;
        columnSums(dH, params[B1].grad);
    }

    Mat<T> m_h, m_norm, m_y, m_a, m_out;
    Eigen::Matrix<T, Eigen::Dynamic, 1> m_rstd;
};

} // namespace ckpt::train
