// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The checkpoints of a run directory in training order (listRunCheckpoints, core/run/timeline.h).
#include "core/run/timeline.h"

#include "core/graph/locate.h"
#include "core/run/direntries.h"
#include "core/run/trainerstate.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <regex>

namespace fs = std::filesystem;

namespace ckpt {

std::string_view runLayoutName(RunLayout l)
{
    switch (l) {
    case RunLayout::Records: return "records";
    case RunLayout::BurnEpochs: return "burn_epochs";
    case RunLayout::GradientCheckpoints: return "gradient_checkpoints";
    case RunLayout::Folder: return "folder";
    case RunLayout::HuggingFace: return "hugging_face";
    }
    return "folder";
}

namespace {

/** lstat-free identity of a regular file (stat follows a symlinked checkpoint to what it names). */
std::optional<FileIdentity> identityOf(const fs::path& p)
{
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    FileIdentity id;
    std::error_code ec;
    const fs::path abs = fs::absolute(p, ec);
    id.path = (ec ? p : abs).lexically_normal().string();
    id.size = uint64_t(st.st_size);
    id.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
    id.inode = uint64_t(st.st_ino);
    return id;
}

std::vector<fs::path> filesIn(const fs::path& dir)
{
    std::vector<fs::path> out;
    for (const auto& e : run_detail::entriesOf(dir)) {
        const std::string name = e.path().filename().string();
        // atomic writers name their temporary files ".NAME...tmp" or "NAME.tmp": never a checkpoint yet
        if (name.empty() || name.front() == '.' || name.ends_with(".tmp") || name.ends_with(".part"))
            continue;
        out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool parseU64(std::string_view s, uint64_t& out)
{
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

/// run_detail::kGraphNamePattern, compiled once.
const std::regex& graphName()
{
    static const std::regex pattern(run_detail::kGraphNamePattern);
    return pattern;
}

const MetricSeries* findSeries(const RunDirectory& logs, std::string_view split, std::string_view metric)
{
    for (const auto& s : logs.series)
        if (s.split == split && s.metric == metric)
            return &s;
    return nullptr;
}

/**
 * The lines of a log that stand for iterations, in order: all but burn-train 0.22's `value,final`
 * lines (an epoch's aggregate, logged after its iterations).
 */
std::vector<const MetricPoint*> iterationLines(const MetricSeries* s)
{
    std::vector<const MetricPoint*> out;
    if (!s)
        return out;
    out.reserve(s->points.size());
    for (const auto& p : s->points)
        if (!p.final)
            out.push_back(&p);
    return out;
}

/** The value logged at iteration \a step (1-based, lines counted across epochs), if the log reaches it. */
std::optional<double> valueAtStep(const std::vector<const MetricPoint*>& lines, uint64_t step)
{
    if (step == 0 || step > lines.size())
        return std::nullopt;
    const MetricPoint& p = *lines[step - 1];
    if (!p.text.empty())
        return std::nullopt;
    return p.value;
}

std::optional<double> meanOfEpoch(const MetricSeries* s, uint64_t epoch)
{
    if (!s)
        return std::nullopt;
    for (const auto& [e, v] : s->epochMeans())
        if (e == epoch)
            return v;
    return std::nullopt;
}

} // namespace

CheckpointPlace checkpointPlaceOf(const std::string& path)
{
    CheckpointPlace place;
    const fs::path file(path);
    const std::string name = file.filename().string();
    static const std::regex kRecordName(run_detail::checkpointNamePattern());
    std::smatch m;
    uint64_t n = 0;
    if (std::regex_match(name, m, kRecordName) && parseU64(m[2].str(), n)) {
        (m[1] == "record" ? place.step : place.epoch) = n;
    } else if (std::regex_match(name, m, graphName()) && parseU64(m[1].str(), n)) {
        place.step = n;
    }
    std::error_code ec;
    fs::path dir = fs::absolute(file, ec).parent_path();
    if (ec)
        return place;
    if (dir.filename() == "checkpoint" || dir.filename() == "graph")
        dir = dir.parent_path();
    if (isRunDirectory(dir.string()))
        place.runDirectory = dir.string();
    return place;
}

Result<RunCheckpoints> listRunCheckpoints(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return std::unexpected(Error{ErrorCode::Io, "not a directory (a run is a directory of checkpoints)", dir});
    RunCheckpoints run;
    run.dir = dir;
    const fs::path root(dir);

    // The metric logs, when the run has any (burn-train's train|valid/epoch-N/*.log).
    if (auto logs = openRunDirectory(dir)) {
        run.logs = std::move(*logs);
        for (auto& w : run.logs.warnings)
            run.warnings.push_back(w);
    }

    auto add = [&](std::vector<fs::path> files, std::optional<uint64_t> step, std::optional<uint64_t> epoch) {
        RunPoint p;
        for (const auto& f : files) {
            if (auto id = identityOf(f)) {
                p.bytes += id->size;
                p.files.push_back(std::move(*id));
            }
        }
        if (p.files.empty())
            return; // removed while listed
        p.file = files.front().lexically_relative(root).string();
        p.step = step;
        p.epoch = epoch;
        run.points.push_back(std::move(p));
    };

    static const std::regex kRecordName(run_detail::checkpointNamePattern());
    const fs::path cp = root / "checkpoint";
    std::map<uint64_t, std::vector<fs::path>> records;
    std::map<uint64_t, std::map<std::string, fs::path>> epochs;
    if (fs::is_directory(cp, ec))
        for (const auto& f : filesIn(cp)) {
            const std::string name = f.filename().string();
            std::smatch m;
            uint64_t n = 0;
            if (!std::regex_match(name, m, kRecordName) || !parseU64(m[2].str(), n))
                continue;
            if (m[1] == "record")
                records[n].push_back(f);
            else
                epochs[n].emplace(m[1].str(), f);
        }

    std::map<uint64_t, fs::path> graphs;
    const fs::path gd = root / "graph";
    if (fs::is_directory(gd, ec))
        for (const auto& f : filesIn(gd)) {
            std::smatch m;
            const std::string name = f.filename().string();
            uint64_t n = 0;
            if (std::regex_match(name, m, graphName()) && parseU64(m[1].str(), n))
                graphs.emplace(n, f);
        }

    if (!records.empty()) {
        run.layout = RunLayout::Records;
        for (auto& [step, files] : records) {
            if (files.size() > 1)
                run.warnings.push_back("step " + std::to_string(step) + " has " + std::to_string(files.size()) + " record files; using "
                    + files.front().filename().string());
            add({files.front()}, step, std::nullopt);
        }
    } else if (!epochs.empty()) {
        run.layout = RunLayout::BurnEpochs;
        for (auto& [epoch, parts] : epochs) {
            std::vector<fs::path> files;
            // the model file names the checkpoint; optimizer and scheduler follow it
            for (const char* kind : {"model", "optim", "scheduler"})
                if (auto it = parts.find(kind); it != parts.end())
                    files.push_back(it->second);
            add(files, std::nullopt, epoch);
        }
    } else if (!graphs.empty()) {
        run.layout = RunLayout::GradientCheckpoints;
        for (auto& [step, json] : graphs) {
            std::vector<fs::path> files{json};
            if (auto car = carBeside(json.string()))
                files.emplace_back(*car);
            add(files, step, std::nullopt);
        }
    } else if (auto hf = huggingFaceCheckpoints(root); !hf.empty()) {
        run.layout = RunLayout::HuggingFace;
        for (auto& [step, files] : hf)
            add(files, step, std::nullopt);
    } else {
        // A plain folder of records: ordered by the last number in the name, names without one last.
        static const std::regex kRecordFile(run_detail::recordExtensionPattern());
        static const std::regex kLastNumber(R"((\d+)(?!.*\d))");
        std::vector<std::tuple<bool, uint64_t, fs::path>> found;
        for (const auto& f : filesIn(root)) {
            const std::string name = f.filename().string();
            if (!fs::is_regular_file(f, ec) || !std::regex_search(name, kRecordFile))
                continue;
            std::smatch m;
            uint64_t n = 0;
            const bool numbered = std::regex_search(name, m, kLastNumber) && parseU64(m[1].str(), n);
            found.emplace_back(!numbered, n, f);
        }
        std::sort(found.begin(), found.end());
        run.layout = RunLayout::Folder;
        for (auto& [unnumbered, n, f] : found)
            add({f}, unnumbered ? std::nullopt : std::optional<uint64_t>(n), std::nullopt);
    }

    if (run.points.empty())
        return std::unexpected(Error{ErrorCode::Invalid,
            "no checkpoints: expected checkpoint/record-STEP.<ext>, checkpoint/{model,optim,scheduler}-EPOCH.<ext>, "
            "graph/step-N.json or record files ("
                + run_detail::recordExtensionList() + ")",
            dir});

    if (run.layout == RunLayout::HuggingFace) {
        // the Trainer logs every logging_steps: a checkpoint's loss is the last one logged at or before its step
        if (auto state = newestTrainerState(root)) {
            if (auto log = readTrainerState(*state)) {
                for (size_t i = 0; i < run.points.size(); ++i) {
                    run.points[i].index = i;
                    run.points[i].loss = trainerValueAt(*log, *run.points[i].step, &TrainerLogEntry::loss);
                    run.points[i].lr = trainerValueAt(*log, *run.points[i].step, &TrainerLogEntry::learningRate);
                }
                return run;
            } else {
                run.warnings.push_back(log.error().message());
            }
        }
    }
    const MetricSeries* loss = findSeries(run.logs, "train", "Loss");
    const MetricSeries* lr = findSeries(run.logs, "train", "Learning_Rate");
    const auto lossLines = iterationLines(loss), lrLines = iterationLines(lr);
    for (size_t i = 0; i < run.points.size(); ++i) {
        RunPoint& p = run.points[i];
        p.index = i;
        if (p.step) {
            p.loss = valueAtStep(lossLines, *p.step);
            p.lr = valueAtStep(lrLines, *p.step);
        } else if (p.epoch) {
            p.loss = meanOfEpoch(loss, *p.epoch);
            p.lr = meanOfEpoch(lr, *p.epoch);
        }
    }
    return run;
}

} // namespace ckpt
