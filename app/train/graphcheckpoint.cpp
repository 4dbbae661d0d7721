// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/graphcheckpoint.h"

#include "core/codec/json.h"
#include "core/graph/checkpoint.h"
#include "core/graph/cid.h"
#include "core/io/bytes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ckpt::train {

template<class T>
void GraphRecorder<T>::capture(const Mlp<T>& m, const Batch<T>& b, T loss)
{
    using M = Mlp<T>;
    m_x = b.x;
    m_target = b.y;
    m_labels = b.label;
    m_task = m.task;
    m_activation = m.activation;
    m_values.resize(m.params.size());
    m_grads.resize(m.params.size());
    m_paths.resize(m.params.size());
    for (size_t i = 0; i < m.params.size(); ++i) {
        m_values[i] = m.params[i].value;
        m_grads[i] = m.params[i].grad;
        m_paths[i] = m.params[i].modulePath;
    }
    m_xw1.noalias() = b.x * m.params[M::W1].value;
    m_h = m.preNorm();
    m_y = m.normalized();
    m_a = m.activated();
    m_blockTensors.resize(m.blocks);
    for (size_t k = 0; k < m.blocks; ++k) {
        const auto& t = m.block(k);
        BlockCapture& c = m_blockTensors[k];
        c.inW.noalias() = m.blockInput(k) * m.params[M::blockParam(k, M::Fc1W)].value;
        c.pre = t.pre;
        c.normalized = t.normalized;
        c.activated = t.activated;
        c.actW.noalias() = t.activated * m.params[M::blockParam(k, M::Fc2W)].value;
        c.branch = t.branch;
        c.out = t.out;
    }
    m_aw2.noalias() = m.blockInput(m.blocks) * m.params[M::W2].value;
    m_out = m.output();
    m_loss = loss;
    m_valid = true;
}

