// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/codec/cbor.h"

#include "core/codec/msgpack.h" // firstInvalidUtf8
#include "core/tensor/dtype.h"  // the binary16 conversions

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ckpt::cbor {

namespace {

std::string hex(uint64_t v)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

/** ciborium widens a binary16 exactly; every NaN becomes the plain quiet NaN (the sign kept). */
double halfValue(uint16_t bits)
{
    const float f = halfToFloat(bits);
    return std::isnan(f) ? std::copysign(std::numeric_limits<double>::quiet_NaN(), static_cast<double>(f)) : static_cast<double>(f);
}

} // namespace

// ------------------------------------------------------------------------------------------------
// Heads

std::expected<RawHead, HeadError> readHead(std::span<const uint8_t> in, size_t& pos)
{
    if (pos >= in.size())
        return std::unexpected(HeadError::End);
    const uint8_t b = in[pos];
    RawHead h;
    h.major = static_cast<uint8_t>(b >> 5);
    h.info = static_cast<uint8_t>(b & 31);
    if (h.info < 24)
        h.arg = h.info;
    else if (h.info <= 27)
        h.width = static_cast<uint8_t>(1u << (h.info - 24));
    else if (h.info <= 30)
        return std::unexpected(HeadError::Reserved);
    else
        h.indefinite = true;
    if (in.size() - pos - 1 < h.width)
        return std::unexpected(HeadError::Truncated);
    for (size_t i = 1; i <= h.width; ++i)
        h.arg = (h.arg << 8) | in[pos + i];
    pos += 1 + h.width;
    return h;
}

// ------------------------------------------------------------------------------------------------
// The writer

void appendHead(std::vector<uint8_t>& out, uint8_t major, uint64_t v)
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

void appendUnsigned(std::vector<uint8_t>& out, uint64_t v)
{
    appendHead(out, 0, v);
}

void appendInt(std::vector<uint8_t>& out, int64_t v)
{
    if (v >= 0)
        appendHead(out, 0, static_cast<uint64_t>(v));
    else
        appendHead(out, 1, static_cast<uint64_t>(-1 - v));
}

void appendFloat(std::vector<uint8_t>& out, double v)
{
    if (std::isnan(v)) {
        out.insert(out.end(), {0xf9, 0x7e, 0x00});
        return;
    }
    const float f = static_cast<float>(v);
    if (std::bit_cast<uint64_t>(static_cast<double>(f)) == std::bit_cast<uint64_t>(v)) {
        if (auto h = floatToHalfExact(f)) {
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

void appendText(std::vector<uint8_t>& out, std::string_view s)
{
    appendHead(out, 3, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

void appendBool(std::vector<uint8_t>& out, bool v)
{
    out.push_back(v ? 0xf5 : 0xf4);
}

// ------------------------------------------------------------------------------------------------
// The decoder

std::string describe(const Head& h)
{
    switch (h.type) {
    case Type::Positive: return "unsigned integer " + std::to_string(h.arg);
    case Type::Negative: return "negative integer -1-" + std::to_string(h.arg);
    case Type::Float: return "float";
    case Type::Simple:
        if (h.arg == 20 || h.arg == 21)
            return "bool";
        if (h.arg == 22)
            return "null";
        if (h.arg == 23)
            return "undefined";
        return "simple value " + std::to_string(h.arg);
    case Type::Tag: return "tag " + std::to_string(h.arg);
    case Type::Break: return "break";
    case Type::Bytes: return h.definite ? "byte string of " + std::to_string(h.arg) + " bytes" : "indefinite byte string";
    case Type::Text: return h.definite ? "text string of " + std::to_string(h.arg) + " bytes" : "indefinite text string";
    case Type::Array: return h.definite ? "array of " + std::to_string(h.arg) : "indefinite array";
    case Type::Map: return h.definite ? "map of " + std::to_string(h.arg) : "indefinite map";
    }
    return "?";
}

Decoder::Decoder(std::span<const uint8_t> blob, uint64_t base, std::string errorPrefix, uint32_t recursionLimit)
    : m_p(blob.data())
    , m_n(blob.size())
    , m_base(base)
    , m_prefix(std::move(errorPrefix))
    , m_recursionLimit(recursionLimit)
{ }

std::unexpected<Error> Decoder::err(ErrorCode code, std::string what, uint64_t at, const std::string& path) const
{
    Error e;
    e.code = code;
    e.what = m_prefix + std::move(what);
    e.offset = at;
    e.recordPath = path;
    return std::unexpected(std::move(e));
}

std::unexpected<Error> Decoder::expected(const Head& h, std::string_view what, const std::string& path) const
{
    return err(h.type == Type::Break ? ErrorCode::Malformed : ErrorCode::Invalid, "expected " + std::string(what) + ", found " + describe(h), h.at, path);
}

std::unexpected<Error> Decoder::eof(const std::string& path) const
{
    return err(ErrorCode::Truncated, "the " + std::to_string(m_n) + "-byte metadata blob ends inside a CBOR item (ciborium: Io(UnexpectedEof))", m_base + m_n,
        path);
}

std::unexpected<Error> Decoder::tooDeep(uint64_t at, const std::string& path) const
{
    return err(ErrorCode::Limit, "nesting deeper than ciborium's recursion limit of " + std::to_string(m_recursionLimit) + " (RecursionLimitExceeded)", at,
        path);
}

void Decoder::warn(uint64_t at, std::string what)
{
    // A warning costs some hundred bytes and its cause as few as two (a repeated key, an unknown
    // field): listing them all would let a metadata blob of 100 MiB ask for gigabytes.
    if (m_warnings.size() < kMaxWarnings) {
        m_warnings.push_back({at, std::move(what)});
        return;
    }
    if (m_unlisted++ == 0)
        m_firstUnlisted = at;
}

std::vector<Warning>& Decoder::warnings()
{
    if (m_unlisted > 0) {
        m_warnings.push_back({m_firstUnlisted,
            std::to_string(m_unlisted) + " more warnings from this offset on are not listed (only the first " + std::to_string(kMaxWarnings) + " are)"});
        m_unlisted = 0;
    }
    return m_warnings;
}

Result<Head> Decoder::pull(const std::string& path)
{
    if (m_pushed) {
        Head h = *m_pushed;
        m_pushed.reset();
        return h;
    }
    Head h;
    h.at = m_base + m_pos;
    auto raw = readHead(std::span(m_p, m_n), m_pos);
    if (!raw) {
        if (raw.error() != HeadError::Reserved)
            return eof(path);
        const uint8_t b = m_p[m_pos];
        return err(ErrorCode::Malformed,
            "reserved CBOR additional information " + std::to_string(b & 31) + " in initial byte " + hex(b) + " (ciborium: Syntax)", h.at, path);
    }
    switch (raw->major) {
    case 0:
    case 1:
    case 6:
        if (raw->indefinite)
            return err(ErrorCode::Malformed, "indefinite length on an integer or tag (initial byte " + hex(m_p[m_pos - 1]) + ", ciborium: Syntax)", h.at, path);
        h.type = raw->major == 0 ? Type::Positive : raw->major == 1 ? Type::Negative : Type::Tag;
        h.arg = raw->arg;
        return h;
    case 2:
    case 3:
    case 4:
    case 5:
        h.type = raw->major == 2 ? Type::Bytes : raw->major == 3 ? Type::Text : raw->major == 4 ? Type::Array : Type::Map;
        h.definite = !raw->indefinite;
        h.arg = raw->arg;
        return h;
    default:
        if (raw->indefinite) {
            h.type = Type::Break;
            return h;
        }
        if (raw->width == 2) {
            h.type = Type::Float;
            h.f = halfValue(static_cast<uint16_t>(raw->arg));
        } else if (raw->width == 4) {
            h.type = Type::Float;
            h.f = std::bit_cast<float>(static_cast<uint32_t>(raw->arg));
        } else if (raw->width == 8) {
            h.type = Type::Float;
            h.f = std::bit_cast<double>(raw->arg);
        } else {
            h.type = Type::Simple;
            h.arg = raw->arg;
        }
        return h;
    }
}

Result<Head> Decoder::untagged(const std::string& path, bool keepBignumTags)
{
    for (;;) {
        auto h = pull(path);
        if (!h || h->type != Type::Tag || (keepBignumTags && (h->arg == 2 || h->arg == 3)))
            return h;
    }
}

Result<std::span<const uint8_t>> Decoder::take(uint64_t len, const std::string& path)
{
    if (len > m_n - m_pos)
        return eof(path);
    std::span<const uint8_t> s(m_p + m_pos, static_cast<size_t>(len));
    m_pos += static_cast<size_t>(len);
    return s;
}

Result<std::string> Decoder::segments(const Head& h, bool text, const std::string& path)
{
    std::string out;
    auto one = [&](uint64_t len) -> Result<void> {
        auto s = take(len, path);
        if (!s)
            return std::unexpected(s.error());
        if (text) {
            const size_t bad = firstInvalidUtf8(s->data(), s->size());
            if (bad != s->size())
                return err(ErrorCode::Malformed, "invalid UTF-8 in a text string (ciborium: Syntax)", m_base + static_cast<uint64_t>(s->data() - m_p) + bad,
                    path);
        }
        out.append(reinterpret_cast<const char*>(s->data()), s->size());
        return {};
    };
    if (h.definite) {
        if (auto r = one(h.arg); !r)
            return std::unexpected(r.error());
        return out;
    }
    for (;;) {
        auto c = pull(path);
        if (!c)
            return std::unexpected(c.error());
        if (c->type == Type::Break)
            return out;
        if (c->type != (text ? Type::Text : Type::Bytes) || !c->definite)
            return err(ErrorCode::Malformed,
                std::string("expected a definite ") + (text ? "text" : "byte") + " chunk inside an indefinite string, found " + describe(*c)
                    + " (ciborium: Syntax)",
                c->at, path);
        if (auto r = one(c->arg); !r)
            return std::unexpected(r.error());
    }
}

Result<std::string> Decoder::deString(const std::string& path)
{
    auto h = untagged(path);
    if (!h)
        return std::unexpected(h.error());
    if (h->type != Type::Text)
        return expected(*h, "a text string", path);
    return segments(*h, true, path);
}

Result<std::string> Decoder::deIdentifier(const std::string& path, uint64_t* at)
{
    auto h = untagged(path);
    if (!h)
        return std::unexpected(h.error());
    if (at)
        *at = h->at;
    if ((h->type == Type::Text || h->type == Type::Bytes) && h->definite && h->arg <= kScratch)
        return segments(*h, h->type == Type::Text, path);
    return expected(*h, "a definite text or byte string of at most 4096 bytes (a field or variant name)", path);
}

Result<Decoder::Int> Decoder::deInteger(const std::string& path)
{
    auto h = untagged(path, true);
    if (!h)
        return std::unexpected(h.error());
    if (h->type == Type::Positive || h->type == Type::Negative)
        return Int{h->type == Type::Negative, 0, h->arg, h->at};
    if (h->type != Type::Tag)
        return expected(*h, "an integer", path);
    // a bignum (tag 2 or 3): its magnitude in a byte string, at most 16 significant bytes (u128)
    auto b = pull(path);
    if (!b)
        return std::unexpected(b.error());
    if (b->type != Type::Bytes)
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

Result<uint64_t> Decoder::deU64(const std::string& path)
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

Result<int64_t> Decoder::deI64(const std::string& path)
{
    auto v = deInteger(path);
    if (!v)
        return std::unexpected(v.error());
    if (v->hi || v->lo > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return err(ErrorCode::Invalid, "expected a signed 64-bit integer, found an integer outside i64 (integer too large)", v->at, path);
    return v->neg ? -1 - static_cast<int64_t>(v->lo) : static_cast<int64_t>(v->lo);
}

Result<double> Decoder::deF64(const std::string& path)
{
    auto h = untagged(path);
    if (!h)
        return std::unexpected(h.error());
    if (h->type == Type::Float)
        return h->f;
    return expected(*h, "a float", path);
}

Result<bool> Decoder::deBool(const std::string& path)
{
    auto h = untagged(path);
    if (!h)
        return std::unexpected(h.error());
    if (h->type == Type::Simple && (h->arg == 20 || h->arg == 21))
        return h->arg == 21;
    return expected(*h, "a bool", path);
}

Result<std::vector<uint64_t>> Decoder::deSeqU64(const std::string& path, std::optional<size_t> exactly, uint64_t* at, TupleRest* rest)
{
    auto h = untagged(path);
    if (!h)
        return std::unexpected(h.error());
    if (at)
        *at = h->at;
    if (rest)
        *rest = TupleRest::None;
    if (h->type == Type::Bytes && h->definite && h->arg <= kScratch)
        return seqFromBytes(*h, exactly, path);
    if (h->type != Type::Array)
        return expected(*h, exactly ? "an array of 2 unsigned integers" : "an array of unsigned integers", path);
    const Head arr = *h;
    return recurse(arr.at, path, [&]() { return seqFromArray(arr, exactly, path, rest); });
}

Result<std::vector<uint64_t>> Decoder::seqFromBytes(const Head& h, std::optional<size_t> exactly, const std::string& path)
{
    std::vector<uint64_t> out;
    auto s = take(h.arg, path);
    if (!s)
        return std::unexpected(s.error());
    for (uint8_t b : *s)
        if (!exactly || out.size() < *exactly)
            out.push_back(b);
    if (exactly && out.size() < *exactly)
        return err(ErrorCode::Invalid, "invalid length " + std::to_string(out.size()) + ", expected a tuple of size " + std::to_string(*exactly), h.at, path);
    return out;
}

Result<std::vector<uint64_t>> Decoder::seqFromArray(const Head& arr, std::optional<size_t> exactly, const std::string& path, TupleRest* rest)
{
    std::vector<uint64_t> out;
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
            if (n->type == Type::Break)
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
    if (exactly && rest && (arr.definite ? left > 0 : true)) {
        // serde read its elements; ciborium leaves the rest (and an indefinite array's break) in the stream
        if (arr.definite ? left > 0 : !peekBreak())
            *rest = TupleRest::Elements;
        else if (!arr.definite)
            *rest = TupleRest::Break;
    }
    return out;
}

Result<bool> Decoder::nextEntry(MapIter& m, const std::string& path)
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
    if (n->type == Type::Break)
        return false;
    push(*n);
    return true;
}

Result<Head> Decoder::mapHead(const std::string& path, std::string_view what)
{
    auto h = untagged(path);
    if (h && h->type != Type::Map)
        return expected(*h, what, path);
    return h;
}

Result<void> Decoder::deAny(const std::string& path)
{
    auto h = pull(path);
    if (!h)
        return std::unexpected(h.error());
    switch (h->type) {
    case Type::Positive:
    case Type::Negative:
    case Type::Float: return {};
    case Type::Simple:
        if (h->arg >= 20 && h->arg <= 23)
            return {};
        return expected(*h, "a known simple value", path);
    case Type::Break: return err(ErrorCode::Malformed, "unexpected break (ciborium: Syntax)", h->at, path);
    case Type::Bytes:
    case Type::Text: {
        auto s = segments(*h, h->type == Type::Text, path);
        if (!s)
            return std::unexpected(s.error());
        return {};
    }
    case Type::Tag:
        if (h->arg == 2 || h->arg == 3) {
            push(*h);
            auto v = deInteger(path);
            if (!v)
                return std::unexpected(v.error());
            return {};
        }
        return recurse(h->at, path, [&]() { return deAny(path); });
    case Type::Array:
    case Type::Map: {
        const Head c = *h;
        return recurse(c.at, path, [&]() { return anyContainer(c, path); });
    }
    }
    return {};
}

Result<void> Decoder::anyContainer(const Head& c, const std::string& path)
{
    const int valuesPerEntry = c.type == Type::Map ? 2 : 1; // a map entry is a key and a value
    return forEachEntry(c, path, [&]() -> Result<void> {
        for (int k = 0; k < valuesPerEntry; ++k)
            if (auto r = deAny(path); !r)
                return r;
        return {};
    });
}

} // namespace ckpt::cbor
