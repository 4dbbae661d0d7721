// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// readJson: serde_json's accept/reject rules and error positions, into a tape.
#include "core/codec/json.h"

#include "core/codec/jsonscan.h"
#include "core/util/charconv.h"
#include "core/util/int128.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

namespace ckpt {

namespace {

// ------------------------------------------------------------------------------------------------
// Reader
//
// The reader mirrors serde_json 1.0.x's SliceRead + Deserializer (de.rs, read.rs) step by step, so
// that not only accept/reject but also the reported line:column agree: serde_json reports either the
// position *after* the bytes it consumed (`error`) or the position of the byte it peeked at
// (`peek_error`, i.e. one byte further). Both are reproduced below as errorAt() and peekError().
// ------------------------------------------------------------------------------------------------

enum class JsonFault {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    InvalidUnicodeCodePoint,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    LoneLeadingSurrogateInHexEscape,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
    RecursionLimitExceeded,
};

/** serde_json's Display text for each error code (error.rs), so messages read the same. */
const char* faultText(JsonFault f)
{
    switch (f) {
    case JsonFault::EofWhileParsingList: return "EOF while parsing a list";
    case JsonFault::EofWhileParsingObject: return "EOF while parsing an object";
    case JsonFault::EofWhileParsingString: return "EOF while parsing a string";
    case JsonFault::EofWhileParsingValue: return "EOF while parsing a value";
    case JsonFault::ExpectedColon: return "expected `:`";
    case JsonFault::ExpectedListCommaOrEnd: return "expected `,` or `]`";
    case JsonFault::ExpectedObjectCommaOrEnd: return "expected `,` or `}`";
    case JsonFault::ExpectedSomeIdent: return "expected ident";
    case JsonFault::ExpectedSomeValue: return "expected value";
    case JsonFault::InvalidEscape: return "invalid escape";
    case JsonFault::InvalidNumber: return "invalid number";
    case JsonFault::NumberOutOfRange: return "number out of range";
    case JsonFault::InvalidUnicodeCodePoint: return "invalid unicode code point";
    case JsonFault::ControlCharacterWhileParsingString:
        return "control character (\\u0000-\\u001F) found while parsing a string";
    case JsonFault::KeyMustBeAString: return "key must be a string";
    case JsonFault::LoneLeadingSurrogateInHexEscape: return "lone leading surrogate in hex escape";
    case JsonFault::TrailingComma: return "trailing comma";
    case JsonFault::TrailingCharacters: return "trailing characters";
    case JsonFault::UnexpectedEndOfHexEscape: return "unexpected end of hex escape";
    case JsonFault::RecursionLimitExceeded: return "recursion limit exceeded";
    }
    return "malformed JSON";
}

ErrorCode faultCode(JsonFault f)
{
    switch (f) {
    case JsonFault::EofWhileParsingList:
    case JsonFault::EofWhileParsingObject:
    case JsonFault::EofWhileParsingString:
    case JsonFault::EofWhileParsingValue: return ErrorCode::Truncated;
    case JsonFault::RecursionLimitExceeded: return ErrorCode::Limit;
    default: return ErrorCode::Malformed;
    }
}

/** JSON whitespace: exactly space, \t, \n, \r (a form feed or NBSP is "expected value"). */
constexpr bool isJsonSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
constexpr bool isDigit(uint8_t c) { return c >= '0' && c <= '9'; }

/**
 * Length of the valid UTF-8 sequence starting at \a p (lead byte >= 0x80), or 0 if it is not one
 * (Rust's str::from_utf8 rules: no overlongs, no surrogates, nothing above U+10FFFF).
 */
size_t validUtf8Length(const uint8_t* p, size_t avail)
{
    const uint8_t c = p[0];
    auto cont = [&](size_t k) { return k < avail && (p[k] & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF)
        return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 2)
            return 0;
        const uint8_t c1 = p[1];
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0))
            return 0;
        return cont(1) && cont(2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 2)
            return 0;
        const uint8_t c1 = p[1];
        if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
            return 0;
        return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}


constexpr uint64_t kProgressStep = 16u << 20;

