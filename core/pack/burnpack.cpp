// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The burnpack container (../shared/docs/format-burnpack.md).
//
// Why our own CBOR code and not nlohmann::json's from_cbor/to_cbor (already a dependency):
// * Reading. burn-pack decodes its metadata with ciborium 0.2.2 + serde derive, and what it accepts
//   is a property of that *streaming, typed* decoder, not of CBOR: a unit variant written as a map
//   leaves its payload in the stream and desynchronises the rest (§6.3), `data_offsets` takes the
//   first two elements of a longer array and leaves the others to be read as the next key, bare
//   "Bool" reads the *next item* as its payload (§5.4), the recursion budget counts enum levels
//   (a plain "F32" is one) and tags only inside ignored values, struct field names must be
//   definite text/bytes <= 4096 while String map keys may be chunked, byte strings pass as
//   sequences of u64, duplicate struct fields are errors but duplicate map keys keep the last.
//   nlohmann's from_cbor builds a DOM: it has already lost key order, duplicates, chunking, integer
//   widths and, above all, the byte offset of every item (its SAX interface reports no positions),
//   and its depth limit is not ciborium's. Checking the rules "on the raw bytes" would mean writing
//   the typed pull decoder anyway, so the reader below *is* that decoder: one pass over the bytes,
//   mirroring ciborium's Deserializer function by function, every error with the offset of the
//   item that caused it.
// * Writing. nlohmann's to_cbor never emits binary16 (ciborium writes 0.5 as f9 3800) and chooses
//   float widths by its own rule; byte-exactness with ciborium 0.2.2 (§3.2, §7) needs the narrowest
//   exact float, shortest integer heads and serde's struct/enum shapes: a small writer does that.
// The tests use nlohmann's from_cbor as an independent oracle on the files we read and write.
#include "core/pack/burnpack.h"

#include "core/codec/msgpack.h" // firstInvalidUtf8

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <cstring>
#include <map>
#include <memory>

namespace ckpt::pack {

namespace {

constexpr uint64_t kMaxFileSize = 107374182400ull; // MAX_FILE_SIZE (100 GiB)
constexpr size_t kScratch = 4096;                  // ciborium's scratch buffer (identifier limit)

uint64_t align256(uint64_t v)
{
    return (v + (kBurnpackAlignment - 1)) / kBurnpackAlignment * kBurnpackAlignment;
}

std::string hex(uint64_t v)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::string quoted(std::string_view s)
{
    std::string r = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            r += '\\';
            r += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            r += b;
        } else {
            r += static_cast<char>(c);
        }
        if (r.size() > 80) {
            r += "...";
            break;
        }
    }
    return r + "\"";
}

// ------------------------------------------------------------------------------------------------
// half <-> double

double halfToDouble(uint16_t h)
{
    const int sign = h >> 15;
    const int exp = (h >> 10) & 0x1f;
    const int man = h & 0x3ff;
    double v;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(man), -24);
    else if (exp == 31)
        v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
    return sign ? -v : v;
}

/** The binary16 bits of \a f when f is exactly representable (finite, not NaN), else nullopt. */
std::optional<uint16_t> exactHalf(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
    const int expf = static_cast<int>((bits >> 23) & 0xff);
    const uint32_t man = bits & 0x7fffff;
    if (expf == 0xff)
        return man ? std::nullopt : std::optional<uint16_t>(sign | 0x7c00);
    if (expf == 0)
        return man ? std::nullopt : std::optional<uint16_t>(sign); // float subnormals are below half's range
    const int e = expf - 127;
    if (e >= -14 && e <= 15) {
        if (man & 0x1fff)
            return std::nullopt;
        return static_cast<uint16_t>(sign | ((e + 15) << 10) | (man >> 13));
    }
    if (e >= -24 && e < -14) {
        const uint32_t full = man | 0x800000;
        const int shift = -(e + 1);
        if (full & ((1u << shift) - 1))
            return std::nullopt;
        return static_cast<uint16_t>(sign | (full >> shift));
    }
    return std::nullopt;
}

// ------------------------------------------------------------------------------------------------
// The decoder: ciborium 0.2.2's Deserializer over the metadata blob

enum class H { Positive, Negative, Float, Simple, Tag, Break, Bytes, Text, Array, Map };

struct Head {
    H type = H::Positive;
    uint64_t arg = 0;          // integer value, tag, simple value, length
    bool definite = true;      // Bytes/Text/Array/Map
    double f = 0;              // Float
    uint64_t at = 0;           // file offset of the initial byte
};

std::string describe(const Head& h)
{
    switch (h.type) {
    case H::Positive: return "unsigned integer " + std::to_string(h.arg);
    case H::Negative: return "negative integer -1-" + std::to_string(h.arg);
    case H::Float: return "float";
    case H::Simple:
        if (h.arg == 20 || h.arg == 21) return "bool";
        if (h.arg == 22) return "null";
        if (h.arg == 23) return "undefined";
        return "simple value " + std::to_string(h.arg);
    case H::Tag: return "tag " + std::to_string(h.arg);
    case H::Break: return "break";
    case H::Bytes: return h.definite ? "byte string of " + std::to_string(h.arg) + " bytes" : "indefinite byte string";
    case H::Text: return h.definite ? "text string of " + std::to_string(h.arg) + " bytes" : "indefinite text string";
    case H::Array: return h.definite ? "array of " + std::to_string(h.arg) : "indefinite array";
    case H::Map: return h.definite ? "map of " + std::to_string(h.arg) : "indefinite map";
    }
    return "?";
}

struct RawTensor {
    BurnpackTensor t;
    bool haveDtype = false, haveShape = false, haveOffsets = false, haveParam = false;
};

class Decoder {
public:
    Decoder(const uint8_t* data, size_t size, uint64_t base, std::vector<BurnpackWarning>& warnings)
        : m_p(data)
        , m_n(size)
        , m_base(base)
        , m_warnings(warnings)
    {
    }

    size_t consumed() const { return m_pos; }
    uint64_t here() const { return m_base + m_pos; }

    std::unexpected<Error> err(ErrorCode code, std::string what, uint64_t at, const std::string& path = {})
    {
        Error e;
        e.code = code;
        e.what = "burn-pack rejects the metadata (MetadataDeserializationError): " + std::move(what);
        e.offset = at;
        e.recordPath = path;
        return std::unexpected(std::move(e));
    }
    std::unexpected<Error> expected(const Head& h, std::string_view what, const std::string& path)
    {
        return err(h.type == H::Break ? ErrorCode::Malformed : ErrorCode::Invalid,
            "expected " + std::string(what) + ", found " + describe(h), h.at, path);
    }
    std::unexpected<Error> eof(const std::string& path)
    {
        return err(ErrorCode::Truncated,
            "the " + std::to_string(m_n) + "-byte metadata blob ends inside a CBOR item (ciborium: Io(UnexpectedEof))",
            m_base + m_n, path);
    }
    void warn(uint64_t at, std::string what) { m_warnings.push_back({at, std::move(what)}); }

    void push(const Head& h) { m_pushed = h; }

