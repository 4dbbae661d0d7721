// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/value/tapeindex.h"

namespace ckpt {

namespace {
constexpr uint32_t None = UINT32_MAX;
}

TapeIndex TapeIndex::build(const Tape& tape, std::span<const uint32_t> tensorNodes)
{
    const size_t n = tape.nodes.size();
    TapeIndex ix;
    ix.parent.assign(n, None);
    ix.row.assign(n, 0);
    ix.firstChild.assign(n, None);
    ix.keyOf.assign(n, None);
    ix.childCountOf.assign(n, 0);
    ix.tensorAt.assign(n, -1);
    ix.children.reserve(n);
    for (size_t t = 0; t < tensorNodes.size(); ++t)
        if (tensorNodes[t] < n)
            ix.tensorAt[tensorNodes[t]] = int32_t(t);
    // Pre-order walk with an explicit stack: tapes from hostile files may be deep.
    std::vector<uint32_t> stack;
    if (n > 0)
        stack.push_back(0);
    while (!stack.empty()) {
        const uint32_t c = stack.back();
        stack.pop_back();
        const Node& node = tape[c];
        if (node.kind != Kind::Array && node.kind != Kind::Map)
            continue;
        ix.firstChild[c] = uint32_t(ix.children.size());
        uint32_t r = 0;
        const size_t before = ix.children.size();
        if (node.kind == Kind::Array) {
            tape.forEachChild(c, [&](uint32_t ch) {
                ix.children.push_back(ch);
                ix.parent[ch] = c;
                ix.row[ch] = r++;
            });
        } else {
            tape.forEachEntry(c, [&](uint32_t k, uint32_t v) {
                ix.children.push_back(v);
                ix.parent[v] = c;
                ix.row[v] = r++;
                ix.keyOf[v] = k;
            });
        }
        ix.childCountOf[c] = r;
        for (size_t i = ix.children.size(); i > before; --i)
            stack.push_back(ix.children[i - 1]);
    }
    return ix;
}

std::string TapeIndex::pathOf(const Tape& tape, uint32_t node) const
{
    std::vector<uint32_t> chain;
    for (uint32_t n = node; n != None && n != 0; n = parent[n])
        chain.push_back(n);
    std::string path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (keyOf[*it] != None)
            path = appendKeyToPath(path, tape.keyText(keyOf[*it]));
        else
            path = appendIndexToPath(path, row[*it]);
    }
    return path;
}

} // namespace ckpt
