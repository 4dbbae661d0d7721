// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A training run as a sequence of checkpoints, and what happened to every tensor across it: the run
// timeline (statistics per checkpoint and tensor, the update against the previous checkpoint, events),
// the persistent cache that lets a re-run read only new or changed checkpoints, and bisect, which
// finds the first bad checkpoint. One engine for `ckpt timeline`/`ckpt bisect`, the app's Run panel
// and `ckpt.timeline`/`ckpt.bisect` in Python. Built in core/run/timelinescan.cpp (the scan) on
// timelinecache (the cache format), timelineseries (series and events), timelineshares and
// timelinepartial (cluster shares and their partials) and timelinemerge (their merge); the
// documents of `ckpt timeline` and `ckpt bisect` are in core/report/timelinejson.h.

#include "core/record/record.h"
#include "core/run/run.h"
#include "core/tensor/stats.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/** How a run directory lays out its checkpoints (one layout is chosen per run, in this order of preference). */
enum class RunLayout {
    Records,             ///< checkpoint/record-STEP.<ext> (ckpt-train, Ruda)
    BurnEpochs,          ///< checkpoint/{model,optim,scheduler}-EPOCH.<ext>, one checkpoint per epoch (burn-train)
    GradientCheckpoints, ///< graph/step-N.json with graph/step-N.car (ipfrs-tensorlogic)
    Folder,              ///< a folder of record files, ordered by the last number in their names
    HuggingFace,         ///< checkpoint-N/ folders of a Hugging Face Trainer (core/run/trainerstate.h); preferred over Folder
};
std::string_view runLayoutName(RunLayout l); ///< "records", "burn_epochs", "gradient_checkpoints", "folder", "hugging_face"

/** A file's identity for the cache: a checkpoint whose files keep all four is not read again. */
struct FileIdentity {
    std::string path;       ///< absolute
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    uint64_t inode = 0;
    bool operator==(const FileIdentity&) const = default;
};

/** One checkpoint of a run. */
struct RunPoint {
    size_t index = 0;                     ///< position in training order, from 0
    std::string file;                     ///< relative to the run directory (burn-train: the model file)
    std::vector<FileIdentity> files;      ///< every file it is made of (model, optim, scheduler; JSON and CAR), as listed
    std::optional<uint64_t> step, epoch;
    uint64_t bytes = 0;                   ///< sum of the files' sizes
    std::optional<double> loss, lr;       ///< train loss and learning rate logged at that point (metric logs)
};

/** The checkpoints of a run directory in training order, and its metric logs. Nothing is opened but the logs. */
struct RunCheckpoints {
    std::string dir;                      ///< as given
    RunLayout layout = RunLayout::Folder;
    std::vector<RunPoint> points;
    RunDirectory logs;                    ///< metric series (loss and LR curves), may be empty
    std::vector<std::string> warnings;
};

/**
 * Lists the checkpoints of \a dir. Files still being written by an atomic writer (hidden or temporary
 * names) are not checkpoints. The loss at a step-numbered checkpoint is the train Loss.log line of that
 * step (lines counted across epochs, one per iteration as burn-train and ckpt-train write them; burn-train
 * 0.22's `value,final` lines are no iteration); at an epoch checkpoint, the epoch's value
 * (MetricSeries::epochMeans). An error names the directory when it cannot be read or holds no checkpoint.
 */
Result<RunCheckpoints> listRunCheckpoints(const std::string& dir);

/** Where one checkpoint file sits in its run, judged from its path alone (nothing is opened). */
struct CheckpointPlace {
    /** DIR for DIR/checkpoint/model-3.mpk, DIR/graph/step-6.json or DIR/record.mpk, when DIR is a run
        directory (isRunDirectory, core/run/run.h); empty otherwise. */
    std::string runDirectory;
    std::optional<uint64_t> step;  ///< record-STEP.<ext>, graph/step-N.json
    std::optional<uint64_t> epoch; ///< {model,optim,scheduler}-EPOCH.<ext>
};

/** The run a checkpoint file belongs to and its step or epoch, by the names listRunCheckpoints reads. */
CheckpointPlace checkpointPlaceOf(const std::string& path);

/** One tensor at one checkpoint. Statistics follow `ckpt tensors` (finite values; non-finite counted). */
/** The numbers a series has at one checkpoint: what the scan stores and the timeline shows. */
struct PointStats {
    double l2 = 0, maxAbs = 0, mean = 0, std = 0; ///< NaN where no finite value (mean/std), 0 for an empty l2
    uint64_t nan = 0, inf = 0, zeros = 0, count = 0;
    std::optional<double> updateL2;       ///< ||w_i - w_prev||2 over pairs finite on both sides; none at the first point
    std::optional<double> updateRatio;    ///< updateL2 / ||w_prev||2; none when that norm is 0
};