    Result<Head> pull(const std::string& path)
    {
        if (m_pushed) {
            Head h = *m_pushed;
            m_pushed.reset();
            return h;
        }
        Head h;
        h.at = m_base + m_pos;
        if (m_pos >= m_n)
            return eof(path);
        const uint8_t b = m_p[m_pos++];
        const int major = b >> 5, info = b & 31;
        uint64_t arg = 0;
        bool indefinite = false;
        int width = 0;
        if (info < 24)
            arg = static_cast<uint64_t>(info);
        else if (info <= 27)
            width = 1 << (info - 24);
        else if (info <= 30)
            return err(ErrorCode::Malformed, "reserved CBOR additional information " + std::to_string(info) + " in initial byte " + hex(b) + " (ciborium: Syntax)", h.at, path);
        else
            indefinite = true;
        if (width) {
            if (m_n - m_pos < static_cast<size_t>(width))
                return eof(path);
            for (int i = 0; i < width; ++i)
                arg = (arg << 8) | m_p[m_pos++];
        }
        switch (major) {
        case 0:
        case 1:
        case 6:
            if (indefinite)
                return err(ErrorCode::Malformed, "indefinite length on an integer or tag (initial byte " + hex(b) + ", ciborium: Syntax)", h.at, path);
            h.type = major == 0 ? H::Positive : major == 1 ? H::Negative : H::Tag;
            h.arg = arg;
            return h;
        case 2:
        case 3:
        case 4:
        case 5:
            h.type = major == 2 ? H::Bytes : major == 3 ? H::Text : major == 4 ? H::Array : H::Map;
            h.definite = !indefinite;
            h.arg = arg;
            return h;
        default:
            if (indefinite) {
                h.type = H::Break;
                return h;
            }
            if (width == 2) {
                h.type = H::Float;
                h.f = halfToDouble(static_cast<uint16_t>(arg));
            } else if (width == 4) {
                h.type = H::Float;
                h.f = std::bit_cast<float>(static_cast<uint32_t>(arg));
            } else if (width == 8) {
                h.type = H::Float;
                h.f = std::bit_cast<double>(arg);
            } else {
                h.type = H::Simple;
                h.arg = arg;
            }
            return h;
        }
    }

    Result<std::span<const uint8_t>> take(uint64_t len, const std::string& path)
    {
        if (len > m_n - m_pos)
            return eof(path);
        std::span<const uint8_t> s(m_p + m_pos, static_cast<size_t>(len));
        m_pos += static_cast<size_t>(len);
        return s;
    }

    template<class F>
    auto recurse(uint64_t at, const std::string& path, F&& f) -> decltype(f())
    {
        if (m_depth >= kBurnpackRecursionLimit)
            return err(ErrorCode::Limit, "nesting deeper than ciborium's recursion limit of " + std::to_string(kBurnpackRecursionLimit) + " (RecursionLimitExceeded)", at, path);
        ++m_depth;
        auto r = f();
        --m_depth;
        return r;
    }

    // Text or byte string segments: definite, or indefinite with definite chunks of the same major.
    Result<std::string> segments(const Head& h, bool text, const std::string& path)
    {
        std::string out;
        auto one = [&](uint64_t len, [[maybe_unused]] uint64_t at) -> Result<void> {
            auto s = take(len, path);
            if (!s)
                return std::unexpected(s.error());
            if (text) {
                const size_t bad = firstInvalidUtf8(s->data(), s->size());
                if (bad != s->size())
                    return err(ErrorCode::Malformed, "invalid UTF-8 in a text string (ciborium: Syntax)",
                        m_base + static_cast<uint64_t>(s->data() - m_p) + bad, path);
            }
            out.append(reinterpret_cast<const char*>(s->data()), s->size());
            return {};
        };
        if (h.definite) {
            if (auto r = one(h.arg, h.at); !r)
                return std::unexpected(r.error());
            return out;
        }
        for (;;) {
            auto c = pull(path);
            if (!c)
                return std::unexpected(c.error());
            if (c->type == H::Break)
                return out;
            if (c->type != (text ? H::Text : H::Bytes) || !c->definite)
                return err(ErrorCode::Malformed, std::string("expected a definite ") + (text ? "text" : "byte") + " chunk inside an indefinite string, found " + describe(*c) + " (ciborium: Syntax)", c->at, path);
            if (auto r = one(c->arg, c->at); !r)
                return std::unexpected(r.error());
        }
    }