class JsonReader {
public:
    JsonReader(const BytesPtr& bytes, const JsonReadOptions& options, const Progress& progress)
        : m_options(options)
        , m_progress(progress)
    {
        m_tape.source = bytes;
        if (bytes) {
            m_s = bytes->data();
            m_n = bytes->size();
        }
    }

    Result<Tape> run()
    {
        skipSpace();
        if (m_i >= m_n)
            return peekError(JsonFault::EofWhileParsingValue);
        if (auto r = parseValue(); !r)
            return std::unexpected(r.error());
        if (auto r = parseContainers(); !r)
            return std::unexpected(r.error());
        if (m_options.rejectTrailing) {
            skipSpace();
            if (m_i < m_n)
                return peekError(JsonFault::TrailingCharacters);
        }
        m_progress.report(1.0);
        return std::move(m_tape);
    }

private:
    struct Frame {
        uint32_t node;
        uint64_t count;
        bool isMap;
    };

    // --- errors ---------------------------------------------------------------------------------

    /** serde_json's position_of_index: 1-based line, column = bytes before \a index on its line. */
    std::unexpected<Error> faultAtIndex(JsonFault fault, size_t index) const
    {
        index = std::min(index, m_n);
        uint32_t line = 1;
        size_t lineStart = 0;
        for (const uint8_t* p = m_s; m_n > 0;) {
            const void* nl = std::memchr(p, '\n', static_cast<size_t>(m_s + index - p));
            if (!nl)
                break;
            p = static_cast<const uint8_t*>(nl) + 1;
            ++line;
            lineStart = static_cast<size_t>(p - m_s);
        }
        const size_t column = index - lineStart;
        Error e;
        e.code = faultCode(fault);
        e.what = faultText(fault);
        // The byte the column points at (column N = N-th byte of the line); column 0 = line start.
        e.offset = column > 0 ? index - 1 : index;
        e.line = line;
        e.column = static_cast<uint32_t>(std::min<size_t>(column, UINT32_MAX));
        return std::unexpected<Error>(std::move(e));
    }
    /** After consuming bytes up to m_i (serde_json's `error`). */
    std::unexpected<Error> errorAt(JsonFault fault) const { return faultAtIndex(fault, m_i); }
    /** At the byte m_i looked at but not consumed (serde_json's `peek_error`). */
    std::unexpected<Error> peekError(JsonFault fault) const { return faultAtIndex(fault, m_i + 1); }

    // --- tape -----------------------------------------------------------------------------------

    Result<uint32_t> push(Kind kind, uint8_t flags, uint64_t count, uint64_t payload, uint64_t src)
    {
        const size_t idx = m_tape.nodes.size();
        if (idx >= UINT32_MAX - 1) {
            Error e;
            e.code = ErrorCode::Limit;
            e.what = "more than 4294967294 JSON values in one document";
            e.offset = src;
            return std::unexpected(std::move(e));
        }
        m_tape.nodes.push_back(Node{kind, flags, 0, static_cast<uint32_t>(idx + 1), count, payload, src});
        return static_cast<uint32_t>(idx);
    }

    Result<void> reportProgress()
    {
        m_nextReport = m_i + kProgressStep;
        if (m_progress.cancelled()) {
            Error e;
            e.code = ErrorCode::Cancelled;
            e.what = "cancelled";
            e.offset = m_i;
            return std::unexpected(std::move(e));
        }
        m_progress.report(m_n ? static_cast<double>(m_i) / static_cast<double>(m_n) : 1.0);
        return {};
    }

    void skipSpace()
    {
        while (m_i < m_n && isJsonSpace(m_s[m_i]))
            ++m_i;
    }

    // --- containers -----------------------------------------------------------------------------

