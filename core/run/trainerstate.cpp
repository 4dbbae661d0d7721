// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/trainerstate.h"

#include "core/codec/json.h"
#include "core/io/bytes.h"
#include "core/open/shards.h"

#include <charconv>
#include <cmath>
#include <regex>

namespace fs = std::filesystem;

namespace ckpt {

Result<std::vector<TrainerLogEntry>> readTrainerState(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    // the Trainer writes it with Python's json: a diverged run's losses are the bare words NaN and Infinity
    JsonReadOptions options;
    options.pythonNonFinite = true;
    auto tape = readJson(*bytes, options);
    if (!tape)
        return std::unexpected(std::move(tape.error()).withFile(path));
    const Tape& t = *tape;
    auto history = t.isMap(0) ? t.find(0, "log_history") : std::nullopt;
    if (!history || !t.isArray(*history))
        return std::unexpected(Error{ErrorCode::Invalid, "trainer_state.json without a log_history array", path});
    std::vector<TrainerLogEntry> out;
    t.forEachChild(*history, [&](uint32_t e) {
        if (!t.isMap(e))
            return;
        auto number = [&](std::string_view key) -> std::optional<double> {
            auto n = t.find(e, key);
            return n ? t.asNumber(*n) : std::nullopt;
        };
        auto step = number("step");
        if (!step || *step < 0)
            return;
        TrainerLogEntry entry;
        entry.step = uint64_t(*step);
        entry.epoch = number("epoch").value_or(0);
        entry.loss = number("loss");
        entry.learningRate = number("learning_rate");
        entry.evalLoss = number("eval_loss");
        out.push_back(entry);
    });
    return out;
}

std::map<uint64_t, std::vector<fs::path>> huggingFaceCheckpoints(const fs::path& dir)
{
    static const std::regex kCheckpointDir(R"(^checkpoint-(\d+)$)");
    std::map<uint64_t, std::vector<fs::path>> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::smatch m;
        uint64_t step = 0;
        if (!it->is_directory(ec) || !std::regex_match(name, m, kCheckpointDir)
            || std::from_chars(name.data() + m.position(1), name.data() + m.position(1) + m.length(1), step).ec != std::errc())
            continue;
        std::vector<fs::path> files;
        for (const char* model : {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json"})
            if (fs::is_regular_file(it->path() / model, ec)) {
                files.push_back(it->path() / model);
                // a sharded set's shards are files of the checkpoint too (its size, the cache's identity); they open through the index
                if (isShardIndex(model))
                    for (const std::string& shard : shardsOf((it->path() / model).string()))
                        files.emplace_back(shard);
                break;
            }
        if (files.empty())
            continue; // a checkpoint folder without its model is being written, or is not one
        for (const char* part : {"optimizer.pt", "scheduler.pt"})
            if (fs::is_regular_file(it->path() / part, ec))
                files.push_back(it->path() / part);
        out.emplace(step, std::move(files));
    }
    return out;
}

std::optional<std::string> newestTrainerState(const fs::path& dir)
{
    std::error_code ec;
    const auto checkpoints = huggingFaceCheckpoints(dir);
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it)
        if (auto state = it->second.front().parent_path() / "trainer_state.json"; fs::is_regular_file(state, ec))
            return state.string();
    if (auto state = dir / "trainer_state.json"; fs::is_regular_file(state, ec))
        return state.string();
    return std::nullopt;
}

std::optional<double> trainerValueAt(const std::vector<TrainerLogEntry>& log, uint64_t step, std::optional<double> TrainerLogEntry::* field)
{
    std::optional<double> value;
    for (const auto& e : log)
        if (e.step <= step && e.*field)
            value = e.*field;
    return value;
}

std::vector<MetricSeries> trainerSeries(const std::vector<TrainerLogEntry>& log)
{
    MetricSeries loss{"train", "Loss", {}}, lr{"train", "Learning_Rate", {}}, eval{"valid", "Loss", {}};
    auto add = [](MetricSeries& s, const TrainerLogEntry& e, double v) {
        MetricPoint p;
        p.epoch = uint32_t(std::max(0.0, std::floor(e.epoch)));
        p.item = s.points.empty() || s.points.back().epoch != p.epoch ? 0 : s.points.back().item + 1;
        p.value = v;
        s.points.push_back(p);
    };
    for (const auto& e : log) {
        if (e.loss)
            add(loss, e, *e.loss);
        if (e.learningRate)
            add(lr, e, *e.learningRate);
        if (e.evalLoss)
            add(eval, e, *e.evalLoss);
    }
    std::vector<MetricSeries> out;
    for (MetricSeries* s : {&lr, &loss, &eval}) // sorted by (split, metric), as openRunDirectory keeps them
        if (!s->points.empty())
            out.push_back(std::move(*s));
    return out;
}

} // namespace ckpt
