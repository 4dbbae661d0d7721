// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// CBOR (RFC 8949), the pieces the container formats (core/pack) and the CAR block store
// (core/graph/car) share: the initial byte and argument of an item, the ciborium 0.2.2-exact writer,
// and a pull decoder that mirrors ciborium 0.2.2's serde Deserializer function by function.
//
// Why our own CBOR code and not nlohmann::json's from_cbor/to_cbor (already a dependency):
// * Reading. burn-pack decodes its metadata with ciborium 0.2.2 + serde derive, and what it accepts
//   is a property of that *streaming, typed* decoder, not of CBOR: a unit variant written as a map
//   leaves its payload in the stream and desynchronises the rest, a tuple takes the first elements
//   of a longer array and leaves the others to be read as what follows, the recursion budget counts
//   enum levels (a plain "F32" is one) and tags only inside ignored values, struct field names must
//   be definite text/bytes <= 4096 while String map keys may be chunked, byte strings pass as
//   sequences of u64. nlohmann's from_cbor builds a DOM: it has already lost key order, duplicates,
//   chunking, integer widths and, above all, the byte offset of every item (its SAX interface reports
//   no positions), and its depth limit is not ciborium's. Checking the rules "on the raw bytes" would
//   mean writing the typed pull decoder anyway, so Decoder below *is* that decoder: one pass over the
//   bytes, every error with the offset of the item that caused it.
// * Writing. nlohmann's to_cbor never emits binary16 (ciborium writes 0.5 as f9 3800) and chooses
//   float widths by its own rule; byte-exactness with ciborium 0.2.2 needs the narrowest exact float
//   and shortest integer heads: appendHead() and appendFloat() do that.

#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::cbor {

// ------------------------------------------------------------------------------------------------
// Heads

/** An item's initial byte and argument, before any meaning is given to them. */
struct RawHead {
    uint8_t major = 0;         ///< 0-7
    uint8_t info = 0;          ///< the additional information (low 5 bits)
    uint64_t arg = 0;          ///< the argument (the value of info < 24, or the 1/2/4/8 bytes that follow)
    uint8_t width = 0;         ///< bytes of argument after the initial byte (0, 1, 2, 4, 8)
    bool indefinite = false;   ///< info 31
};

/** Why readHead() found no head. */
enum class HeadError {
    End,       ///< no byte left
    Reserved,  ///< additional information 28-30
    Truncated, ///< the argument runs past the input
};

/**
 * Reads the head that starts at \a pos and advances \a pos past it. Indefinite lengths (info 31)
 * are heads too: what they mean depends on the major type, which is the caller's to judge. On an
 * error \a pos is unchanged, so `in[pos]` is the offending initial byte (unless End).
 */
std::expected<RawHead, HeadError> readHead(std::span<const uint8_t> in, size_t& pos);

/**
 * Whether a definite array (major 4) or map (major 5) of \a count entries can be held by the \a left
 * bytes that follow its head: every item takes at least one byte, a map entry two (its key and its
 * value). A reader that iterates a count must ask this first: a count that does not fit can only
 * end in a truncation, and a map's 2 x count wraps past 2^63. (Decoder does not ask: ciborium reads
 * item by item, so its error is whatever comes first, and no allocation follows a count.)
 */
constexpr bool countFits(uint8_t major, uint64_t count, uint64_t left)
{
    return count <= (major == 5 ? left / 2 : left);
}

// ------------------------------------------------------------------------------------------------
// The writer: ciborium 0.2.2-exact (shortest integer heads, narrowest exact float)

void appendHead(std::vector<uint8_t>& out, uint8_t major, uint64_t v);
void appendUnsigned(std::vector<uint8_t>& out, uint64_t v);
void appendInt(std::vector<uint8_t>& out, int64_t v);
/** NaN as f9 7e00; otherwise binary16, binary32 or binary64, the narrowest that holds \a v exactly. */
void appendFloat(std::vector<uint8_t>& out, double v);
void appendText(std::vector<uint8_t>& out, std::string_view s);
void appendBool(std::vector<uint8_t>& out, bool v);

