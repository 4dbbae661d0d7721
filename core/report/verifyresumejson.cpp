// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt verify-resume --json`, written like the other contract documents (core/report/document.h): a
// tape in the contract's key order, two-space pretty JSON, floats spelled as nlohmann::json::dump
// spells them, non-finite floats as null.
#include "core/report/verifyresumejson.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"
#include "core/report/document.h"
#include "core/run/resumeverify.h"

namespace ckpt {

namespace {
using R = VerifyResumeReport;
constexpr JsonField<R> kHead[] = {{"record", &R::record}, {"against", &R::against}, {"steps", &R::steps}};
} // namespace

std::string verifyResumeJson(const VerifyResumeReport& r, const ResumeJudgement& j)
{
    TapeBuilder b;
    b.beginMap();
    putFields(b, r, kHead);
    putStr(b, "tolerance", resumeToleranceName(r.tolerance));
    putStr(b, "verdict", resumeVerdictName(j.verdict));
    b.key("differences");
    b.beginArray();
    for (const auto& d : j.differences) {
        b.beginMap();
        putStr(b, "path", d.path);
        if (!d.isState) {
            putOptF(b, "max_abs", d.maxAbs);
            putOptF(b, "rel_l2", d.relL2);
        }
        putStr(b, "status", d.status);
        putBool(b, "above_tolerance", d.aboveTolerance);
        if (d.isState) {
            // JSON text of each side, as the diff reports it; null where the field is absent
            putOpt(b, "later", d.later);
            putOpt(b, "resumed", d.resumed);
        }
        b.end();
    }
    b.end();
    putU(b, "step", r.step);
    putStr(b, "step_source", stepSourceName(r.stepSource));
    putStr(b, "produced", r.produced);
    putStrings(b, "command", r.command);
    b.end();
    return reportDocument(std::move(b));
}

} // namespace ckpt
