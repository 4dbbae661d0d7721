// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline` and `ckpt bisect` (cli-contract.md, "Runs"): thin glue over core/run/timeline.h.
#include "app/cli/runcommands.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "app/cli/timelineslurm.h"
#include "app/workers/parallelfor.h"
#include "core/report/timelinejson.h"
#include "core/run/timeline.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace ckpt::cli {

int cmdTimeline(const std::vector<std::string>& argv)
{
    Args a(argv, {"--filter", "--spike-threshold", "--shard", "--partial", "--tasks", "--partition", "--time", "--profile", "--work", "--retries",
                     "--node-ckpt"},
        {"--json", "--no-cache", "--merge", "--slurm", "--dry-run"});
    if (!a.error().empty())
        return usageError(a.error());
    const bool slurm = a.flag("--slurm");
    for (const char* option : {"--tasks", "--partition", "--time", "--profile", "--work", "--retries", "--node-ckpt"})
        if (!slurm && a.value(option))
            return usageError(std::string(option) + " goes with --slurm");
    if (!slurm && a.flag("--dry-run"))
        return usageError("--dry-run goes with --slurm");
    if (slurm) {
        if (a.flag("--merge") || a.value("--shard") || a.value("--partial") || a.flag("--no-cache") || a.value("--spike-threshold"))
            return usageError("--slurm submits the shares and the merge itself: not with --merge, --shard, --partial, --no-cache or --spike-threshold");
        if (a.positional().size() != 1)
            return usageError("timeline --slurm takes one RUN directory");
        ClusterScanRequest r;
        r.run = a.positional()[0];
        if (auto t = a.value("--tasks")) {
            auto n = parseNumber<unsigned>(*t);
            if (!n || *n == 0 || *n > 100000)
                return usageError("--tasks takes a number of array tasks from 1 to 100000, not '" + *t + "'");
            r.tasks = *n;
        }
        if (auto t = a.value("--retries")) {
            auto n = parseNumber<unsigned>(*t);
            if (!n || *n > 100)
                return usageError("--retries takes a number from 0 to 100, not '" + *t + "'");
            r.retries = *n;
        }
        r.partition = a.value("--partition").value_or("");
        r.time = a.value("--time").value_or("");
        r.profile = a.value("--profile").value_or("");
        r.workDir = a.value("--work").value_or("");
        r.filter = a.value("--filter").value_or("");
        r.nodeCkpt = a.value("--node-ckpt").value_or("");
        // A word starting with '-' would be taken by the script's `exec` as an option of its own (and is
        // most likely the next option, swallowed as the value).
        if (a.value("--node-ckpt") && (r.nodeCkpt.empty() || r.nodeCkpt.starts_with('-')))
            return usageError("--node-ckpt takes the path of the ckpt the nodes run, not '" + r.nodeCkpt + "'");
        r.json = a.flag("--json");
        r.dryRun = a.flag("--dry-run");
        return timelineOnSlurm(r);
    }
    const bool merge = a.flag("--merge");
    const auto shardText = a.value("--shard");
    const auto partial = a.value("--partial");
    if (merge && (shardText || partial))
        return usageError("--merge combines partials; --shard I/N --partial OUT makes one: not both");
    if (shardText.has_value() != partial.has_value())
        return usageError(shardText ? "--shard I/N needs --partial OUT (the file its share is written to)"
                                    : "--partial OUT needs --shard I/N (which share of the run to compute)");
    if (merge && a.positional().size() < 2)
        return usageError("timeline RUN --merge takes the PARTIAL files of every shard");
    if (!merge && a.positional().size() != 1)
        return usageError("timeline takes one RUN directory");
    if (shardText) {
        if (a.value("--filter") || a.flag("--no-cache") || a.value("--spike-threshold") || a.flag("--json"))
            return usageError("a partial holds every tensor of its share: --filter, --no-cache, --spike-threshold and --json go with --merge");
        auto shard = parseTimelineShard(*shardText);
        if (!shard)
            return usageError(shard.error().what);
        auto run = listRunCheckpoints(a.positional()[0]);
        if (!run)
            return failWith(run.error());
        auto done = writeTimelinePartial(*run, *shard, *partial, Progress::none(), workers::threadedFor());
        if (!done)
            return failWith(done.error());
        std::string range = "none";
        if (done->first) {
            range = std::to_string(*done->first);
            if (*done->last != *done->first)
                range.append("-").append(std::to_string(*done->last));
        }
        std::printf("shard %u/%u of %zu checkpoints: checkpoints %s (%zu pieces, %zu of them tensor ranges, %llu tensors, %zu of them "
                    "element ranges) -> %s\n",
            shard->index, shard->count, run->points.size(), range.c_str(), done->checkpoints, done->split,
            static_cast<unsigned long long>(done->tensors), done->sharedTensors, partial->c_str());
        return 0;
    }
    std::optional<double> spike = 6.0;
    if (auto text = a.value("--spike-threshold"))
        if (spike = parseNumber<double>(*text); !spike || !(*spike > 0) || !std::isfinite(*spike))
            return usageError("--spike-threshold takes a positive number of robust standard deviations, not '" + *text + "'");
    auto run = listRunCheckpoints(a.positional()[0]);
    if (!run)
        return failWith(run.error());
    TimelineOptions options;
    options.filter = a.value("--filter").value_or("");
    options.useCache = !a.flag("--no-cache");
    options.spikeThreshold = *spike;
    auto t = merge ? mergeTimelinePartials(*run, std::vector<std::string>(a.positional().begin() + 1, a.positional().end()), options)
                   : computeTimeline(*run, options, Progress::none(), workers::threadedFor());
    if (!t)
        return failWith(t.error());
    if (a.flag("--json")) {
        writeTimelineJson(*t, [](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); });
        std::fputc('\n', stdout);
    } else {
        printDocument(timelineText(*t));
    }
    for (const auto& w : t->warnings)
        std::fprintf(stderr, "ckpt timeline: warning: %s\n", w.c_str());
    return 0;
}

int cmdBisect(const std::vector<std::string>& argv)
{
    Args a(argv, {"--until", "--filter"}, {"--json", "--scan"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("bisect takes one RUN directory");
    const auto until = a.value("--until");
    if (!until)
        return usageError("bisect needs --until PRED (nan, inf, nonfinite, max_abs>X or update_ratio>X)");
    auto predicate = parseBisectPredicate(*until);
    if (!predicate)
        return usageError(predicate.error().what);
    auto run = listRunCheckpoints(a.positional()[0]);
    if (!run)
        return failWith(run.error());
    BisectOptions options;
    options.filter = a.value("--filter").value_or("");
    options.scan = a.flag("--scan");
    auto r = bisectRun(*run, *predicate, options, Progress::none(), workers::threadedFor());
    if (!r)
        return failWith(r.error());
    printDocument(a.flag("--json") ? bisectJson(*r) : bisectText(*r));
    return 0; // found or not: the document says which (cli-contract.md)
}

} // namespace ckpt::cli