    // deserialize_string (String map keys and values)
    Result<std::string> deString(const std::string& path)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Tag)
                continue;
            if (h->type != H::Text)
                return expected(*h, "a text string", path);
            if (!h->definite)
                m_chunked = true;
            return segments(*h, true, path);
        }
    }

    // deserialize_identifier (struct field and variant names): definite text/bytes <= 4096 bytes
    Result<std::string> deIdentifier(const std::string& path, uint64_t* at = nullptr)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (at)
                *at = h->at;
            if (h->type == H::Tag)
                continue;
            if ((h->type == H::Text || h->type == H::Bytes) && h->definite && h->arg <= kScratch)
                return segments(*h, h->type == H::Text, path);
            return expected(*h, "a definite text or byte string of at most 4096 bytes (a field or variant name)", path);
        }
    }

    // ciborium's integer(): (negative, magnitude as u128 split into hi/lo)
    struct Int {
        bool neg = false;
        uint64_t hi = 0, lo = 0; // value (positive) or -1-value (negative)
        uint64_t at = 0;
    };
    Result<Int> deInteger(const std::string& path)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Positive || h->type == H::Negative)
                return Int{h->type == H::Negative, 0, h->arg, h->at};
            if (h->type == H::Tag && (h->arg == 2 || h->arg == 3)) {
                auto b = pull(path);
                if (!b)
                    return std::unexpected(b.error());
                if (b->type != H::Bytes)
                    return expected(*b, "bytes (a bignum's magnitude)", path);
                auto bytes = segments(*b, false, path);
                if (!bytes)
                    return std::unexpected(bytes.error());
                Int v{h->arg == 3, 0, 0, h->at};
                size_t index = 0;
                for (unsigned char c : *bytes) {
                    if (index == 0 && c == 0)
                        continue;
                    if (index == 16)
                        return err(ErrorCode::Invalid, "bigint too large (more than 16 significant bytes)", h->at, path);
                    v.hi = (v.hi << 8) | (v.lo >> 56);
                    v.lo = (v.lo << 8) | c;
                    ++index;
                }
                return v;
            }
            if (h->type == H::Tag)
                continue;
            return expected(*h, "an integer", path);
        }
    }
    Result<uint64_t> deU64(const std::string& path)
    {
        auto v = deInteger(path);
        if (!v)
            return std::unexpected(v.error());
        if (v->neg)
            return err(ErrorCode::Invalid, "expected an unsigned 64-bit integer, found a negative integer", v->at, path);
        if (v->hi)
            return err(ErrorCode::Invalid, "expected an unsigned 64-bit integer, found an integer larger than 2^64-1 (integer too large)", v->at, path);
        return v->lo;
    }
    Result<int64_t> deI64(const std::string& path)
    {
        auto v = deInteger(path);
        if (!v)
            return std::unexpected(v.error());
        if (v->hi || v->lo > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            return err(ErrorCode::Invalid, "expected a signed 64-bit integer, found an integer outside i64 (integer too large)", v->at, path);
        return v->neg ? -1 - static_cast<int64_t>(v->lo) : static_cast<int64_t>(v->lo);
    }
    Result<double> deF64(const std::string& path)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Tag)
                continue;
            if (h->type == H::Float)
                return h->f;
            return expected(*h, "a float", path);
        }
    }
    Result<bool> deBool(const std::string& path)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Tag)
                continue;
            if (h->type == H::Simple && (h->arg == 20 || h->arg == 21))
                return h->arg == 21;
            return expected(*h, "a bool", path);
        }
    }

    // deserialize_seq of u64: an array (one recursion level) or a definite byte string <= 4096 (each byte one element).
    // \a exactly: a tuple of that many elements (serde reads only those; extras stay in the stream).
    Result<std::vector<uint64_t>> deSeqU64(const std::string& path, std::optional<size_t> exactly, uint64_t* at = nullptr)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (at)
                *at = h->at;
            if (h->type == H::Tag)
                continue;
            std::vector<uint64_t> out;
            if (h->type == H::Bytes && h->definite && h->arg <= kScratch) {
                auto s = take(h->arg, path);
                if (!s)
                    return std::unexpected(s.error());
                for (uint8_t b : *s)
                    if (!exactly || out.size() < *exactly)
                        out.push_back(b);
                if (exactly && out.size() < *exactly)
                    return err(ErrorCode::Invalid, "invalid length " + std::to_string(out.size()) + ", expected a tuple of size " + std::to_string(*exactly), h->at, path);
                return out;
            }
            if (h->type != H::Array)
                return expected(*h, exactly ? "an array of 2 unsigned integers" : "an array of unsigned integers", path);
            const Head arr = *h;
            return recurse(arr.at, path, [&]() -> Result<std::vector<uint64_t>> {
                uint64_t left = arr.arg;
                for (;;) {
                    if (exactly && out.size() == *exactly)
                        break;
                    if (arr.definite) {
                        if (left == 0)
                            break;
                        --left;
                    } else {
                        auto n = pull(path);
                        if (!n)
                            return std::unexpected(n.error());
                        if (n->type == H::Break)
                            break;
                        push(*n);
                    }
                    auto v = deU64(path + "[" + std::to_string(out.size()) + "]");
                    if (!v)
                        return std::unexpected(v.error());
                    out.push_back(*v);
                }
                if (exactly && out.size() < *exactly)
                    return err(ErrorCode::Invalid, "invalid length " + std::to_string(out.size()) + ", expected a tuple of size " + std::to_string(*exactly), arr.at, path);
                if (exactly && (arr.definite ? left > 0 : true)) {
                    // serde read its two elements; ciborium leaves the rest (and an indefinite array's break) in the stream
                    if (arr.definite ? left > 0 : !peekBreak())
                        warn(arr.at, "data_offsets has more than 2 elements: the extra ones are left in the stream (Burn reads them as what follows)");
                    else if (!arr.definite)
                        warn(arr.at, "indefinite data_offsets array: its break is left in the stream");
                }
                return out;
            });
        }
    }
    bool peekBreak() const { return m_pos < m_n && m_p[m_pos] == 0xff && !m_pushed; }

    // Map access: a definite count or entries until a break.
    struct MapIter {
        Head head;
        uint64_t left = 0;
    };
    Result<bool> nextEntry(MapIter& m, const std::string& path)
    {
        if (m.head.definite) {
            if (m.left == 0)
                return false;
            --m.left;
            return true;
        }
        auto n = pull(path);
        if (!n)
            return std::unexpected(n.error());
        if (n->type == H::Break)
            return false;
        push(*n);
        return true;
    }
    // deserialize_map / deserialize_struct: tags skipped, a map expected
    Result<Head> mapHead(const std::string& path, std::string_view what)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Tag)
                continue;
            if (h->type != H::Map)
                return expected(*h, what, path);
            return *h;
        }
    }

    // deserialize_ignored_any (= deserialize_any)
    Result<void> deAny(const std::string& path)
    {
        auto h = pull(path);
        if (!h)
            return std::unexpected(h.error());
        switch (h->type) {
        case H::Positive:
        case H::Negative:
        case H::Float:
            return {};
        case H::Simple:
            if (h->arg >= 20 && h->arg <= 23)
                return {};
            return expected(*h, "a known simple value", path);
        case H::Break:
            return err(ErrorCode::Malformed, "unexpected break (ciborium: Syntax)", h->at, path);
        case H::Bytes:
        case H::Text: {
            auto s = segments(*h, h->type == H::Text, path);
            if (!s)
                return std::unexpected(s.error());
            return {};
        }
        case H::Tag:
            if (h->arg == 2 || h->arg == 3) {
                push(*h);
                auto v = deInteger(path);
                if (!v)
                    return std::unexpected(v.error());
                return {};
            }
            return recurse(h->at, path, [&]() { return deAny(path); });
        case H::Array:
        case H::Map: {
            const Head c = *h;
            const int valuesPerEntry = c.type == H::Map ? 2 : 1; // a map entry is a key and a value
            return recurse(c.at, path, [&]() -> Result<void> {
                MapIter it{c, c.arg};
                for (;;) {
                    auto more = nextEntry(it, path);
                    if (!more)
                        return std::unexpected(more.error());
                    if (!*more)
                        return {};
                    for (int k = 0; k < valuesPerEntry; ++k)
                        if (auto r = deAny(path); !r)
                            return r;
                }
            });
        }
        }
        return {};
    }

    // deserialize_enum: a 1-entry definite map or a text (pushed back for the identifier); the variant
    // access runs inside one recursion level. \a variant gets the name; \a body reads the payload.
    template<class F>
    Result<void> deEnum(const std::string& path, std::string_view what, F&& body)
    {
        for (;;) {
            auto h = pull(path);
            if (!h)
                return std::unexpected(h.error());
            if (h->type == H::Tag)
                continue;
            bool asMap = false;
            if (h->type == H::Map && h->definite && h->arg == 1)
                asMap = true;
            else if (h->type == H::Text)
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
    }

    bool chunkedSeen() const { return m_chunked; }

    size_t pos() const { return m_pos; }
    const uint8_t* data() const { return m_p; }

private:
    const uint8_t* m_p;
    size_t m_n;
    size_t m_pos = 0;
    uint64_t m_base;
    uint32_t m_depth = 0;
    std::optional<Head> m_pushed;
    bool m_chunked = false;
    std::vector<BurnpackWarning>& m_warnings;
};

const std::pair<const char*, BurnpackDType::Kind> kUnitDTypes[] = {
    {"F64", BurnpackDType::Kind::F64}, {"F32", BurnpackDType::Kind::F32}, {"Flex32", BurnpackDType::Kind::Flex32},
    {"F16", BurnpackDType::Kind::F16}, {"BF16", BurnpackDType::Kind::BF16}, {"I64", BurnpackDType::Kind::I64},
    {"I32", BurnpackDType::Kind::I32}, {"I16", BurnpackDType::Kind::I16}, {"I8", BurnpackDType::Kind::I8},
    {"U64", BurnpackDType::Kind::U64}, {"U32", BurnpackDType::Kind::U32}, {"U16", BurnpackDType::Kind::U16},
    {"U8", BurnpackDType::Kind::U8},
};
constexpr const char* kDTypeVariants = "`F64`, `F32`, `Flex32`, `F16`, `BF16`, `I64`, `I32`, `I16`, `I8`, `U64`, `U32`, `U16`, `U8`, `Bool`, `QFloat`";

std::string tensorPath(const std::string& name)
{
    return "tensors[" + quoted(name) + "]";
}