// ------------------------------------------------------------------------------------------------
// The decoder: ciborium 0.2.2's serde Deserializer

/** An item's head as ciborium's decoder classifies it. */
enum class Type { Positive, Negative, Float, Simple, Tag, Break, Bytes, Text, Array, Map };

struct Head {
    Type type = Type::Positive;
    uint64_t arg = 0;          ///< integer value, tag, simple value, length
    bool definite = true;      ///< Bytes/Text/Array/Map
    double f = 0;              ///< Float
    uint64_t at = 0;           ///< absolute offset of the initial byte
};

/** "unsigned integer 3", "text string of 5 bytes", "indefinite map", ... (for error messages). */
std::string describe(const Head& h);

/** Something the decoder accepts as ciborium does, but worth telling (the caller words it). */
struct Warning {
    uint64_t offset = 0;
    std::string what;
};

/** What a fixed-size tuple read from a longer array leaves in the stream (serde reads only its elements). */
enum class TupleRest {
    None,     ///< nothing
    Elements, ///< more elements (read as what follows)
    Break,    ///< an indefinite array's break
};

inline constexpr size_t kScratch = 4096; ///< ciborium's scratch buffer: the longest identifier
inline constexpr size_t kMaxWarnings = 1000; ///< warnings a Decoder lists; it counts the others

/**
 * A pull decoder over one blob of CBOR with ciborium 0.2.2's rules. Every error is an Error whose
 * offset is absolute (\a base + position in the blob), whose text starts with \a errorPrefix and
 * whose recordPath is the path the caller passes in. The de*() functions are serde's
 * deserialize_*: each skips the tags in front of its item (ciborium ignores them there).
 */
class Decoder {
public:
    Decoder(std::span<const uint8_t> blob, uint64_t base, std::string errorPrefix, uint32_t recursionLimit);

    size_t consumed() const { return m_pos; }
    uint64_t here() const { return m_base + m_pos; }
    size_t pos() const { return m_pos; }
    const uint8_t* data() const { return m_p; }
    /**
     * What warn() collected, in order: the first kMaxWarnings, then one that counts the rest (the
     * first call adds it).
     */
    std::vector<Warning>& warnings();

    std::unexpected<Error> err(ErrorCode code, std::string what, uint64_t at, const std::string& path = {}) const;
    std::unexpected<Error> expected(const Head& h, std::string_view what, const std::string& path) const;
    void warn(uint64_t at, std::string what);

    /** The next head (or the one push()ed back). */
    Result<Head> pull(const std::string& path);
    void push(const Head& h) { m_pushed = h; }
    /** The next head that is not a tag; with \a keepBignumTags, tags 2 and 3 are returned too. */
    Result<Head> untagged(const std::string& path, bool keepBignumTags = false);
    Result<std::span<const uint8_t>> take(uint64_t len, const std::string& path);
    bool peekBreak() const { return m_pos < m_n && m_p[m_pos] == 0xff && !m_pushed; }

    /** Runs \a f one recursion level deeper (ciborium's recurse()); over the limit is an Error (Limit). */
    template<class F>
    auto recurse(uint64_t at, const std::string& path, F&& f) -> decltype(f())
    {
        if (m_depth >= m_recursionLimit)
            return tooDeep(at, path);
        ++m_depth;
        auto r = f();
        --m_depth;
        return r;
    }

    /** A text or byte string's segments: definite, or indefinite with definite chunks of the same major. */
    Result<std::string> segments(const Head& h, bool text, const std::string& path);
    /** deserialize_string (String map keys and values). */
    Result<std::string> deString(const std::string& path);
    /** deserialize_identifier (struct field and variant names): definite text/bytes <= 4096 bytes; \a at gets its offset. */
    Result<std::string> deIdentifier(const std::string& path, uint64_t* at = nullptr);