    /** Drives SeqAccess / MapAccess for all open containers until the outermost one closes. */
    Result<void> parseContainers()
    {
        while (!m_stack.empty()) {
            if (m_i >= m_nextReport) {
                if (auto r = reportProgress(); !r)
                    return r;
            }
            skipSpace();
            Frame& f = m_stack.back();
            if (m_i >= m_n)
                return peekError(f.isMap ? JsonFault::EofWhileParsingObject : JsonFault::EofWhileParsingList);
            uint8_t c = m_s[m_i];
            if (!f.isMap) {
                if (c == ']') {
                    closeContainer();
                    continue;
                }
                if (f.count > 0) {
                    if (c != ',')
                        return peekError(JsonFault::ExpectedListCommaOrEnd);
                    ++m_i;
                    skipSpace();
                    if (m_i >= m_n)
                        return peekError(JsonFault::EofWhileParsingValue);
                    if (m_s[m_i] == ']')
                        return peekError(JsonFault::TrailingComma);
                }
                ++f.count;
                if (auto r = parseValue(); !r)
                    return r;
                continue;
            }
            if (c == '}') {
                closeContainer();
                continue;
            }
            if (f.count > 0) {
                if (c != ',')
                    return peekError(JsonFault::ExpectedObjectCommaOrEnd);
                ++m_i;
                skipSpace();
                if (m_i >= m_n)
                    return peekError(JsonFault::EofWhileParsingValue);
                c = m_s[m_i];
                if (c == '}')
                    return peekError(JsonFault::TrailingComma);
            }
            if (c != '"')
                return peekError(JsonFault::KeyMustBeAString);
            ++f.count;
            ++m_i;
            auto key = parseString();
            if (!key)
                return std::unexpected(key.error());
            const bool keyIsBytes = m_lastStringIsBytes;
            skipSpace();
            if (m_i >= m_n)
                return peekError(JsonFault::EofWhileParsingObject);
            if (m_s[m_i] != ':')
                return peekError(JsonFault::ExpectedColon);
            ++m_i;
            skipSpace();
            if (m_i >= m_n)
                return peekError(JsonFault::EofWhileParsingValue);
            if (keyIsBytes && m_options.packByteArrays && m_s[m_i] == '[' && m_stack.size() + 1 < m_options.maxDepth) {
                auto packed = tryPackedBytes();
                if (!packed)
                    return std::unexpected(packed.error());
                if (*packed)
                    continue;
            }
            if (auto r = parseValue(); !r)
                return r;
        }
        return {};
    }

    void closeContainer()
    {
        const Frame f = m_stack.back();
        m_stack.pop_back();
        Node& n = m_tape.nodes[f.node];
        n.end = static_cast<uint32_t>(m_tape.nodes.size());
        n.count = f.count;
        ++m_i;
    }

    /**
     * TensorData.bytes fast path: an array of integers 0..255 becomes one Bin node. Returns false
     * (with nothing consumed) when the array is anything else; the normal path then parses it and
     * reports any error exactly as serde_json would.
     */
    Result<bool> tryPackedBytes()
    {
        const size_t open = m_i;
        // First pass: count the elements and make sure there is nothing but digits, commas and
        // whitespace before the closing bracket, so the pool grows once, by the exact amount.
        size_t elements = 0;
        size_t k = open + 1;
        bool sawDigit = false;
        for (; k < m_n; ++k) {
            const uint8_t c = m_s[k];
            if (isDigit(c))
                sawDigit = true;
            else if (c == ',')
                ++elements;
            else if (c == ']')
                break;
            else if (!isJsonSpace(c))
                return false;
        }
        if (k >= m_n)
            return false;
        if (sawDigit)
            ++elements;

        std::vector<uint8_t>& pool = m_tape.pool;
        const size_t poolStart = pool.size();
        if (pool.capacity() - poolStart < elements)
            pool.reserve(std::max(poolStart + elements, poolStart + poolStart / 2));

        m_i = open + 1;
        skipSpace();
        if (m_s[m_i] != ']') {
            for (;;) {
                // One element: "0" or [1-9][0-9]{0,2} with value <= 255, not followed by more of
                // a number (a digit, '.', 'e' or 'E' would make it something else).
                uint8_t c = m_s[m_i];
                if (!isDigit(c))
                    return abandonPacking(open, poolStart);
                unsigned value = c - '0';
                ++m_i;
                if (value != 0) {
                    for (int extra = 0; extra < 2 && m_i < m_n && isDigit(m_s[m_i]); ++extra, ++m_i)
                        value = value * 10 + (m_s[m_i] - '0');
                }
                if (value > 255 || m_i >= m_n)
                    return abandonPacking(open, poolStart);
                c = m_s[m_i];
                if (isDigit(c) || c == '.' || c == 'e' || c == 'E')
                    return abandonPacking(open, poolStart);
                pool.push_back(static_cast<uint8_t>(value));
                skipSpace();
                if (m_i >= m_n)
                    return abandonPacking(open, poolStart);
                c = m_s[m_i];
                if (c == ']')
                    break;
                if (c != ',')
                    return abandonPacking(open, poolStart);
                ++m_i;
                skipSpace();
                if (m_i >= m_n)
                    return abandonPacking(open, poolStart);
                if (m_i >= m_nextReport) {
                    if (auto r = reportProgress(); !r)
                        return std::unexpected(r.error());
                }
            }
        }
        ++m_i; // ']'
        auto node = push(Kind::Bin, InPool | FromJsonArray, pool.size() - poolStart, poolStart, open);
        if (!node)
            return std::unexpected(node.error());
        return true;
    }