Result<BurnpackDType> deDType(Decoder& d, const std::string& path)
{
    BurnpackDType out;
    auto r = d.deEnum(path, "a DType (a variant name or a 1-entry map)", [&](const std::string& name, bool asMap, uint64_t at, const Head& head) -> Result<void> {
        for (const auto& [n, k] : kUnitDTypes)
            if (name == n) {
                out.kind = k;
                if (asMap)
                    // unit_variant() reads nothing: the payload stays in the stream (it desynchronises what follows)
                    d.warn(head.at, "DType " + name + " written as a 1-entry map: its payload is left in the stream, as ciborium does");
                return {};
            }
        if (name == "Bool") {
            out.kind = BurnpackDType::Kind::Bool;
            if (!asMap) {
                out.boolStore = BurnpackDType::BoolStore::Legacy;
                d.warn(at, "bool dtype in the Burn 0.19 - 0.21.0-pre.2 spelling \"Bool\": Burn >= 0.21.0-pre.3 rejects it "
                           "(it reads the next item as the BoolStore)");
                return {};
            }
            return d.deEnum(path + ".Bool", "a BoolStore (`Native`, `U8` or `U32`)", [&](const std::string& store, bool storeMap, uint64_t sat, const Head& shead) -> Result<void> {
                if (store == "Native")
                    out.boolStore = BurnpackDType::BoolStore::Native;
                else if (store == "U8")
                    out.boolStore = BurnpackDType::BoolStore::U8;
                else if (store == "U32")
                    out.boolStore = BurnpackDType::BoolStore::U32;
                else
                    return d.err(ErrorCode::Invalid, "unknown variant `" + store + "`, expected one of `Native`, `U8`, `U32`", sat, path + ".Bool");
                if (storeMap)
                    d.warn(shead.at, "BoolStore written as a 1-entry map: its payload is left in the stream");
                return {};
            });
        }
        if (name == "QFloat") {
            out.kind = BurnpackDType::Kind::QFloat;
            if (!asMap)
                return d.err(ErrorCode::Invalid, "QFloat needs its quantization scheme: expected {\"QFloat\": scheme}, found the bare variant name", at, path);
            const size_t from = d.pos();
            // The scheme is a struct whose fields changed with every cubecl release (§3.3): kept as opaque CBOR.
            auto h = d.mapHead(path + ".QFloat", "a quantization scheme (a map)");
            if (!h)
                return std::unexpected(h.error());
            d.push(*h);
            if (auto a = d.deAny(path + ".QFloat"); !a)
                return a;
            out.qfloatScheme.assign(d.data() + from, d.data() + d.pos());
            return {};
        }
        return d.err(ErrorCode::Invalid, "unknown variant `" + name + "`, expected one of " + kDTypeVariants, at, path);
    });
    if (!r)
        return std::unexpected(r.error());
    return out;
}

Result<BurnpackScalar> deScalar(Decoder& d, const std::string& path)
{
    BurnpackScalar out;
    auto r = d.deEnum(path, "a Scalar (a 1-entry map {\"Int\"|\"UInt\"|\"Float\"|\"Bool\": value})", [&](const std::string& name, bool, uint64_t at, const Head&) -> Result<void> {
        const std::string p = path + "." + name;
        // the newtype's value through its decoder, into the variant's scalar
        auto take = [&](auto value, auto make) -> Result<void> {
            if (!value)
                return std::unexpected(value.error());
            out = make(*value);
            return {};
        };
        if (name == "Int")
            return take(d.deI64(p), BurnpackScalar::makeInt);
        if (name == "UInt")
            return take(d.deU64(p), BurnpackScalar::makeUInt);
        if (name == "Float")
            return take(d.deF64(p), BurnpackScalar::makeFloat);
        if (name == "Bool")
            return take(d.deBool(p), BurnpackScalar::makeBool);
        return d.err(ErrorCode::Invalid, "unknown variant `" + name + "`, expected one of `Int`, `UInt`, `Float`, `Bool`", at, path);
    });
    if (!r)
        return std::unexpected(r.error());
    return out;
}

Result<RawTensor> deDescriptor(Decoder& d, const std::string& path)
{
    RawTensor t;
    auto h = d.mapHead(path, "a TensorDescriptor (a map)");
    if (!h)
        return std::unexpected(h.error());
    t.t.descriptorOffset = h->at;
    const Head head = *h;
    auto r = d.recurse(head.at, path, [&]() -> Result<void> {
        Decoder::MapIter it{head, head.arg};
        for (;;) {
            auto more = d.nextEntry(it, path);
            if (!more)
                return std::unexpected(more.error());
            if (!*more)
                break;
            uint64_t at = 0;
            auto key = d.deIdentifier(path, &at);
            if (!key)
                return std::unexpected(key.error());
            auto dup = [&](bool& seen) -> Result<void> {
                if (seen)
                    return d.err(ErrorCode::Invalid, "duplicate field `" + *key + "`", at, path);
                seen = true;
                return {};
            };
            const std::string p = path + "." + *key;
            if (*key == "dtype") {
                if (auto x = dup(t.haveDtype); !x)
                    return x;
                auto v = deDType(d, p);
                if (!v)
                    return std::unexpected(v.error());
                t.t.dtype = std::move(*v);
            } else if (*key == "shape") {
                if (auto x = dup(t.haveShape); !x)
                    return x;
                auto v = d.deSeqU64(p, std::nullopt);
                if (!v)
                    return std::unexpected(v.error());
                t.t.shape = std::move(*v);
            } else if (*key == "data_offsets") {
                if (auto x = dup(t.haveOffsets); !x)
                    return x;
                uint64_t vat = 0;
                auto v = d.deSeqU64(p, 2, &vat);
                if (!v)
                    return std::unexpected(v.error());
                t.t.offsetsOffset = vat;
                t.t.start = (*v)[0];
                t.t.end = (*v)[1];
            } else if (*key == "param_id") {
                if (auto x = dup(t.haveParam); !x)
                    return x;
                auto n = d.pull(p);
                if (!n)
                    return std::unexpected(n.error());
                if (n->type == H::Simple && (n->arg == 22 || n->arg == 23)) {
                    d.warn(n->at, "param_id is null: Burn reads None (ModuleRecord assigns a fresh id, OptimizerRecord panics)");
                } else {
                    d.push(*n);
                    auto v = d.deU64(p);
                    if (!v)
                        return std::unexpected(v.error());
                    t.t.paramId = *v;
                }
            } else {
                d.warn(at, "unknown descriptor key " + quoted(*key) + " (ignored by Burn)");
                if (auto x = d.deAny(p); !x)
                    return x;
            }
        }
        for (auto [seen, name] : {std::pair{t.haveDtype, "dtype"}, {t.haveShape, "shape"}, {t.haveOffsets, "data_offsets"}})
            if (!seen)
                return d.err(ErrorCode::Invalid, std::string("missing field `") + name + "`", head.at, path);
        return {};
    });
    if (!r)
        return std::unexpected(r.error());
    return t;
}

struct ParsedMetadata {
    std::map<std::string, RawTensor> tensors;
    std::map<std::string, std::string> metadata;
    std::map<std::string, BurnpackScalar> scalars;
    bool hasScalars = false;
    uint64_t tensorsAt = 0;
};

