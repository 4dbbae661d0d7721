// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/schedule.h"

#include "core/model/fieldreader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace ckpt {

namespace {

constexpr std::array<std::pair<std::string_view, LrSchedulerKind>, 6> kNames{{{"constant", LrSchedulerKind::Constant},
    {"step", LrSchedulerKind::Step}, {"linear", LrSchedulerKind::Linear}, {"cosine", LrSchedulerKind::Cosine},
    {"exponential", LrSchedulerKind::Exponential}, {"noam", LrSchedulerKind::Noam}}};

/** compiler-rt's __powidf2 (what Rust's f64::powi lowers to): multiply by squares of the base. */
double powi(double a, int b)
{
    const bool recip = b < 0;
    double r = 1.0;
    while (true) {
        if (b & 1)
            r *= a;
        b /= 2;
        if (b == 0)
            break;
        a *= a;
    }
    return recip ? 1.0 / r : r;
}

} // namespace

std::string_view lrSchedulerName(LrSchedulerKind kind)
{
    for (const auto& [name, k] : kNames)
        if (k == kind)
            return name;
    return "?";
}

std::optional<LrSchedulerKind> lrSchedulerFromName(std::string_view name)
{
    for (const auto& [n, k] : kNames)
        if (n == name)
            return k;
    return std::nullopt;
}

std::string lrSchedulerConfigProblem(const LrSchedulerConfig& c)
{
    if (c.stepSize == 0 || c.stepSize > uint64_t(std::numeric_limits<int32_t>::max()) || c.numIters == 0
        || c.numIters > (uint64_t(1) << 53) || c.warmupSteps == 0 || c.embeddingSize == 0)
        return "scheduler step_size, num_iters, warmup_steps and embedding_size must be at least 1 (step_size at most "
               "i32::MAX, num_iters at most 2^53)";
    if (!(c.initialLr > 0.0) || !std::isfinite(c.gamma) || c.gamma == 0.0)
        return "lr must be positive and gamma finite and non-zero";
    return {};
}

LrSchedulerState initialLrSchedulerState(const LrSchedulerConfig& c)
{
    LrSchedulerState s;
    s.iterIdx = -1;
    s.remainingIters = c.numIters + 1;
    s.currentIter = std::numeric_limits<uint64_t>::max();
    s.previousLr = c.initialLr / c.gamma;
    s.noamStep = 0.0;
    return s;
}

double stepLrScheduler(const LrSchedulerConfig& c, LrSchedulerState& s)
{
    switch (c.kind) {
    case LrSchedulerKind::Constant: return c.initialLr;
    case LrSchedulerKind::Step:
        s.iterIdx = s.iterIdx == std::numeric_limits<int32_t>::max() ? s.iterIdx : s.iterIdx + 1;
        // Burn: init_lr * gamma.powi((iter_idx as usize / step_size) as i32); powi is LLVM's repeated squaring.
        return c.initialLr * powi(c.gamma, static_cast<int>(static_cast<uint64_t>(s.iterIdx) / c.stepSize));
    case LrSchedulerKind::Linear: {
        const double stepSize = (c.finalLr - c.initialLr) / static_cast<double>(c.numIters);
        s.remainingIters -= s.remainingIters != 0 ? 1 : 0;
        return c.finalLr - stepSize * static_cast<double>(s.remainingIters);
    }
    case LrSchedulerKind::Cosine:
        s.currentIter = (s.currentIter + 1) % (c.numIters + 1); // wrapping_add, as Burn
        return c.finalLr + 0.5 * (c.initialLr - c.finalLr)
            * (1.0 + std::cos(static_cast<double>(s.currentIter) / static_cast<double>(c.numIters) * std::numbers::pi));
    case LrSchedulerKind::Exponential:
        s.previousLr *= c.gamma;
        return s.previousLr;
    case LrSchedulerKind::Noam: {
        s.noamStep += 1.0;
        const double arg1 = std::pow(s.noamStep, -0.5);
        const double arg2 = s.noamStep * std::pow(static_cast<double>(c.warmupSteps), -1.5);
        return c.initialLr * std::pow(static_cast<double>(c.embeddingSize), -0.5) * std::min(arg1, arg2);
    }
    }
    return c.initialLr;
}

