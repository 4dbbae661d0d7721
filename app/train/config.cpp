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

namespace {

bool parseRecorder(std::string_view s, Recorder& out)
{
    auto r = recorderFromName(s);
    if (r)
        out = *r;
    return r.has_value();
}
bool parsePrecision(std::string_view s, Precision& out)
{
    auto p = precisionFromName(s);
    if (p)
        out = *p;
    return p.has_value();
}
/**
 * The caller state's fields, each named once, in the order serde's derive writes them: the writer
 * and the reader below are two visitors of this one list, so a field added here is both written and
 * read. The trainer's Rust twin (tests/interop) and core's bincode schema of it
 * (core/record/bincoderecord.cpp) spell the same struct.
 */
template<class Visitor, class Config, class Progress>
void visitCallerState(Visitor& v, Config& c, Progress& p)
{
    v.section("config", [&] {
        v.section("model", [&] {
            v.u64("input_dim", c.inputDim);
            v.u64("hidden", c.hidden);
            v.u64("output_dim", c.outputDim);
            v.named("activation", c.activation, activationName, parseActivation);
            v.u64("blocks", c.blocks);
        });
        v.named("task", c.task, taskName, parseTask);
        v.named("dtype", c.dtype, dtypeName, parseDType);
        v.u64("batch_size", c.batchSize);
        v.u64("dataset_size", c.datasetSize);
        v.u64("valid_size", c.validSize);
        v.u64("seed", c.seed);
        v.section("optimizer", [&] {
            v.named("name", c.optimizer, optimizerName, parseOptimizer);
            v.f64("lr", c.lr);
            v.f32("beta_1", c.beta1);
            v.f32("beta_2", c.beta2);
            v.f32("epsilon", c.epsilon);
            v.f32("weight_decay", c.weightDecay);
            v.boolean("amsgrad", c.amsgrad);
            v.f64("momentum", c.momentum);
            v.f64("dampening", c.dampening);
            v.boolean("nesterov", c.nesterov);
        });
        v.section("scheduler", [&] {
            v.named("name", c.scheduler, schedulerName, parseScheduler);
            v.f64("gamma", c.schedGamma);
            v.u64("step_size", c.schedStepSize);
            v.f64("final_lr", c.schedFinalLr);
            v.u64("num_iters", c.schedIters);
            v.u64("warmup_steps", c.warmupSteps);
            v.u64("embedding_size", c.embeddingSize);
        });
        v.named("recorder", c.recorder, recorderName, parseRecorder, "recorder");
        v.named("precision", c.precision, precisionName, parsePrecision, "precision");
        v.u64("checkpoint_every", c.checkpointEvery);
        v.u64("grad_accum", c.gradAccum);
        v.u64("steps", c.steps);
        v.named("layout", c.layout, layoutName, parseLayout, "layout");
        v.optionalU64("diverge_at", c.divergeAt);
    });
    v.section("progress", [&] {
        v.u64("step", p.step);
        v.u64("optimizer_steps", p.optimizerSteps);
        v.u64("pending_micro_batches", p.pendingMicroBatches);
        v.u64("epoch", p.epoch);
        v.u64("data_cursor", p.dataCursor);
        v.u64("samples_seen", p.samplesSeen);
        v.u64("rng_counter", p.rngCounter);
        v.u64("stop_step", p.stopStep);
        v.f64("last_lr", p.lastLr);
        v.optionalF64List("loss_tail", p.lossTail);
    });
}

/// Writes each field as the key and value rmp-serde / serde_json would.
struct StateWriter {
    TapeBuilder& b;