// A BTreeMap<String, V>: entries until the count or a break; a repeated key keeps the last value.
template<class V, class F>
Result<void> deStringMap(Decoder& d, const std::string& path, std::string_view what, std::map<std::string, V>& out, F&& value)
{
    auto h = d.mapHead(path, what);
    if (!h)
        return std::unexpected(h.error());
    const Head head = *h;
    return d.recurse(head.at, path, [&]() -> Result<void> {
        Decoder::MapIter it{head, head.arg};
        for (;;) {
            auto more = d.nextEntry(it, path);
            if (!more)
                return std::unexpected(more.error());
            if (!*more)
                return {};
            const uint64_t at = d.here();
            auto key = d.deString(path);
            if (!key)
                return std::unexpected(key.error());
            auto v = value(path + "[" + quoted(*key) + "]");
            if (!v)
                return std::unexpected(v.error());
            auto [pos, inserted] = out.insert_or_assign(*key, std::move(*v));
            if (!inserted)
                d.warn(at, "repeated key " + quoted(*key) + " in " + path + ": Burn keeps this last entry");
        }
    });
}

Result<ParsedMetadata> deMetadata(Decoder& d)
{
    ParsedMetadata m;
    auto h = d.mapHead("", "the Metadata struct (a map)");
    if (!h)
        return std::unexpected(h.error());
    const Head head = *h;
    bool haveTensors = false, haveMetadata = false;
    auto r = d.recurse(head.at, "", [&]() -> Result<void> {
        Decoder::MapIter it{head, head.arg};
        for (;;) {
            auto more = d.nextEntry(it, "");
            if (!more)
                return std::unexpected(more.error());
            if (!*more)
                break;
            uint64_t at = 0;
            auto key = d.deIdentifier("", &at);
            if (!key)
                return std::unexpected(key.error());
            auto dup = [&](bool& seen) -> Result<void> {
                if (seen)
                    return d.err(ErrorCode::Invalid, "duplicate field `" + *key + "`", at);
                seen = true;
                return {};
            };
            if (*key == "tensors") {
                if (auto x = dup(haveTensors); !x)
                    return x;
                m.tensorsAt = d.here();
                auto x = deStringMap(d, "tensors", "a map of tensor descriptors", m.tensors, [&](const std::string& p) { return deDescriptor(d, p); });
                if (!x)
                    return x;
            } else if (*key == "metadata") {
                if (auto x = dup(haveMetadata); !x)
                    return x;
                auto x = deStringMap(d, "metadata", "a map of strings", m.metadata, [&](const std::string& p) { return d.deString(p); });
                if (!x)
                    return x;
            } else if (*key == "scalars") {
                if (auto x = dup(m.hasScalars); !x)
                    return x;
                auto x = deStringMap(d, "scalars", "a map of scalars", m.scalars, [&](const std::string& p) { return deScalar(d, p); });
                if (!x)
                    return x;
            } else {
                d.warn(at, "unknown top-level key " + quoted(*key) + " (ignored by Burn)");
                if (auto x = d.deAny(*key); !x)
                    return x;
            }
        }
        if (!haveTensors)
            return d.err(ErrorCode::Invalid, "missing field `tensors`", head.at);
        return {};
    });
    if (!r)
        return std::unexpected(r.error());
    return m;
}

std::unexpected<Error> failAt(ErrorCode code, std::string what, uint64_t offset, std::string path = {})
{
    Error e;
    e.code = code;
    e.what = std::move(what);
    e.offset = offset;
    e.recordPath = std::move(path);
    return std::unexpected(std::move(e));
}

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }

// ------------------------------------------------------------------------------------------------
// The writer

void head(std::vector<uint8_t>& out, uint8_t major, uint64_t v)
{
    const uint8_t m = static_cast<uint8_t>(major << 5);
    if (v < 24) {
        out.push_back(static_cast<uint8_t>(m | v));
    } else if (v <= 0xff) {
        out.push_back(m | 24);
        out.push_back(static_cast<uint8_t>(v));
    } else if (v <= 0xffff) {
        out.push_back(m | 25);
        for (int s = 8; s >= 0; s -= 8)
            out.push_back(static_cast<uint8_t>(v >> s));
    } else if (v <= 0xffffffffu) {
        out.push_back(m | 26);
        for (int s = 24; s >= 0; s -= 8)
            out.push_back(static_cast<uint8_t>(v >> s));
    } else {
        out.push_back(m | 27);
        for (int s = 56; s >= 0; s -= 8)
            out.push_back(static_cast<uint8_t>(v >> s));
    }
}

void appendDType(std::vector<uint8_t>& out, const BurnpackDType& t)
{
    using K = BurnpackDType::Kind;
    switch (t.kind) {
    case K::Bool:
        if (t.boolStore == BurnpackDType::BoolStore::Legacy) {
            appendCborText(out, "Bool");
        } else {
            head(out, 5, 1);
            appendCborText(out, "Bool");
            appendCborText(out, t.boolStore == BurnpackDType::BoolStore::Native ? "Native" : t.boolStore == BurnpackDType::BoolStore::U8 ? "U8" : "U32");
        }
        return;
    case K::QFloat:
        head(out, 5, 1);
        appendCborText(out, "QFloat");
        out.insert(out.end(), t.qfloatScheme.begin(), t.qfloatScheme.end());
        return;
    default:
        for (const auto& [n, k] : kUnitDTypes)
            if (k == t.kind) {
                appendCborText(out, n);
                return;
            }
    }
}

struct Plan {
    std::vector<uint8_t> metadata;
    std::vector<uint64_t> starts; // per tensor in list order
    uint64_t dataStart = 0;
    uint64_t total = 0;
};

