// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/train/config.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/record/record.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::train {

/** A GradientCheckpoint written by ckpt-train, with its CAR file and its continuation state blob. */
struct GraphResumeSource {
    GradientCheckpoint checkpoint;
    CarStore car;
    std::string carPath;
    Tape state;                   ///< the kResumeStateKey blob parsed: {caller_state, parameters, pending_gradients}
    uint32_t stateNode = 0;
    uint32_t callerStateNode = 0; ///< TrainingRecord item[4]'s {config, progress}
};

/** One run of the trainer, fresh or continued, as main() prepared it from the command line. */
struct RunRequest {
    TrainConfig config;
    std::string outDir;
    /** Continuation: the opened record and its caller state (already merged with explicit flags into config). */
    std::shared_ptr<const Record> record;
    /** Or continuation from a GradientCheckpoint (graph/step-N.json + step-N.car). */
    std::shared_ptr<const GraphResumeSource> graph;
    std::string recordPath;
    TrainProgress recordedProgress;
    std::vector<std::string> overrides;   ///< "name=value (recorded X)" for every explicit flag that changed a setting
    std::optional<uint64_t> stepsFlag;    ///< --steps given explicitly
};

/** Exit codes as the CLI contract has them. */
enum ExitCode : int { ExitOk = 0, ExitFailed = 1, ExitUsage = 2 };

/**
 * Trains (or continues) the run: restores and validates everything before the first step, prints one
 * `step=N loss=X lr=Y` line per micro-batch, writes checkpoints in the requested layouts, and stops
 * cleanly after a checkpoint on SIGTERM/SIGINT. Returns the process exit code.
 */
int runTraining(const RunRequest& request);

/**
 * Opens a record for --resume. NamedMpk/JSON records are self-describing; a bincode record is read by
 * core's built-in ckpt-train layout (the scheduler record type named by its caller state), or refused.
 */
Result<std::shared_ptr<const Record>> openTrainingRecord(const std::string& path);

/**
 * The GradientCheckpoint at \a path with its CAR, or nullopt when the file is no GradientCheckpoint
 * (a record for openTrainingRecord). A GradientCheckpoint that lacks what a continuation needs is an error.
 */
Result<std::optional<GraphResumeSource>> openGraphResume(const std::string& path);

/** Installs the SIGTERM/SIGINT handler that asks the loop to stop at the next micro-batch. */
void installStopHandler();

} // namespace ckpt::train
