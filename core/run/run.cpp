// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/run.h"

#include "core/run/direntries.h"
#include "core/run/runpolicy.h"
#include "core/run/trainerstate.h"

#include "core/io/bytes.h"
#include "core/util/charconv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>

namespace fs = std::filesystem;

namespace ckpt {

using run_detail::entriesOf;

std::vector<std::pair<uint32_t, double>> MetricSeries::epochMeans() const
{
    struct Acc {
        double sum = 0, count = 0;
        bool batches = false;               ///< a numeric line that is not final
        const MetricPoint* last = nullptr;  ///< the epoch's last line, numeric or not
        const MetricPoint* final = nullptr; ///< its last `value,final` line
    };
    std::map<uint32_t, Acc> acc;
    for (const auto& p : points) {
        auto& a = acc[p.epoch];
        a.last = &p;
        if (p.final) {
            // NumericEntry::Final: the epoch's aggregate, never one of its batches
            a.final = &p;
            continue;
        }
        if (!p.text.empty())
            continue;
        a.batches = true;
        a.sum += p.value * double(p.count);
        a.count += double(p.count);
    }
    std::vector<std::pair<uint32_t, double>> out;
    for (const auto& [e, a] : acc) {
        if (a.last->final)
            out.emplace_back(e, a.last->value); // the file ends with `value,final`: that value is the epoch's
        else if (a.batches)
            out.emplace_back(e, a.count > 0 ? a.sum / a.count : std::nan(""));
        else if (a.final)
            out.emplace_back(e, a.final->value); // no batch lines, text after the final line
    }
    return out;
}

std::optional<RunCheckpoint> RunDirectory::latest(const std::string& kind) const
{
    std::optional<RunCheckpoint> best;
    for (const auto& c : checkpoints)
        if (c.kind == kind && (!best || c.index >= best->index))
            best = c;
    return best;
}

namespace {

std::optional<double> parseRustF64(std::string_view s)
{
    if (s == "NaN")
        return std::nan("");
    if (s == "inf")
        return INFINITY;
    if (s == "-inf")
        return -INFINITY;
    double v = 0;
    auto r = fromCharsDouble(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<uint32_t> epochOf(const std::string& name)
{
    if (!name.starts_with("epoch-"))
        return std::nullopt;
    uint32_t e = 0;
    auto r = std::from_chars(name.data() + 6, name.data() + name.size(), e);
    if (r.ec != std::errc() || r.ptr != name.data() + name.size())
        return std::nullopt;
    return e;
}

} // namespace

MetricSeries parseMetricLog(std::string_view text, const std::string& split, const std::string& metric, uint32_t epoch,
    std::vector<std::string>* warnings)
{
    MetricSeries s;
    s.split = split;
    s.metric = metric;
    uint64_t item = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty())
            continue;
        MetricPoint p;
        p.epoch = epoch;
        p.item = item++;
        const size_t comma = line.rfind(',');
        std::optional<double> v;
        if (comma != std::string_view::npos) {
            v = parseRustF64(line.substr(0, comma));
            uint64_t c = 0;
            auto cs = line.substr(comma + 1);
            auto r = std::from_chars(cs.data(), cs.data() + cs.size(), c);
            if (v && cs == "final")
                p.final = true; // `value,final` (burn-train 0.22, NumericEntry::Final): the epoch's aggregate
            else if (v && r.ec == std::errc() && r.ptr == cs.data() + cs.size())
                p.count = c;
            else
                v.reset();
        } else {
            v = parseRustF64(line);
        }
        if (v) {
            p.value = *v;
        } else {
            p.value = std::nan("");
            p.text = std::string(line);
            if (warnings && (line.find_first_of("0123456789") == 0))
                warnings->push_back(metric + " epoch " + std::to_string(epoch) + " line " + std::to_string(p.item + 1) + ": not a number: " + std::string(line));
        }
        s.points.push_back(std::move(p));
    }
    return s;
}

Result<RunCheckpoint> recordOfRunDirectory(const std::string& path)
{
    if (!isRunDirectory(path))
        return std::unexpected(Error{ErrorCode::Invalid,
            "a directory that is not a run directory (no checkpoint/ folder, no train|valid/epoch-N, no Hugging Face checkpoint-N/)", path});
    auto run = openRunDirectory(path);
    if (!run)
        return std::unexpected(run.error());
    // the first of the files the app opens for the run: its newest record-STEP, else its newest model-EPOCH
    const std::vector<std::string> files = filesToOpen(*run);
    for (const RunCheckpoint& c : run->checkpoints)
        if (!files.empty() && c.path == files.front() && (c.kind == "record" || c.kind == "model"))
            return c;
    return std::unexpected(Error{ErrorCode::Invalid, "the run directory holds no record-STEP or model-EPOCH checkpoint", path});
}

Result<RunDirectory> openRunDirectory(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return std::unexpected(Error{ErrorCode::Io, "not a directory", path});
    RunDirectory run;
    run.path = path;

    static const std::regex kCheckpoint(run_detail::checkpointNamePattern());
    const fs::path cp = fs::path(path) / "checkpoint";
    if (fs::is_directory(cp, ec)) {
        for (const auto& e : entriesOf(cp)) {
            const std::string name = e.path().filename().string();
            std::smatch m;
            uint64_t index = 0;
            // a number past 2^64 - 1 is no epoch or step a trainer wrote: not a checkpoint name
            if (e.is_regular_file(ec) && std::regex_match(name, m, kCheckpoint)
                && std::from_chars(name.data() + m.position(2), name.data() + m.position(2) + m.length(2), index).ec == std::errc())
                run.checkpoints.push_back({e.path().string(), m[1].str(), index});
        }
    }
    if (run.checkpoints.empty()) // a Hugging Face Trainer's checkpoint-N/: its model (a sharded set by its index), optimizer.pt and scheduler.pt
        for (const auto& [step, files] : huggingFaceCheckpoints(path)) {
            run.checkpoints.push_back({files.front().string(), "model", step});
            for (const auto& f : files)
                if (f.filename() == "optimizer.pt" || f.filename() == "scheduler.pt")
                    run.checkpoints.push_back({f.string(), f.filename() == "optimizer.pt" ? "optim" : "scheduler", step});
        }
    std::sort(run.checkpoints.begin(), run.checkpoints.end(),
        [](const auto& a, const auto& b) { return std::tie(a.index, a.kind, a.path) < std::tie(b.index, b.kind, b.path); });

    std::map<std::pair<std::string, std::string>, MetricSeries> series;
    auto readSplit = [&](const fs::path& dir, const std::string& split) {
        std::vector<std::pair<uint32_t, fs::path>> epochs;
        for (const auto& e : entriesOf(dir))
            if (auto ep = epochOf(e.path().filename().string()); ep && e.is_directory(ec))
                epochs.emplace_back(*ep, e.path());
        std::sort(epochs.begin(), epochs.end());
        for (const auto& [ep, dirPath] : epochs) {
            std::vector<fs::path> logs;
            for (const auto& f : entriesOf(dirPath))
                if (f.path().extension() == ".log" && f.is_regular_file(ec))
                    logs.push_back(f.path());
            std::sort(logs.begin(), logs.end());
            for (const auto& log : logs) {
                auto bytes = mapFile(log.string());
                if (!bytes) {
                    run.warnings.push_back(bytes.error().message());
                    continue;
                }
                const std::string metric = log.stem().string();
                auto parsed = parseMetricLog(std::string_view(reinterpret_cast<const char*>((*bytes)->data()), (*bytes)->size()),
                    split, metric, ep, &run.warnings);
                auto& s = series[{split, metric}];
                s.split = split;
                s.metric = metric;
                s.points.insert(s.points.end(), parsed.points.begin(), parsed.points.end());
            }
        }
    };
    for (std::string split : {"train", "valid"}) {
        const fs::path d = fs::path(path) / split;
        if (fs::is_directory(d, ec))
            readSplit(d, split);
    }
    // Split::Test (0.19+): test/epoch-N or test/<tag>/epoch-N
    const fs::path test = fs::path(path) / "test";
    if (fs::is_directory(test, ec)) {
        readSplit(test, "test");
        for (const auto& e : entriesOf(test))
            if (e.is_directory(ec) && !epochOf(e.path().filename().string()))
                readSplit(e.path(), "test/" + e.path().filename().string());
    }
    for (auto& [k, s] : series)
        run.series.push_back(std::move(s));
    // a Hugging Face Trainer's output: its history is trainer_state.json's log_history
    if (run.series.empty())
        if (auto state = newestTrainerState(path)) {
            if (auto log = readTrainerState(*state))
                run.series = trainerSeries(*log);
            else
                run.warnings.push_back(log.error().message());
        }
    return run;
}

} // namespace ckpt
