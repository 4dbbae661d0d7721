// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/open/sniff.h" // isRunDirectory
#include "core/util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/**
 * One line of a burn-train metric log: `{value},{count}` (Aggregated), `{value}` (Value),
 * `{value},final` (Final, burn-train 0.22: the epoch's value of a metric that needs global statistics,
 * not a batch) or text.
 */
struct MetricPoint {
    uint32_t epoch = 0;
    uint64_t item = 0;          ///< line index within the epoch's file (0-based)
    double value = 0;           ///< NaN for non-numeric lines
    uint64_t count = 1;         ///< the batch size the value was aggregated over (1 for a final line)
    std::string text;           ///< non-numeric metrics (e.g. "1024/8192"), verbatim
    bool final = false;         ///< a `{value},final` line: \a value is the epoch aggregate, not a batch
};

/** One metric of one split across the epochs, in epoch and line order. */
struct MetricSeries {
    std::string split;          ///< "train", "valid", "test" or "test/<tag>"
    std::string metric;         ///< file name without .log: "Loss", "Accuracy", "Learning_Rate", ...
    std::vector<MetricPoint> points;
    /**
     * Burn's epoch value: the value of the epoch's last line when that line is `{value},final`, else
     * sum(value_i * count_i) / sum(count_i) over the epoch's numeric lines that are not final.
     */
    std::vector<std::pair<uint32_t, double>> epochMeans() const;
};

/**
 * A checkpoint file of a run: checkpoint/{model,optim,scheduler}-EPOCH.<ext> or checkpoint/record-STEP.<ext>,
 * <ext> a record extension (core/model/recorder's recordExtensions()).
 */
struct RunCheckpoint {
    std::string path;
    std::string kind;           ///< "model", "optim", "scheduler", "record"
    uint64_t index = 0;         ///< epoch (burn-train) or step (record-STEP)
};

/** A burn-train artifact directory (format spec §11), or a folder of record files. */
struct RunDirectory {
    std::string path;
    std::vector<RunCheckpoint> checkpoints;   ///< sorted by (index, kind)
    std::vector<MetricSeries> series;         ///< sorted by (split, metric)
    std::vector<std::string> warnings;
    /** Latest checkpoint of a kind ("record" first, else "model"), if any. */
    std::optional<RunCheckpoint> latest(const std::string& kind) const;
};

/** Reads the directory layout and every metric log (logs are small; records are not opened). */
Result<RunDirectory> openRunDirectory(const std::string& path);

/**
 * The checkpoint that stands for a run directory where one record is asked for (`ckpt tensors RUN`,
 * `ckpt.open(run)`): the newest record-STEP, else the newest model-EPOCH. One choice for the CLI,
 * the app and the Python module; an error names the directory and what it lacks.
 */
Result<RunCheckpoint> recordOfRunDirectory(const std::string& path);

/**
 * Parses one metric log. Lines are `value,count`, `value`, `value,final` or free text; `value` uses
 * Rust's f64 Display (`NaN`, `inf`, `-inf` included). A malformed numeric line is kept as text with a
 * warning.
 */
MetricSeries parseMetricLog(std::string_view text, const std::string& split, const std::string& metric, uint32_t epoch,
    std::vector<std::string>* warnings = nullptr);

} // namespace ckpt
