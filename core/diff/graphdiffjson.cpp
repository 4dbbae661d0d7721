// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diff/graphdiffjson.h"

#include "core/diff/graphdiff.h"

#include <cmath>
#include <nlohmann/json.hpp>

using nlohmann::ordered_json;

namespace ckpt {

namespace {

ordered_json num(double v)
{
    return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

ordered_json opt(const std::optional<std::string>& s)
{
    return s ? ordered_json(*s) : ordered_json(nullptr);
}

ordered_json optStr(const std::string& s)
{
    return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

ordered_json numbers(const std::optional<TensorDiff>& t)
{
    return t ? ordered_json::parse(tensorNumbersJson(*t)) : ordered_json(nullptr);
}

} // namespace

std::string tensorNumbersJson(const TensorDiff& t)
{
    // The contract's three first, in its order; then the extensions.
    ordered_json o{{"max_abs", t.maxAbs ? num(*t.maxAbs) : ordered_json(nullptr)}, {"rel_l2", t.relL2 ? num(*t.relL2) : ordered_json(nullptr)},
        {"cosine", t.cosine ? num(*t.cosine) : ordered_json(nullptr)}, {"mean_abs", t.meanAbs ? num(*t.meanAbs) : ordered_json(nullptr)},
        {"above_tolerance", t.differing}};
    return o.dump();
}

std::string graphDiffJson(const GraphDiff& d)
{
    ordered_json j;
    j["kind"] = "gradient_checkpoint";
    j["a"] = d.a;
    j["b"] = d.b;
    j["summary"] = {{"added", d.added}, {"removed", d.removed}, {"changed", d.changed}, {"unchanged", d.unchanged},
        {"matched_by_position", d.matchedByPosition}, {"edges_added", d.edgesAdded.size()}, {"edges_removed", d.edgesRemoved.size()}};
    j["step"] = {{"a", d.stepA}, {"b", d.stepB}};
    j["timestamp"] = {{"a", d.timestampA}, {"b", d.timestampB}};
    j["loss"] = {{"a", opt(d.lossCidA)}, {"b", opt(d.lossCidB)}, {"changed", d.lossCidA != d.lossCidB}, {"values", numbers(d.lossValues)}};
    j["cars"] = {{"a", d.carA}, {"b", d.carB}, {"block_bytes_read", d.blockBytesRead}};
    ordered_json nodes = ordered_json::array();
    for (const auto& n : d.nodes) {
        ordered_json o{{"a", optStr(n.keyA)}, {"b", optStr(n.keyB)}, {"status", std::string(diffStatusName(n.status))},
            {"match", n.match ? ordered_json(std::string(nodeMatchName(*n.match))) : ordered_json(nullptr)}, {"op_a", optStr(n.opA)},
            {"op_b", optStr(n.opB)}, {"op_changed", n.opChanged}};
        ordered_json tensorSlots = ordered_json::array();
        for (const auto& s : n.tensors)
            tensorSlots.push_back({{"slot", s.slot}, {"a", opt(s.cidA)}, {"b", opt(s.cidB)}, {"compared", std::string(cidComparisonName(s.how))},
                {"changed", s.changed()}, {"values", numbers(s.values)}});
        o["tensors"] = tensorSlots;
        ordered_json meta = ordered_json::array();
        for (const auto& [k, v] : n.metadata)
            meta.push_back({{"key", k}, {"a", opt(v.first)}, {"b", opt(v.second)}});
        o["metadata"] = meta;
        nodes.push_back(std::move(o));
    }
    j["nodes"] = nodes;
    auto edges = [](const std::vector<std::pair<std::string, std::string>>& v) {
        ordered_json e = ordered_json::array();
        for (const auto& [f, t] : v)
            e.push_back({f, t});
        return e;
    };
    j["edges_added"] = edges(d.edgesAdded);
    j["edges_removed"] = edges(d.edgesRemoved);
    ordered_json blobs = ordered_json::array();
    for (const auto& b : d.optimizer) {
        ordered_json o{{"key", b.key}, {"status", std::string(diffStatusName(b.status))}, {"len_a", b.sizeA}, {"len_b", b.sizeB},
            {"values", numbers(b.values)}};
        if (b.counterA || b.counterB)
            o["counter"] = {{"a", b.counterA ? ordered_json(*b.counterA) : ordered_json(nullptr)},
                {"b", b.counterB ? ordered_json(*b.counterB) : ordered_json(nullptr)}};
        blobs.push_back(std::move(o));
    }
    j["optimizer_state"] = blobs;
    return j.dump(2);
}

} // namespace ckpt
