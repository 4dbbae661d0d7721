// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/model.h"

#include <algorithm>
#include <array>
#include <utility>

namespace ckpt::train {

Dataset Dataset::generate(const TrainConfig& c)
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

template<class T>
std::vector<size_t> Mlp<T>::declarationOrder() const
{
    std::vector<size_t> order = {W1, B1, Gamma, Beta};
    for (size_t i = Count; i < params.size(); ++i)
        order.push_back(i);
    order.push_back(W2);
    order.push_back(B2);
    return order;
}

template<class T>
Mlp<T> Mlp<T>::create(const TrainConfig& c)
{
    Mlp m;
    m.activation = c.activation;
    m.task = c.task;
    m.blocks = static_cast<size_t>(c.blocks);
    m.params.resize(static_cast<size_t>(c.paramCount()));
    m.m_blocks.resize(m.blocks);
    const auto in = static_cast<Eigen::Index>(c.inputDim), hid = static_cast<Eigen::Index>(c.hidden),
               out = static_cast<Eigen::Index>(c.outputDim);
    // Ids come from the parameter's index, so the six of the plain MLP keep theirs whatever N is.
    auto shapeParam = [&](size_t i, std::string path, Eigen::Index rows, Eigen::Index cols) -> Param<T>& {
        Param<T>& p = m.params[i];
        p.modulePath = std::move(path);
        p.id = counterRandom(c.seed, stream::ParamIds, i);
        p.value.resize(rows, cols);
        p.grad.setZero(rows, cols);
        p.shape = rows == 1 ? std::vector<uint64_t>{uint64_t(cols)} : std::vector<uint64_t>{uint64_t(rows), uint64_t(cols)};
        return p;
    };
    const std::array<const char*, Count> names = {"input.weight", "input.bias", "norm.gamma", "norm.beta", "output.weight", "output.bias"};
    const std::array<std::pair<Eigen::Index, Eigen::Index>, Count> dims = {{{in, hid}, {1, hid}, {1, hid}, {1, hid}, {hid, out}, {1, out}}};
    for (size_t i = 0; i < Count; ++i) {
        Param<T>& p = shapeParam(i, names[i], dims[i].first, dims[i].second);
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
    const std::array<const char*, BlockParams> blockNames = {"fc1.weight", "fc1.bias", "norm.gamma", "norm.beta", "fc2.weight", "fc2.bias"};
    const double bound = 1.0 / std::sqrt(double(hid)); // every Linear of a block has fan_in = hidden
    for (size_t b = 0; b < m.blocks; ++b)
        for (size_t k = 0; k < BlockParams; ++k) {
            const size_t i = blockParam(b, k);
            const bool matrix = k == Fc1W || k == Fc2W;
            Param<T>& p = shapeParam(i, "blocks." + std::to_string(b) + "." + blockNames[k], matrix ? hid : 1, hid);
            if (k == NormGamma) {
                p.value.setOnes();
            } else if (k == NormBeta) {
                p.value.setZero();
            } else {
                // One stream for all blocks (stream::Init + i would run into the other streams' numbers).
                for (Eigen::Index e = 0; e < p.value.size(); ++e)
                    p.value.data()[e] = static_cast<T>(
                        (2.0 * counterUniform(c.seed, stream::BlockInit, (uint64_t(i) << 32) + uint64_t(e)) - 1.0) * bound);
            }
        }
    return m;
}

template<class T>
T Mlp<T>::lossOf(const Batch<T>& b, Mat<T>* dOut) const
{
    const Eigen::Index n = b.x.rows(), out = m_out.cols();
    T loss = 0;
    if (task == Task::Regression) {
        const T scale = T(2) / T(n * out);
        for (Eigen::Index r = 0; r < n; ++r)
            for (Eigen::Index j = 0; j < out; ++j) {
                const T d = m_out(r, j) - b.y(r, j);
                loss += d * d;
                if (dOut)
                    (*dOut)(r, j) = d * scale;
            }
        return loss / T(n * out);
    }
    for (Eigen::Index r = 0; r < n; ++r) {
        T mx = m_out(r, 0);
        for (Eigen::Index j = 1; j < out; ++j)
            mx = std::max(mx, m_out(r, j));
        T sum = 0;
        for (Eigen::Index j = 0; j < out; ++j)
            sum += std::exp(m_out(r, j) - mx);
        const T logSum = std::log(sum) + mx;
        loss += logSum - m_out(r, b.label[r]);
        if (dOut)
            for (Eigen::Index j = 0; j < out; ++j)
                (*dOut)(r, j) = (std::exp(m_out(r, j) - logSum) - (j == Eigen::Index(b.label[r]) ? T(1) : T(0))) / T(n);
    }
    return loss / T(n);
}

template<class T>
T Mlp<T>::forwardBackward(const Batch<T>& b)
{
    forward(b.x);
    Mat<T> dOut(b.x.rows(), m_out.cols());
    const T loss = lossOf(b, &dOut);
    backward(b.x, dOut);
    return loss;
}

template<class T>
T Mlp<T>::evaluate(const Batch<T>& b)
{
    forward(b.x);
    return lossOf(b, nullptr);
}

template<class T>
void Mlp<T>::addRow(Mat<T>& m, const Mat<T>& row)
{
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            m(r, j) += row(0, j);
}

template<class T>
void Mlp<T>::columnSums(const Mat<T>& m, Mat<T>& out)
{
    out.setZero(1, m.cols());
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            out(0, j) += m(r, j);
}

template<class T>
void Mlp<T>::normActForward(const Mat<T>& h, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>& norm, Eigen::Matrix<T, Eigen::Dynamic, 1>& rstd,
    Mat<T>& y, Mat<T>& a) const
{
    const Eigen::Index n = h.rows(), hid = h.cols();
    norm.resize(n, hid);
    rstd.resize(n);
    const T eps = static_cast<T>(kLayerNormEpsilon);
    for (Eigen::Index r = 0; r < n; ++r) {
        T mean = 0;
        for (Eigen::Index j = 0; j < hid; ++j)
            mean += h(r, j);
        mean /= T(hid);
        T var = 0;
        for (Eigen::Index j = 0; j < hid; ++j) {
            const T d = h(r, j) - mean;
            var += d * d;
        }
        var /= T(hid);
        const T stdev = std::sqrt(var + eps);
        rstd[r] = T(1) / stdev;
        for (Eigen::Index j = 0; j < hid; ++j)
            norm(r, j) = (h(r, j) - mean) / stdev;
    }
    y.resize(n, hid);
    a.resize(n, hid);
    for (Eigen::Index r = 0; r < n; ++r)
        for (Eigen::Index j = 0; j < hid; ++j) {
            const T v = norm(r, j) * gamma(0, j) + beta(0, j);
            y(r, j) = v;
            a(r, j) = activation == Activation::Relu ? std::max(v, T(0)) : gelu(v);
        }
}

template<class T>
void Mlp<T>::normActBackward(const Mat<T>& dA, const Mat<T>& y, const Mat<T>& norm, const Eigen::Matrix<T, Eigen::Dynamic, 1>& rstd,
    const Mat<T>& gamma, Mat<T>& dGamma, Mat<T>& dBeta, Mat<T>& dH) const
{
    const Eigen::Index n = dA.rows(), hid = dA.cols();
    Mat<T> dY(n, hid);
    for (Eigen::Index r = 0; r < n; ++r)
        for (Eigen::Index j = 0; j < hid; ++j) {
            const T v = y(r, j);
            dY(r, j) = dA(r, j) * (activation == Activation::Relu ? (v > T(0) ? T(1) : T(0)) : geluGrad(v));
        }
    dGamma.setZero(1, hid);
    dBeta.setZero(1, hid);
    for (Eigen::Index r = 0; r < n; ++r)
        for (Eigen::Index j = 0; j < hid; ++j) {
            dGamma(0, j) += dY(r, j) * norm(r, j);
            dBeta(0, j) += dY(r, j);
        }
    dH.resize(n, hid);
    for (Eigen::Index r = 0; r < n; ++r) {
        T meanD = 0, meanDN = 0;
        for (Eigen::Index j = 0; j < hid; ++j) {
            const T dn = dY(r, j) * gamma(0, j);
            meanD += dn;
            meanDN += dn * norm(r, j);
        }
        meanD /= T(hid);
        meanDN /= T(hid);
        for (Eigen::Index j = 0; j < hid; ++j) {
            const T dn = dY(r, j) * gamma(0, j);
            dH(r, j) = rstd[r] * (dn - meanD - norm(r, j) * meanDN);
        }
    }
}

template<class T>
void Mlp<T>::forward(const Mat<T>& x)
{
    m_h.noalias() = x * params[W1].value;
    addRow(m_h, params[B1].value);
    normActForward(m_h, params[Gamma].value, params[Beta].value, m_norm, m_rstd, m_y, m_a);
    for (size_t b = 0; b < blocks; ++b) {
        BlockTensors& k = m_blocks[b];
        const Mat<T>& in = blockInput(b);
        k.pre.noalias() = in * params[blockParam(b, Fc1W)].value;
        addRow(k.pre, params[blockParam(b, Fc1B)].value);
        normActForward(k.pre, params[blockParam(b, NormGamma)].value, params[blockParam(b, NormBeta)].value, k.norm, k.rstd,
            k.normalized, k.activated);
        k.branch.noalias() = k.activated * params[blockParam(b, Fc2W)].value;
        addRow(k.branch, params[blockParam(b, Fc2B)].value);
        k.out = in + k.branch; // the residual connection (element-wise: no summation order to fix)
    }
    m_out.noalias() = blockInput(blocks) * params[W2].value;
    addRow(m_out, params[B2].value);
}

template<class T>
void Mlp<T>::backward(const Mat<T>& x, const Mat<T>& dOut)
{
    params[W2].grad.noalias() = blockInput(blocks).transpose() * dOut;
    columnSums(dOut, params[B2].grad);
    Mat<T> dZ; // gradient of the current block's output, then of its input
    dZ.noalias() = dOut * params[W2].value.transpose();
    for (size_t b = blocks; b-- > 0;) {
        const BlockTensors& k = m_blocks[b];
        Param<T>& fc2w = params[blockParam(b, Fc2W)];
        Param<T>& fc1w = params[blockParam(b, Fc1W)];
        fc2w.grad.noalias() = k.activated.transpose() * dZ;
        columnSums(dZ, params[blockParam(b, Fc2B)].grad);
        Mat<T> dA, dPre, dIn;
        dA.noalias() = dZ * fc2w.value.transpose();
        normActBackward(dA, k.normalized, k.norm, k.rstd, params[blockParam(b, NormGamma)].value, params[blockParam(b, NormGamma)].grad,
            params[blockParam(b, NormBeta)].grad, dPre);
        fc1w.grad.noalias() = blockInput(b).transpose() * dPre;
        columnSums(dPre, params[blockParam(b, Fc1B)].grad);
        dIn.noalias() = dPre * fc1w.value.transpose();
        dZ += dIn; // the residual path carries dZ through unchanged
    }
    Mat<T> dH;
    normActBackward(dZ, m_y, m_norm, m_rstd, params[Gamma].value, params[Gamma].grad, params[Beta].grad, dH);
    params[W1].grad.noalias() = x.transpose() * dH;
    columnSums(dH, params[B1].grad);
}

template class Mlp<float>;
template class Mlp<double>;

} // namespace ckpt::train
