// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/optim/forensics.h"

#include "core/model/fieldreader.h"
#include "core/model/schedule.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace ckpt {

namespace {

/**
 * The state named \a stateName (Burn's name) of \a oe. torch.optim names the same moments otherwise
 * (cli-contract.md, "Across frameworks"): Adam's exp_avg / exp_avg_sq are moment_1 / moment_2, SGD's
 * momentum_buffer is the velocity.
 */
const TensorEntry* stateTensor(const Record& r, const OptimizerEntry& oe, std::string_view stateName)
{
    static constexpr std::pair<std::string_view, std::string_view> kTorchNames[] = {{"moment_1", "exp_avg"}, {"moment_2", "exp_avg_sq"},
        {"velocity", "momentum_buffer"}};
    std::string_view torchName;
    for (const auto& [burn, torch] : kTorchNames)
        if (burn == stateName)
            torchName = torch;
    for (size_t i : oe.tensors)
        if (i < r.tensors.size() && (r.tensors[i].stateName == stateName || (!torchName.empty() && r.tensors[i].stateName == torchName)))
            return &r.tensors[i];
    return nullptr;
}

const TensorEntry* pendingGradient(const Record& r, std::string_view paramId)
{
    for (const auto& g : r.gradients)
        if (g.paramId == paramId && g.tensor < r.tensors.size())
            return &r.tensors[g.tensor];
    return nullptr;
}

/// The parameter's tensor: in the record itself, else in the model record beside it.
std::pair<const Record*, const TensorEntry*> parameterTensor(const Record& r, const Record* model, std::string_view paramId)
{
    for (const Record* where : {&r, model}) {
        if (!where)
            continue;
        if (auto i = where->findParam(paramId); i && where->params[*i].tensor < where->tensors.size())
            return {where, &where->tensors[where->params[*i].tensor]};
    }
    return {nullptr, nullptr};
}

double rms(double l2, uint64_t numel) { return numel ? l2 / std::sqrt(static_cast<double>(numel)) : 0.0; }

bool isAdamFamily(const OptimizerEntry& oe) { return oe.optimizer == "Adam/AdamW"; }

/// ckpt-train records its optimizer configuration in the caller state (item[4].config.optimizer);
/// a Burn record does not, and then Burn's defaults stand.
struct RecordedOptimizer {
    std::optional<std::string> name;
    std::optional<double> beta1, beta2, epsilon;
};

RecordedOptimizer recordedOptimizer(const Record& r)
{
    RecordedOptimizer out;
    if (!r.stateNode || *r.stateNode >= r.tape.nodes.size() || !r.tape.isMap(*r.stateNode))
        return out;
    const FieldReader root(r.tape, *r.stateNode, "item[4]");
    auto cfg = root.sub("config");
    if (!cfg)
        return out;
    auto opt = cfg->sub("optimizer");
    if (!opt)
        return out;
    if (auto v = opt->str("name"))
        out.name = *v;
    if (auto v = opt->f32("beta_1"))
        out.beta1 = *v;
    if (auto v = opt->f32("beta_2"))
        out.beta2 = *v;
    if (auto v = opt->f32("epsilon"))
        out.epsilon = *v;
    return out;
}

std::string lowercase(std::string s)
{
    std::ranges::transform(s, s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// Sums over the elements of one Adam state, read chunk by chunk.
struct AdamSums {
    uint64_t moments = 0;       ///< elements with finite m and v
    uint64_t steps = 0;         ///< of those, elements with a finite effective step
    double stepSum = 0;
    double stepMax = 0;
    double stepMaxVPositive = 0; ///< over the elements with v > 0 (what inconsistent_moments judges)
    uint64_t saturated = 0;
    uint64_t floor = 0;
    uint64_t dead = 0;
    uint64_t ratios = 0;
    double ratioSum = 0;
};

struct AdamInputs {
    const TensorEntry& m;
    const TensorEntry& v;
    const TensorEntry* g;       ///< the pending gradient, when it has the moments' size
    uint64_t time = 0;          ///< ≥ 1
};

void addAdamElement(AdamSums& s, const AdamHyperparameters& h, double c1, double c2, double m, double v, std::optional<double> g)
{
    if (!std::isfinite(m) || !std::isfinite(v))
        return; // counted by `nonfinite`; every other figure is over the finite moments
    ++s.moments;
    const double mHat = m / c1;
    const double vHat = v / c2;
    const double floorLevel = h.epsilon * h.epsilon;
    if (m == 0 && v == 0)
        ++s.dead;
    if (vHat <= floorLevel)
        ++s.floor;
    const double step = std::abs(mHat) / (std::sqrt(vHat) + h.epsilon);
    if (std::isfinite(step)) { // a negative v (a damaged record) has no step
        ++s.steps;
        s.stepSum += step;
        s.stepMax = std::max(s.stepMax, step);
        if (v > 0)
            s.stepMaxVPositive = std::max(s.stepMaxVPositive, step);
        if (step >= kSaturatedStep)
            ++s.saturated;
    }
    if (g && std::isfinite(*g) && vHat > floorLevel) {
        ++s.ratios;
        s.ratioSum += (*g * *g) / vHat;
    }
}

/// \a alive is called after each chunk: a sign of life inside one large tensor.
AdamSums adamSums(const Record& r, const AdamInputs& in, const AdamHyperparameters& h, const std::function<void()>& alive)
{
    // Burn's AdaptiveMomentum: m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t).
    const double t = static_cast<double>(in.time);
    const double c1 = 1.0 - std::pow(h.beta1, t);
    const double c2 = 1.0 - std::pow(h.beta2, t);
    AdamSums s;
    const uint64_t n = in.m.numel;
    for (uint64_t first = 0; first < n; first += StatsChunkElements) {
        const uint64_t count = std::min<uint64_t>(StatsChunkElements, n - first);
        const std::vector<double> m = r.values(in.m, first, count);
        const std::vector<double> v = r.values(in.v, first, count);
        const std::vector<double> g = in.g ? r.values(*in.g, first, count) : std::vector<double>{};
        const size_t k = std::min(m.size(), v.size());
        for (size_t i = 0; i < k; ++i)
            addAdamElement(s, h, c1, c2, m[i], v[i], i < g.size() ? std::optional<double>(g[i]) : std::nullopt);
        alive();
    }
    return s;
}

std::optional<double> fraction(uint64_t part, uint64_t whole)
{
    if (whole == 0)
        return std::nullopt;
    return static_cast<double>(part) / static_cast<double>(whole);
}

void analyseAdam(const Record& r, const OptimizerEntry& oe, const AdamHyperparameters& h, ParamForensics& p, const std::function<void()>& alive)
{
    const TensorEntry* m = stateTensor(r, oe, "moment_1");
    const TensorEntry* v = stateTensor(r, oe, "moment_2");
    const StatsOptions noHistogram {.histogramBins = 0};
    if (m) {
        p.mL2 = r.stats(*m, noHistogram).l2;
        // m̂'s RMS: the bias correction is one factor for the whole tensor
        const double c1 = oe.time && *oe.time > 0 ? 1.0 - std::pow(h.beta1, static_cast<double>(*oe.time)) : 1.0;
        p.mHatRms = rms(*p.mL2, m->numel) / c1;
    }
    if (v)
        p.vL2 = r.stats(*v, noHistogram).l2;
    // Without a step counter there is no bias correction; at time 0 Adam has not stepped yet.
    if (!m || !v || m->numel != v->numel || !oe.time || *oe.time == 0)
        return;
    p.stepBound = adamStepBound(h, *oe.time);
    const TensorEntry* g = pendingGradient(r, oe.paramId);
    if (g && g->numel != m->numel)
        g = nullptr;
    const AdamSums s = adamSums(r, {.m = *m, .v = *v, .g = g, .time = *oe.time}, h, alive);
    if (s.steps > 0)
        p.effectiveStep = ParamForensics::EffectiveStep {.mean = s.stepSum / static_cast<double>(s.steps),
            .max = s.stepMax,
            .maxVPositive = s.stepMaxVPositive,
            .saturated = static_cast<double>(s.saturated) / static_cast<double>(s.steps)};
    p.vFloorFraction = fraction(s.floor, s.moments);
    p.deadFraction = fraction(s.dead, s.moments);
    if (g && s.ratios > 0)
        p.g2OverV = s.ratioSum / static_cast<double>(s.ratios);
}

/// The step counter most entries agree on (ties: the larger, the one training reached).
std::optional<uint64_t> commonTime(const Record& r)
{
    std::map<uint64_t, size_t> counts;
    for (const auto& oe : r.optimizer)
        if (oe.time)
            ++counts[*oe.time];
    std::optional<uint64_t> best;
    size_t bestCount = 0;
    for (const auto& [time, count] : counts)
        if (count >= bestCount) {
            best = time;
            bestCount = count;
        }
    return best;
}

void addFlags(ParamForensics& p, std::optional<uint64_t> common, const AdamHyperparameters& h)
{
    if (p.nonfinite > 0)
        p.flags.emplace_back("nonfinite_moments");
    if (p.paramRms && *p.paramRms >= kExplodedParameterRms)
        p.flags.emplace_back("exploded_parameter");
    if (p.paramRms && p.mHatRms && *p.mHatRms >= kExplodedMomentRatio * std::max(*p.paramRms, 1.0))
        p.flags.emplace_back("exploded_moments");
    if (p.effectiveStep && p.stepBound && p.effectiveStep->maxVPositive > kInconsistentStepMargin * *p.stepBound)
        p.flags.emplace_back("inconsistent_moments");
    if (p.deadFraction && *p.deadFraction >= kDeadFlagFraction)
        p.flags.emplace_back("dead_moments");
    // Until the first moment has averaged over its window (1/(1−β1) steps), any consistent gradient
    // gives a step of ~1: saturation says something only after that.
    const double window = 1.0 / (1.0 - h.beta1);
    if (p.effectiveStep && p.time && static_cast<double>(*p.time) >= window && p.effectiveStep->saturated >= kSaturatedFlagFraction)
        p.flags.emplace_back("saturated_step");
    if (p.vFloorFraction && *p.vFloorFraction >= kVFloorFlagFraction)
        p.flags.emplace_back("v_floor");
    if (p.time && common && *p.time != *common)
        p.flags.emplace_back("time_mismatch");
    if (p.g2OverV && *p.g2OverV < kG2FarBelowV)
        p.flags.emplace_back("g2_far_below_v");
}

std::vector<size_t> rankSuspects(const std::vector<ParamForensics>& params)
{
    std::vector<size_t> out;
    for (size_t i = 0; i < params.size(); ++i)
        if (!params[i].flags.empty())
            out.push_back(i);
    const auto saturated = [](const ParamForensics& p) { return p.effectiveStep ? p.effectiveStep->saturated : 0.0; };
    const auto has = [](const ParamForensics& p, std::string_view flag) { return std::ranges::find(p.flags, flag) != p.flags.end(); };
    const auto exploded = [&](const ParamForensics& p) { return has(p, "exploded_parameter") || has(p, "exploded_moments"); };
    std::ranges::stable_sort(out, [&](size_t a, size_t b) {
        const ParamForensics& pa = params[a];
        const ParamForensics& pb = params[b];
        if ((pa.nonfinite > 0) != (pb.nonfinite > 0))
            return pa.nonfinite > 0;
        if (exploded(pa) != exploded(pb))
            return exploded(pa);
        if (has(pa, "inconsistent_moments") != has(pb, "inconsistent_moments"))
            return has(pa, "inconsistent_moments");
        if (pa.flags.size() != pb.flags.size())
            return pa.flags.size() > pb.flags.size();
        return saturated(pa) > saturated(pb);
    });
    return out;
}

Result<AdamHyperparameters> hyperparameters(const RecordedOptimizer& recorded, const ForensicsOptions& options)
{
    AdamHyperparameters h;
    h.beta1 = options.beta1.value_or(recorded.beta1.value_or(h.beta1));
    h.beta2 = options.beta2.value_or(recorded.beta2.value_or(h.beta2));
    h.epsilon = options.epsilon.value_or(recorded.epsilon.value_or(h.epsilon));
    for (double beta : {h.beta1, h.beta2})
        if (!(beta >= 0.0 && beta < 1.0))
            return fail(ErrorCode::Usage, "betas must be in [0, 1), got " + std::to_string(beta));
    if (!(h.epsilon > 0.0 && std::isfinite(h.epsilon)))
        return fail(ErrorCode::Usage, "epsilon must be a positive finite number, got " + std::to_string(h.epsilon));
    return h;
}

} // namespace

int flagSeverity(std::string_view flag)
{
    // worst last
    static constexpr std::string_view order[] = {"g2_far_below_v", "v_floor", "saturated_step", "dead_moments", "time_mismatch",
        "inconsistent_moments", "exploded_moments", "exploded_parameter", "nonfinite_moments"};
    for (size_t i = 0; i < std::size(order); ++i)
        if (order[i] == flag)
            return static_cast<int>(i) + 1;
    return 0;
}

std::string_view worstFlag(const ParamForensics& p)
{
    std::string_view worst;
    for (const std::string& f : p.flags)
        if (worst.empty() || flagSeverity(f) > flagSeverity(worst))
            worst = f;
    return worst;
}

std::optional<double> adamStepBound(const AdamHyperparameters& h, uint64_t time)
{
    if (time == 0)
        return std::nullopt;
    if (h.beta2 <= 0.0)
        return std::numeric_limits<double>::infinity(); // v holds the last gradient only: m can be any multiple of it
    const double t = static_cast<double>(time);
    const double c1 = 1.0 - std::pow(h.beta1, t);
    const double c2 = 1.0 - std::pow(h.beta2, t);
    const double r = h.beta1 * h.beta1 / h.beta2;
    // Σ_{j<t} r^j
    const double sum = std::abs(r - 1.0) < 1e-12 ? t : (1.0 - std::pow(r, t)) / (1.0 - r);
    const double bound = (1.0 - h.beta1) / c1 * std::sqrt(c2 / (1.0 - h.beta2)) * std::sqrt(sum);
    return std::isfinite(bound) ? bound : std::numeric_limits<double>::infinity();
}

Result<OptimizerForensics> optimizerForensics(const Record& record, const ForensicsOptions& options, const Progress& progress)
{
    if (record.optimizer.empty())
        return fail(ErrorCode::Invalid, record.file + ": no optimizer state in this record");
    RecordedOptimizer recorded = recordedOptimizer(record);
    // a file that records them per parameter group (PyTorch's param_groups): the first group's stand for the report
    const OptimizerEntry& first = record.optimizer.front();
    recorded.beta1 = recorded.beta1 ? recorded.beta1 : first.beta1;
    recorded.beta2 = recorded.beta2 ? recorded.beta2 : first.beta2;
    recorded.epsilon = recorded.epsilon ? recorded.epsilon : first.epsilon;
    OptimizerForensics out;
    CKPT_TRY_ASSIGN(out.hyper, hyperparameters(recorded, options));
    out.optimizer = recorded.name ? *recorded.name : lowercase(record.optimizer.front().optimizer);
    if (auto schedule = learningRateSchedule(record, 0))
        out.learningRate = schedule->currentLr;

    const std::optional<uint64_t> common = commonTime(record);
    const StatsOptions noHistogram {.histogramBins = 0};
    out.parameters.reserve(record.optimizer.size());
    for (const auto& oe : record.optimizer) {
        if (progress.cancelled())
            return fail(ErrorCode::Cancelled, "cancelled");
        ParamForensics p;
        p.paramId = oe.paramId;
        p.path = oe.path;
        p.time = oe.time;
        for (size_t i : oe.tensors) {
            if (i >= record.tensors.size())
                continue;
            const TensorStats st = record.stats(record.tensors[i], noHistogram);
            p.nonfinite += st.nan + st.inf;
        }
        if (const auto [where, w] = parameterTensor(record, options.model, oe.paramId); w)
            p.paramRms = rms(where->stats(*w, noHistogram).l2, w->numel);
        // each parameter with its own group's values where the file records them; the caller's override all
        AdamHyperparameters h = out.hyper;
        h.beta1 = options.beta1.value_or(oe.beta1.value_or(h.beta1));
        h.beta2 = options.beta2.value_or(oe.beta2.value_or(h.beta2));
        h.epsilon = options.epsilon.value_or(oe.epsilon.value_or(h.epsilon));
        if (isAdamFamily(oe)) {
            analyseAdam(record, oe, h, p, [&] { progress.report(double(out.parameters.size()) / double(record.optimizer.size())); });
        } else if (const TensorEntry* velocity = stateTensor(record, oe, "velocity")) {
            p.mL2 = record.stats(*velocity, noHistogram).l2; // SGD with momentum: its velocity is the first moment
            p.mHatRms = rms(*p.mL2, velocity->numel);
        }
        addFlags(p, common, h);
        out.parameters.push_back(std::move(p));
        progress.report(double(out.parameters.size()) / double(record.optimizer.size()));
    }
    out.suspects = rankSuspects(out.parameters);
    return out;
}

} // namespace ckpt
