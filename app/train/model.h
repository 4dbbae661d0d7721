// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "app/train/rng.h"

#include <Eigen/Core>

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

    static Dataset generate(const TrainConfig& c);
};

/** A mini-batch in the training dtype. */
template<class T>
struct Batch {
    Mat<T> x, y;
    std::vector<uint32_t> label;
};

/**
 * input -> Linear -> LayerNorm -> ReLU|GELU -> N x Block -> Linear -> output, as a Burn module would declare it:
 *   struct Mlp { input: Linear, norm: LayerNorm, activation: Relu, blocks: Vec<Block>, output: Linear }
 *   struct Block { fc1: Linear, norm: LayerNorm, fc2: Linear }     // h + fc2(act(norm(fc1(h))))
 * (a Block applies the Mlp's activation function; N = 0 is the plain MLP, computed exactly as before
 * blocks existed). Forward and backward are written out by hand with a fixed summation order (explicit
 * loops for every reduction, Eigen's single-threaded GEMM for the products), so a step is bit-for-bit
 * reproducible.
 */
template<class T>
class Mlp {
public:
    /** The Mlp's own parameters, params[0..Count). */
    enum : size_t { W1, B1, Gamma, Beta, W2, B2, Count };
    /** A block's parameters, params[blockParam(block, k)]. */
    enum : size_t { Fc1W, Fc1B, NormGamma, NormBeta, Fc2W, Fc2B, BlockParams };
    std::vector<Param<T>> params;
    size_t blocks = 0;
    Activation activation = Activation::Relu;
    Task task = Task::Regression;
    static constexpr double kLayerNormEpsilon = 1e-5; ///< Burn's LayerNormConfig default

    Mlp() = default;

    static size_t blockParam(size_t block, size_t k) { return Count + BlockParams * block + k; }

    /** Parameter indices in the module's declaration order (input, norm, blocks[0..N), output): the order records list them in. */
    std::vector<size_t> declarationOrder() const;

    /** Burn-like init: Linear weights and biases ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (KaimingUniform with gain 1/sqrt(3)), LayerNorm gamma 1, beta 0. */
    static Mlp create(const TrainConfig& c);

    /** Forward + backward of one batch; leaves the gradients in params[i].grad and returns the mean loss. */
    T forwardBackward(const Batch<T>& b);

    /** Loss only (validation). */
    T evaluate(const Batch<T>& b);

    /** What one block computed in the last forward pass: in -> fc1 (pre) -> norm (normalized) -> act (activated) -> fc2 (branch) -> in + branch (out). */
    struct BlockTensors {
        Mat<T> pre, norm, normalized, activated, branch, out;
        Eigen::Matrix<T, Eigen::Dynamic, 1> rstd;
    };

    // Intermediate tensors of the last forward pass (for the GradientCheckpoint graph).
    const Mat<T>& preNorm() const { return m_h; }
    const Mat<T>& normalized() const { return m_y; }
    const Mat<T>& activated() const { return m_a; }
    const BlockTensors& block(size_t b) const { return m_blocks[b]; }
    /** The input of block \a b (block N: of the output Linear). */
    const Mat<T>& blockInput(size_t b) const { return b == 0 ? m_a : m_blocks[b - 1].out; }
    const Mat<T>& output() const { return m_out; }

private:
    /** The mean loss of the last forward pass against \a b and, when \a dOut is given, its gradient there. */
    T lossOf(const Batch<T>& b, Mat<T>* dOut) const;

    static void addRow(Mat<T>& m, const Mat<T>& row);
    static void columnSums(const Mat<T>& m, Mat<T>& out);
    static T gelu(T x) { return x * T(0.5) * (T(1) + std::erf(x / std::numbers::sqrt2_v<T>)); }
    static T geluGrad(T x)
    {
        const T cdf = T(0.5) * (T(1) + std::erf(x / std::numbers::sqrt2_v<T>));
        const T pdf = std::exp(T(-0.5) * x * x) / std::sqrt(T(2) * std::numbers::pi_v<T>);
        return cdf + x * pdf;
    }

    /** h -> LayerNorm(gamma, beta) -> activation: the normalized rows, 1/std per row, y = affine output, a = act(y). */
    void normActForward(const Mat<T>& h, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>& norm, Eigen::Matrix<T, Eigen::Dynamic, 1>& rstd,
        Mat<T>& y, Mat<T>& a) const;

    /** Backward of normActForward: from dA (gradient of a) to the gradients of gamma, beta and dH (of h). */
    void normActBackward(const Mat<T>& dA, const Mat<T>& y, const Mat<T>& norm, const Eigen::Matrix<T, Eigen::Dynamic, 1>& rstd,
        const Mat<T>& gamma, Mat<T>& dGamma, Mat<T>& dBeta, Mat<T>& dH) const;

    void forward(const Mat<T>& x);
    void backward(const Mat<T>& x, const Mat<T>& dOut);

    Mat<T> m_h, m_norm, m_y, m_a, m_out;
    Eigen::Matrix<T, Eigen::Dynamic, 1> m_rstd;
    std::vector<BlockTensors> m_blocks;
};

// Defined in model.cpp for the two training dtypes.
extern template class Mlp<float>;
extern template class Mlp<double>;

} // namespace ckpt::train
