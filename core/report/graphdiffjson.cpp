// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/graphdiffjson.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"
#include "core/diff/graphdiff.h"
#include "core/report/diffjson.h"
#include "core/report/document.h"

namespace ckpt {

namespace {

// Written with core's JSON writer in the contract's layout (pretty, floats spelled as nlohmann::json
// spelt them, non-finite ones as null), as the record reports in core/report are.

void putNumbers(TapeBuilder& b, std::string_view k, const std::optional<TensorDiff>& t)
{
    b.key(k);
    if (!t) {
        b.nil();
        return;
    }
    b.beginMap();
    tensorNumbersMembers(b, *t);
    b.end();
}
/** `"key": {"a": A's member, "b": B's member`, the map left open for what the document adds. */
template<class M>
void beginSides(TapeBuilder& b, std::string_view key, const GraphDiff& d, M GraphDiffSide::* member)
{
    b.key(key);
    b.beginMap();
    putMember(b, "a", d.sideA.*member);
    putMember(b, "b", d.sideB.*member);
}

void edgesJson(TapeBuilder& b, std::string_view k, const std::vector<std::pair<std::string, std::string>>& edges)
{
    b.key(k);
    b.beginArray();
    for (const auto& [from, to] : edges) {
        b.beginArray();
        b.str(from);
        b.str(to);
        b.end();
    }
    b.end();
}

} // namespace

void tensorNumbersMembers(TapeBuilder& b, const TensorDiff& t)
{
    // The contract's three first, in its order; then the extensions.
    putOptF(b, "max_abs", t.maxAbs);
    putOptF(b, "rel_l2", t.relL2);
    putOptF(b, "cosine", t.cosine);
    putOptF(b, "mean_abs", t.meanAbs);
    putU(b, "above_tolerance", t.differing);
}

std::string graphDiffJson(const GraphDiff& d)
{
    TapeBuilder b;
    b.beginMap();
    putStr(b, "kind", "gradient_checkpoint");
    beginDiffSummary(b, d);
    putU(b, "matched_by_position", d.matchedByPosition);
    putU(b, "edges_added", d.edgesAdded.size());
    putU(b, "edges_removed", d.edgesRemoved.size());
    b.end();
    beginSides(b, "step", d, &GraphDiffSide::step);
    b.end();
    beginSides(b, "timestamp", d, &GraphDiffSide::timestamp);
    b.end();
    beginSides(b, "loss", d, &GraphDiffSide::lossCid);
    putBool(b, "changed", d.sideA.lossCid != d.sideB.lossCid);
    putNumbers(b, "values", d.lossValues);
    b.end();
    beginSides(b, "cars", d, &GraphDiffSide::hasCar);
    putU(b, "block_bytes_read", d.blockBytesRead);
    b.end();
    b.key("nodes");
    b.beginArray();
    for (const auto& n : d.nodes) {
        b.beginMap();
        putOptStr(b, "a", n.keyA);
        putOptStr(b, "b", n.keyB);
        putStr(b, "status", diffStatusName(n.status));
        putOpt(b, "match", n.match ? std::optional<std::string>(nodeMatchName(*n.match)) : std::nullopt);
        putOptStr(b, "op_a", n.opA);
        putOptStr(b, "op_b", n.opB);
        putBool(b, "op_changed", n.opChanged);
        b.key("tensors");
        b.beginArray();
        for (const auto& s : n.tensors) {
            b.beginMap();
            putStr(b, "slot", s.slot);
            putOpt(b, "a", s.cidA);
            putOpt(b, "b", s.cidB);
            putStr(b, "compared", cidComparisonName(s.how));
            putBool(b, "changed", s.changed());
            putNumbers(b, "values", s.values);
            b.end();
        }
        b.end();
        b.key("metadata");
        b.beginArray();
        for (const auto& [k, v] : n.metadata) {
            b.beginMap();
            putStr(b, "key", k);
            putOpt(b, "a", v.first);
            putOpt(b, "b", v.second);
            b.end();
        }
        b.end();
        b.end();
    }
    b.end();
    edgesJson(b, "edges_added", d.edgesAdded);
    edgesJson(b, "edges_removed", d.edgesRemoved);
    b.key("optimizer_state");
    b.beginArray();
    for (const auto& blob : d.optimizer) {
        b.beginMap();
        putStr(b, "key", blob.key);
        putStr(b, "status", diffStatusName(blob.status));
        putU(b, "len_a", blob.sizeA);
        putU(b, "len_b", blob.sizeB);
        putNumbers(b, "values", blob.values);
        if (blob.counterA || blob.counterB) {
            b.key("counter");
            b.beginMap();
            putOptU(b, "a", blob.counterA);
            putOptU(b, "b", blob.counterB);
            b.end();
        }
        b.end();
    }
    b.end();
    return reportDocument(std::move(b));
}

} // namespace ckpt
