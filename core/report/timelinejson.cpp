// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt timeline` and `ckpt bisect` documents (cli-contract.md, section "Runs"). Written like the other
// contract documents (core/report/document.h): a tape in the contract's key order, two-space pretty
// JSON, floats spelled as nlohmann::json::dump spells them, non-finite floats as null.
#include "core/report/timelinejson.h"

#include "core/codec/json.h"
#include "core/report/document.h"
#include "core/run/timeline.h"
#include "core/util/text.h"

#include <cmath>
#include <charconv>
#include <functional>
#include <cstdio>

namespace ckpt {

namespace {

void putOptU64(TapeBuilder& b, std::string_view k, const std::optional<uint64_t>& v)
{
    b.key(k);
    v ? (void)b.uinteger(*v) : (void)b.nil();
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


/**
 * The timeline document written straight into a string, in the layout core's JSON writer gives every
 * contract document (two-space pretty form, floats as nlohmann::json::dump spells them, non-finite as
 * null): a run's document holds a number per tensor, checkpoint and statistic, hundreds of thousands
 * of them, and building a tape of them first took as long as computing them.
 */
class PrettyJson {
public:
    explicit PrettyJson(std::string& out)
        : m_out(out)
    {
    }
    void beginMap() { open('{'); }
    void beginArray() { open('['); }
    void end()
    {
        const bool any = m_count.back() > 0;
        const char close = m_close.back();
        m_count.pop_back();
        m_close.pop_back();
        if (any)
            newline();
        m_out += close;
    }
    void key(std::string_view k)
    {
        element();
        appendJsonQuoted(m_out, k);
        m_out += ": ";
        m_afterKey = true;
    }
    void str(std::string_view v)
    {
        element();
        appendJsonQuoted(m_out, v);
    }
    void u64(uint64_t v)
    {
        element();
        char buf[24];
        m_out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    void f64(std::optional<double> v)
    {
        element();
        m_out += v && std::isfinite(*v) ? formatNlohmannF64(*v) : std::string("null");
    }
    void nil()
    {
        element();
        m_out += "null";
    }
    void boolean(bool b)
    {
        element();
        m_out += b ? "true" : "false";
    }

private:
    void open(char c)
    {
        element();
        m_out += c;
        m_count.push_back(0);
        m_close.push_back(c == '{' ? '}' : ']');
    }
    /// A value in an array, or a key in a map: after the previous one's comma, on a line of its own.
    void element()
    {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (m_count.empty())
            return;
        if (m_count.back()++ > 0)
            m_out += ',';
        newline();
    }
    void newline()
    {
        m_out += '\n';
        m_out.append(2 * m_count.size(), ' ');
    }

    std::string& m_out;
    std::vector<size_t> m_count;
    std::vector<char> m_close;
    bool m_afterKey = false;
};

} // namespace

std::string timelineJson(const Timeline& t)
{
    std::string out;
    size_t points = 0;
    for (const auto& s : t.series)
        points += s.points.size();
    out.reserve(512 * t.checkpoints.size() + 256 * t.series.size() + 400 * points);
    writeTimelineJson(t, [&](std::string_view chunk) { out += chunk; });
    return out;
}

void writeTimelineJson(const Timeline& t, const std::function<void(std::string_view)>& sink)
{
    // A run's document is megabytes: written out in pieces of about 256 KiB, not built whole first
    // (a buffer that size, grown and copied, cost the CLI as much as the numbers in it).
    constexpr size_t Piece = size_t(256) << 10;
    std::string out;
    out.reserve(Piece + 4096);
    auto flush = [&](bool always) {
        if (always || out.size() >= Piece) {
            sink(out);
            out.clear();
        }
    };
    PrettyJson w(out);
    w.beginMap();
    w.key("run");
    w.str(t.run);
    w.key("checkpoints");
    w.beginArray();
    for (const auto& c : t.checkpoints) {
        w.beginMap();
        w.key("index");
        w.u64(c.point.index);
        w.key("file");
        w.str(c.point.file);
        w.key("step");
        c.point.step ? w.u64(*c.point.step) : w.nil();
        w.key("epoch");
        c.point.epoch ? w.u64(*c.point.epoch) : w.nil();
        w.key("bytes");
        w.u64(c.point.bytes);
        w.key("valid");
        w.boolean(c.valid);
        w.key("error");
        c.valid ? w.nil() : w.str(c.error);
        // additions to the contract's object: the loss and learning rate logged at that point
        w.key("loss");
        w.f64(c.point.loss);
        w.key("lr");
        w.f64(c.point.lr);
        w.end();
    }
    w.end();
    w.key("series");
    w.beginArray();
    for (const auto& s : t.series) {
        w.beginMap();
        w.key("path");
        w.str(s.path);
        w.key("role");
        w.str(tensorRoleName(s.role));
        w.key("param_id");
        s.paramId.empty() ? w.nil() : w.str(s.paramId);
        w.key("dtype");
        w.str(s.dtype);
        w.key("points");
        w.beginArray();
        for (const auto& p : s.points) {
            w.beginMap();
            w.key("checkpoint");
            w.u64(p.checkpoint);
            w.key("l2");
            w.f64(p.l2);
            w.key("max_abs");
            w.f64(p.maxAbs);
            w.key("mean");
            w.f64(p.mean);
            w.key("std");
            w.f64(p.std);
            w.key("nan");
            w.u64(p.nan);
            w.key("inf");
            w.u64(p.inf);
            w.key("zeros");
            w.u64(p.zeros);
            w.key("update_l2");
            w.f64(p.updateL2);
            w.key("update_ratio");
            w.f64(p.updateRatio);
            w.end();
            flush(false);
        }
        w.end();
        w.end();
    }
    w.end();
    w.key("events");
    w.beginArray();
    for (const auto& e : t.events) {
        w.beginMap();
        w.key("kind");
        w.str(timelineEventKindName(e.kind));
        w.key("checkpoint");
        w.u64(e.checkpoint);
        w.key("path");
        w.str(e.path);
        w.key("detail");
        w.str(e.detail);
        w.end();
    }
    w.end();
    w.key("cache");
    w.beginMap();
    w.key("read");
    w.u64(t.read);
    w.key("reused");
    w.u64(t.reused);
    w.end();
    w.end();
    flush(true);
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
    return reportDocument(std::move(b));
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