    /** ciborium's integer(): negative flag and magnitude as a u128 (hi, lo); -1-value when negative. */
    struct Int {
        bool neg = false;
        uint64_t hi = 0, lo = 0;
        uint64_t at = 0;
    };
    Result<Int> deInteger(const std::string& path);
    Result<uint64_t> deU64(const std::string& path);
    Result<int64_t> deI64(const std::string& path);
    Result<double> deF64(const std::string& path);
    Result<bool> deBool(const std::string& path);

    /**
     * deserialize_seq of u64: an array (one recursion level) or a definite byte string <= 4096 (each
     * byte one element). With \a exactly, a tuple of that many elements: serde reads only those, and
     * \a rest says what a longer array left in the stream. \a at gets the sequence's offset.
     */
    Result<std::vector<uint64_t>> deSeqU64(const std::string& path, std::optional<size_t> exactly, uint64_t* at = nullptr, TupleRest* rest = nullptr);

    /** A map's entries: a definite count or entries until a break. */
    struct MapIter {
        Head head;
        uint64_t left = 0;
    };
    Result<bool> nextEntry(MapIter& m, const std::string& path);
    /** Calls \a entry (which reads one entry, Result<void>) for each entry of the container \a head opens. */
    template<class F>
    Result<void> forEachEntry(const Head& head, const std::string& path, F&& entry)
    {
        MapIter it{head, head.arg};
        for (;;) {
            auto more = nextEntry(it, path);
            if (!more)
                return std::unexpected(more.error());
            if (!*more)
                return {};
            if (auto r = entry(); !r)
                return r;
        }
    }
    /** deserialize_map / deserialize_struct: tags skipped, a map expected (\a what names it in the error). */
    Result<Head> mapHead(const std::string& path, std::string_view what);

    /** deserialize_ignored_any (= deserialize_any): skips one item. */
    Result<void> deAny(const std::string& path);

    /**
     * deserialize_enum: a 1-entry definite map or a text (pushed back for the identifier); the variant
     * access runs inside one recursion level. \a body(name, asMap, nameOffset, head) reads the payload.
     */
    template<class F>
    Result<void> deEnum(const std::string& path, std::string_view what, F&& body)
    {
        auto h = untagged(path);
        if (!h)
            return std::unexpected(h.error());
        bool asMap = false;
        if (h->type == Type::Map && h->definite && h->arg == 1)
            asMap = true;
        else if (h->type == Type::Text)
            push(*h);
        else
            return expected(*h, what, path);
        const Head head = *h;
        return recurse(head.at, path, [&]() -> Result<void> {
            uint64_t at = 0;
            auto name = deIdentifier(path, &at);
            if (!name)
                return std::unexpected(name.error());
            return body(*name, asMap, at, head);
        });
    }

private:
    std::unexpected<Error> eof(const std::string& path) const;
    std::unexpected<Error> tooDeep(uint64_t at, const std::string& path) const;
    Result<std::vector<uint64_t>> seqFromBytes(const Head& h, std::optional<size_t> exactly, const std::string& path);
    Result<std::vector<uint64_t>> seqFromArray(const Head& arr, std::optional<size_t> exactly, const std::string& path, TupleRest* rest);
    Result<void> anyContainer(const Head& c, const std::string& path);

    const uint8_t* m_p;
    size_t m_n;
    size_t m_pos = 0;
    uint64_t m_base;
    std::string m_prefix;
    uint32_t m_recursionLimit;
    uint32_t m_depth = 0;
    std::optional<Head> m_pushed;
    std::vector<Warning> m_warnings;
    uint64_t m_unlisted = 0;      // warnings past kMaxWarnings
    uint64_t m_firstUnlisted = 0; // the offset of the first of them
};

} // namespace ckpt::cbor
