// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What bincode's decoder, encoder and schema-less scan share (internal to core/codec): the varint
// markers of the wire format and the record path an error names.

#include "core/codec/schema.h"
#include "core/util/int128.h"
#include "core/value/tape.h"

#include <map>
#include <utility>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::bincode_detail {

// bincode 1.3 config/int.rs VarintEncoding: < 251 one byte, then fb u16, fc u32, fd u64 (LE),
// fe u128 (only where the type is u128/i128), ff reserved.
inline constexpr uint8_t kU16Marker = 0xfb;
inline constexpr uint8_t kU32Marker = 0xfc;
inline constexpr uint8_t kU64Marker = 0xfd;
inline constexpr uint8_t kU128Marker = 0xfe; ///< u128/i128 only

/** rmp-serde's spelling of a u128/i128 (and the tape's): its 16 bytes, big-endian. */
inline void put128BigEndian(UInt128 v, uint8_t* out)
{
    for (int k = 15; k >= 0; --k, v >>= 8)
        out[k] = static_cast<uint8_t>(v);
}
inline UInt128 get128BigEndian(const uint8_t* in)
{
    UInt128 v = 0;
    for (int k = 0; k < 16; ++k)
        v = (v << 8) | in[k];
    return v;
}

/** Per enum node a twin showed: the (bincode index, variant position) pairs its occurrences bound. */
using VariantIndices = std::map<uint32_t, std::vector<std::pair<uint32_t, size_t>>>;

/**
 * The schema with every ambiguous node a decode met made definite (\a pins: the reading taken, -1
 * where never met): an Option that was bare bypassed, a maybe-tuple Seq a Seq or a Tuple, an Either
 * its reading; an enum the twin showed gets the indices in \a bound. Encoding the decoded tape with
 * it reproduces the input.
 */
BincodeSchema resolveSchema(const BincodeSchema& schema, const std::vector<int8_t>& pins, const VariantIndices& bound);

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