    template<class Body>
    void section(std::string_view k, Body&& body)
    {
        b.key(k);
        b.beginMap();
        body();
        b.end();
    }
    void u64(std::string_view k, uint64_t v)
    {
        b.key(k);
        b.uinteger(v);
    }
    void f64(std::string_view k, double v)
    {
        b.key(k);
        b.f64(v);
    }
    void f32(std::string_view k, float v)
    {
        b.key(k);
        b.f32(v);
    }
    void boolean(std::string_view k, bool v)
    {
        b.key(k);
        b.boolean(v);
    }
    /// A name the state stores as a string (an enum of the trainer's, a recorder, a layout).
    template<class T, class Name, class Parse>
    void named(std::string_view k, const T& value, Name name, Parse /*parse*/, std::string_view /*noun*/ = {})
    {
        b.key(k);
        b.str(name(value));
    }
    void optionalU64(std::string_view k, const std::optional<uint64_t>& v) // Option<u64>
    {
        b.key(k);
        if (v)
            b.uinteger(*v);
        else
            b.nil();
    }
    void optionalF64List(std::string_view k, const std::vector<std::optional<double>>& values) // Vec<Option<f64>>
    {
        b.key(k);
        b.beginArray();
        for (const auto& v : values) {
            if (v)
                b.f64(*v);
            else
                b.nil();
        }
        b.end();
    }
};

/// Reads each field back as serde's derive would, stopping at the first error (kept in `status`).
struct StateReader {
    const Tape& t;
    FieldReader at;
    Result<void> status{};

    template<class T>
    void take(Result<T> r, T& out)
    {
        if (!status)
            return;
        if (r)
            out = *r;
        else
            status = std::unexpected(r.error());
    }
    template<class Body>
    void section(std::string_view k, Body&& body)
    {
        if (!status)
            return;
        auto sub = at.sub(k);
        if (!sub) {
            status = std::unexpected(sub.error());
            return;
        }
        FieldReader outer = std::exchange(at, *sub);
        body();
        at = std::move(outer);
    }
    void u64(std::string_view k, uint64_t& v) { take(at.u64(k), v); }
    void f64(std::string_view k, double& v) { take(at.f64(k), v); }
    void f32(std::string_view k, float& v) { take(at.f32(k), v); }
    void boolean(std::string_view k, bool& v) { take(at.boolean(k), v); }
    /// \a noun names what an unknown name is in the error ("value" for the trainer's own enums).
    template<class T, class Name, class Parse>
    void named(std::string_view k, T& value, Name /*name*/, Parse parse, std::string_view noun = "value")
    {
        std::string s;
        take(at.str(k), s);
        if (status && !parse(s, value))
            status = FieldReader::failAt(appendKeyToPath(at.path(), k), "unknown " + std::string(noun) + " \"" + s + "\"");
    }
    // Option<u64>: a missing field is None, as serde's derive reads a missing Option field.
    void optionalU64(std::string_view k, std::optional<uint64_t>& out)
    {
        if (!status)
            return;
        out.reset();
        if (auto d = t.find(at.node(), k); d && t[*d].kind != Kind::Nil) {
            auto v = t.asU64(*d);
            if (!v)
                status = FieldReader::failAt(appendKeyToPath(at.path(), k), "expected a u64 or nil");
            else
                out = *v;
        }
    }
    void optionalF64List(std::string_view k, std::vector<std::optional<double>>& out)
    {
        uint32_t node = 0;
        take(at.get(k), node);
        if (!status)
            return;
        if (!t.isArray(node)) {
            status = FieldReader::failAt(appendKeyToPath(at.path(), k), "expected an array");
            return;
        }
        out.clear();
        bool ok = true;
        t.forEachChild(node, [&](uint32_t e) {
            if (t[e].kind == Kind::Nil)
                out.push_back(std::nullopt);
            else if (auto v = t.asNumber(e))
                out.push_back(*v);
            else
                ok = false;
        });
        if (!ok)
            status = FieldReader::failAt(appendKeyToPath(at.path(), k), "expected numbers or nil");
    }
};

} // namespace

void writeCallerState(TapeBuilder& b, const TrainConfig& c, const TrainProgress& p)
{
    StateWriter w{b};
    b.beginMap();
    visitCallerState(w, c, p);
    b.end();
}

Result<void> readCallerState(const Tape& t, uint32_t node, TrainConfig& c, TrainProgress& p)
{
    StateReader r{t, FieldReader(t, node, "item[4]")};
    visitCallerState(r, c, p);
    return r.status;
}

} // namespace ckpt::train