    bool abandonPacking(size_t open, size_t poolStart)
    {
        m_tape.pool.resize(poolStart);
        m_i = open;
        return false;
    }

    // --- values ---------------------------------------------------------------------------------

    /** deserialize_any at a non-whitespace byte; containers are opened, not parsed, here. */
    Result<void> parseValue()
    {
        const uint8_t c = m_s[m_i];
        const uint64_t src = m_i;
        switch (c) {
        case 'n':
            if (auto r = parseIdent("null"); !r)
                return r;
            return done(push(Kind::Nil, 0, 0, 0, src));
        case 't':
            if (auto r = parseIdent("true"); !r)
                return r;
            return done(push(Kind::Bool, 0, 0, 1, src));
        case 'f':
            if (auto r = parseIdent("false"); !r)
                return r;
            return done(push(Kind::Bool, 0, 0, 0, src));
        case '"': {
            ++m_i;
            return done(parseString());
        }
        case '[':
        case '{': {
            // serde_json's remaining_depth starts at 128 and fails when an opening bracket brings
            // it to 0: at most maxDepth - 1 nested containers.
            if (m_stack.size() + 1 >= m_options.maxDepth)
                return peekError(JsonFault::RecursionLimitExceeded);
            auto node = push(c == '[' ? Kind::Array : Kind::Map, 0, 0, 0, src);
            if (!node)
                return std::unexpected(node.error());
            m_stack.push_back(Frame{*node, 0, c == '{'});
            ++m_i;
            return {};
        }
        case 'N':
        case 'I':
            if (m_options.pythonNonFinite)
                return parsePythonNonFinite(c == 'N' ? "NaN" : "Infinity", c == 'N' ? std::nan("") : HUGE_VAL, src);
            return peekError(JsonFault::ExpectedSomeValue);
        default:
            if (c == '-' && m_options.pythonNonFinite && m_i + 1 < m_n && m_s[m_i + 1] == 'I') {
                ++m_i;
                return parsePythonNonFinite("Infinity", -HUGE_VAL, src);
            }
            if (c == '-' || isDigit(c))
                return parseNumber();
            return peekError(JsonFault::ExpectedSomeValue);
        }
    }

    Result<void> parsePythonNonFinite(std::string_view word, double value, uint64_t src)
    {
        if (auto r = parseIdent(word); !r)
            return r;
        return done(push(Kind::F64, 0, 0, std::bit_cast<uint64_t>(value), src));
    }

    Result<void> parseIdent(std::string_view word)
    {
        ++m_i;
        for (size_t k = 1; k < word.size(); ++k) {
            if (m_i >= m_n)
                return errorAt(JsonFault::EofWhileParsingValue);
            if (m_s[m_i++] != static_cast<uint8_t>(word[k]))
                return errorAt(JsonFault::ExpectedSomeIdent);
        }
        return {};
    }