Result<Plan> plan(const BurnpackContent& c)
{
    Plan p;
    const bool aligned = c.layout == BurnpackLayout::Aligned256;
    uint64_t cur = 0;
    std::vector<uint64_t> ends;
    for (const auto& t : c.tensors) {
        const uint64_t start = aligned ? align256(cur) : cur;
        if (start < cur || start + t.data.size() < start)
            return fail(ErrorCode::Limit, "tensor '" + t.name + "': data offsets overflow 64 bits");
        p.starts.push_back(start);
        cur = start + t.data.size();
        ends.push_back(cur);
    }
    std::vector<size_t> byName(c.tensors.size());
    for (size_t i = 0; i < byName.size(); ++i)
        byName[i] = i;
    std::sort(byName.begin(), byName.end(), [&](size_t a, size_t b) { return c.tensors[a].name < c.tensors[b].name; });
    for (size_t i = 1; i < byName.size(); ++i)
        if (c.tensors[byName[i]].name == c.tensors[byName[i - 1]].name)
            return fail(ErrorCode::Invalid, "Duplicate tensor name '" + c.tensors[byName[i]].name + "' (burn-pack's writer refuses it)");
    auto sortedUnique = [](auto entries, const char* what) -> Result<decltype(entries)> {
        std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t i = 1; i < entries.size(); ++i)
            if (entries[i].first == entries[i - 1].first)
                return fail(ErrorCode::Invalid, std::string("repeated ") + what + " key '" + entries[i].first + "'");
        return entries;
    };
    auto md = sortedUnique(c.metadata, "metadata");
    if (!md)
        return std::unexpected(md.error());
    auto sc = sortedUnique(c.scalars, "scalar");
    if (!sc)
        return std::unexpected(sc.error());

    auto& out = p.metadata;
    head(out, 5, 1 + (md->empty() ? 0 : 1) + (sc->empty() ? 0 : 1));
    appendCborText(out, "tensors");
    head(out, 5, c.tensors.size());
    for (size_t i : byName) {
        const auto& t = c.tensors[i];
        appendCborText(out, t.name);
        head(out, 5, t.paramId ? 4 : 3);
        appendCborText(out, "dtype");
        appendDType(out, t.dtype);
        appendCborText(out, "shape");
        head(out, 4, t.shape.size());
        for (uint64_t s : t.shape)
            appendCborUnsigned(out, s);
        appendCborText(out, "data_offsets");
        head(out, 4, 2);
        appendCborUnsigned(out, p.starts[i]);
        appendCborUnsigned(out, ends[i]);
        if (t.paramId) {
            appendCborText(out, "param_id");
            appendCborUnsigned(out, *t.paramId);
        }
    }
    if (!md->empty()) {
        appendCborText(out, "metadata");
        head(out, 5, md->size());
        for (const auto& [k, v] : *md) {
            appendCborText(out, k);
            appendCborText(out, v);
        }
    }
    if (!sc->empty()) {
        appendCborText(out, "scalars");
        head(out, 5, sc->size());
        for (const auto& [k, v] : *sc) {
            appendCborText(out, k);
            head(out, 5, 1);
            switch (v.kind) {
            case BurnpackScalar::Kind::Int: appendCborText(out, "Int"); appendCborInt(out, v.i); break;
            case BurnpackScalar::Kind::UInt: appendCborText(out, "UInt"); appendCborUnsigned(out, v.u); break;
            case BurnpackScalar::Kind::Float: appendCborText(out, "Float"); appendCborFloat(out, v.f); break;
            case BurnpackScalar::Kind::Bool: appendCborText(out, "Bool"); out.push_back(v.b ? 0xf5 : 0xf4); break;
            }
        }
    }
    if (out.size() >= (uint64_t{1} << 32))
        return fail(ErrorCode::Limit, "the metadata is " + std::to_string(out.size()) + " bytes; burnpack's header holds at most 4 GiB - 1");
    const uint64_t mend = kBurnpackHeaderSize + out.size();
    p.dataStart = aligned ? align256(mend) : mend;
    p.total = p.dataStart + cur;
    return p;
}

Result<void> emit(const BurnpackContent& c, const Plan& p, const std::function<Result<void>(std::span<const uint8_t>)>& sink)
{
    static const std::vector<uint8_t> zeros(kBurnpackAlignment, 0);
    uint8_t header[10] = {0x4e, 0x52, 0x55, 0x42, 0x01, 0x00};
    const uint32_t m = static_cast<uint32_t>(p.metadata.size());
    for (int i = 0; i < 4; ++i)
        header[6 + i] = static_cast<uint8_t>(m >> (8 * i));
    uint64_t at = 0;
    auto put = [&](std::span<const uint8_t> s) -> Result<void> {
        at += s.size();
        return s.empty() ? Result<void>() : sink(s);
    };
    auto padTo = [&](uint64_t target) -> Result<void> {
        while (at < target) {
            const uint64_t n = std::min<uint64_t>(target - at, zeros.size());
            if (auto r = put(std::span(zeros.data(), static_cast<size_t>(n))); !r)
                return r;
        }
        return {};
    };
    if (auto r = put(header); !r)
        return r;
    if (auto r = put(p.metadata); !r)
        return r;
    if (auto r = padTo(p.dataStart); !r)
        return r;
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        if (auto r = padTo(p.dataStart + p.starts[i]); !r)
            return r;
        if (auto r = put(c.tensors[i].data); !r)
            return r;
    }
    return {};
}

} // namespace

// ------------------------------------------------------------------------------------------------

uint64_t BurnpackDType::elementSize() const
{
    switch (kind) {
    case Kind::F64: case Kind::I64: case Kind::U64: return 8;
    case Kind::F32: case Kind::Flex32: case Kind::I32: case Kind::U32: return 4;
    case Kind::F16: case Kind::BF16: case Kind::I16: case Kind::U16: return 2;
    case Kind::I8: case Kind::U8: return 1;
    case Kind::Bool: return boolStore == BoolStore::U32 ? 4 : 1;
    case Kind::QFloat: return 0;
    }
    return 0;
}

std::string BurnpackDType::name() const
{
    switch (kind) {
    case Kind::Bool:
        switch (boolStore) {
        case BoolStore::Legacy: return "Bool";
        case BoolStore::Native: return "Bool(Native)";
        case BoolStore::U8: return "Bool(U8)";
        case BoolStore::U32: return "Bool(U32)";
        }
        return "Bool";
    case Kind::QFloat: return "QFloat";
    default:
        for (const auto& [n, k] : kUnitDTypes)
            if (k == kind)
                return n;
    }
    return "?";
}

namespace {
/// The two enums name the same element types: one table between them.
constexpr std::pair<BurnpackDType::Kind, DType> kKindDTypes[] = {{BurnpackDType::Kind::F64, DType::F64},
    {BurnpackDType::Kind::F32, DType::F32}, {BurnpackDType::Kind::Flex32, DType::Flex32}, {BurnpackDType::Kind::F16, DType::F16},
    {BurnpackDType::Kind::BF16, DType::BF16}, {BurnpackDType::Kind::I64, DType::I64}, {BurnpackDType::Kind::I32, DType::I32},
    {BurnpackDType::Kind::I16, DType::I16}, {BurnpackDType::Kind::I8, DType::I8}, {BurnpackDType::Kind::U64, DType::U64},
    {BurnpackDType::Kind::U32, DType::U32}, {BurnpackDType::Kind::U16, DType::U16}, {BurnpackDType::Kind::U8, DType::U8},
    {BurnpackDType::Kind::Bool, DType::Bool}, {BurnpackDType::Kind::QFloat, DType::QFloat}};
} // namespace

DType BurnpackDType::dtype() const
{
    for (const auto& [k, d] : kKindDTypes)
        if (k == kind)
            return d;
    return DType::QFloat;
}

std::optional<BurnpackDType> BurnpackDType::of(DType d)
{
    if (d == DType::QFloat)
        return std::nullopt; // the scheme's encoding changed with every cubecl release (§10.4)
    BurnpackDType out;
    for (const auto& [k, dt] : kKindDTypes)
        if (dt == d)
            out.kind = k;
    out.boolStore = BoolStore::Native;
    return out;
}

std::optional<uint64_t> BurnpackTensor::expectedByteLength() const
{
    const uint64_t size = dtype.elementSize();
    if (size == 0)
        return std::nullopt;
    uint64_t n = size;
    for (uint64_t d : shape)
        if (__builtin_mul_overflow(n, d, &n))
            return std::nullopt;
    return n;
}

const BurnpackTensor* BurnpackFile::find(std::string_view name) const
{
    auto it = std::lower_bound(tensors.begin(), tensors.end(), name, [](const BurnpackTensor& t, std::string_view n) { return t.name < n; });
    return it != tensors.end() && it->name == name ? &*it : nullptr;
}

std::vector<size_t> BurnpackFile::physicalOrder() const
{
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::pair(tensors[a].start, tensors[a].end) < std::pair(tensors[b].start, tensors[b].end);
    });
    return order;
}

