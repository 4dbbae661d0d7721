// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/report/document.h"

#include <unordered_map>

namespace ckpt {

std::string reportDocument(TapeBuilder&& b, JsonStyle style)
{
    const Tape t = std::move(b).finish();
    return jsonText(t, t.root(), style, JsonFloats::Nlohmann);
}

void putShape(TapeBuilder& b, std::string_view k, const std::vector<uint64_t>& shape)
{
    b.key(k);
    b.beginArray();
    for (uint64_t d : shape)
        b.uinteger(d);
    b.end();
}


void copyJsonValue(TapeBuilder& b, const Tape& t, uint32_t node)
{
    const Node& n = t[node];
    switch (n.kind) {
    case Kind::Nil: b.nil(); return;
    case Kind::Bool: b.boolean(t.boolean(node)); return;
    case Kind::UInt: b.uinteger128(t.u128(node)); return; // a u128 / i128 keeps every digit
    case Kind::Int: b.integer128(t.i128(node)); return;
    case Kind::F32:
    case Kind::F64: b.f64(t.f64(node)); return;
    case Kind::Str: b.str(t.str(node)); return;
    case Kind::Bin: b.bin(t.bin(node)); return; // written as an array of integers
    case Kind::Array:
        b.beginArray();
        t.forEachChild(node, [&](uint32_t c) { copyJsonValue(b, t, c); });
        b.end();
        return;
    case Kind::Map: {
        // A JSON object has one member per key: a repeated key keeps its first place and its last
        // value, as these reports have always shown it.
        std::vector<std::pair<std::string, uint32_t>> members;
        std::unordered_map<std::string, size_t> seen;
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            std::string text = t.keyText(k);
            if (auto it = seen.find(text); it != seen.end()) {
                members[it->second].second = v;
                return;
            }
            seen.emplace(text, members.size());
            members.emplace_back(std::move(text), v);
        });
        b.beginMap();
        for (const auto& [k, v] : members) {
            b.key(k);
            copyJsonValue(b, t, v);
        }
        b.end();
        return;
    }
    }
    b.nil();
}

} // namespace ckpt
