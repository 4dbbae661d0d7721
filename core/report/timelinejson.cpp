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

void putCheckpointRef(TapeBuilder& b, const RunPoint& p)
{
    putU(b, "index", p.index);
    putStr(b, "file", p.file);
    putOptU(b, "step", p.step);
    putOptU(b, "epoch", p.epoch);
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
    // A member: its key, then its value.
    void str(std::string_view k, std::string_view v)
    {
        key(k);
        str(v);
    }
    void u64(std::string_view k, uint64_t v)
    {
        key(k);
        u64(v);
    }
    void u64(std::string_view k, const std::optional<uint64_t>& v)
    {
        key(k);
        v ? u64(*v) : nil();
    }
    void f64(std::string_view k, std::optional<double> v)
    {
        key(k);
        f64(v);
    }
    void boolean(std::string_view k, bool v)
    {
        key(k);
        boolean(v);
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
    w.str("run", t.run);
    w.key("checkpoints");
    w.beginArray();
    for (const auto& c : t.checkpoints) {
        w.beginMap();
        w.u64("index", c.point.index);
        w.str("file", c.point.file);
        w.u64("step", c.point.step);
        w.u64("epoch", c.point.epoch);
        w.u64("bytes", c.point.bytes);
        w.boolean("valid", c.valid);
        w.key("error");
        c.valid ? w.nil() : w.str(c.error);
        // additions to the contract's object: the loss and learning rate logged at that point
        w.f64("loss", c.point.loss);
        w.f64("lr", c.point.lr);
        w.end();
    }
    w.end();
    w.key("series");
    w.beginArray();
    for (const auto& s : t.series) {
        w.beginMap();
        w.str("path", s.path);
        w.str("role", tensorRoleName(s.role));
        w.key("param_id");
        s.paramId.empty() ? w.nil() : w.str(s.paramId);
        w.str("dtype", s.dtype);
        w.key("points");
        w.beginArray();
        for (const auto& p : s.points) {
            w.beginMap();
            w.u64("checkpoint", p.checkpoint);
            w.f64("l2", p.l2);
            w.f64("max_abs", p.maxAbs);
            w.f64("mean", p.mean);
            w.f64("std", p.std);
            w.u64("nan", p.nan);
            w.u64("inf", p.inf);
            w.u64("zeros", p.zeros);
            w.f64("update_l2", p.updateL2);
            w.f64("update_ratio", p.updateRatio);
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
        w.str("kind", timelineEventKindName(e.kind));
        w.u64("checkpoint", e.checkpoint);
        w.str("path", e.path);
        w.str("detail", e.detail);
        w.end();
    }
    w.end();
    w.key("cache");
    w.beginMap();
    w.u64("read", t.read);
    w.u64("reused", t.reused);
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
