// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Hugging Face Trainer output as a run: OUTPUT_DIR/checkpoint-N/ with the model
// (model.safetensors, pytorch_model.bin or a sharded set's index), optimizer.pt, scheduler.pt and
// trainer_state.json, whose log_history is the run's loss and learning-rate history.
// rng_state*.pth and training_args.bin are not checkpoints: they are never listed.

#include "core/run/run.h"
#include "core/util/error.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/** One entry of trainer_state.json's log_history (a training log or an evaluation). */
struct TrainerLogEntry {
    uint64_t step = 0;
    double epoch = 0;
    std::optional<double> loss, learningRate, evalLoss;
};

/** Reads log_history from a trainer_state.json; errors name the file and offset. */
Result<std::vector<TrainerLogEntry>> readTrainerState(const std::string& path);

/** The checkpoints of a Trainer output directory: step N -> the files of checkpoint-N to open, model first. Empty if none. */
std::map<uint64_t, std::vector<std::filesystem::path>> huggingFaceCheckpoints(const std::filesystem::path& dir);

/** The trainer_state.json of the newest checkpoint-N under \a dir (it holds the whole history so far), else DIR/trainer_state.json. */
std::optional<std::string> newestTrainerState(const std::filesystem::path& dir);

/** The log entry in force at \a step: the last one at or before it that has \a field (loss or learning rate). */
std::optional<double> trainerValueAt(const std::vector<TrainerLogEntry>& log, uint64_t step, std::optional<double> TrainerLogEntry::* field);

/** log_history as metric series: train/Loss, train/Learning_Rate, valid/Loss (epochs as the log counts them, floored). */
std::vector<MetricSeries> trainerSeries(const std::vector<TrainerLogEntry>& log);

} // namespace ckpt
