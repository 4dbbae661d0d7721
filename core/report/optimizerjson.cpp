// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt optimizer --json`, written like the other contract documents (core/report/document.h): a tape in
// the contract's key order, two-space pretty JSON, floats spelled as nlohmann::json::dump spells them,
// non-finite floats as null. Keys beyond the contract's (learning_rate, betas, epsilon; per parameter
// param_rms, m_hat_rms, step_bound) only extend it.
#include "core/report/optimizerjson.h"

#include "core/codec/json.h"
#include "core/optim/forensics.h"
#include "core/record/record.h"
#include "core/report/document.h"

namespace ckpt {

namespace {

void parameterJson(TapeBuilder& b, const ParamForensics& p)
{
    b.beginMap();
    putStr(b, "param_id", p.paramId);
    putStr(b, "path", p.path);
    putOptU(b, "time", p.time);
    putOptF(b, "m_l2", p.mL2);
    putOptF(b, "v_l2", p.vL2);
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
    putOptF(b, "v_floor_fraction", p.vFloorFraction);
    putOptF(b, "dead_fraction", p.deadFraction);
    putU(b, "nonfinite", p.nonfinite);
    putOptF(b, "g2_over_v", p.g2OverV);
    putOptF(b, "param_rms", p.paramRms);
    putOptF(b, "m_hat_rms", p.mHatRms);
    putOptF(b, "step_bound", p.stepBound);
    putStrings(b, "flags", p.flags);
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
