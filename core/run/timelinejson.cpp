// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline` and `ckpt bisect` documents (cli-contract.md, section "Runs"). Written like the other
// contract documents (core/report/report.cpp): a tape in the contract's key order, two-space pretty
// JSON, floats spelled as nlohmann::json::dump spells them, non-finite floats as null.
#include "core/codec/json.h"
#include "core/report/report.h"
#include "core/run/timeline.h"

#include <cmath>
#include <cstdio>

namespace ckpt {

namespace {

std::string document(TapeBuilder&& b)
{
    const Tape t = std::move(b).finish();
    return jsonText(t, t.root(), JsonStyle::Pretty, JsonFloats::Nlohmann);
}

void putOptU64(TapeBuilder& b, std::string_view k, const std::optional<uint64_t>& v)
{
    b.key(k);
    v ? (void)b.uinteger(*v) : (void)b.nil();
}

void putNumber(TapeBuilder& b, std::string_view k, std::optional<double> v)
{
    b.key(k);
    v && std::isfinite(*v) ? (void)b.f64(*v) : (void)b.nil();
}

void putCheckpointRef(TapeBuilder& b, const RunPoint& p)
{
    b.key("index");
    b.uinteger(p.index);
    putStr(b, "file", p.file);
    putOptU64(b, "step", p.step);
    putOptU64(b, "epoch", p.epoch);
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string label(const RunPoint& p)
{
    // appended rather than "literal" + std::string: GCC 12 warns falsely (-Wrestrict) on the latter
    std::string out = p.step ? "step " : p.epoch ? "epoch " : "#";
    out += std::to_string(p.step ? *p.step : p.epoch ? *p.epoch : uint64_t(p.index));
    return out;
}

} // namespace

std::string timelineJson(const Timeline& t)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "run", t.run);
    b.key("checkpoints");
    b.beginArray();
    for (const auto& c : t.checkpoints) {
        b.beginMap();
        putCheckpointRef(b, c.point);
        b.key("bytes");
        b.uinteger(c.point.bytes);
        b.key("valid");
        b.boolean(c.valid);
        b.key("error");
        c.valid ? (void)b.nil() : (void)b.str(c.error);
        // additions to the contract's object: the loss and learning rate logged at that point
        putNumber(b, "loss", c.point.loss);
        putNumber(b, "lr", c.point.lr);
        b.end();
    }
    b.end();
    b.key("series");
    b.beginArray();
    for (const auto& s : t.series) {
        b.beginMap();
        putStr(b, "path", s.path);
        putStr(b, "role", tensorRoleName(s.role));
        b.key("param_id");
        s.paramId.empty() ? (void)b.nil() : (void)b.str(s.paramId);
        putStr(b, "dtype", s.dtype);
        b.key("points");
        b.beginArray();
        for (const auto& p : s.points) {
            b.beginMap();
            b.key("checkpoint");
            b.uinteger(p.checkpoint);
            putNumber(b, "l2", p.l2);
            putNumber(b, "max_abs", p.maxAbs);
            putNumber(b, "mean", p.mean);
            putNumber(b, "std", p.std);
            b.key("nan");
            b.uinteger(p.nan);
            b.key("inf");
            b.uinteger(p.inf);
            b.key("zeros");
            b.uinteger(p.zeros);
            putNumber(b, "update_l2", p.updateL2);
            putNumber(b, "update_ratio", p.updateRatio);
            b.end();
        }
        b.end();
        b.end();
    }
    b.end();
    b.key("events");
    b.beginArray();
    for (const auto& e : t.events) {
        b.beginMap();
        putStr(b, "kind", timelineEventKindName(e.kind));
        b.key("checkpoint");
        b.uinteger(e.checkpoint);
        putStr(b, "path", e.path);
        putStr(b, "detail", e.detail);
        b.end();
    }
    b.end();
    b.key("cache");
    b.beginMap();
    b.key("read");
    b.uinteger(t.read);
    b.key("reused");
    b.uinteger(t.reused);
    b.end();
    b.end();
    return document(std::move(b));
}

