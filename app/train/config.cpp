// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/config.h"

#include "core/model/fieldreader.h"

#include <array>
#include <cmath>
#include <utility>

namespace ckpt::train {

namespace {
template<class E, size_t N>
bool parseEnum(std::string_view s, const std::array<std::pair<std::string_view, E>, N>& table, E& out)
{
    for (const auto& [name, value] : table)
        if (name == s) {
            out = value;
            return true;
        }
    return false;
}
template<class E, size_t N>
std::string_view enumName(E v, const std::array<std::pair<std::string_view, E>, N>& table)
{
    for (const auto& [name, value] : table)
        if (value == v)
            return name;
    return "?";
}

constexpr std::array<std::pair<std::string_view, Task>, 2> kTasks{{{"regression", Task::Regression}, {"classification", Task::Classification}}};
constexpr std::array<std::pair<std::string_view, OptimizerKind>, 3> kOptimizers{
    {{"sgd", OptimizerKind::Sgd}, {"adam", OptimizerKind::Adam}, {"adamw", OptimizerKind::AdamW}}};
constexpr std::array<std::pair<std::string_view, SchedulerKind>, 6> kSchedulers{{{"constant", SchedulerKind::Constant},
    {"step", SchedulerKind::Step}, {"linear", SchedulerKind::Linear}, {"cosine", SchedulerKind::Cosine},
    {"exponential", SchedulerKind::Exponential}, {"noam", SchedulerKind::Noam}}};
constexpr std::array<std::pair<std::string_view, Activation>, 2> kActivations{{{"relu", Activation::Relu}, {"gelu", Activation::Gelu}}};
constexpr std::array<std::pair<std::string_view, TrainDType>, 2> kDTypes{{{"f32", TrainDType::F32}, {"f64", TrainDType::F64}}};
} // namespace

std::string_view taskName(Task t) { return enumName(t, kTasks); }
std::string_view optimizerName(OptimizerKind k) { return enumName(k, kOptimizers); }
std::string_view schedulerName(SchedulerKind k) { return enumName(k, kSchedulers); }
std::string_view activationName(Activation a) { return enumName(a, kActivations); }
std::string_view dtypeName(TrainDType d) { return enumName(d, kDTypes); }
bool parseTask(std::string_view s, Task& out) { return parseEnum(s, kTasks, out); }
bool parseOptimizer(std::string_view s, OptimizerKind& out) { return parseEnum(s, kOptimizers, out); }
bool parseScheduler(std::string_view s, SchedulerKind& out) { return parseEnum(s, kSchedulers, out); }
bool parseActivation(std::string_view s, Activation& out) { return parseEnum(s, kActivations, out); }
bool parseDType(std::string_view s, TrainDType& out) { return parseEnum(s, kDTypes, out); }

std::string layoutName(uint32_t bits)
{
    switch (bits) {
    case LayoutTrainingRecord: return "training-record";
    case LayoutBurnRun: return "burn-run";
    case LayoutGradientCheckpoint: return "gradient-checkpoint";
    case LayoutAll: return "all";
    default: break;
    }
    std::string s;
    for (auto [bit, name] : {std::pair{LayoutTrainingRecord, "training-record"}, {LayoutBurnRun, "burn-run"},
             {LayoutGradientCheckpoint, "gradient-checkpoint"}})
        if (bits & bit)
            s += (s.empty() ? "" : ",") + std::string(name);
    return s;
}

bool parseLayout(std::string_view s, uint32_t& out)
{
    uint32_t bits = 0;
    while (!s.empty()) {
        const size_t comma = s.find(',');
        const std::string_view part = s.substr(0, comma);
        if (part == "training-record")
            bits |= LayoutTrainingRecord;
        else if (part == "burn-run")
            bits |= LayoutBurnRun;
        else if (part == "gradient-checkpoint")
            bits |= LayoutGradientCheckpoint;
        else if (part == "all")
            bits |= LayoutAll;
        else
            return false;
        s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    }
    if (bits == 0)
        return false;
    out = bits;
    return true;
}

void writeCallerState(TapeBuilder& b, const TrainConfig& c, const TrainProgress& p)
{
    auto kv = [&](std::string_view k, auto&& write) {
        b.key(k);
        write();
    };
    auto u = [&](std::string_view k, uint64_t v) { kv(k, [&] { b.uinteger(v); }); };
    auto s = [&](std::string_view k, std::string_view v) { kv(k, [&] { b.str(v); }); };
    auto f64 = [&](std::string_view k, double v) { kv(k, [&] { b.f64(v); }); };
    auto f32 = [&](std::string_view k, float v) { kv(k, [&] { b.f32(v); }); };
    auto boolean = [&](std::string_view k, bool v) { kv(k, [&] { b.boolean(v); }); };

    b.beginMap();
    b.key("config");
    b.beginMap();
    {
        b.key("model");
        b.beginMap();
        u("input_dim", c.inputDim);
        u("hidden", c.hidden);
        u("output_dim", c.outputDim);
        s("activation", activationName(c.activation));
        u("blocks", c.blocks);
        b.end();
        s("task", taskName(c.task));
        s("dtype", dtypeName(c.dtype));
        u("batch_size", c.batchSize);
        u("dataset_size", c.datasetSize);
        u("valid_size", c.validSize);
        u("seed", c.seed);
        b.key("optimizer");
        b.beginMap();
        s("name", optimizerName(c.optimizer));
        f64("lr", c.lr);
        f32("beta_1", c.beta1);
        f32("beta_2", c.beta2);
        f32("epsilon", c.epsilon);
        f32("weight_decay", c.weightDecay);
        boolean("amsgrad", c.amsgrad);
        f64("momentum", c.momentum);
        f64("dampening", c.dampening);
        boolean("nesterov", c.nesterov);
        b.end();
        b.key("scheduler");
        b.beginMap();
        s("name", schedulerName(c.scheduler));
        f64("gamma", c.schedGamma);
        u("step_size", c.schedStepSize);
        f64("final_lr", c.schedFinalLr);
        u("num_iters", c.schedIters);
        u("warmup_steps", c.warmupSteps);
        u("embedding_size", c.embeddingSize);
        b.end();
        s("recorder", recorderName(c.recorder));
        s("precision", precisionName(c.precision));
        u("checkpoint_every", c.checkpointEvery);
        u("grad_accum", c.gradAccum);
        u("steps", c.steps);
        s("layout", layoutName(c.layout));
        b.key("diverge_at"); // Option<u64>
        if (c.divergeAt)
            b.uinteger(*c.divergeAt);
        else
            b.nil();
    }
    b.end();
    b.key("progress");
    b.beginMap();
    u("step", p.step);
    u("optimizer_steps", p.optimizerSteps);
    u("pending_micro_batches", p.pendingMicroBatches);
    u("epoch", p.epoch);
    u("data_cursor", p.dataCursor);
    u("samples_seen", p.samplesSeen);
    u("rng_counter", p.rngCounter);
    u("stop_step", p.stopStep);
    f64("last_lr", p.lastLr);
    b.key("loss_tail");
    b.beginArray();
    for (const auto& l : p.lossTail) { // Option<f64>
        if (l)
            b.f64(*l);
        else
            b.nil();
    }
    b.end();
    b.end();
    b.end();
}

namespace {
template<class E>
Result<void> readEnum(const FieldReader& f, std::string_view key, bool (*parse)(std::string_view, E&), E& out)
{
    auto s = f.str(key);
    if (!s)
        return std::unexpected(s.error());
    if (!parse(*s, out))
        return FieldReader::failAt(appendKeyToPath(f.path(), key), "unknown value \"" + *s + "\"");
    return {};
}
} // namespace

Result<void> readCallerState(const Tape& t, uint32_t node, TrainConfig& c, TrainProgress& p)
{
    const FieldReader root(t, node, "item[4]");
    FieldReader cfg = root;
    CKPT_TRY_ASSIGN(cfg, root.sub("config"));
    FieldReader model = cfg;
    CKPT_TRY_ASSIGN(model, cfg.sub("model"));
    CKPT_TRY_ASSIGN(c.inputDim, model.u64("input_dim"));
    CKPT_TRY_ASSIGN(c.hidden, model.u64("hidden"));
    CKPT_TRY_ASSIGN(c.outputDim, model.u64("output_dim"));
    if (auto r = readEnum(model, "activation", parseActivation, c.activation); !r)
        return r;
    CKPT_TRY_ASSIGN(c.blocks, model.u64("blocks"));
    if (auto r = readEnum(cfg, "task", parseTask, c.task); !r)
        return r;
    if (auto r = readEnum(cfg, "dtype", parseDType, c.dtype); !r)
        return r;
    CKPT_TRY_ASSIGN(c.batchSize, cfg.u64("batch_size"));
    CKPT_TRY_ASSIGN(c.datasetSize, cfg.u64("dataset_size"));
    CKPT_TRY_ASSIGN(c.validSize, cfg.u64("valid_size"));
    CKPT_TRY_ASSIGN(c.seed, cfg.u64("seed"));
    FieldReader opt = cfg;
    CKPT_TRY_ASSIGN(opt, cfg.sub("optimizer"));
    if (auto r = readEnum(opt, "name", parseOptimizer, c.optimizer); !r)
        return r;
    CKPT_TRY_ASSIGN(c.lr, opt.f64("lr"));
    CKPT_TRY_ASSIGN(c.beta1, opt.f32("beta_1"));
    CKPT_TRY_ASSIGN(c.beta2, opt.f32("beta_2"));
    CKPT_TRY_ASSIGN(c.epsilon, opt.f32("epsilon"));
    CKPT_TRY_ASSIGN(c.weightDecay, opt.f32("weight_decay"));
    CKPT_TRY_ASSIGN(c.amsgrad, opt.boolean("amsgrad"));
    CKPT_TRY_ASSIGN(c.momentum, opt.f64("momentum"));
    CKPT_TRY_ASSIGN(c.dampening, opt.f64("dampening"));
    CKPT_TRY_ASSIGN(c.nesterov, opt.boolean("nesterov"));
    FieldReader sch = cfg;
    CKPT_TRY_ASSIGN(sch, cfg.sub("scheduler"));
    if (auto r = readEnum(sch, "name", parseScheduler, c.scheduler); !r)
        return r;
    CKPT_TRY_ASSIGN(c.schedGamma, sch.f64("gamma"));
    CKPT_TRY_ASSIGN(c.schedStepSize, sch.u64("step_size"));
    CKPT_TRY_ASSIGN(c.schedFinalLr, sch.f64("final_lr"));
    CKPT_TRY_ASSIGN(c.schedIters, sch.u64("num_iters"));
    CKPT_TRY_ASSIGN(c.warmupSteps, sch.u64("warmup_steps"));
    CKPT_TRY_ASSIGN(c.embeddingSize, sch.u64("embedding_size"));
    std::string s;
    CKPT_TRY_ASSIGN(s, cfg.str("recorder"));
    if (auto r = recorderFromName(s))
        c.recorder = *r;
    else
        return FieldReader::failAt("item[4].config.recorder", "unknown recorder \"" + s + "\"");
    CKPT_TRY_ASSIGN(s, cfg.str("precision"));
    if (auto pr = precisionFromName(s))
        c.precision = *pr;
    else
        return FieldReader::failAt("item[4].config.precision", "unknown precision \"" + s + "\"");
    CKPT_TRY_ASSIGN(c.checkpointEvery, cfg.u64("checkpoint_every"));
    CKPT_TRY_ASSIGN(c.gradAccum, cfg.u64("grad_accum"));
    CKPT_TRY_ASSIGN(c.steps, cfg.u64("steps"));
    CKPT_TRY_ASSIGN(s, cfg.str("layout"));
    if (!parseLayout(s, c.layout))
        return FieldReader::failAt("item[4].config.layout", "unknown layout \"" + s + "\"");
    // Option<u64>: a missing field is None, as serde's derive reads a missing Option field.
    c.divergeAt.reset();
    if (auto d = t.find(cfg.node(), "diverge_at"); d && t[*d].kind != Kind::Nil) {
        auto v = t.asU64(*d);
        if (!v)
            return FieldReader::failAt(appendKeyToPath(cfg.path(), "diverge_at"), "expected a u64 or nil");
        c.divergeAt = *v;
    }

    FieldReader prog = root;
    CKPT_TRY_ASSIGN(prog, root.sub("progress"));
    CKPT_TRY_ASSIGN(p.step, prog.u64("step"));
    CKPT_TRY_ASSIGN(p.optimizerSteps, prog.u64("optimizer_steps"));
    CKPT_TRY_ASSIGN(p.pendingMicroBatches, prog.u64("pending_micro_batches"));
    CKPT_TRY_ASSIGN(p.epoch, prog.u64("epoch"));
    CKPT_TRY_ASSIGN(p.dataCursor, prog.u64("data_cursor"));
    CKPT_TRY_ASSIGN(p.samplesSeen, prog.u64("samples_seen"));
    CKPT_TRY_ASSIGN(p.rngCounter, prog.u64("rng_counter"));
    CKPT_TRY_ASSIGN(p.stopStep, prog.u64("stop_step"));
    CKPT_TRY_ASSIGN(p.lastLr, prog.f64("last_lr"));
    uint32_t tail = 0;
    CKPT_TRY_ASSIGN(tail, prog.get("loss_tail"));
    if (!t.isArray(tail))
        return FieldReader::failAt("item[4].progress.loss_tail", "expected an array");
    p.lossTail.clear();
    bool ok = true;
    t.forEachChild(tail, [&](uint32_t e) {
        if (t[e].kind == Kind::Nil)
            p.lossTail.push_back(std::nullopt);
        else if (auto v = t.asNumber(e))
            p.lossTail.push_back(*v);
        else
            ok = false;
    });
    if (!ok)
        return FieldReader::failAt("item[4].progress.loss_tail", "expected numbers or nil");
    return {};
}

} // namespace ckpt::train