Result<BurnpackFile> readBurnpack(const BytesPtr& bytes, const BurnpackReadOptions& options)
{
    if (!bytes)
        return fail(ErrorCode::Usage, "no input");
    try {
        const uint8_t* p = bytes->data();
        const uint64_t L = bytes->size();
        BurnpackFile f;
        f.source = bytes;
        if (L > kMaxFileSize)
            return failAt(ErrorCode::Limit, "Validation error: File size " + std::to_string(L) + " exceeds maximum allowed size of 107374182400 bytes", 0);
        // 1-5: the header
        if (L < kBurnpackHeaderSize)
            return failAt(ErrorCode::Truncated, "Invalid header: insufficient bytes: expected a 10-byte burnpack header, the input has " + std::to_string(L) + " bytes", L);
        if (le32(p) != kBurnpackMagic) {
            char found[16];
            std::snprintf(found, sizeof found, "%02x %02x %02x %02x", p[0], p[1], p[2], p[3]);
            return failAt(ErrorCode::Malformed, std::string("Invalid magic number: expected 4e 52 55 42 (\"NRUB\"), found ") + found, 0);
        }
        f.version = le16(p + 4);
        if (f.version > kBurnpackVersion)
            return failAt(ErrorCode::Unsupported, "Unsupported version: expected format version 0 or 1, found " + std::to_string(f.version), 4);
        if (f.version == 0)
            f.warnings.push_back({4, "format version 0 (burn-pack accepts it; its writers write 1)"});
        f.metadataSize = le32(p + 6);
        if (f.metadataSize > kBurnpackMaxMetadataSize)
            return failAt(ErrorCode::Limit, "Validation error: Metadata size " + std::to_string(f.metadataSize) + " exceeds maximum allowed size of 104857600 bytes (potential DoS attack)", 6);
        const uint64_t mend = kBurnpackHeaderSize + f.metadataSize;
        if (L < mend)
            return failAt(ErrorCode::Truncated, "Invalid header: insufficient bytes: the header declares " + std::to_string(f.metadataSize) + " bytes of metadata (up to offset " + std::to_string(mend) + "), the input has " + std::to_string(L) + " bytes", L);

        // 6: the metadata
        Decoder d(p + kBurnpackHeaderSize, f.metadataSize, kBurnpackHeaderSize, f.warnings);
        auto md = deMetadata(d);
        if (!md)
            return std::unexpected(md.error());
        if (d.consumed() < f.metadataSize)
            f.warnings.push_back({kBurnpackHeaderSize + d.consumed(), std::to_string(f.metadataSize - d.consumed()) + " bytes after the metadata's CBOR item inside the declared metadata size (ignored by Burn)"});

        // 7: the tensor count
        if (md->tensors.size() > kBurnpackMaxTensorCount)
            return failAt(ErrorCode::Limit, "Validation error: File contains " + std::to_string(md->tensors.size()) + " tensors, exceeding maximum of 100000 (potential DoS attack)", md->tensorsAt, "tensors");
        f.tensors.reserve(md->tensors.size());
        for (auto& [name, raw] : md->tensors) {
            raw.t.name = name;
            f.tensors.push_back(std::move(raw.t));
        }
        f.metadata.assign(md->metadata.begin(), md->metadata.end());
        f.scalars.assign(md->scalars.begin(), md->scalars.end());

        // 8: the file must hold the largest end (measured from the unaligned metadata end)
        uint64_t E = 0;
        const BurnpackTensor* last = nullptr;
        for (const auto& t : f.tensors)
            if (!last || t.end > E) {
                E = t.end;
                last = &t;
            }
        if (last) {
            uint64_t need = 0;
            if (__builtin_add_overflow(mend, E, &need))
                return failAt(ErrorCode::Limit, "Validation error: File size calculation overflow: metadata end " + std::to_string(mend) + " + data offset " + std::to_string(E), last->offsetsOffset, tensorPath(last->name) + ".data_offsets");
            if (need > L)
                return failAt(ErrorCode::Truncated, "Validation error: File truncated: expected at least " + std::to_string(need) + " bytes, got " + std::to_string(L) + " bytes", L);
        }

        // the layout (§5.3)
        const uint64_t A = align256(mend);
        bool allAligned = true;
        for (const auto& t : f.tensors)
            allAligned = allAligned && t.start % kBurnpackAlignment == 0;
        auto tiles = [&]() {
            auto order = f.physicalOrder();
            uint64_t cur = 0;
            for (size_t i : order) {
                if (f.tensors[i].start != cur || f.tensors[i].end < f.tensors[i].start)
                    return false;
                cur = f.tensors[i].end;
            }
            return true;
        };
        // The tests in the precedence of §5.3: a layout may follow from several, the first decides.
        // NOLINTBEGIN(bugprone-branch-clone)
        if (A == mend || L == A + E)
            f.layout = BurnpackLayout::Aligned256;
        else if (L == mend + E)
            f.layout = BurnpackLayout::Unaligned;
        else if (allAligned)
            f.layout = BurnpackLayout::Aligned256;
        else if (tiles())
            f.layout = BurnpackLayout::Unaligned;
        else {
            f.layout = BurnpackLayout::Aligned256;
            f.warnings.push_back({L, "unknown layout (file length " + std::to_string(L) + " fits neither the aligned nor the 0.19 layout): read as aligned, as Burn >= 0.20 does"});
        }
        // NOLINTEND(bugprone-branch-clone)
        f.dataStart = f.layout == BurnpackLayout::Aligned256 ? A : mend;
        if (f.layout == BurnpackLayout::Unaligned)
            f.warnings.push_back({mend, "Burn 0.19 / 0.20.0-pre.1-4 layout (data right after the metadata): Burn >= 0.20.0-pre.5 reads it at the wrong offsets"});
        if (auto v = std::find_if(f.metadata.begin(), f.metadata.end(), [](const auto& e) { return e.first == "version"; }); v != f.metadata.end()) {
            const std::string& s = v->second;
            const bool oldWriter = s.starts_with("0.19") || (s.starts_with("0.20.0-pre.") && s.size() == 12 && s[11] >= '1' && s[11] <= '4');
            if (oldWriter != (f.layout == BurnpackLayout::Unaligned) && A != mend)
                f.warnings.push_back({md->tensorsAt, "metadata version \"" + s + "\" suggests the " + (oldWriter ? "unaligned" : "aligned") + " layout, the file's length the other"});
        }

        // 9: every tensor's range (name order), as into_tensors() checks it
        for (auto& t : f.tensors) {
            const std::string path = tensorPath(t.name) + ".data_offsets";
            uint64_t s = 0, e = 0;
            std::optional<Error> bad;
            if (__builtin_add_overflow(f.dataStart, t.start, &s) || __builtin_add_overflow(f.dataStart, t.end, &e))
                bad = failAt(ErrorCode::Limit, "Validation error: Tensor '" + t.name + "' has corrupted offset data: offsets overflow", t.offsetsOffset, path).error();
            else if (e < s)
                bad = failAt(ErrorCode::Invalid, "Validation error: Tensor '" + t.name + "' has corrupted offset data: end " + std::to_string(e) + " < start " + std::to_string(s), t.offsetsOffset, path).error();
            else if (e - s > kBurnpackMaxTensorSize)
                bad = failAt(ErrorCode::Limit, "Validation error: Tensor '" + t.name + "' size " + std::to_string(e - s) + " exceeds maximum allowed size of 10737418240 bytes (potential DoS attack)", t.offsetsOffset, path).error();
            else if (e > L)
                bad = failAt(ErrorCode::Truncated, "Validation error: Tensor '" + t.name + "' data range " + std::to_string(s) + ".." + std::to_string(e) + " could not be viewed (source is " + std::to_string(L) + " bytes)", t.offsetsOffset, path).error();
            if (bad) {
                if (options.checkTensorRanges)
                    return std::unexpected(std::move(*bad));
                f.warnings.push_back({t.offsetsOffset, bad->what + " (Burn fails when the tensors are taken; a scheduler record never takes them)"});
                continue;
            }
            t.data = std::span(p + s, static_cast<size_t>(e - s));
        }

        // what Burn tolerates (§6.2, §6.4)
        for (const auto& t : f.tensors) {
            if (auto want = t.expectedByteLength(); want && t.end >= t.start && *want != t.end - t.start)
                f.warnings.push_back({t.offsetsOffset, "tensor '" + t.name + "': " + std::to_string(t.end - t.start) + " bytes, shape x " + t.dtype.name() + " needs " + std::to_string(*want)});
            if (f.layout == BurnpackLayout::Aligned256 && t.start % kBurnpackAlignment != 0)
                f.warnings.push_back({t.offsetsOffset, "tensor '" + t.name + "' starts at " + std::to_string(t.start) + ", not a multiple of 256"});
        }
        {
            auto order = f.physicalOrder();
            uint64_t reach = 0;
            const BurnpackTensor* prev = nullptr;
            for (size_t i : order) {
                const auto& t = f.tensors[i];
                if (t.end <= t.start)
                    continue;
                if (prev && t.start < reach)
                    f.warnings.push_back({t.offsetsOffset, "tensor '" + t.name + "' overlaps '" + prev->name + "'"});
                if (t.end > reach) {
                    reach = t.end;
                    prev = &t;
                }
            }
        }
        {
            // bytes between tensors (never read by Burn; its writer writes zeros)
            uint64_t cur = f.dataStart;
            for (size_t i : f.physicalOrder()) {
                const auto& t = f.tensors[i];
                if (t.data.empty() && t.end != t.start)
                    continue;
                const uint64_t s = f.dataStart + t.start;
                for (uint64_t k = cur; k < s && k < L; ++k)
                    if (p[k] != 0) {
                        f.warnings.push_back({k, "non-zero byte between tensors (never read by Burn)"});
                        cur = L;
                        break;
                    }
                cur = std::max(cur, f.dataStart + t.end);
            }
        }
        if (L < f.dataStart + E)
            f.warnings.push_back({L, "the file ends at " + std::to_string(L) + ", before the end of its data section at " + std::to_string(f.dataStart + E)
                    + " (padding or data cut short; Burn only checks the unaligned metadata end + the largest offset)"});
        if (f.dataStart + E < L && (last || L > f.dataStart))
            f.warnings.push_back({f.dataStart + E, std::to_string(L - f.dataStart - E) + " bytes after the last tensor (ignored by Burn)"});
        for (uint64_t i = mend; i < std::min(f.dataStart, L); ++i)
            if (p[i] != 0) {
                f.warnings.push_back({i, "non-zero padding byte before the data section (never read by Burn)"});
                break;
            }

        // canonical metadata: what our ciborium-exact encoder writes for this content
        BurnpackContent c = contentOf(f);
        if (auto enc = plan(c)) {
            f.canonicalMetadata = enc->metadata.size() == f.metadataSize
                && std::equal(enc->metadata.begin(), enc->metadata.end(), p + kBurnpackHeaderSize);
        }
        if (!f.canonicalMetadata)
            f.warnings.push_back({kBurnpackHeaderSize, "the metadata is not byte for byte what burn-pack's writer produces for this content (CBOR encoding, key order, offsets or extra entries)"});
        return f;
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack reader: ") + e.what());
    }
}

