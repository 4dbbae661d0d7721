// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline` and `ckpt bisect` (cli-contract.md, "Runs"): thin glue over core/run/timeline.h.
#include "app/cli/runcommands.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "core/run/timeline.h"
#include "workers/parallelfor.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace ckpt::cli {

int cmdTimeline(const std::vector<std::string>& argv)
{
    Args a(argv, {"--filter", "--spike-threshold"}, {"--json", "--no-cache"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("timeline takes one RUN directory");
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
    auto t = computeTimeline(*run, options, Progress::none(), workers::threadedFor());
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
