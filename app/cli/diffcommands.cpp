// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/diffcommands.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "app/cli/graphcommands.h"
#include "core/diff/graphdiff.h"
#include "core/graph/checkpointfiles.h"
#include "core/open/sniff.h"
#include "core/report/graphdiffjson.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace ckpt::cli {

namespace {

std::string brief(const std::optional<std::string>& cid)
{
    if (!cid)
        return "(none)";
    return cid->size() > 20 ? cid->substr(0, 8) + "…" + cid->substr(cid->size() - 8) : *cid;
}

void printText(const GraphDiff& d)
{
    std::printf("%s vs %s: %llu added, %llu removed, %llu changed, %llu unchanged nodes (%llu matched by op and position); %zu edges added, %zu removed\n",
        d.a.c_str(), d.b.c_str(), static_cast<unsigned long long>(d.added), static_cast<unsigned long long>(d.removed),
        static_cast<unsigned long long>(d.changed), static_cast<unsigned long long>(d.unchanged),
        static_cast<unsigned long long>(d.matchedByPosition), d.edgesAdded.size(), d.edgesRemoved.size());
    if (d.sideA.step != d.sideB.step)
        std::printf("  step           %llu -> %llu\n", static_cast<unsigned long long>(d.sideA.step), static_cast<unsigned long long>(d.sideB.step));
    if (d.sideA.lossCid != d.sideB.lossCid) {
        std::printf("  loss           %s -> %s", brief(d.sideA.lossCid).c_str(), brief(d.sideB.lossCid).c_str());
        if (d.lossValues && d.lossValues->maxAbs)
            std::printf(" max_abs=%s", fmt(*d.lossValues->maxAbs).c_str());
        std::printf("\n");
    }
    std::printf("  CARs: %s, %s; %llu block bytes read\n", d.sideA.hasCar ? "A" : "no A", d.sideB.hasCar ? "B" : "no B",
        static_cast<unsigned long long>(d.blockBytesRead));
    for (const auto& n : d.nodes) {
        if (n.status == DiffStatus::Unchanged)
            continue;
        const std::string& key = n.keyA.empty() ? n.keyB : n.keyA;
        std::printf("  %-14s %-38s %s", std::string(diffStatusName(n.status)).c_str(), key.c_str(), (n.opA.empty() ? n.opB : n.opA).c_str());
        if (n.opChanged)
            std::printf(" -> %s", n.opB.c_str());
        if (n.match == NodeMatch::OpPosition)
            std::printf(" (matched by op and position: %s)", n.keyB.c_str());
        std::printf("\n");
        for (const auto& s : n.tensors) {
            if (!s.changed())
                continue;
            std::printf("      %-10s %s -> %s [%s]", s.slot.c_str(), brief(s.cidA).c_str(), brief(s.cidB).c_str(),
                std::string(cidComparisonName(s.how)).c_str());
            if (s.values && s.values->maxAbs)
                std::printf(" max_abs=%s rel_l2=%s", fmt(*s.values->maxAbs).c_str(), fmt(s.values->relL2.value_or(0)).c_str());
            std::printf("\n");
        }
        for (const auto& [k, v] : n.metadata)
            std::printf("      metadata %s: %s -> %s\n", k.c_str(), v.first.value_or("(absent)").c_str(), v.second.value_or("(absent)").c_str());
    }
    for (const auto& [f, t] : d.edgesRemoved)
        std::printf("  edge removed   %s -> %s\n", f.c_str(), t.c_str());
    for (const auto& [f, t] : d.edgesAdded)
        std::printf("  edge added     %s -> %s\n", f.c_str(), t.c_str());
    for (const auto& b : d.optimizer) {
        if (b.status == DiffStatus::Unchanged)
            continue;
        std::printf("  optimizer      %-38s %s", b.key.c_str(), std::string(diffStatusName(b.status)).c_str());
        if (b.counterA && b.counterB)
            std::printf(" %llu -> %llu", static_cast<unsigned long long>(*b.counterA), static_cast<unsigned long long>(*b.counterB));
        else if (b.values && b.values->maxAbs)
            std::printf(" max_abs=%s", fmt(*b.values->maxAbs).c_str());
        std::printf("\n");
    }
}

} // namespace

std::optional<double> toleranceArg(const Args& a)
{
    const auto t = a.value("--tolerance");
    if (!t)
        return 0.0;
    const auto v = parseNumber<double>(*t);
    if (!v || !std::isfinite(*v) || *v < 0)
        return std::nullopt; // a tolerance is a finite, non-negative number
    return v;
}

std::optional<int> graphDiffCommand(const std::vector<std::string>& argv)
{
    Args a(argv, {"--tolerance", "--blocks-a", "--blocks-b", "--schema", "--schema-from"}, {"--json"});
    if (!a.error().empty() || a.positional().size() != 2)
        return std::nullopt; // the record diff reports usage errors
    const std::string& pa = a.positional()[0];
    const std::string& pb = a.positional()[1];
    const bool ga = sniffFile(pa) == FileFamily::GradientCheckpoint, gb = sniffFile(pb) == FileFamily::GradientCheckpoint;
    if (!ga && !gb)
        return std::nullopt;
    if (ga != gb)
        return usageError("diff compares two records or two GradientCheckpoints; " + (ga ? pa : pb) + " is a GradientCheckpoint, " +
            (ga ? pb : pa) + " is not");
    DiffOptions o;
    if (auto t = toleranceArg(a))
        o.tolerance = *t;
    else
        return usageError("--tolerance takes a number");
    std::optional<GradientCheckpointFiles> files[2];
    const std::optional<std::string> given[2] = {a.value("--blocks-a"), a.value("--blocks-b")};
    for (int i = 0; i < 2; ++i) {
        const std::string& path = a.positional()[size_t(i)];
        auto f = openGradientCheckpointFiles(path, given[i]);
        if (!f)
            return inputError(path, f.error());
        if (f->carError) // a damaged CAR must not pass for a missing one: the diff would say "no values"
            return inputError(*f->carPath, *f->carError);
        files[i] = std::move(*f);
    }
    GraphDiff d = diffGradientCheckpoints(files[0]->checkpoint, files[1]->checkpoint, files[0]->car.get(), files[1]->car.get(), o);
    d.a = pa;
    d.b = pb;
    if (a.flag("--json")) {
        const std::string s = graphDiffJson(d) + "\n";
        std::fwrite(s.data(), 1, s.size(), stdout);
    } else {
        printText(d);
    }
    return 0;
}

} // namespace ckpt::cli
