// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The layout a bincode decode settled: its ambiguous nodes made definite, a twin's enums given their indices.
#include "core/codec/bincodewire.h"

#include <algorithm>

namespace ckpt::bincode_detail {

namespace {

/**
 * A resolved node keeps nothing of the twin: an enum the twin showed gets the indices its
 * occurrences bound (variants no occurrence reached are unknown and left out).
 */
void settleTwinData(SchemaNode& n, const std::vector<std::pair<uint32_t, size_t>>* bound)
{
    n.twinSeen.clear();
    if (n.kind != SchemaKind::Enum || !n.indicesFromTwin)
        return;
    n.indicesFromTwin = false;
    std::vector<SchemaVariant> known;
    if (bound)
        for (const auto& [index, position] : *bound) {
            known.push_back(n.variants[position]);
            known.back().index = index;
        }
    std::sort(known.begin(), known.end(), [](const SchemaVariant& a, const SchemaVariant& b) { return a.index < b.index; });
    n.variants = std::move(known);
}

} // namespace

BincodeSchema resolveSchema(const BincodeSchema& schema, const std::vector<int8_t>& pins, const VariantIndices& bound)
{
    BincodeSchema r = schema;
    // An Option that turned out bare is bypassed (references go straight to its T), so shared
    // sub-layouts stay shared; a maybe-tuple Seq becomes a Seq or a Tuple in place.
    std::vector<uint32_t> redirect(r.nodes.size());
    for (uint32_t i = 0; i < r.nodes.size(); ++i)
        redirect[i] = i;
    for (uint32_t i = 0; i < r.nodes.size(); ++i) {
        SchemaNode& n = r.nodes[i];
        if (pins[i] < 0)
            continue;
        if (n.kind == SchemaKind::Either) {
            redirect[i] = n.elements[static_cast<size_t>(pins[i])];
        } else if (n.kind == SchemaKind::Option && n.maybeBare) {
            if (pins[i] == 1)
                redirect[i] = n.elements[0];
            n.maybeBare = false;
            n.preferAlternative = false;
        } else if (n.kind == SchemaKind::Seq && n.maybeTuple) {
            if (pins[i] == 1) {
                n.kind = SchemaKind::Tuple;
                n.elements = std::vector<uint32_t>(n.tupleArity, n.elements[0]);
            }
            n.maybeTuple = false;
            n.tupleArity = 0;
            n.preferAlternative = false;
        }
    }
    for (uint32_t i = 0; i < r.nodes.size(); ++i)
        settleTwinData(r.nodes[i], bound.find(i) == bound.end() ? nullptr : &bound.at(i));
    auto follow = [&](uint32_t i) {
        // Chains are acyclic (the schema is a DAG) and at most as long as the schema is deep.
        while (redirect[i] != i)
            i = redirect[i];
        return i;
    };
    for (SchemaNode& n : r.nodes) {
        for (uint32_t& e : n.elements)
            e = follow(e);
        for (SchemaField& f : n.fields)
            f.type = follow(f.type);
        for (SchemaVariant& v : n.variants)
            if (v.kind != VariantKind::Unit)
                v.payload = follow(v.payload);
    }
    r.root = follow(r.root);
    return r;
}

} // namespace ckpt::bincode_detail
