// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/bytes.h"
#include "core/util/int128.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * The kinds of the serde data model as the three wire formats keep them apart. Integers keep only
 * their sign class (rmp-serde and serde_json write by value, not by declared width); widths needed by
 * bincode come from a schema. F32 and F64 stay apart because MessagePack (ca/cb) and serde_json's
 * shortest float formatting depend on them.
 */
enum class Kind : uint8_t { Nil, Bool, UInt, Int, F32, F64, Str, Bin, Array, Map };

const char* kindName(Kind k);

/** Per-node flags. */
enum NodeFlags : uint8_t {
    InPool = 1,        ///< Str/Bin bytes live in Tape::pool, not in Tape::source
    FromJsonArray = 2, ///< Bin that was a JSON array of integers 0..255 (serde_bytes through serde_json)
    FromBinArray = 4,  ///< Array that was a msgpack `bin` accepted as a byte sequence (kept for round-trips)
    /// UInt/Int beyond 64 bits (a u128/i128 serde_json wrote as digits): low 64 bits in `payload`, high
    /// 64 bits in `count`, two's complement for Int. Only values that do not fit 64 bits carry it, so a
    /// value has one spelling on the tape; read them with Tape::u128/i128/integerText.
    Wide128 = 8,
};

/**
 * One value on the tape. Containers are followed by their children in pre-order; `end` is the index
 * one past the last node of the subtree, so siblings are found by jumping to `end`. Maps store
 * key, value, key, value, ... as children (keys are Str nodes, or any kind where a format allows).
 */
struct Node {
    Kind kind = Kind::Nil;
    uint8_t flags = 0;
    uint16_t reserved = 0;
    uint32_t end = 0;        ///< one past the subtree (self + 1 for scalars)
    uint64_t count = 0;      ///< Array: elements; Map: entries; Str/Bin: byte length; Wide128 UInt/Int: high bits
    uint64_t payload = 0;    ///< Bool/UInt/Int: value bits (low bits if Wide128); F32/F64: IEEE bits; Str/Bin: byte offset
    uint64_t srcOffset = 0;  ///< where the value starts in the decoded input stream (for messages)
};

/**
 * An immutable, order-preserving value tree in one flat array (a "tape"). Strings and binary
 * payloads are referenced by offset, either into the source bytes (zero copy: tensor payloads of a
 * mapped .mpk are never copied) or into the tape's own pool (JSON-unescaped strings, built values).
 * Cheap to move; copy only when a new tape is built from an old one (edits).
 */
class Tape {
public:
    std::vector<Node> nodes;
    BytesPtr source;          ///< bytes Str/Bin nodes without InPool point into (may be null)
    std::vector<uint8_t> pool;///< bytes of InPool nodes

    bool empty() const { return nodes.empty(); }
    uint32_t root() const { return 0; }
    const Node& operator[](uint32_t i) const { return nodes[i]; }

    std::string_view str(uint32_t i) const;
    std::span<const uint8_t> bin(uint32_t i) const;
    /** A UInt's / Int's value when it is not wide (isWide); a wide node's low bits only. */
    uint64_t u64(uint32_t i) const { return nodes[i].payload; }
    int64_t i64(uint32_t i) const { return static_cast<int64_t>(nodes[i].payload); }
    /** A UInt or Int wider than 64 bits (NodeFlags::Wide128): u64/i64/asU64 do not hold it. */
    bool isWide(uint32_t i) const { return (nodes[i].flags & Wide128) != 0; }
    /** Exact value of a UInt node, wide or not. */
    UInt128 u128(uint32_t i) const;
    /** Exact value of an Int node, wide or not. */
    Int128 i128(uint32_t i) const;
    /** Exact decimal digits of a UInt or Int node, wide or not ("-" first when negative). */
    std::string integerText(uint32_t i) const;
    double f64(uint32_t i) const;  ///< F64 or F32 widened
    float f32(uint32_t i) const;   ///< F32 only
    bool boolean(uint32_t i) const { return nodes[i].payload != 0; }

    /** Integer value of a UInt or non-negative Int node that fits 64 bits (nullopt for wide nodes). */
    std::optional<uint64_t> asU64(uint32_t i) const;
    /** Any numeric node as a double (integers converted, wide ones rounded: for statistics, not values). */
    std::optional<double> asNumber(uint32_t i) const;

    /** Children of an Array (or keys and values interleaved of a Map). */
    template<class F>
    void forEachChild(uint32_t i, F&& f) const
    {
        for (uint32_t c = i + 1; c < nodes[i].end; c = nodes[c].end)
            f(c);
    }
    /** Map entries as (key node, value node). */
    template<class F>
    void forEachEntry(uint32_t map, F&& f) const
    {
        for (uint32_t k = map + 1; k < nodes[map].end;) {
            const uint32_t v = nodes[k].end;
            f(k, v);
            k = nodes[v].end;
        }
    }
    /** The i-th element of an array (linear in i). */
    std::optional<uint32_t> element(uint32_t array, uint64_t index) const;
    /** The value for a Str key in a map, first match (linear in the map size). */
    std::optional<uint32_t> find(uint32_t map, std::string_view key) const;
    bool isMap(uint32_t i) const { return nodes[i].kind == Kind::Map; }
    bool isArray(uint32_t i) const { return nodes[i].kind == Kind::Array; }
    bool isStr(uint32_t i) const { return nodes[i].kind == Kind::Str; }