    Result<void> parseNumber()
    {
        const size_t start = m_i;
        const bool negative = m_s[m_i] == '-';
        if (negative)
            ++m_i;
        if (m_i >= m_n)
            return errorAt(JsonFault::EofWhileParsingValue);
        const uint8_t first = m_s[m_i++];
        uint64_t significand = 0;
        // Beyond u64: serde_json's Value would make the number an f64 (parse_long_integer), but a
        // record's u128/i128 field is written as these digits and read back exactly, so up to 128
        // bits the integer stays exact (a Wide128 node). Beyond 128 bits it becomes an f64, read below
        // from the text.
        std::optional<UInt128> wide;
        bool isFloat = false;
        if (first == '0') {
            if (m_i < m_n && isDigit(m_s[m_i]))
                return peekError(JsonFault::InvalidNumber);
        } else if (first >= '1' && first <= '9') {
            significand = first - '0';
            while (m_i < m_n && isDigit(m_s[m_i])) {
                const uint64_t digit = m_s[m_i] - '0';
                if (wide) {
                    if (*wide > (kUInt128Max - digit) / 10) {
                        wide.reset();
                        isFloat = true;
                    } else {
                        *wide = *wide * 10 + digit;
                    }
                } else if (isFloat) {
                    // past 128 bits: the digits are read again as a double
                } else if (significand > (UINT64_MAX - digit) / 10) {
                    wide = UInt128(significand) * 10 + digit;
                } else {
                    significand = significand * 10 + digit;
                }
                ++m_i;
            }
        } else {
            return errorAt(JsonFault::InvalidNumber);
        }
        const bool significandNonZero = first != '0';
        bool fractionNonZero = false;
        if (m_i < m_n && m_s[m_i] == '.') {
            ++m_i;
            const size_t digits = m_i;
            while (m_i < m_n && isDigit(m_s[m_i])) {
                fractionNonZero |= m_s[m_i] != '0';
                ++m_i;
            }
            if (m_i == digits)
                return peekError(m_i < m_n ? JsonFault::InvalidNumber : JsonFault::EofWhileParsingValue);
            isFloat = true;
        }
        if (m_i < m_n && (m_s[m_i] == 'e' || m_s[m_i] == 'E')) {
            ++m_i;
            bool positiveExponent = true;
            if (m_i < m_n && (m_s[m_i] == '+' || m_s[m_i] == '-')) {
                positiveExponent = m_s[m_i] == '+';
                ++m_i;
            }
            if (m_i >= m_n)
                return errorAt(JsonFault::EofWhileParsingValue);
            if (!isDigit(m_s[m_i++]))
                return errorAt(JsonFault::InvalidNumber);
            // serde_json gives up as soon as the exponent overflows i32: out of range right there
            // for a non-zero significand and a positive exponent, zero otherwise.
            int32_t exponent = m_s[m_i - 1] - '0';
            bool exponentOverflow = false;
            while (m_i < m_n && isDigit(m_s[m_i])) {
                const int32_t digit = m_s[m_i] - '0';
                ++m_i;
                if (!exponentOverflow && exponent > (INT32_MAX - digit) / 10) {
                    exponentOverflow = true;
                    if (positiveExponent && (significandNonZero || fractionNonZero))
                        return errorAt(JsonFault::NumberOutOfRange);
                }
                if (!exponentOverflow)
                    exponent = exponent * 10 + digit;
            }
            isFloat = true;
        }
        if (!isFloat && wide && negative && *wide > UInt128(1) << 127)
            isFloat = true; // below i128::MIN: an f64, read from the text as any longer literal is
        if (!isFloat && wide)
            return pushWide(negative, *wide, start);
        if (!isFloat) {
            if (!negative)
                return done(push(Kind::UInt, 0, 0, significand, start));
            if (significand == 0)
                return pushF64(-0.0, start);
            if (significand <= (uint64_t(1) << 63))
                return done(push(Kind::Int, 0, 0, uint64_t(0) - significand, start));
            return pushWide(negative, significand, start);
        }
        double value = 0;
        const auto* b = reinterpret_cast<const char*>(m_s + start);
        const auto* e = reinterpret_cast<const char*>(m_s + m_i);
        const auto res = fromCharsDouble(b, e, value);
        if (res.ec == std::errc::result_out_of_range) {
            if (magnitudeAtLeastOne(start))
                return errorAt(JsonFault::NumberOutOfRange);
            value = negative ? -0.0 : 0.0;
        } else if (res.ec != std::errc() || res.ptr != e) {
            return errorAt(JsonFault::InvalidNumber); // cannot happen for text that passed the grammar
        }
        return pushF64(value, start);
    }

