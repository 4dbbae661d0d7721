// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/runpolicy.h"

#include "core/open/formats.h"
#include "core/open/shards.h"
#include "core/optim/forensics.h"
#include "core/record/record.h"
#include "core/run/direntries.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <regex>
#include <set>
#include <string_view>

namespace fs = std::filesystem;

namespace ckpt {

namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

bool startsWith(const std::string& path, std::string_view prefix)
{
    return fs::path(path).filename().string().starts_with(prefix);
}

} // namespace

std::vector<std::string> filesToOpen(const std::vector<std::string>& files)
{
    std::vector<std::string> out;
    std::set<std::string> throughIndex; // a sharded set's shards open through its index, not on their own
    for (const std::string& f : files)
        if (isShardIndex(f))
            for (std::string& shard : shardsOf(f))
                throughIndex.insert(std::move(shard));
    for (const std::string& f : files) {
        if (throughIndex.contains(f))
            continue;
        // a checkpoint written as several files (burn-train 0.22's triple) opens as one record
        // through its first file
        if (opensWholeCheckpoint(f))
            return {f};
        if (!endsWith(f, ".car")) // a GradientCheckpoint's CAR is opened with its JSON
            out.push_back(f);
    }
    return out;
}

std::vector<std::string> filesToOpen(const RunCheckpoints& run, const RunPoint& point)
{
    std::vector<std::string> files;
    files.reserve(point.files.size());
    for (const FileIdentity& f : point.files)
        files.push_back(f.path);
    files = filesToOpen(files);
    if (files.empty())
        files.push_back(mainFileOf(run, point));
    return files;
}

std::vector<std::string> filesToOpen(const RunDirectory& run)
{
    std::vector<std::string> files;
    // a ckpt-train TrainingRecord holds everything; burn-train splits model/optim/scheduler
    if (auto record = run.latest("record"))
        files.push_back(record->path);
    else
        for (const char* kind : {"model", "optim", "scheduler"})
            if (auto c = run.latest(kind))
                files.push_back(c->path);
    return filesToOpen(files);
}

std::optional<std::string> newestGraphOf(const std::string& runDir)
{
    static const std::regex kGraph(run_detail::kGraphNamePattern);
    std::optional<std::string> best;
    std::optional<uint64_t> bestStep;
    std::error_code ec;
    for (const auto& e : run_detail::entriesOf(fs::path(runDir) / "graph")) {
        const std::string name = e.path().filename().string();
        std::smatch m;
        uint64_t step = 0;
        if (!std::regex_match(name, m, kGraph) || !e.is_regular_file(ec)
            || std::from_chars(name.data() + m.position(1), name.data() + m.position(1) + m.length(1), step).ec != std::errc())
            continue;
        if (!bestStep || step > *bestStep) {
            bestStep = step;
            best = e.path().string();
        }
    }
    return best;
}

std::string mainFileOf(const RunCheckpoints& run, const RunPoint& point)
{
    return (fs::path(run.dir) / point.file).string();
}

std::optional<std::string> optimizerFileOf(const RunPoint& point)
{
    for (const FileIdentity& f : point.files)
        if (startsWith(f.path, "optim-") || fs::path(f.path).filename() == "optimizer.pt") // burn-train's optim-N, a Trainer's optimizer.pt
            return f.path;
    return std::nullopt;
}

std::string fileOfRole(const RunCheckpoints& run, const RunPoint& point, TensorRole role)
{
    // a burn-train epoch is three files: an optimizer state is in optim-N, everything else in model-N
    // (a Hugging Face checkpoint's optimizer.pt likewise)
    if (role == TensorRole::Optimizer)
        if (auto optim = optimizerFileOf(point))
            return *optim;
    return mainFileOf(run, point);
}

namespace {

/** The largest figures and every flag of \a f, worst flag first. */
CheckpointForensics reduced(const OptimizerForensics& f)
{
    CheckpointForensics out;
    out.available = true;
    out.parameters = f.parameters.size();
    out.suspects = f.suspects.size();
    for (const ParamForensics& pf : f.parameters) {
        for (const std::string& flag : pf.flags)
            if (std::ranges::find(out.flags, flag) == out.flags.end())
                out.flags.push_back(flag);
        if (pf.effectiveStep)
            out.maxStep = std::max(out.maxStep.value_or(0.0), pf.effectiveStep->max);
        if (pf.mHatRms) {
            out.maxMomentRms = std::max(out.maxMomentRms.value_or(0.0), *pf.mHatRms);
            if (pf.paramRms)
                out.maxMomentRatio = std::max(out.maxMomentRatio.value_or(0.0), *pf.mHatRms / std::max(*pf.paramRms, 1.0));
        }
    }
    std::ranges::stable_sort(out.flags, [](std::string_view a, std::string_view b) { return flagSeverity(a) > flagSeverity(b); });
    if (!f.suspects.empty())
        out.worstParam = f.parameters[f.suspects.front()].path;
    return out;
}

} // namespace

std::optional<CheckpointForensics> checkpointForensics(const RunCheckpoints& run, const RunPoint& point, const Progress& progress)
{
    CheckpointForensics out;
    auto main = openRecord(mainFileOf(run, point));
    std::shared_ptr<const Record> state;
    if (main && !(*main)->optimizer.empty()) {
        state = *main;
    } else if (auto file = optimizerFileOf(point)) {
        auto optim = openRecord(*file);
        if (!optim) {
            out.error = optim.error().message();
            return out;
        }
        state = *optim;
    }
    if (!state) {
        out.error = main ? "no optimizer state in this checkpoint" : main.error().message();
        return out;
    }
    ForensicsOptions options;
    if (main && state != *main)
        options.model = main->get();
    auto f = optimizerForensics(*state, options, progress);
    if (!f) {
        if (f.error().code == ErrorCode::Cancelled)
            return std::nullopt;
        out.error = f.error().message();
        return out;
    }
    return reduced(*f);
}

} // namespace ckpt