    /** Key text of a map key node (Str), or its rendering for non-string keys. */
    std::string keyText(uint32_t keyNode) const;
};

/**
 * Builds a tape in pre-order. Containers are opened with begin*() and closed with end(); their
 * element count is filled in at end(). Str/Bin bytes are copied into the pool unless an external
 * source offset is given (decoders use that for zero-copy payloads).
 */
class TapeBuilder {
public:
    explicit TapeBuilder(BytesPtr source = {});

    uint32_t nil(uint64_t src = 0);
    uint32_t boolean(bool v, uint64_t src = 0);
    uint32_t uinteger(uint64_t v, uint64_t src = 0);
    /** A signed value; non-negative values are still stored as Kind::Int (the writers decide markers). */
    uint32_t integer(int64_t v, uint64_t src = 0);
    /** Exact 128-bit integers: a plain UInt/Int node when the value fits 64 bits, a Wide128 one otherwise. */
    uint32_t uinteger128(UInt128 v, uint64_t src = 0);
    uint32_t integer128(Int128 v, uint64_t src = 0);
    uint32_t f32(float v, uint64_t src = 0);
    uint32_t f64(double v, uint64_t src = 0);
    uint32_t str(std::string_view s, uint64_t src = 0);
    uint32_t bin(std::span<const uint8_t> b, uint64_t src = 0, uint8_t extraFlags = 0);
    /** Str/Bin that references \a length bytes at \a offset of the builder's source (no copy). */
    uint32_t strRef(uint64_t offset, uint64_t length, uint64_t src);
    uint32_t binRef(uint64_t offset, uint64_t length, uint64_t src);
    uint32_t beginArray(uint64_t src = 0);
    uint32_t beginMap(uint64_t src = 0);
    void end();
    /** Shorthand: a Str key (inside a map). */
    uint32_t key(std::string_view k) { return str(k); }
    /** Copies the subtree at \a node of \a other (with its bytes) into this tape. */
    uint32_t copy(const Tape& other, uint32_t node);

    /** Number of open containers. */
    size_t depth() const { return m_stack.size(); }
    /** Reserve for the expected node count (bounded by the caller by the input size). */
    void reserve(size_t n) { m_tape.nodes.reserve(n); }
    /** Reserve for the expected bytes of copied strings and blobs (str(), bin(), key()). */
    void reservePool(size_t bytes) { m_tape.pool.reserve(bytes); }
    size_t size() const { return m_tape.nodes.size(); }
    Node& node(uint32_t i) { return m_tape.nodes[i]; }

    /** Number of end() calls that had no open container (a caller bug; the tape stays well-formed). */
    uint32_t unbalancedEnds() const { return m_unbalanced; }

    /** Finishes the tape; containers still open are closed (the tape is always well-formed). */
    Tape finish() &&;

private:
    uint32_t push(Node n);
    Tape m_tape;
    std::vector<uint32_t> m_stack;
    uint32_t m_unbalanced = 0;
};

/**
 * Paths into a tape, as the CLI prints and accepts them: `item[0].layers[0].weight.param`;
 * keys that are not identifier-like are written `["key"]` with JSON escapes.
 */
std::string appendKeyToPath(const std::string& base, std::string_view key);
std::string appendIndexToPath(const std::string& base, uint64_t index);

/** One step of a parsed path. */
struct PathStep {
    bool isIndex = false;
    uint64_t index = 0;
    std::string key;
};
Result<std::vector<PathStep>> parsePath(std::string_view path);
/** Resolves a parsed path from the tape root; the error names the first step that does not exist. */
Result<uint32_t> resolvePath(const Tape& tape, const std::vector<PathStep>& steps);

/**
 * Copies the subtree at \a node of \a t into \a b, letting \a replaceNode write any node in its place:
 * `replaceNode(n)` returns true when it wrote node n's replacement into \a b. Containers keep their source
 * offsets. The one copy-with-replacement of the edit engine and the precision converter.
 */
template<class Replace>
void copyReplacing(TapeBuilder& b, const Tape& t, uint32_t node, Replace&& replaceNode)
{
    if (replaceNode(node))
        return;
    const Node& n = t[node];
    if (n.kind == Kind::Map) {
        b.beginMap(n.srcOffset);
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            b.copy(t, k);
            copyReplacing(b, t, v, replaceNode);
        });
        b.end();
    } else if (n.kind == Kind::Array) {
        b.beginArray(n.srcOffset);
        t.forEachChild(node, [&](uint32_t c) { copyReplacing(b, t, c, replaceNode); });
        b.end();
    } else {
        b.copy(t, node);
    }
}

/** Deep structural equality of two subtrees (same kinds, values, order). */
bool subtreeEqual(const Tape& a, uint32_t na, const Tape& b, uint32_t nb);

} // namespace ckpt