std::string timelineText(const Timeline& t)
{
    std::string out = t.run + ": " + std::to_string(t.checkpoints.size()) + " checkpoints (" + std::string(runLayoutName(t.layout)) + "), "
        + std::to_string(t.series.size()) + " tensors; read " + std::to_string(t.read) + ", from cache " + std::to_string(t.reused) + "\n";
    // the worst tensor of each checkpoint: its largest update ratio and its non-finite count
    std::vector<double> worstRatio(t.checkpoints.size(), 0.0);
    std::vector<uint64_t> nonFinite(t.checkpoints.size(), 0);
    for (const auto& s : t.series)
        for (const auto& p : s.points)
            if (p.checkpoint < worstRatio.size()) {
                if (p.updateRatio && std::isfinite(*p.updateRatio))
                    worstRatio[p.checkpoint] = std::max(worstRatio[p.checkpoint], *p.updateRatio);
                nonFinite[p.checkpoint] += p.nan + p.inf;
            }
    for (const auto& c : t.checkpoints) {
        out += "  " + std::to_string(c.point.index) + "  " + c.point.file + "  " + label(c.point) + "  " + humanBytes(c.point.bytes);
        if (c.point.loss)
            out += "  loss " + fmt(*c.point.loss);
        if (!c.valid)
            out += "  INVALID: " + c.error;
        else {
            out += "  max update ratio " + fmt(worstRatio[c.point.index]);
            if (nonFinite[c.point.index])
                out += "  non-finite " + std::to_string(nonFinite[c.point.index]);
        }
        out += "\n";
    }
    if (t.events.empty())
        out += "no events\n";
    else {
        out += "events:\n";
        for (const auto& e : t.events)
            out += "  " + std::to_string(e.checkpoint) + "  " + std::string(timelineEventKindName(e.kind)) + "  " + e.path + "  " + e.detail + "\n";
    }
    return out;
}

std::string bisectJson(const BisectResult& r)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "run", r.run.dir);
    putStr(b, "until", r.predicate.text);
    b.key("first_bad");
    if (r.firstBad) {
        b.beginMap();
        putCheckpointRef(b, r.run.points[*r.firstBad]);
        putStrings(b, "paths", r.badPaths);
        b.end();
    } else {
        b.nil();
    }
    b.key("last_good");
    if (r.lastGood) {
        b.beginMap();
        putCheckpointRef(b, r.run.points[*r.lastGood]);
        b.end();
    } else {
        b.nil();
    }
    b.key("opened");
    b.beginArray();
    for (size_t i : r.opened)
        b.str(r.run.points[i].file);
    b.end();
    putStrings(b, "warnings", r.warnings);
    b.end();
    return document(std::move(b));
}

std::string bisectText(const BisectResult& r)
{
    std::string out;
    if (r.firstBad) {
        const RunPoint& p = r.run.points[*r.firstBad];
        out += "first bad: " + p.file + " (" + label(p) + "): " + std::to_string(r.badPaths.size()) + " tensor"
            + (r.badPaths.size() == 1 ? "" : "s") + " with " + r.predicate.text + "\n";
        for (size_t k = 0; k < r.badPaths.size() && k < 20; ++k)
            out += "  " + r.badPaths[k] + "\n";
        if (r.badPaths.size() > 20)
            out += "  ... and " + std::to_string(r.badPaths.size() - 20) + " more\n";
    } else {
        out += "no checkpoint has " + r.predicate.text + "\n";
    }
    if (r.lastGood) {
        const RunPoint& p = r.run.points[*r.lastGood];
        out += "last good: " + p.file + " (" + label(p) + ")\n";
    } else {
        out += "last good: none\n";
    }
    out += "opened " + std::to_string(r.opened.size()) + " of " + std::to_string(r.run.points.size()) + " checkpoints:";
    for (size_t i : r.opened)
        out += " " + r.run.points[i].file;
    out += "\n";
    for (const auto& w : r.warnings)
        out += "warning: " + w + "\n";
    return out;
}

} // namespace ckpt