Result<BurnpackFile> readBurnpackFile(const std::string& path, const BurnpackReadOptions& options)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto f = readBurnpack(*bytes, options);
    if (!f)
        return std::unexpected(std::move(f.error()).withFile(path));
    return f;
}

BurnpackContent contentOf(const BurnpackFile& file)
{
    BurnpackContent c;
    c.layout = file.layout;
    c.keepAlive = file.source;
    for (size_t i : file.physicalOrder()) {
        const auto& t = file.tensors[i];
        c.tensors.push_back({t.name, t.dtype, t.shape, t.paramId, t.data});
    }
    c.metadata = file.metadata;
    c.scalars = file.scalars;
    return c;
}

Result<std::vector<uint8_t>> encodeBurnpackMetadata(const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(p.error());
        return std::move(p->metadata);
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

Result<std::vector<uint8_t>> encodeBurnpack(const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(p.error());
        std::vector<uint8_t> out;
        out.reserve(static_cast<size_t>(p->total));
        auto r = emit(content, *p, [&](std::span<const uint8_t> s) -> Result<void> {
            out.insert(out.end(), s.begin(), s.end());
            return {};
        });
        if (!r)
            return std::unexpected(r.error());
        return out;
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

Result<void> writeBurnpack(const std::string& path, const BurnpackContent& content)
{
    try {
        auto p = plan(content);
        if (!p)
            return std::unexpected(std::move(p.error()).withFile(path));
        auto r = writeFileAtomic(path, [&](const std::function<Result<void>(std::span<const uint8_t>)>& sink) { return emit(content, *p, sink); });
        if (!r)
            return std::unexpected(std::move(r.error()).withFile(path));
        return {};
    } catch (const std::exception& e) {
        return fail(ErrorCode::Io, std::string("burnpack writer: ") + e.what());
    }
}

void appendCborUnsigned(std::vector<uint8_t>& out, uint64_t v)
{
    head(out, 0, v);
}

void appendCborInt(std::vector<uint8_t>& out, int64_t v)
{
    if (v >= 0)
        head(out, 0, static_cast<uint64_t>(v));
    else
        head(out, 1, static_cast<uint64_t>(-1 - v));
}

void appendCborFloat(std::vector<uint8_t>& out, double v)
{
    if (std::isnan(v)) {
        out.insert(out.end(), {0xf9, 0x7e, 0x00});
        return;
    }
    const float f = static_cast<float>(v);
    if (std::bit_cast<uint64_t>(static_cast<double>(f)) == std::bit_cast<uint64_t>(v)) {
        if (auto h = exactHalf(f)) {
            out.insert(out.end(), {0xf9, static_cast<uint8_t>(*h >> 8), static_cast<uint8_t>(*h)});
            return;
        }
        const uint32_t b = std::bit_cast<uint32_t>(f);
        out.push_back(0xfa);
        for (int s = 24; s >= 0; s -= 8)
            out.push_back(static_cast<uint8_t>(b >> s));
        return;
    }
    const uint64_t b = std::bit_cast<uint64_t>(v);
    out.push_back(0xfb);
    for (int s = 56; s >= 0; s -= 8)
        out.push_back(static_cast<uint8_t>(b >> s));
}

void appendCborText(std::vector<uint8_t>& out, std::string_view s)
{
    head(out, 3, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

} // namespace ckpt::pack
