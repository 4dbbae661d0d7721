// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/resumeverify.h"

#include "core/record/record.h"
#include "core/run/timeline.h"
#include "core/util/charconv.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace ckpt {

std::string_view resumeToleranceName(ResumeTolerance t)
{
    switch (t) {
    case ResumeTolerance::Exact: return "exact";
    case ResumeTolerance::Strict: return "strict";
    case ResumeTolerance::Relaxed: return "relaxed";
    }
    return "exact";
}

std::optional<ResumeTolerance> resumeToleranceFromName(std::string_view name)
{
    for (auto t : {ResumeTolerance::Exact, ResumeTolerance::Strict, ResumeTolerance::Relaxed})
        if (resumeToleranceName(t) == name)
            return t;
    return std::nullopt;
}

std::string_view resumeVerdictName(ResumeVerdict v)
{
    switch (v) {
    case ResumeVerdict::Identical: return "identical";
    case ResumeVerdict::WithinTolerance: return "within_tolerance";
    case ResumeVerdict::Diverged: return "diverged";
    }
    return "diverged";
}

std::string_view stepSourceName(StepSource s)
{
    return s == StepSource::Record ? "record" : "file_name";
}

DiffOptions resumeDiffOptions()
{
    DiffOptions o;
    o.tolerance = DBL_MAX; // `differing` counts only NaN-vs-number and infinite |Δ| (judgeResume)
    return o;
}

namespace {

double boundOf(ResumeTolerance t)
{
    switch (t) {
    case ResumeTolerance::Exact: return 0.0;
    case ResumeTolerance::Strict: return kStrictRelL2;
    case ResumeTolerance::Relaxed: return kRelaxedRelL2;
    }
    return 0.0;
}

/// Whether a differing (not byte-equal) tensor pair still counts as within \a bound.
bool tensorWithin(const TensorDiff& e, double bound)
{
    if (bound <= 0.0)
        return false; // exact: only byte-identical payloads pass
    if (e.status != DiffStatus::Changed && e.status != DiffStatus::Unchanged)
        return false; // added, removed, reshaped, retyped
    if (e.differing > 0)
        return false; // NaN against a number, or an infinite |Δ|
    return e.relL2 && std::isfinite(*e.relL2) && *e.relL2 <= bound && e.maxAbs && std::isfinite(*e.maxAbs);
}

std::optional<double> numberOf(const std::optional<std::string>& text)
{
    if (!text || text->empty())
        return std::nullopt;
    double v = 0;
    const auto r = fromCharsDouble(text->data(), text->data() + text->size(), v);
    if (r.ec != std::errc() || r.ptr != text->data() + text->size())
        return std::nullopt;
    return v;
}

/// Relaxed only: metadata is ignored, numbers within kRelaxedRelL2 of each other pass.
bool stateWithin(const StateDiff& s, ResumeTolerance t)
{
    if (t != ResumeTolerance::Relaxed)
        return false;
    if (s.section == StateSection::Metadata)
        return true;
    const auto a = numberOf(s.a), b = numberOf(s.b);
    if (!a || !b || !std::isfinite(*a) || !std::isfinite(*b))
        return false;
    return std::fabs(*a - *b) <= kRelaxedRelL2 * std::max(std::fabs(*a), std::fabs(*b));
}

} // namespace

ResumeJudgement judgeResume(const RecordDiff& d, ResumeTolerance tolerance)
{
    const double bound = boundOf(tolerance);
    ResumeJudgement j;
    bool anyAbove = false;
    std::vector<ResumeDifference> tensors;
    for (const auto& e : d.entries) {
        if (e.byteEqual && e.status == DiffStatus::Unchanged)
            continue;
        ResumeDifference r;
        r.path = e.path.empty() ? e.pathB : e.path;
        // The diff ran with tolerance DBL_MAX, so a pair that moved by a finite amount says "unchanged": here it changed.
        r.status = std::string(diffStatusName(e.status == DiffStatus::Unchanged ? DiffStatus::Changed : e.status));
        if (e.status == DiffStatus::Unchanged || e.status == DiffStatus::Changed) {
            r.maxAbs = e.maxAbs;
            r.relL2 = e.relL2;
        }
        r.aboveTolerance = !tensorWithin(e, bound);
        anyAbove |= r.aboveTolerance;
        tensors.push_back(std::move(r));
    }
    // Largest first: a missing number (a structural change) or a NaN rel_l2 is as far as it gets.
    const auto key = [](const ResumeDifference& r) {
        if (!r.relL2 || std::isnan(*r.relL2))
            return std::numeric_limits<double>::infinity();
        return *r.relL2;
    };
    std::stable_sort(tensors.begin(), tensors.end(), [&](const ResumeDifference& x, const ResumeDifference& y) {
        if (key(x) != key(y))
            return key(x) > key(y);
        return x.maxAbs.value_or(INFINITY) > y.maxAbs.value_or(INFINITY);
    });
    j.differences = std::move(tensors);
    for (const auto& s : d.state) {
        ResumeDifference r;
        r.path = s.path;
        r.isState = true;
        r.status = std::string(stateSectionName(s.section));
        r.later = s.a;
        r.resumed = s.b;
        r.aboveTolerance = !stateWithin(s, tolerance);
        anyAbove |= r.aboveTolerance;
        j.differences.push_back(std::move(r));
    }
    if (j.differences.empty())
        j.verdict = ResumeVerdict::Identical;
    else
        j.verdict = anyAbove ? ResumeVerdict::Diverged : ResumeVerdict::WithinTolerance;
    return j;
}

Result<CheckpointStep> stepOfCheckpoint(const Record& record, const std::string& path)
{
    // The record's own progress.step first (ckpt-train's caller state): it survives a rename or copy.
    const Tape& t = record.tape;
    if (record.stateNode && *record.stateNode < t.nodes.size() && t.isMap(*record.stateNode)) {
        if (auto progress = t.find(*record.stateNode, "progress"); progress && t.isMap(*progress)) {
            if (auto step = t.find(*progress, "step")) {
                if (auto v = t.asU64(*step))
                    return CheckpointStep{*v, StepSource::Record};
            }
        }
    }
    if (auto place = checkpointPlaceOf(path); place.step)
        return CheckpointStep{*place.step, StepSource::FileName};
    return fail(ErrorCode::Invalid,
        path + ": cannot tell the step of this checkpoint: no item[4].progress.step in the record and no step in its "
               "name (record-STEP.<ext>)");
}

} // namespace ckpt
