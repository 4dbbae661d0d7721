// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/recorder.h"
#include "core/util/error.h"
#include "core/value/tape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::train {

enum class Task { Regression, Classification };
enum class OptimizerKind { Sgd, Adam, AdamW };
enum class SchedulerKind { Constant, Step, Linear, Cosine, Exponential, Noam };
enum class Activation { Relu, Gelu };
enum class TrainDType { F32, F64 };

/** Which files a checkpoint writes (bit set). */
enum LayoutBits : uint32_t { LayoutTrainingRecord = 1, LayoutBurnRun = 2, LayoutGradientCheckpoint = 4, LayoutAll = 7 };

std::string_view taskName(Task t);
std::string_view optimizerName(OptimizerKind k);
std::string_view schedulerName(SchedulerKind k);
std::string_view activationName(Activation a);
std::string_view dtypeName(TrainDType d);
std::string layoutName(uint32_t bits);
bool parseTask(std::string_view s, Task& out);
bool parseOptimizer(std::string_view s, OptimizerKind& out);
bool parseScheduler(std::string_view s, SchedulerKind& out);
bool parseActivation(std::string_view s, Activation& out);
bool parseDType(std::string_view s, TrainDType& out);
bool parseLayout(std::string_view s, uint32_t& out);

/**
 * Everything that defines a run. Hyperparameters keep Burn's Rust types: Adam/AdamW betas, epsilon and
 * weight decay are f32 in Burn's configs, SGD momentum/dampening f64, learning rates f64; the caller
 * state stores them with those widths so a resumed run computes with exactly the same scalars.
 */
struct TrainConfig {
    // model
    uint64_t inputDim = 8;
    uint64_t hidden = 32;
    uint64_t outputDim = 1;      ///< classes for classification
    Activation activation = Activation::Relu;
    uint64_t blocks = 0;         ///< residual blocks h + fc2(act(norm(fc1(h)))) between the activation and `output`
    // data
    Task task = Task::Regression;
    TrainDType dtype = TrainDType::F32;
    uint64_t batchSize = 32;
    uint64_t datasetSize = 2048;
    uint64_t validSize = 256;
    uint64_t seed = 42;
    // optimizer
    OptimizerKind optimizer = OptimizerKind::Adam;
    double lr = 3e-3;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float epsilon = 1e-5f;
    float weightDecay = 0.0f;    ///< Adam: L2 penalty added to the gradient; AdamW: decoupled decay; SGD: L2 penalty
    bool amsgrad = false;
    double momentum = 0.9;       ///< SGD; 0 = no momentum state (Burn's `momentum: None`)
    double dampening = 0.0;
    bool nesterov = false;
    // scheduler
    SchedulerKind scheduler = SchedulerKind::Constant;
    double schedGamma = 0.5;     ///< step: factor per step_size; exponential: factor per step
    uint64_t schedStepSize = 500;///< step scheduler (fixed default, not derived from --steps: a run stopped early and
                                 ///< extended with --resume --steps N must see the same schedule)
    double schedFinalLr = 3e-4;  ///< linear: final lr; cosine: min lr
    uint64_t schedIters = 2000;  ///< linear / cosine: num_iters (cosine restarts after it, as Burn's does)
    uint64_t warmupSteps = 100;  ///< noam
    uint64_t embeddingSize = 32; ///< noam
    // run
    Recorder recorder = Recorder::NamedMpk;
    Precision precision = Precision::Full;
    uint64_t checkpointEvery = 500;
    uint64_t gradAccum = 1;
    uint64_t steps = 2000;       ///< total micro-batch steps of the run as first configured
    uint32_t layout = LayoutAll;
    /**
     * From this micro-batch step on (the N of `step=N`), the optimizer applies the learning rate times
     * kDivergeFactor: a demo of a run that blows up late. The scheduler, the `lr=` lines and
     * progress.last_lr keep the scheduled value, as a real run's logs would. nullopt = never.
     */
    std::optional<uint64_t> divergeAt;

    static constexpr double kDivergeFactor = 1e6;

    /** input, norm and output (6) and fc1, norm, fc2 of every block (6 each). */
    uint64_t paramCount() const { return 6 + 6 * blocks; }
};

/** Where the run is. Every field is honoured on resume exactly as recorded (edits included). */
struct TrainProgress {
    uint64_t step = 0;            ///< micro-batches trained (the `step=N` of the metric lines)
    uint64_t optimizerSteps = 0;  ///< optimizer updates applied (= Adam's `time`)
    uint64_t pendingMicroBatches = 0; ///< micro-batches accumulated into the pending gradients
    uint64_t epoch = 1;           ///< 1-based epoch the next micro-batch belongs to
    uint64_t dataCursor = 0;      ///< samples of the current epoch already consumed
    uint64_t samplesSeen = 0;
    uint64_t rngCounter = 0;      ///< counter of the batch-sampling stream
    uint64_t stopStep = 0;        ///< where a continuation stops unless --steps says otherwise
    double lastLr = 0.0;          ///< learning rate of the current accumulation window
    /**
     * Last losses (for humans; not used by the computation). A Rust Vec<Option<f64>>: a non-finite loss
     * is None, because serde_json writes NaN and ±inf as null, which an f64 cannot read back.
     */
    std::vector<std::optional<double>> lossTail;
};

/** Writes the caller state (TrainingRecord item[4]) as a Rust struct {config, progress}. */
void writeCallerState(TapeBuilder& b, const TrainConfig& c, const TrainProgress& p);
/** Reads it back; errors name the missing or mistyped field. */
Result<void> readCallerState(const Tape& t, uint32_t node, TrainConfig& c, TrainProgress& p);

} // namespace ckpt::train
