// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-train: the reference trainer (cli-contract.md, `ckpt-train`). Parses the command line, opens
// and reads the record for --resume, merges explicit flags over the recorded settings, and hands the
// run to trainer.cpp.
#include "app/train/config.h"
#include "app/train/format.h"
#include "app/train/graphcheckpoint.h"
#include "app/train/trainer.h"
#include "core/record/record.h"

#include <ckpt_version.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace ckpt;
using namespace ckpt::train;

namespace {

const char* kUsage =
    "usage: ckpt-train --out DIR [--steps N] [--checkpoint-every K] [--seed S] [--optimizer adam|adamw|sgd]\n"
    "                  [--scheduler constant|step|linear|cosine|exponential|noam] [--recorder R] [--precision P]\n"
    "                  [--grad-accum A] [--layout training-record|burn-run|gradient-checkpoint|all]\n"
    "                  [--diverge-at STEP|never] [--blocks N]\n"
    "                  [--task regression|classification] [--dtype f32|f64] [--activation relu|gelu]\n"
    "                  [--input-dim N] [--hidden N] [--classes N] [--batch-size N] [--dataset-size N] [--valid-size N]\n"
    "                  [--lr X] [--beta1 X] [--beta2 X] [--epsilon X] [--weight-decay X] [--amsgrad]\n"
    "                  [--momentum X] [--dampening X] [--nesterov] [--gamma X] [--step-size N] [--final-lr X]\n"
    "                  [--sched-iters N] [--warmup N] [--embedding-size N]\n"
    "       ckpt-train --resume RECORD --out DIR [--steps N] [any flag above overrides the recorded value]\n"
    "                  (RECORD: a TrainingRecord, or a GradientCheckpoint graph/step-N.json with its step-N.car)\n"
    "       ckpt-train --help | --version\n"
    "\n"
    "The reference trainer of Checkpoint Inspector: a deterministic MLP on data generated from its seed\n"
    "that writes TrainingRecords, burn-train run directories and GradientCheckpoints with CAR files, and\n"
    "resumes any of its records bit-exactly. One metric line per step on stdout: step=N loss=X lr=Y.\n"
    "\n"
    "  --diverge-at STEP  from micro-batch STEP on (the N of step=N), the optimizer applies the learning rate\n"
    "                     times 10^6: the run blows up to inf and NaN (parameters, optimizer moments, gradients,\n"
    "                     loss) and keeps writing checkpoints. lr=Y and the scheduler keep the scheduled value.\n"
    "                     Recorded in the caller state (config.diverge_at), so --resume continues the same way;\n"
    "                     on --resume, --diverge-at never removes it. Default: never.\n"
    "  --blocks N         N residual blocks h + fc2(act(norm(fc1(h)))) (Linear hidden->hidden, LayerNorm,\n"
    "                     Linear hidden->hidden) between the activation and the output layer: 6 + 6N parameters\n"
    "                     (record paths item[0].blocks[K].fc1.weight, ...). Default 0: the plain MLP.\n"
    "\n"
    "Exit codes: 0 success, 1 invalid input or failed run, 2 usage error.\n";

int usage(const std::string& msg)
{
    std::fprintf(stderr, "ckpt-train: %s\n%s", msg.c_str(), kUsage);
    return ExitUsage;
}

bool parseU64(const std::string& s, uint64_t& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}
bool parseF64(const std::string& s, double& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}
bool parseF32(const std::string& s, float& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

/** One command-line option: how to apply it to a config, and how to print the config's value. */
struct Option {
    bool takesValue = true;
    bool structural = false; ///< defines the model, data or state layout: cannot change on resume
    std::function<bool(TrainConfig&, const std::string&)> apply;
    std::function<std::string(const TrainConfig&)> show;
};

std::map<std::string, Option> options()
{
    std::map<std::string, Option> o;
    auto u64 = [](uint64_t TrainConfig::*field, bool structural, uint64_t min = 0) {
        return Option{true, structural,
            [=](TrainConfig& c, const std::string& v) {
                uint64_t n;
                if (!parseU64(v, n) || n < min)
                    return false;
                c.*field = n;
                return true;
            },
            [=](const TrainConfig& c) { return std::to_string(c.*field); }};
    };
    auto f64 = [](double TrainConfig::*field) {
        return Option{true, false, [=](TrainConfig& c, const std::string& v) { return parseF64(v, c.*field); },
            [=](const TrainConfig& c) { return rustDisplayF64(c.*field); }};
    };
    auto f32 = [](float TrainConfig::*field) {
        return Option{true, false, [=](TrainConfig& c, const std::string& v) { return parseF32(v, c.*field); },
            [=](const TrainConfig& c) { return rustDisplayF64(static_cast<double>(c.*field)); }};
    };
    auto flag = [](bool TrainConfig::*field, bool structural) {
        return Option{false, structural, [=](TrainConfig& c, const std::string&) { c.*field = true; return true; },
            [=](const TrainConfig& c) { return std::string(c.*field ? "true" : "false"); }};
    };
    o["--steps"] = u64(&TrainConfig::steps, false);
    o["--checkpoint-every"] = u64(&TrainConfig::checkpointEvery, false);
    o["--seed"] = u64(&TrainConfig::seed, true);
    o["--grad-accum"] = u64(&TrainConfig::gradAccum, false, 1);
    o["--input-dim"] = u64(&TrainConfig::inputDim, true, 1);
    o["--hidden"] = u64(&TrainConfig::hidden, true, 1);
    o["--classes"] = u64(&TrainConfig::outputDim, true, 1);
    o["--batch-size"] = u64(&TrainConfig::batchSize, true, 1);
    o["--dataset-size"] = u64(&TrainConfig::datasetSize, true, 1);
    o["--valid-size"] = u64(&TrainConfig::validSize, true, 1);
    o["--blocks"] = u64(&TrainConfig::blocks, true);
    o["--step-size"] = u64(&TrainConfig::schedStepSize, false, 1);
    o["--sched-iters"] = u64(&TrainConfig::schedIters, false, 1);
    o["--warmup"] = u64(&TrainConfig::warmupSteps, false, 1);
    o["--embedding-size"] = u64(&TrainConfig::embeddingSize, false, 1);
    o["--lr"] = f64(&TrainConfig::lr);
    o["--momentum"] = f64(&TrainConfig::momentum);
    o["--dampening"] = f64(&TrainConfig::dampening);
    o["--gamma"] = f64(&TrainConfig::schedGamma);
    o["--final-lr"] = f64(&TrainConfig::schedFinalLr);
    o["--beta1"] = f32(&TrainConfig::beta1);
    o["--beta2"] = f32(&TrainConfig::beta2);
    o["--epsilon"] = f32(&TrainConfig::epsilon);
    o["--weight-decay"] = f32(&TrainConfig::weightDecay);
    o["--amsgrad"] = flag(&TrainConfig::amsgrad, true);
    o["--nesterov"] = flag(&TrainConfig::nesterov, false);
    auto enumOpt = [](auto parse, auto TrainConfig::*field, auto name, bool structural) {
        return Option{true, structural, [=](TrainConfig& c, const std::string& v) { return parse(v, c.*field); },
            [=](const TrainConfig& c) { return std::string(name(c.*field)); }};
    };
    o["--optimizer"] = enumOpt(parseOptimizer, &TrainConfig::optimizer, optimizerName, true);
    o["--scheduler"] = enumOpt(parseScheduler, &TrainConfig::scheduler, schedulerName, true);
    o["--task"] = enumOpt(parseTask, &TrainConfig::task, taskName, true);
    o["--dtype"] = enumOpt(parseDType, &TrainConfig::dtype, [](TrainDType d) { return ckpt::train::dtypeName(d); }, true);
    o["--activation"] = enumOpt(parseActivation, &TrainConfig::activation, activationName, true);
    o["--recorder"] = Option{true, false,
        [](TrainConfig& c, const std::string& v) {
            auto r = recorderFromName(v);
            if (r)
                c.recorder = *r;
            return r.has_value();
        },
        [](const TrainConfig& c) { return std::string(recorderName(c.recorder)); }};
    o["--precision"] = Option{true, false,
        [](TrainConfig& c, const std::string& v) {
            auto p = precisionFromName(v);
            if (p)
                c.precision = *p;
            return p.has_value();
        },
        [](const TrainConfig& c) { return std::string(precisionName(c.precision)); }};
    o["--layout"] = Option{true, false, [](TrainConfig& c, const std::string& v) { return parseLayout(v, c.layout); },
        [](const TrainConfig& c) { return layoutName(c.layout); }};
    // Not structural: a continuation may start diverging (or stop) at any step; the record keeps what was used.
    o["--diverge-at"] = Option{true, false,
        [](TrainConfig& c, const std::string& v) {
            uint64_t n;
            if (v == "never") {
                c.divergeAt.reset();
                return true;
            }
            if (!parseU64(v, n) || n == 0)
                return false;
            c.divergeAt = n;
            return true;
        },
        [](const TrainConfig& c) { return c.divergeAt ? std::to_string(*c.divergeAt) : std::string("never"); }};
    return o;
}

/**
 * What makes a configuration unusable, or "" — checked for flags and for a record's caller state
 * alike, so an edited or hostile record can neither divide by zero nor ask for absurd allocations.
 */
std::string configProblem(const TrainConfig& c)
{
    constexpr uint64_t kMaxElements = uint64_t(1) << 26; // 64 Mi elements per matrix, far beyond any demo
    constexpr uint64_t kMaxBlocks = 4096;
    auto tooBig = [&](uint64_t a, uint64_t b) { return a != 0 && b > kMaxElements / a; };
    if (c.inputDim == 0 || c.hidden == 0 || c.outputDim == 0 || c.batchSize == 0 || c.datasetSize == 0 || c.validSize == 0)
        return "model and data sizes must be at least 1";
    if (c.task == Task::Classification && c.outputDim < 2)
        return "classification needs at least 2 classes";
    if (c.datasetSize % c.batchSize != 0)
        return "dataset_size must be a multiple of batch_size";
    if (tooBig(c.inputDim, c.hidden) || tooBig(c.hidden, c.outputDim) || tooBig(c.datasetSize, c.inputDim + c.outputDim)
        || tooBig(c.validSize, c.inputDim + c.outputDim) || tooBig(c.batchSize, std::max({c.inputDim, c.hidden, c.outputDim})))
        return "model or data too large (more than 2^26 elements in one matrix)";
    // hidden <= 2^26 here (input_dim >= 1), so hidden * hidden cannot overflow.
    if (c.blocks > kMaxBlocks || (c.blocks > 0 && tooBig(c.blocks, c.hidden * c.hidden)))
        return "blocks must be at most " + std::to_string(kMaxBlocks) + " and hold at most 2^26 weights together";
    if (c.gradAccum == 0)
        return "grad_accum must be at least 1";
    if (c.schedStepSize == 0 || c.schedStepSize > uint64_t(INT32_MAX) || c.schedIters == 0 || c.schedIters > (uint64_t(1) << 53)
        || c.warmupSteps == 0 || c.embeddingSize == 0)
        return "scheduler step_size, num_iters, warmup_steps and embedding_size must be at least 1 (step_size at most i32::MAX, num_iters at most 2^53)";
    if (!(c.lr > 0.0) || !std::isfinite(c.schedGamma) || c.schedGamma == 0.0)
        return "lr must be positive and gamma finite and non-zero";
    return {};
}

} // namespace

int main(int argc, char** argv)
{
    const auto opts = options();
    std::vector<std::pair<std::string, std::string>> given; // explicit flags in order
    std::string outDir, resumePath;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return ExitOk;
        }
        if (a == "--version") {
            std::puts("ckpt-train " CKPT_VERSION);
            return ExitOk;
        }
        if (a == "--out" || a == "--resume") {
            if (i + 1 >= argc)
                return usage(a + " needs a value");
            (a == "--out" ? outDir : resumePath) = argv[++i];
            continue;
        }
        auto it = opts.find(a);
        if (it == opts.end())
            return usage("unknown argument " + a);
        std::string value;
        if (it->second.takesValue) {
            if (i + 1 >= argc)
                return usage(a + " needs a value");
            value = argv[++i];
        }
        given.emplace_back(a, value);
    }
    if (outDir.empty())
        return usage("--out DIR is required");

    RunRequest req;
    req.outDir = outDir;
    TrainConfig& cfg = req.config;
    if (resumePath.empty()) {
        bool lrGiven = false, finalGiven = false;
        for (const auto& [name, value] : given) {
            if (!opts.at(name).apply(cfg, value))
                return usage("invalid value for " + name + ": " + value);
            lrGiven |= name == "--lr";
            finalGiven |= name == "--final-lr";
        }
        // Defaults that depend on other settings (only when not given explicitly).
        // An f64 run keeps its state exactly only in DoublePrecisionSettings records.
        if (cfg.dtype == TrainDType::F64 && std::none_of(given.begin(), given.end(), [](auto& g) { return g.first == "--precision"; }))
            cfg.precision = Precision::Double;
        if (!lrGiven && cfg.optimizer == OptimizerKind::Sgd)
            cfg.lr = 0.05;
        if (!finalGiven)
            cfg.schedFinalLr = cfg.lr * 0.1;
        if (cfg.task == Task::Regression && std::none_of(given.begin(), given.end(), [](auto& g) { return g.first == "--classes"; }))
            cfg.outputDim = 1;
        if (cfg.task == Task::Classification && std::none_of(given.begin(), given.end(), [](auto& g) { return g.first == "--classes"; }))
            cfg.outputDim = 4;
        if (cfg.task == Task::Classification && cfg.outputDim < 2)
            return usage("classification needs --classes >= 2");
        if (auto why = configProblem(cfg); !why.empty())
            return usage(why);
        if (cfg.steps == 0)
            return usage("--steps must be at least 1");
    } else {
        auto graph = openGraphResume(resumePath);
        if (!graph) {
            std::fprintf(stderr, "ckpt-train: %s\n", graph.error().message().c_str());
            return ExitFailed;
        }
        std::string configPath = "item[4].config";
        if (*graph) {
            req.graph = std::make_shared<const GraphResumeSource>(std::move(**graph));
            configPath = std::string("optimizer_state[\"") + kResumeStateKey + "\"].caller_state.config";
            if (auto s = readCallerState(req.graph->state, req.graph->callerStateNode, cfg, req.recordedProgress); !s) {
                std::fprintf(stderr, "ckpt-train: %s\n", std::move(s.error()).withFile(resumePath).message().c_str());
                return ExitFailed;
            }
        } else {
            auto rec = openTrainingRecord(resumePath);
            if (!rec) {
                std::fprintf(stderr, "ckpt-train: %s\n", std::move(rec.error()).withFile(resumePath).message().c_str());
                return ExitFailed;
            }
            const Record& r = **rec;
            if (r.kind != RecordKind::TrainingRecord || !r.stateNode) {
                std::fprintf(stderr, "ckpt-train: %s: not a TrainingRecord with caller state (found %s)\n", resumePath.c_str(),
                    std::string(recordKindName(r.kind)).c_str());
                return ExitFailed;
            }
            if (r.partial) {
                std::fprintf(stderr, "ckpt-train: %s: the bincode record could only be scanned, not decoded\n", resumePath.c_str());
                return ExitFailed;
            }
            if (auto s = readCallerState(r.tape, *r.stateNode, cfg, req.recordedProgress); !s) {
                std::fprintf(stderr, "ckpt-train: %s\n", std::move(s.error()).withFile(resumePath).message().c_str());
                return ExitFailed;
            }
            req.record = *rec;
        }
        if (auto why = configProblem(cfg); !why.empty()) {
            std::fprintf(stderr, "ckpt-train: %s: at %s: %s\n", resumePath.c_str(), configPath.c_str(), why.c_str());
            return ExitFailed;
        }
        for (const auto& [name, value] : given) {
            const Option& o = opts.at(name);
            const std::string before = o.show(cfg);
            TrainConfig changed = cfg;
            if (!o.apply(changed, value))
                return usage("invalid value for " + name + ": " + value);
            const std::string after = o.show(changed);
            if (after == before)
                continue;
            if (o.structural)
                return usage(name + " " + value + " cannot override the record's " + before + ": it defines the model, data or state layout");
            if (name == "--grad-accum" && req.recordedProgress.pendingMicroBatches > 0)
                return usage("--grad-accum cannot change while the record holds pending gradients");
            cfg = changed;
            req.overrides.push_back(name.substr(2) + "=" + after + " (recorded " + before + ")");
            if (name == "--steps")
                req.stepsFlag = cfg.steps;
        }
        if (auto why = configProblem(cfg); !why.empty())
            return usage(why);
        // An explicit --steps equal to the recorded value still sets the target.
        for (const auto& [name, value] : given)
            if (name == "--steps")
                req.stepsFlag = cfg.steps;
        req.recordPath = resumePath;
    }
    installStopHandler();
    return runTraining(req);
}