struct TimelinePoint : PointStats {
    uint32_t checkpoint = 0;              ///< RunPoint::index
};

/** Which tensor a series follows: what a series is without its points (the app sends it ahead of them). */
struct SeriesIdentity {
    std::string path;                     ///< path at its first checkpoint
    TensorRole role = TensorRole::Other;
    std::string paramId;                  ///< "" if none
    std::string stateName;                ///< optimizer state ("moment_1", ...)
    std::string owner;                    ///< the module path of the parameter it belongs to (its own path for a parameter): groups moments beside their parameter
    std::string dtype;                    ///< "F32", ...
};

/** One tensor across the run, followed from checkpoint to checkpoint as the diff pairs tensors (path, parameter id). */
struct TimelineSeries : SeriesIdentity {
    std::vector<TimelinePoint> points;    ///< one per checkpoint that has the tensor, in checkpoint order
};

enum class TimelineEventKind { FirstNan, FirstInf, Spike };
std::string_view timelineEventKindName(TimelineEventKind k); ///< "first_nan", "first_inf", "spike"

struct TimelineEvent {
    TimelineEventKind kind = TimelineEventKind::Spike;
    uint32_t checkpoint = 0;
    size_t series = 0;                    ///< index into Timeline::series
    std::string path;
    std::string detail;                   ///< one line: "12 NaN of 4096", "update_ratio 31.2, 1.5e+04x its median 0.002 of the last 8 checkpoints (robust z 55)"
};

struct TimelineCheckpoint {
    RunPoint point;
    bool valid = true;
    std::string error;                    ///< one line naming file and offset when it could not be read
    uint64_t tensors = 0;
    bool fromCache = false;
};

struct Timeline {
    std::string run;
    RunLayout layout = RunLayout::Folder;
    std::vector<TimelineCheckpoint> checkpoints;
    std::vector<TimelineSeries> series;   ///< in order of first appearance, file order within a checkpoint
    std::vector<TimelineEvent> events;    ///< by checkpoint, then series
    RunDirectory logs;                    ///< the run's metric logs (loss / LR curves)
    uint64_t read = 0;                    ///< checkpoints read in this run
    uint64_t reused = 0;                  ///< checkpoints taken from the cache
    std::vector<std::string> warnings;
    bool cancelled = false;               ///< Progress asked to stop: the checkpoints done so far
};

struct TimelineOptions {
    std::string filter;                   ///< glob of tensor paths (core/util/text.h globMatch); empty = all
    bool useCache = true;
    std::string cacheDir;                 ///< empty: defaultTimelineCacheDir()
    double spikeThreshold = 6.0;          ///< robust z-score in decades (median / 1.4826 MAD of log10 of the previous points, at least 0.05)
    size_t spikeWindow = 8;               ///< previous finite points a spike is judged against (at least 4 needed)
    /** Called on the caller's thread after each checkpoint with its index and the timeline so far (live views). */
    std::function<void(size_t checkpoint, const Timeline& sofar)> onCheckpoint;
    /**
     * mergeTimelinePartials while the shares are still running (the Run panel's cluster scan): a
     * checkpoint no partial covers yet is listed invalid with "waiting for shard I/N" instead of being
     * an error, an update against it has no ratio, and nothing is cached.
     */
    bool partialsSoFar = false;
};

/**
 * The run's timeline: every checkpoint opened at most once (its predecessor stays mapped for the
 * update), statistics of all tensors in one pass over \a parallel, tensors of GradientCheckpoints
 * read from the CAR by CID (an unchanged CID is not read again). A checkpoint that cannot be read is
 * listed invalid with its error and skipped; updates after it are taken against the previous valid
 * checkpoint that has the tensor. With the cache on, checkpoints whose files (and whose predecessor's
 * files) are unchanged are not read, and the cache is updated atomically afterwards; a cache that
 * cannot be read or written is a warning, never an error.
 */
Result<Timeline> computeTimeline(const RunCheckpoints& run, const TimelineOptions& options = {},
    const Progress& progress = Progress::none(), const ParallelFor& parallel = {});

/** Share I of N of a run's timeline work (I from 1): `ckpt timeline RUN --shard I/N --partial OUT`. */
struct TimelineShard {
    uint32_t index = 1;
    uint32_t count = 1;
};
/** Parses "I/N" with 1 <= I <= N; the error (ErrorCode::Usage) says what was expected. */
Result<TimelineShard> parseTimelineShard(std::string_view text);

