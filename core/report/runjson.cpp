// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/runjson.h"

#include "core/report/document.h"

namespace ckpt {

std::string runInfoJson(const RunDirectory& run)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "file", run.path);
    putStr(b, "kind", "run_directory");
    b.key("checkpoints");
    b.beginArray();
    for (const auto& c : run.checkpoints) {
        b.beginMap();
        putStr(b, "kind", c.kind);
        putU(b, "index", c.index);
        putStr(b, "path", c.path);
        b.end();
    }
    b.end();
    b.key("metrics");
    b.beginArray();
    for (const auto& m : run.series) {
        b.beginMap();
        putStr(b, "split", m.split);
        putStr(b, "metric", m.metric);
        putU(b, "points", m.points.size());
        b.end();
    }
    b.end();
    putStrings(b, "warnings", run.warnings);
    return reportDocument(std::move(b));
}

std::string lossJson(const RunDirectory& run)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "run", run.path);
    b.key("series");
    b.beginArray();
    for (const auto& s : run.series) {
        b.beginMap();
        putStr(b, "split", s.split);
        putStr(b, "metric", s.metric);
        b.key("points");
        b.beginArray();
        for (const auto& p : s.points) {
            b.beginMap();
            putU(b, "epoch", p.epoch);
            putU(b, "item", p.item);
            putF(b, "value", p.value);
            putU(b, "count", p.count);
            if (!p.text.empty())
                putStr(b, "text", p.text);
            b.end();
        }
        b.end();
        b.key("epochs");
        b.beginArray();
        for (auto [e, m] : s.epochMeans()) {
            b.beginMap();
            putU(b, "epoch", e);
            putF(b, "mean", m);
            b.end();
        }
        b.end();
        b.end();
    }
    b.end();
    putStrings(b, "warnings", run.warnings);
    return reportDocument(std::move(b));
}

} // namespace ckpt
