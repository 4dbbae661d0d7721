// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt optimizer --json`, written like the other contract documents (core/report/document.h): a tape in
// the contract's key order, two-space pretty JSON, floats spelled as nlohmann::json::dump spells them,
// non-finite floats as null. Keys beyond the contract's (learning_rate, betas, epsilon; per parameter
// param_rms, m_hat_rms, step_bound) only extend it.
#include "core/report/optimizerjson.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"
#include "core/optim/forensics.h"
#include "core/record/record.h"
#include "core/report/document.h"

namespace ckpt {

namespace {

using P = ParamForensics;
// a parameter's members before and after its effective_step map, in the contract's order
constexpr JsonField<P> kParamHead[] = {{"param_id", &P::paramId}, {"path", &P::path}, {"time", &P::time}, {"m_l2", &P::mL2}, {"v_l2", &P::vL2}};
constexpr JsonField<P> kParamTail[] = {{"v_floor_fraction", &P::vFloorFraction}, {"dead_fraction", &P::deadFraction}, {"nonfinite", &P::nonfinite},
    {"g2_over_v", &P::g2OverV}, {"param_rms", &P::paramRms}, {"m_hat_rms", &P::mHatRms}, {"step_bound", &P::stepBound}, {"flags", &P::flags}};

void parameterJson(TapeBuilder& b, const ParamForensics& p)
{
    b.beginMap();
    putFields(b, p, kParamHead);
    b.key("effective_step");
    if (p.effectiveStep) {
        b.beginMap();
        putF(b, "mean", p.effectiveStep->mean);
        putF(b, "max", p.effectiveStep->max);
        putF(b, "saturated", p.effectiveStep->saturated);
        b.end();
    } else {
        b.nil();
    }
    putFields(b, p, kParamTail);
    b.end();
}

} // namespace

std::string optimizerForensicsJson(const Record& r, const OptimizerForensics& f)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "file", r.file);
    putStr(b, "optimizer", f.optimizer);
    putOptF(b, "learning_rate", f.learningRate);
    b.key("betas");
    b.beginArray();
    b.f64(f.hyper.beta1);
    b.f64(f.hyper.beta2);
    b.end();
    putF(b, "epsilon", f.hyper.epsilon);
    b.key("parameters");
    b.beginArray();
    for (const auto& p : f.parameters)
        parameterJson(b, p);
    b.end();
    b.key("suspects");
    b.beginArray();
    for (size_t i : f.suspects)
        b.str(f.parameters[i].paramId);
    b.end();
    b.end();
    return reportDocument(std::move(b));
}

} // namespace ckpt