/**
 * How N shares divide a run, for each checkpoint the shares it goes to (first and last, 0-based; the
 * plan every share and the merge compute): in groups of consecutive checkpoints balanced by bytes, a
 * group's shares each taking a column (a range of the tensors) of every checkpoint in it, so that a
 * checkpoint's predecessor is read by the same share. Many small checkpoints: a group is one share,
 * which takes them whole; checkpoints larger than a share's part, or large enough that a column of
 * one is still worth parsing the checkpoint for (core/run/timelineshares.h, SharePlan), are shared by several.
 */
std::vector<std::pair<uint32_t, uint32_t>> timelineShareGroups(const RunCheckpoints& run, uint32_t shares);

/** What one share did. */
struct TimelinePartialSummary {
    std::optional<size_t> first, last;    ///< the checkpoints it holds a piece of (none: an empty share)
    size_t checkpoints = 0;               ///< pieces: whole checkpoints or tensor ranges of one
    size_t split = 0;                     ///< of them, tensor ranges of a checkpoint shared with other shares
    size_t sharedTensors = 0;             ///< tensors of which it holds a range of chunks, the rest in other shares
    uint64_t tensors = 0;                 ///< tensors whose statistics it holds
};

/**
 * Share \a shard of the run's timeline work, written to \a out atomically (writeFileAtomic) as a
 * partial that mergeTimelinePartials turns into the timeline. Checkpoints go to groups of shares as
 * contiguous ranges balanced by bytes (timelineShareGroups); the shares of a group take one column
 * each of every checkpoint in it, a range of its tensors, and a tensor of several stats chunks
 * (StatsChunkElements) that straddles columns goes by element ranges of whole chunks, whose
 * mergeable moments (StatsMoments) and update sums the merge folds in chunk order. The share
 * also opens (headers only) the checkpoints before its first one that the single-process engine would
 * link its tensors to (the previous valid checkpoint, the newest earlier holder of a path the previous
 * one lacks) and reads the linked tensors for the updates; partials hold every tensor (no filter).
 */
Result<TimelinePartialSummary> writeTimelinePartial(const RunCheckpoints& run, TimelineShard shard, const std::string& out,
    const Progress& progress = Progress::none(), const ParallelFor& parallel = {});

/**
 * The timeline the partials of all shares of one run make: the same as computeTimeline with the cache
 * off, apart from `read` (0) and `reused` (every checkpoint). Every partial must be of this run (its
 * absolute path), intact (a checksum over the file), of the same N, each shard once, every checkpoint and every tensor covered, every file
 * (and every file a scan was linked to) with the identity it had when the shard ran; otherwise one
 * error naming the partial (or the checkpoint and the shard that should have produced it). With
 * options.useCache the merged scans are written to the run's cache, so a later computeTimeline
 * reads nothing.
 */
Result<Timeline> mergeTimelinePartials(const RunCheckpoints& run, const std::vector<std::string>& partials,
    const TimelineOptions& options = {}, const Progress& progress = Progress::none());

/** $XDG_CACHE_HOME/checkpoint-inspector/timeline, else ~/.cache/checkpoint-inspector/timeline. */
std::string defaultTimelineCacheDir();

/** What "bad" means for bisect. */
struct BisectPredicate {
    enum class Kind { Nan, Inf, Nonfinite, MaxAbs, UpdateRatio } kind = Kind::Nonfinite;
    double threshold = 0;                 ///< MaxAbs / UpdateRatio: strictly greater than
    std::string text;                     ///< as given ("max_abs>1e3")
};
/** Parses `nan`, `inf`, `nonfinite`, `max_abs>X`, `update_ratio>X`; the error says what was expected. */
Result<BisectPredicate> parseBisectPredicate(std::string_view text);

struct BisectOptions {
    std::string filter;                   ///< only tensor paths matching this glob count
    bool scan = false;                    ///< check every checkpoint in order instead of assuming bad stays bad
};

struct BisectResult {
    RunCheckpoints run;
    BisectPredicate predicate;
    std::optional<size_t> firstBad, lastGood; ///< indices into run.points
    std::vector<std::string> badPaths;    ///< tensors of the first bad checkpoint that satisfy the predicate
    std::vector<size_t> opened;           ///< checkpoints read, in the order they were read
    std::vector<std::string> warnings;    ///< checkpoints that could not be read (skipped)
    bool cancelled = false;
};

/**
 * The first checkpoint where the predicate holds. Without BisectOptions::scan by binary search
 * (O(log n) checkpoints opened; update_ratio opens each probe's predecessor too); a checkpoint that
 * cannot be read is passed over for its nearest readable neighbour in the open interval.
 */
Result<BisectResult> bisectRun(const RunCheckpoints& run, const BisectPredicate& predicate, const BisectOptions& options = {},
    const Progress& progress = Progress::none(), const ParallelFor& parallel = {});

} // namespace ckpt