    /** For an out-of-range number: too large (true) or too small (false)? */
    bool magnitudeAtLeastOne(size_t start) const
    {
        size_t k = start + (m_s[start] == '-' ? 1 : 0);
        int64_t scale = 0; // decimal position of the first non-zero digit, relative to the point
        bool found = false;
        while (k < m_i && isDigit(m_s[k])) {
            if (found || m_s[k] != '0') {
                found = true;
                ++scale;
            }
            ++k;
        }
        if (k < m_i && m_s[k] == '.') {
            ++k;
            while (k < m_i && isDigit(m_s[k])) {
                if (!found) {
                    if (m_s[k] != '0')
                        found = true;
                    else
                        --scale;
                }
                ++k;
            }
        }
        int64_t exponent = 0;
        if (k < m_i && (m_s[k] == 'e' || m_s[k] == 'E')) {
            ++k;
            bool neg = false;
            if (m_s[k] == '+' || m_s[k] == '-')
                neg = m_s[k++] == '-';
            while (k < m_i) {
                exponent = std::min<int64_t>(exponent * 10 + (m_s[k] - '0'), int64_t(1) << 40);
                ++k;
            }
            if (neg)
                exponent = -exponent;
        }
        return scale + exponent > 0;
    }

    static Result<void> done(const Result<uint32_t>& r)
    {
        if (!r)
            return std::unexpected(r.error());
        return {};
    }

    /** An integer literal beyond 64 bits, up to u128::MAX and down to i128::MIN (the caller checks). */
    Result<void> pushWide(bool negative, UInt128 magnitude, uint64_t src)
    {
        const UInt128 bits = negative ? UInt128(0) - magnitude : magnitude; // two's complement for an Int
        return done(push(negative ? Kind::Int : Kind::UInt, Wide128, static_cast<uint64_t>(bits >> 64), static_cast<uint64_t>(bits), src));
    }

    Result<void> pushF64(double v, uint64_t src)
    {
        return done(push(Kind::F64, 0, 0, std::bit_cast<uint64_t>(v), src));
    }

    /** After the opening quote. Pushes a Str node; sets m_lastStringIsBytes. */
    Result<uint32_t> parseString()
    {
        const size_t contentStart = m_i;
        size_t runStart = m_i;
        bool escaped = false;
        bool invalidUtf8 = false;
        m_scratch.clear();
        for (;;) {
            while (m_i + 8 <= m_n) {
                uint64_t w;
                std::memcpy(&w, m_s + m_i, 8);
                if (jsonWordNeedsAttention(w))
                    break;
                m_i += 8;
            }
            while (m_i < m_n) {
                const uint8_t c = m_s[m_i];
                if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                    break;
                ++m_i;
            }
            if (m_i >= m_n)
                return errorAt(JsonFault::EofWhileParsingString);
            const uint8_t c = m_s[m_i];
            if (c == '"')
                break;
            if (c == '\\') {
                m_scratch.append(reinterpret_cast<const char*>(m_s + runStart), m_i - runStart);
                escaped = true;
                ++m_i;
                if (auto r = parseEscape(); !r)
                    return std::unexpected(r.error());
                runStart = m_i;
                continue;
            }
            if (c < 0x20) {
                ++m_i;
                return errorAt(JsonFault::ControlCharacterWhileParsingString);
            }
            // Non-ASCII: serde_json validates UTF-8 only once the closing quote is found, so a
            // control character or EOF later in the string is reported first.
            const size_t len = validUtf8Length(m_s + m_i, m_n - m_i);
            if (len == 0) {
                invalidUtf8 = true;
                ++m_i;
            } else {
                m_i += len;
            }
        }
        const size_t contentEnd = m_i;
        ++m_i; // closing quote
        if (invalidUtf8)
            return errorAt(JsonFault::InvalidUnicodeCodePoint);
        if (!escaped) {
            m_lastStringIsBytes = std::string_view(reinterpret_cast<const char*>(m_s + contentStart),
                                      contentEnd - contentStart)
                == "bytes";
            return push(Kind::Str, 0, contentEnd - contentStart, contentStart, contentStart - 1);
        }
        m_scratch.append(reinterpret_cast<const char*>(m_s + runStart), contentEnd - runStart);
        m_lastStringIsBytes = m_scratch == "bytes";
        const uint64_t offset = m_tape.pool.size();
        m_tape.pool.insert(m_tape.pool.end(), m_scratch.begin(), m_scratch.end());
        return push(Kind::Str, InPool, m_scratch.size(), offset, contentStart - 1);
    }

