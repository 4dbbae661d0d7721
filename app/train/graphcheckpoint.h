// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/model.h"
#include "app/train/optim.h"
#include "core/graph/car.h"
#include "core/util/error.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ckpt::train {

/**
 * The optimizer_state entry in which ckpt-train keeps its continuation state (a JSON blob); the
 * other entries are the crate's "raw optimizer state blobs, keyed by parameter name".
 */
inline constexpr const char* kResumeStateKey = "ckpt-train/resume_state";

/**
 * Records the computation of one training micro-batch as an ipfrs GradientCheckpoint
 * (format-ipfrs-gradient-checkpoint.md §1–§3): one node per op of the MLP with the CIDs (CIDv1, raw
 * codec, sha2-256) of the real tensors it consumed, produced and (for ops with parameters) of its
 * parameter gradient, written as DIR/graph/step-N.json, and the tensor blocks as DIR/graph/step-N.car.
 */
template<class T>
class GraphRecorder {
public:
    /** Keeps copies of the tensors of the micro-batch just computed (cheap for this model size). */
    void capture(const Mlp<T>& m, const Batch<T>& b, T loss);

    /**
     * Writes DIR/graph/step-N.{json,car}. Besides the graph (whose parameter inputs are the values
     * the micro-batch used, before its optimizer update) the checkpoint carries what a continuation
     * needs: the optimizer blobs after the update, and under kResumeStateKey the caller state plus
     * the CIDs of the updated parameters and of pending accumulated gradients, whose blocks go into
     * the CAR like every other tensor.
     */
    Result<void> write(const std::filesystem::path& dir, const TrainConfig& c, const TrainProgress& progress, const Mlp<T>& model,
        const std::vector<ParamState<T>>& state, const std::vector<Mat<T>>& accum);

private:
    /** Compact JSON {caller_state, parameters: {path: cid}, pending_gradients: {path: cid}}; adds the blocks. */
    std::vector<uint8_t> resumeStateBlob(const TrainConfig& c, const TrainProgress& progress, const Mlp<T>& model,
        const std::vector<Mat<T>>& accum);

    static std::vector<uint8_t> rawBytes(const Mat<T>& m);
    std::string block(const Mat<T>& m) { return addBlock(rawBytes(m)); }
    std::string addBlock(std::vector<uint8_t> bytes);
    static std::string uuid(uint64_t seed, uint64_t streamId, uint64_t counter);
    /** Unix seconds, or SOURCE_DATE_EPOCH when set (reproducible builds of demo data). */
    static uint64_t timestamp();

    bool m_valid = false;
    Task m_task = Task::Regression;
    Activation m_activation = Activation::Relu;
    /** A residual block's tensors: in*fc1.weight, + fc1.bias, layer_norm, activation, *fc2.weight, + fc2.bias, + in. */
    struct BlockCapture {
        Mat<T> inW, pre, normalized, activated, actW, branch, out;
    };
    Mat<T> m_x, m_target, m_xw1, m_h, m_y, m_a, m_aw2, m_out;
    std::vector<BlockCapture> m_blockTensors;
    std::vector<uint32_t> m_labels;
    std::vector<Mat<T>> m_values, m_grads;
    std::vector<std::string> m_paths;
    T m_loss = 0;
    std::vector<CarEntry> m_blocks;
    std::map<std::string, size_t> m_seen;
};

// Defined in graphcheckpoint.cpp for the two training dtypes.
extern template class GraphRecorder<float>;
extern template class GraphRecorder<double>;

} // namespace ckpt::train