template<class T>
Result<void> GraphRecorder<T>::write(const std::filesystem::path& dir, const TrainConfig& c, const TrainProgress& progress, const Mlp<T>& model,
    const std::vector<ParamState<T>>& state, const std::vector<Mat<T>>& accum)
{
    const uint64_t step = progress.step;
    if (!m_valid)
        return {}; // nothing computed in this process yet (a continuation stopped before its first step)
    using M = Mlp<T>;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    m_blocks.clear();
    m_seen.clear();
    const char* dt = std::is_same_v<T, double> ? "f64" : "f32";

    struct NodeSpec {
        std::string op;
        std::vector<std::string> inputs;
        std::string output;
        std::string gradient;
        std::vector<std::pair<std::string, std::string>> meta;
    };
    std::vector<NodeSpec> nodes;
    const std::string x = block(m_x), w1 = block(m_values[M::W1]), b1 = block(m_values[M::B1]), gamma = block(m_values[M::Gamma]),
                      beta = block(m_values[M::Beta]), w2 = block(m_values[M::W2]), b2 = block(m_values[M::B2]);
    const std::string xw1 = block(m_xw1), h = block(m_h), y = block(m_y), a = block(m_a), aw2 = block(m_aw2), out = block(m_out);
    Mat<T> lossM(1, 1);
    lossM(0, 0) = m_loss;
    const std::string loss = block(lossM);
    std::string target;
    if (m_task == Task::Regression) {
        target = block(m_target);
    } else {
        std::vector<uint8_t> bytes(m_labels.size() * 4);
        std::memcpy(bytes.data(), m_labels.data(), bytes.size());
        target = addBlock(std::move(bytes));
    }
    auto shape = [](const Mat<T>& m) { return "[" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "]"; };
    nodes.push_back({"input", {}, x, "", {{"dtype", dt}, {"shape", shape(m_x)}}});
    nodes.push_back({"input", {}, target, "", {{"dtype", m_task == Task::Regression ? dt : "u32"}, {"role", "target"}}});
    nodes.push_back({"matmul", {x, w1}, xw1, block(m_grads[M::W1]), {{"dtype", dt}, {"shape", shape(m_xw1)}, {"weight", m_paths[M::W1]}}});
    nodes.push_back({"add", {xw1, b1}, h, block(m_grads[M::B1]), {{"dtype", dt}, {"shape", shape(m_h)}, {"weight", m_paths[M::B1]}}});
    nodes.push_back({"layer_norm", {h, gamma, beta}, y, block(m_grads[M::Gamma]),
        {{"dtype", dt}, {"shape", shape(m_y)}, {"weight", m_paths[M::Gamma]}, {"beta_gradient_cid", block(m_grads[M::Beta])}, {"epsilon", "0.00001"}}});
    nodes.push_back({std::string(activationName(m_activation)), {y}, a, "", {{"dtype", dt}, {"shape", shape(m_a)}}});
    // Each residual block: fc1 (matmul, add), layer_norm, activation, fc2 (matmul, add), and the residual add.
    std::string z = a;
    for (size_t k = 0; k < m_blockTensors.size(); ++k) {
        const BlockCapture& bc = m_blockTensors[k];
        auto param = [&](size_t which) { return M::blockParam(k, which); };
        const std::string inW = block(bc.inW), pre = block(bc.pre), normalized = block(bc.normalized), activated = block(bc.activated),
                          actW = block(bc.actW), branch = block(bc.branch), out = block(bc.out);
        nodes.push_back({"matmul", {z, block(m_values[param(M::Fc1W)])}, inW, block(m_grads[param(M::Fc1W)]),
            {{"dtype", dt}, {"shape", shape(bc.inW)}, {"weight", m_paths[param(M::Fc1W)]}}});
        nodes.push_back({"add", {inW, block(m_values[param(M::Fc1B)])}, pre, block(m_grads[param(M::Fc1B)]),
            {{"dtype", dt}, {"shape", shape(bc.pre)}, {"weight", m_paths[param(M::Fc1B)]}}});
        nodes.push_back({"layer_norm", {pre, block(m_values[param(M::NormGamma)]), block(m_values[param(M::NormBeta)])}, normalized,
            block(m_grads[param(M::NormGamma)]),
            {{"dtype", dt}, {"shape", shape(bc.normalized)}, {"weight", m_paths[param(M::NormGamma)]},
                {"beta_gradient_cid", block(m_grads[param(M::NormBeta)])}, {"epsilon", "0.00001"}}});
        nodes.push_back({std::string(activationName(m_activation)), {normalized}, activated, "", {{"dtype", dt}, {"shape", shape(bc.activated)}}});
        nodes.push_back({"matmul", {activated, block(m_values[param(M::Fc2W)])}, actW, block(m_grads[param(M::Fc2W)]),
            {{"dtype", dt}, {"shape", shape(bc.actW)}, {"weight", m_paths[param(M::Fc2W)]}}});
        nodes.push_back({"add", {actW, block(m_values[param(M::Fc2B)])}, branch, block(m_grads[param(M::Fc2B)]),
            {{"dtype", dt}, {"shape", shape(bc.branch)}, {"weight", m_paths[param(M::Fc2B)]}}});
        nodes.push_back({"add", {z, branch}, out, "", {{"dtype", dt}, {"shape", shape(bc.out)}, {"role", "residual"}}});
        z = out;
    }
    nodes.push_back({"matmul", {z, w2}, aw2, block(m_grads[M::W2]), {{"dtype", dt}, {"shape", shape(m_aw2)}, {"weight", m_paths[M::W2]}}});
    nodes.push_back({"add", {aw2, b2}, out, block(m_grads[M::B2]), {{"dtype", dt}, {"shape", shape(m_out)}, {"weight", m_paths[M::B2]}}});
    nodes.push_back({m_task == Task::Regression ? "mse_loss" : "cross_entropy_loss", {out, target}, loss, "", {{"dtype", dt}, {"shape", "[1]"}}});

    // Node ids: UUID v4 text, derived from (seed, step) so that the same step always gets the same ids.
    // The first 64 nodes keep the ids of the plain MLP's graph; a deeper model's further nodes draw from
    // their own stream (step * 64 + i would reach into the next step's ids).
    std::vector<std::string> ids;
    for (size_t i = 0; i < nodes.size(); ++i)
        ids.push_back(i < 64 ? uuid(c.seed, stream::GraphIds, step * 64 + i) : uuid(c.seed, stream::DeepGraphIds, (step << 20) + i));

    // Edges exactly as ComputationGraphStore::add_node derives them when nodes are added in order.
    std::vector<std::pair<std::string, std::string>> edges;
    for (size_t i = 0; i < nodes.size(); ++i)
        for (size_t p = 0; p < i; ++p)
            if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), nodes[p].output) != nodes[i].inputs.end())
                edges.emplace_back(ids[p], ids[i]);

    // The checkpoint goes through core's writer (saveGradientCheckpoint, GradientCheckpoint::save's
    // bytes), the one that `ckpt resave` and the app use.
    GradientCheckpoint checkpoint;
    for (size_t i = 0; i < nodes.size(); ++i) {
        NodeSpec& n = nodes[i];
        ComputationNode node{ids[i], std::move(n.op), std::move(n.inputs), std::move(n.output), std::nullopt, std::move(n.meta)};
        if (!n.gradient.empty())
            node.gradientCid = std::move(n.gradient);
        checkpoint.graph.nodes.emplace_back(ids[i], std::move(node));
    }
    checkpoint.graph.edges = std::move(edges);
    checkpoint.step = step;
    checkpoint.lossCid = loss;
    auto blob = [&](std::string key, std::vector<uint8_t> bytes) { checkpoint.optimizerState.push_back({std::move(key), std::move(bytes)}); };
    for (size_t i : model.declarationOrder()) {
        const auto& s = state[i];
        if (!s.present)
            continue;
        const std::string& name = model.params[i].modulePath;
        if (c.optimizer == OptimizerKind::Sgd) {
            if (s.velocity)
                blob(name + "/momentum_buffer", rawBytes(*s.velocity));
        } else {
            blob(name + "/exp_avg", rawBytes(s.moment1));
            blob(name + "/exp_avg_sq", rawBytes(s.moment2));
            if (s.maxMoment2)
                blob(name + "/max_exp_avg_sq", rawBytes(*s.maxMoment2));
            std::vector<uint8_t> t(8);
            std::memcpy(t.data(), &s.time, 8);
            blob(name + "/step", std::move(t));
        }
    }
    blob(kResumeStateKey, resumeStateBlob(c, progress, model, accum));
    checkpoint.timestamp = timestamp();
    const auto jsonPath = dir / ("step-" + std::to_string(step) + ".json");
    if (auto r = writeFileAtomic(jsonPath.string(), saveGradientCheckpoint(checkpoint)); !r)
        return std::unexpected(std::move(r.error()).withFile(jsonPath.string()));

    auto lossCid = parseCid(loss);
    std::vector<Cid> roots;
    if (lossCid)
        roots.push_back(*lossCid);
    const std::vector<uint8_t> car = writeCar(roots, m_blocks);
    const auto carPath = dir / ("step-" + std::to_string(step) + ".car");
    if (auto r = writeFileAtomic(carPath.string(), car); !r)
        return std::unexpected(std::move(r.error()).withFile(carPath.string()));
    return {};
}

