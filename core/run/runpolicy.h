// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Run policy: which files of a run are opened for a checkpoint, where a checkpoint keeps its
// optimizer state, the run's newest graph, and the optimizer forensics of one checkpoint reduced to
// what a list of checkpoints shows. One answer for the app (workspace, Run panel), the CLI and Python.

#include "core/run/run.h"
#include "core/run/timeline.h"
#include "core/util/progress.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/**
 * The files to open for one checkpoint made of \a files (as a run lists them: a record; burn-train's
 * model, optim and scheduler; a GradientCheckpoint's JSON and CAR), in their order. A CAR is opened
 * with its JSON, not on its own; a checkpoint written as several files (burn-train 0.22's model-N,
 * optim-N, scheduler-N) opens as one record through its first file (OpenOptions::wholeCheckpoint),
 * so its other files are not opened a second time.
 * The one rule every "open this checkpoint" follows: the functions below and the app use it.
 */
std::vector<std::string> filesToOpen(const std::vector<std::string>& files);

/** The files to open for checkpoint \a point of \a run (absolute paths); its main file when it lists none. */
std::vector<std::string> filesToOpen(const RunCheckpoints& run, const RunPoint& point);

/**
 * The files to open for a run directory where one checkpoint stands for it: the newest record-STEP
 * (a TrainingRecord holds everything), else the newest model-, optim- and scheduler-EPOCH of
 * burn-train, each the newest of its kind. Empty when the run has no checkpoint.
 */
std::vector<std::string> filesToOpen(const RunDirectory& run);

/** The newest RUN/graph/step-N.json (a GradientCheckpoint ckpt-train writes beside its records), if any. */
std::optional<std::string> newestGraphOf(const std::string& runDir);

/** Checkpoint \a point's main file (RunPoint::file under the run directory). */
std::string mainFileOf(const RunCheckpoints& run, const RunPoint& point);

/** Where \a point keeps its optimizer state apart from its main file: burn-train's optim-N beside model-N, a Trainer's optimizer.pt. */
std::optional<std::string> optimizerFileOf(const RunPoint& point);

/** The file that holds \a point's tensors of \a role: an optimizer state's optim-N where it has one, else its main file. */
std::string fileOfRole(const RunCheckpoints& run, const RunPoint& point, TensorRole role);

/** The optimizer forensics (optimizerForensics) of one checkpoint, reduced to what a list of checkpoints shows. */
struct CheckpointForensics {
    bool available = false;               ///< false: no optimizer state, or it could not be read (why: error)
    std::string error;
    size_t parameters = 0;
    size_t suspects = 0;
    std::vector<std::string> flags;       ///< every flag that occurs, worst first (flagSeverity)
    std::string worstParam;               ///< the path of the first suspect (the worst, ranked as `ckpt optimizer` ranks)
    std::optional<double> maxStep;        ///< the largest effective step of any parameter (Adam family)
    std::optional<double> maxMomentRms;   ///< the largest RMS of m̂ (or the SGD velocity)
    std::optional<double> maxMomentRatio; ///< the largest m̂ RMS / max(parameter RMS, 1)
};

/**
 * The optimizer forensics of checkpoint \a point. The optimizer state is in the checkpoint's main
 * file (a TrainingRecord), else in its optimizer file
 * (optimizerFileOf), then analysed with the main file's parameters. nullopt: cancelled.
 */
std::optional<CheckpointForensics> checkpointForensics(const RunCheckpoints& run, const RunPoint& point, const Progress& progress);

} // namespace ckpt