Result<void> readLrSchedulerState(const Tape& t, uint32_t node, const LrSchedulerConfig& c, LrSchedulerState& s)
{
    if (node >= t.nodes.size())
        return FieldReader::failAt("item[2]", "scheduler record node out of range");
    const Node& n = t[node];
    auto bad = [&](const std::string& expected) {
        return FieldReader::failAt("item[2]", "the " + std::string(lrSchedulerName(c.kind)) + " scheduler's record is " + expected
                + ", found " + kindName(n.kind));
    };
    switch (c.kind) {
    case LrSchedulerKind::Constant:
        if (n.kind != Kind::Nil)
            return bad("nil");
        return {};
    case LrSchedulerKind::Step: {
        if (n.kind != Kind::Int && n.kind != Kind::UInt)
            return bad("an i32");
        if (t.isWide(node) || (n.kind == Kind::UInt && t.u64(node) > uint64_t(std::numeric_limits<int32_t>::max())))
            return bad("an i32 in range");
        const int64_t v = n.kind == Kind::Int ? t.i64(node) : static_cast<int64_t>(t.u64(node));
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
            return bad("an i32 in range");
        s.iterIdx = static_cast<int32_t>(v);
        return {};
    }
    case LrSchedulerKind::Linear:
    case LrSchedulerKind::Cosine:
    case LrSchedulerKind::Noam: {
        auto v = t.asU64(node);
        if (!v)
            return bad("a usize");
        if (c.kind == LrSchedulerKind::Linear)
            s.remainingIters = *v;
        else if (c.kind == LrSchedulerKind::Cosine)
            s.currentIter = *v;
        else
            s.noamStep = static_cast<double>(*v);
        return {};
    }
    case LrSchedulerKind::Exponential:
        if (n.kind != Kind::F64 && n.kind != Kind::F32)
            return bad("an f64");
        s.previousLr = t.f64(node);
        return {};
    }
    return {};
}

void writeLrSchedulerState(TapeBuilder& b, const LrSchedulerConfig& c, const LrSchedulerState& s)
{
    switch (c.kind) {
    case LrSchedulerKind::Constant: b.nil(); break;
    case LrSchedulerKind::Step: b.integer(s.iterIdx); break;
    case LrSchedulerKind::Linear: b.uinteger(s.remainingIters); break;
    case LrSchedulerKind::Cosine: b.uinteger(s.currentIter); break;
    case LrSchedulerKind::Exponential: b.f64(s.previousLr); break;
    case LrSchedulerKind::Noam: b.uinteger(static_cast<uint64_t>(s.noamStep)); break;
    }
}

std::string lrSchedulerPosition(const LrSchedulerConfig& c, const LrSchedulerState& s)
{
    switch (c.kind) {
    case LrSchedulerKind::Constant: return "()";
    case LrSchedulerKind::Step: return "iter_idx=" + std::to_string(s.iterIdx);
    case LrSchedulerKind::Linear: return "remaining_iters=" + std::to_string(s.remainingIters);
    case LrSchedulerKind::Cosine: return "current_iter=" + std::to_string(s.currentIter);
    case LrSchedulerKind::Exponential: return "previous_lr=" + std::to_string(s.previousLr);
    case LrSchedulerKind::Noam: return "step=" + std::to_string(static_cast<uint64_t>(s.noamStep));
    }
    return {};
}

