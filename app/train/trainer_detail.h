// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Private to app/train: what trainer.cpp (the run loop), resume.cpp (the two resume paths) and
// recordwriter.cpp (the checkpoint's files) share. Not part of trainer.h's interface.

#include "app/train/config.h"
#include "app/train/graphcheckpoint.h"
#include "app/train/metriclog.h"
#include "app/train/model.h"
#include "app/train/optim.h"
#include "app/train/trainer.h"
#include "core/record/record.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/value/tape.h"

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::train::detail {

namespace fs = std::filesystem;

inline std::unexpected<Error> invalid(std::string what, std::string path = {})
{
    auto e = fail(ErrorCode::Invalid, std::move(what));
    e.error().recordPath = std::move(path);
    return e;
}

/**
 * One run's whole training state and its loop. The members live in three files: trainer.cpp (the run
 * loop), resume.cpp (restore, restoreGraph and what they check) and recordwriter.cpp (the records a
 * checkpoint writes); each instantiates its part for float and double.
 */
template<class T>
class Trainer {
public:
    Trainer(const TrainConfig& c, std::string outDir);

    /** Restores the whole training state from a record; nothing is trained if this fails. */
    Result<void> restore(const Record& rec, const TrainProgress& progress, std::vector<std::string>& notes);

    /** Takes the recorded progress; it must add up before anything else is trusted. */
    Result<void> adoptProgress(const TrainProgress& progress, const std::string& path);

    void noteProgressEdits(std::vector<std::string>& notes);

    /** Where an unedited run's scheduler is after the recorded progress. */
    Scheduler expectedScheduler() const;

    /**
     * Restores the whole training state from a GradientCheckpoint written by ckpt-train: parameters
     * and pending gradients from hash-checked CAR blocks, optimizer state from the blobs, progress from
     * the caller state, the scheduler from the configuration (a GradientCheckpoint has no scheduler
     * record: it is where an unedited run is).
     */
    Result<void> restoreGraph(const GraphResumeSource& src, const TrainProgress& progress, std::vector<std::string>& notes);

    /** Native little-endian T elements (as GraphRecorder wrote them) of a parameter's shape. */
    static Result<void> rawInto(std::span<const uint8_t> bytes, const Param<T>& p, const std::string& what, Mat<T>& out);

    void startFresh();

    TrainProgress& progress() { return m_p; }

    int run(uint64_t target, bool continuation);

private:
    void noteRounding(DType dt, std::vector<std::string>& notes);

    Result<void> readOptimizerEntry(const Tape& t, uint32_t entry, const std::string& path, const Param<T>& p, ParamState<T>& s,
        std::vector<std::string>& notes);

    void sampleBatch(Batch<T>& b);

    void endEpoch();

    // ---- records ---------------------------------------------------------------------------------

    void writeParam(TapeBuilder& b, const Param<T>& p, Precision pr);

    /** The members \a fields of a module's record, in their order: each a name and its Param. */
    void writeParams(TapeBuilder& b, std::initializer_list<std::pair<std::string_view, const Param<T>*>> fields, Precision pr);
    void writeLinear(TapeBuilder& b, const Param<T>& weight, const Param<T>& bias, Precision pr);

    void writeLayerNorm(TapeBuilder& b, const Param<T>& gamma, const Param<T>& beta, Precision pr);

    /**
     * struct Mlp { input: Linear, norm: LayerNorm, activation: Relu|Gelu, blocks: Vec<Block>, output: Linear }
     * with struct Block { fc1: Linear, norm: LayerNorm, fc2: Linear }, as a record item.
     */
    void writeModule(TapeBuilder& b, Precision pr);

    /** HashMap<ParamId, AdaptorRecord>: {id: {"V1": {"Rank<D>": state}}}, in declaration order. */
    void writeOptimizer(TapeBuilder& b, Precision pr);

    /** GradientsParamsRecord {gradients: [(u64 id, native DType, TensorData)]}, sorted by id. */
    void writeGradients(TapeBuilder& b, Precision pr);

    Result<void> save(TapeBuilder&& b, const fs::path& path, const BincodeSchema* schema = nullptr);

public:
    /** The TrainingRecord envelope {metadata, item: [module, optimizer, scheduler, gradients, state], _b} without its end. */
    void writeTrainingItem(TapeBuilder& b, const Metadata& meta);

private:
    Result<void> checkpoint();

    int reportError(const Error& e);

    TrainConfig m_c;
    std::string m_out;
    Mlp<T> m_model;
    Optimizer<T> m_optim;
    Scheduler m_sched;
    Dataset m_data;
    MetricLogs m_logs;
    TrainProgress m_p;
    std::vector<Mat<T>> m_accum; ///< pending accumulated gradients, one per parameter
    GraphRecorder<T> m_graph;
    bool m_roundingNoted = false;
};

} // namespace ckpt::train::detail
