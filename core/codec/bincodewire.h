// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What bincode's decoder, encoder and schema-less scan share (internal to core/codec): the varint
// markers of the wire format and the record path an error names.

#include "core/value/tape.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::bincode_detail {

// bincode 1.3 config/int.rs VarintEncoding: < 251 one byte, then fb u16, fc u32, fd u64 (LE),
// fe u128 (refused for 64-bit targets), ff reserved.
inline constexpr uint8_t kU16Marker = 0xfb;
inline constexpr uint8_t kU32Marker = 0xfc;
inline constexpr uint8_t kU64Marker = 0xfd;

/** A step of the record path, kept on the stack and rendered only when an error needs it. */
struct PathLink {
    const PathLink* parent = nullptr;
    enum : uint8_t { Root, Key, Index, TapeKey } kind = Root;
    std::string_view key;
    uint64_t index = 0; ///< Index: position; TapeKey: tape node of the decoded map key
};

/** The path from the root to \a p (`item[0].conv1.weight`); \a keyText spells a TapeKey's tape node. */
template<class KeyText>
std::string renderPath(const PathLink* p, KeyText&& keyText)
{
    std::vector<const PathLink*> chain;
    for (; p; p = p->parent)
        if (p->kind != PathLink::Root)
            chain.push_back(p);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const PathLink* l = *it;
        if (l->kind == PathLink::Key)
            out = appendKeyToPath(out, l->key);
        else if (l->kind == PathLink::Index)
            out = appendIndexToPath(out, l->index);
        else
            out = appendKeyToPath(out, keyText(l->index));
    }
    return out;
}

} // namespace ckpt::bincode_detail