Result<LearningRateSchedule> learningRateSchedule(const Record& record, uint64_t steps, uint64_t behindSteps)
{
    if (steps > kMaxScheduleSteps || behindSteps > kMaxScheduleSteps)
        return fail(ErrorCode::Usage,
            "at most " + std::to_string(kMaxScheduleSteps) + " learning-rate steps can be computed, "
                + std::to_string(std::max(steps, behindSteps)) + " were asked for");
    const std::string notStored =
        "the learning-rate schedule is not stored in this record: Burn records keep only the scheduler's state, "
        "not its configuration (only records written by ckpt-train carry it in their caller state)";
    const Tape& t = record.tape;
    if (!record.stateNode || *record.stateNode >= t.nodes.size() || !t.isMap(*record.stateNode))
        return fail(ErrorCode::Unsupported, notStored);
    const FieldReader root(t, *record.stateNode, "item[4]");
    auto cfgNode = t.find(root.node(), "config");
    if (!cfgNode || !t.isMap(*cfgNode) || !t.find(*cfgNode, "scheduler"))
        return fail(ErrorCode::Unsupported, notStored);
    if (!record.schedulerNode)
        return fail(ErrorCode::Invalid, "the record has a scheduler configuration but no scheduler state (item[2])");

    LearningRateSchedule out;
    LrSchedulerConfig& c = out.config;
    FieldReader cfg = root, opt = root, sch = root, prog = root;
    CKPT_TRY_ASSIGN(cfg, root.sub("config"));
    CKPT_TRY_ASSIGN(opt, cfg.sub("optimizer"));
    CKPT_TRY_ASSIGN(sch, cfg.sub("scheduler"));
    CKPT_TRY_ASSIGN(prog, root.sub("progress"));
    std::string name;
    CKPT_TRY_ASSIGN(name, sch.str("name"));
    if (auto k = lrSchedulerFromName(name))
        c.kind = *k;
    else
        return FieldReader::failAt(appendKeyToPath(sch.path(), "name"), "unknown scheduler \"" + name + "\"");
    CKPT_TRY_ASSIGN(c.initialLr, opt.f64("lr"));
    CKPT_TRY_ASSIGN(c.gamma, sch.f64("gamma"));
    CKPT_TRY_ASSIGN(c.stepSize, sch.u64("step_size"));
    CKPT_TRY_ASSIGN(c.finalLr, sch.f64("final_lr"));
    CKPT_TRY_ASSIGN(c.numIters, sch.u64("num_iters"));
    CKPT_TRY_ASSIGN(c.warmupSteps, sch.u64("warmup_steps"));
    CKPT_TRY_ASSIGN(c.embeddingSize, sch.u64("embedding_size"));
    CKPT_TRY_ASSIGN(out.gradAccum, cfg.u64("grad_accum"));
    CKPT_TRY_ASSIGN(out.step, prog.u64("step"));
    CKPT_TRY_ASSIGN(out.pendingMicroBatches, prog.u64("pending_micro_batches"));
    CKPT_TRY_ASSIGN(out.stopStep, prog.u64("stop_step"));
    CKPT_TRY_ASSIGN(out.currentLr, prog.f64("last_lr"));
    if (auto problem = lrSchedulerConfigProblem(c); !problem.empty())
        return FieldReader::failAt(sch.path(), problem);
    if (out.gradAccum == 0)
        return FieldReader::failAt(appendKeyToPath(cfg.path(), "grad_accum"), "grad_accum must be at least 1");
    if (out.pendingMicroBatches >= out.gradAccum)
        return FieldReader::failAt(appendKeyToPath(prog.path(), "pending_micro_batches"),
            "pending_micro_batches " + std::to_string(out.pendingMicroBatches) + " is not below grad_accum "
                + std::to_string(out.gradAccum));
    if (out.step > std::numeric_limits<uint64_t>::max() - steps)
        return FieldReader::failAt(appendKeyToPath(prog.path(), "step"), "step is too large to continue from");

    out.state = initialLrSchedulerState(c);
    if (auto r = readLrSchedulerState(t, *record.schedulerNode, c, out.state); !r)
        return std::unexpected(r.error());

    // Ahead: ckpt-train steps its scheduler at the first micro-batch of every optimizer window and uses
    // that lr for the whole window; a window already begun keeps progress.last_lr.
    out.ahead.reserve(steps);
    LrSchedulerState s = out.state;
    uint64_t pending = out.pendingMicroBatches;
    double lr = out.currentLr;
    for (uint64_t i = 1; i <= steps; ++i) {
        if (pending == 0)
            lr = stepLrScheduler(c, s);
        pending = (pending + 1) % out.gradAccum;
        out.ahead.emplace_back(out.step + i, lr);
    }

    // Behind: the path an unedited run took to get here (the last behindSteps of it). Replaying from
    // step 1 costs `step` scheduler steps, so a position beyond the bound gets no history.
    const uint64_t shown = std::min(out.step, behindSteps);
    if (shown > 0 && out.step <= kMaxScheduleSteps) {
        out.behind.reserve(shown);
        LrSchedulerState h = initialLrSchedulerState(c);
        for (uint64_t st = 1; st <= out.step; ++st) {
            if ((st - 1) % out.gradAccum == 0)
                lr = stepLrScheduler(c, h);
            if (st > out.step - shown)
                out.behind.emplace_back(st, lr);
        }
    }
    return out;
}

Result<std::vector<std::pair<uint64_t, double>>> learningRateCurve(const Record& record, uint64_t steps)
{
    auto schedule = learningRateSchedule(record, steps);
    if (!schedule)
        return std::unexpected(schedule.error());
    return std::move(schedule->ahead);
}

std::string schedulerNamedByCallerState(const Record& r)
{
    if (!r.stateNode)
        return {};
    const Tape& t = r.tape;
    auto config = t.find(*r.stateNode, "config");
    auto scheduler = config ? t.find(*config, "scheduler") : std::nullopt;
    auto name = scheduler ? t.find(*scheduler, "name") : std::nullopt;
    return name && t.isStr(*name) ? std::string(t.str(*name)) : std::string();
}

} // namespace ckpt