template<class T>
std::vector<uint8_t> GraphRecorder<T>::resumeStateBlob(const TrainConfig& c, const TrainProgress& progress, const Mlp<T>& model,
    const std::vector<Mat<T>>& accum)
{
    const std::vector<size_t> order = model.declarationOrder();
    TapeBuilder b;
    b.beginMap();
    b.key("caller_state");
    writeCallerState(b, c, progress);
    b.key("parameters");
    b.beginMap();
    for (size_t i : order) {
        b.key(model.params[i].modulePath);
        b.str(block(model.params[i].value));
    }
    b.end();
    b.key("pending_gradients");
    b.beginMap();
    if (progress.pendingMicroBatches > 0)
        for (size_t i : order) {
            b.key(model.params[i].modulePath);
            b.str(block(accum[i]));
        }
    b.end();
    b.end();
    const Tape tape = std::move(b).finish();
    Sink sink;
    writeJson(tape, tape.root(), JsonStyle::Compact, sink);
    return sink.buffer();
}

template<class T>
std::vector<uint8_t> GraphRecorder<T>::rawBytes(const Mat<T>& m)
{
    std::vector<uint8_t> bytes(static_cast<size_t>(m.size()) * sizeof(T));
    std::memcpy(bytes.data(), m.data(), bytes.size()); // row-major, little endian on every target we build for
    return bytes;
}

template<class T>
std::string GraphRecorder<T>::addBlock(std::vector<uint8_t> bytes)
{
    Cid cid = computeCid(bytes, multicodec::Raw);
    std::string text = cid.toString();
    if (m_seen.emplace(text, m_blocks.size()).second)
        m_blocks.push_back(CarEntry{std::move(cid), std::move(bytes)});
    return text;
}

template<class T>
std::string GraphRecorder<T>::uuid(uint64_t seed, uint64_t streamId, uint64_t counter)
{
    uint64_t hi = counterRandom(seed, streamId, 2 * counter), lo = counterRandom(seed, streamId, 2 * counter + 1);
    hi = (hi & ~0xF000ULL) | 0x4000ULL;              // version 4
    lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);  // RFC 4122 variant
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(hi >> 32),
        static_cast<unsigned long long>((hi >> 16) & 0xFFFF), static_cast<unsigned long long>(hi & 0xFFFF),
        static_cast<unsigned long long>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
    return buf;
}

template<class T>
uint64_t GraphRecorder<T>::timestamp()
{
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH"))
        return std::strtoull(e, nullptr, 10);
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

template class GraphRecorder<float>;
template class GraphRecorder<double>;

} // namespace ckpt::train