    Result<uint32_t> decodeHexEscape()
    {
        if (m_i + 4 > m_n) {
            m_i = m_n;
            return errorAt(JsonFault::EofWhileParsingString);
        }
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const int h = hexValue(m_s[m_i++]);
            if (h < 0)
                return errorAt(JsonFault::InvalidEscape);
            v = (v << 4) | static_cast<uint32_t>(h);
        }
        return v;
    }

    /** After a backslash (serde_json's parse_escape with validate = true). */
    Result<void> parseEscape()
    {
        if (m_i >= m_n)
            return errorAt(JsonFault::EofWhileParsingString);
        const uint8_t c = m_s[m_i++];
        switch (c) {
        case '"': m_scratch += '"'; return {};
        case '\\': m_scratch += '\\'; return {};
        case '/': m_scratch += '/'; return {};
        case 'b': m_scratch += '\b'; return {};
        case 'f': m_scratch += '\f'; return {};
        case 'n': m_scratch += '\n'; return {};
        case 'r': m_scratch += '\r'; return {};
        case 't': m_scratch += '\t'; return {};
        case 'u': break;
        default: return errorAt(JsonFault::InvalidEscape);
        }
        auto first = decodeHexEscape();
        if (!first)
            return std::unexpected(first.error());
        const uint32_t n1 = *first;
        if (n1 >= 0xDC00 && n1 <= 0xDFFF)
            return errorAt(JsonFault::LoneLeadingSurrogateInHexEscape);
        if (n1 < 0xD800 || n1 > 0xDBFF) {
            appendUtf8(m_scratch, n1);
            return {};
        }
        // A leading surrogate must be followed by \uDC00..\uDFFF.
        if (m_i >= m_n)
            return errorAt(JsonFault::EofWhileParsingString);
        if (m_s[m_i++] != '\\')
            return errorAt(JsonFault::UnexpectedEndOfHexEscape);
        if (m_i >= m_n)
            return errorAt(JsonFault::EofWhileParsingString);
        if (m_s[m_i++] != 'u')
            return errorAt(JsonFault::UnexpectedEndOfHexEscape);
        auto second = decodeHexEscape();
        if (!second)
            return std::unexpected(second.error());
        const uint32_t n2 = *second;
        if (n2 < 0xDC00 || n2 > 0xDFFF)
            return errorAt(JsonFault::LoneLeadingSurrogateInHexEscape);
        appendUtf8(m_scratch, (((n1 - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000);
        return {};
    }

    const JsonReadOptions& m_options;
    const Progress& m_progress;
    const uint8_t* m_s = nullptr;
    size_t m_n = 0;
    size_t m_i = 0;
    size_t m_nextReport = kProgressStep;
    Tape m_tape;
    std::vector<Frame> m_stack;
    std::string m_scratch;
    bool m_lastStringIsBytes = false;
};

} // namespace

Result<Tape> readJson(const BytesPtr& bytes, const JsonReadOptions& options, const Progress& progress)
{
    try {
        JsonReader reader(bytes, options, progress);
        return reader.run();
    } catch (const std::bad_alloc&) {
        // Growth is bounded by the input size, but the machine may still run out: report, not crash.
        return fail(ErrorCode::Limit, "out of memory while parsing JSON");
    }
}

} // namespace ckpt
