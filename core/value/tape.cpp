// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/value/tape.h"

#include "core/util/utf8.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <optional>

namespace ckpt {

const char* kindName(Kind k)
{
    switch (k) {
    case Kind::Nil: return "nil";
    case Kind::Bool: return "bool";
    case Kind::UInt: return "unsigned integer";
    case Kind::Int: return "signed integer";
    case Kind::F32: return "f32";
    case Kind::F64: return "f64";
    case Kind::Str: return "string";
    case Kind::Bin: return "bytes";
    case Kind::Array: return "array";
    case Kind::Map: return "map";
    }
    return "?";
}

std::string_view Tape::str(uint32_t i) const
{
    const Node& n = nodes[i];
    const uint8_t* base = (n.flags & InPool) ? pool.data() : source->data();
    return {reinterpret_cast<const char*>(base + n.payload), static_cast<size_t>(n.count)};
}

std::span<const uint8_t> Tape::bin(uint32_t i) const
{
    const Node& n = nodes[i];
    const uint8_t* base = (n.flags & InPool) ? pool.data() : source->data();
    return {base + n.payload, static_cast<size_t>(n.count)};
}

double Tape::f64(uint32_t i) const
{
    const Node& n = nodes[i];
    if (n.kind == Kind::F32)
        return static_cast<double>(f32(i));
    return std::bit_cast<double>(n.payload);
}

float Tape::f32(uint32_t i) const
{
    return std::bit_cast<float>(static_cast<uint32_t>(nodes[i].payload));
}

UInt128 Tape::u128(uint32_t i) const
{
    const Node& n = nodes[i];
    return isWide(i) ? (UInt128(n.count) << 64) | n.payload : UInt128(n.payload);
}

Int128 Tape::i128(uint32_t i) const
{
    const Node& n = nodes[i];
    if (isWide(i))
        return static_cast<Int128>((UInt128(n.count) << 64) | n.payload);
    return static_cast<int64_t>(n.payload);
}

std::string Tape::integerText(uint32_t i) const
{
    return nodes[i].kind == Kind::Int ? decimalText(i128(i)) : decimalText(u128(i));
}

std::optional<uint64_t> Tape::asU64(uint32_t i) const
{
    const Node& n = nodes[i];
    if (isWide(i))
        return std::nullopt;
    if (n.kind == Kind::UInt)
        return n.payload;
    if (n.kind == Kind::Int && static_cast<int64_t>(n.payload) >= 0)
        return n.payload;
    return std::nullopt;
}

std::optional<double> Tape::asNumber(uint32_t i) const
{
    switch (nodes[i].kind) {
    case Kind::UInt: return static_cast<double>(u128(i));
    case Kind::Int: return static_cast<double>(i128(i));
    case Kind::F32:
    case Kind::F64: return f64(i);
    default: return std::nullopt;
    }
}

std::optional<uint32_t> Tape::element(uint32_t array, uint64_t index) const
{
    if (nodes[array].kind != Kind::Array || index >= nodes[array].count)
        return std::nullopt;
    uint32_t c = array + 1;
    for (uint64_t k = 0; k < index; ++k)
        c = nodes[c].end;
    return c;
}

std::optional<uint32_t> Tape::find(uint32_t map, std::string_view key) const
{
    if (nodes[map].kind != Kind::Map)
        return std::nullopt;
    for (uint32_t k = map + 1; k < nodes[map].end;) {
        const uint32_t v = nodes[k].end;
        if (nodes[k].kind == Kind::Str && str(k) == key)
            return v;
        k = nodes[v].end;
    }
    return std::nullopt;
}

std::string Tape::keyText(uint32_t k) const
{
    switch (nodes[k].kind) {
    case Kind::Str: return std::string(str(k));
    case Kind::UInt:
    case Kind::Int: return integerText(k);
    case Kind::Bool: return nodes[k].payload ? "true" : "false";
    default: return std::string("<") + kindName(nodes[k].kind) + " key>";
    }
}

TapeBuilder::TapeBuilder(BytesPtr source)
{
    m_tape.source = std::move(source);
}

uint32_t TapeBuilder::push(Node n)
{
    const auto idx = static_cast<uint32_t>(m_tape.nodes.size());
    n.end = idx + 1;
    m_tape.nodes.push_back(n);
    return idx;
}

uint32_t TapeBuilder::nil(uint64_t src) { return push({Kind::Nil, 0, 0, 0, 0, 0, src}); }
uint32_t TapeBuilder::boolean(bool v, uint64_t src) { return push({Kind::Bool, 0, 0, 0, 0, v ? 1u : 0u, src}); }
uint32_t TapeBuilder::uinteger(uint64_t v, uint64_t src) { return push({Kind::UInt, 0, 0, 0, 0, v, src}); }
uint32_t TapeBuilder::integer(int64_t v, uint64_t src)
{
    return push({Kind::Int, 0, 0, 0, 0, static_cast<uint64_t>(v), src});
}
uint32_t TapeBuilder::uinteger128(UInt128 v, uint64_t src)
{
    if (v <= UINT64_MAX)
        return uinteger(static_cast<uint64_t>(v), src);
    return push({Kind::UInt, Wide128, 0, 0, static_cast<uint64_t>(v >> 64), static_cast<uint64_t>(v), src});
}
uint32_t TapeBuilder::integer128(Int128 v, uint64_t src)
{
    if (v >= INT64_MIN && v <= INT64_MAX)
        return integer(static_cast<int64_t>(v), src);
    const auto bits = static_cast<UInt128>(v);
    return push({Kind::Int, Wide128, 0, 0, static_cast<uint64_t>(bits >> 64), static_cast<uint64_t>(bits), src});
}
uint32_t TapeBuilder::f32(float v, uint64_t src)
{
    return push({Kind::F32, 0, 0, 0, 0, std::bit_cast<uint32_t>(v), src});
}
uint32_t TapeBuilder::f64(double v, uint64_t src) { return push({Kind::F64, 0, 0, 0, 0, std::bit_cast<uint64_t>(v), src}); }

uint32_t TapeBuilder::str(std::string_view s, uint64_t src)
{
    const uint64_t off = m_tape.pool.size();
    m_tape.pool.insert(m_tape.pool.end(), s.begin(), s.end());
    return push({Kind::Str, InPool, 0, 0, s.size(), off, src});
}

uint32_t TapeBuilder::bin(std::span<const uint8_t> b, uint64_t src, uint8_t extraFlags)
{
    const uint64_t off = m_tape.pool.size();
    m_tape.pool.insert(m_tape.pool.end(), b.begin(), b.end());
    return push({Kind::Bin, static_cast<uint8_t>(InPool | extraFlags), 0, 0, b.size(), off, src});
}

uint32_t TapeBuilder::strRef(uint64_t offset, uint64_t length, uint64_t src)
{
    return push({Kind::Str, 0, 0, 0, length, offset, src});
}
uint32_t TapeBuilder::binRef(uint64_t offset, uint64_t length, uint64_t src)
{
    return push({Kind::Bin, 0, 0, 0, length, offset, src});
}

uint32_t TapeBuilder::beginArray(uint64_t src)
{
    const uint32_t i = push({Kind::Array, 0, 0, 0, 0, 0, src});
    m_stack.push_back(i);
    return i;
}

uint32_t TapeBuilder::beginMap(uint64_t src)
{
    const uint32_t i = push({Kind::Map, 0, 0, 0, 0, 0, src});
    m_stack.push_back(i);
    return i;
}

void TapeBuilder::end()
{
    if (m_stack.empty()) {
        // More end() than begin*(): a caller bug. Ignore it rather than corrupt the tape's invariants.
        ++m_unbalanced;
        return;
    }
    const uint32_t i = m_stack.back();
    m_stack.pop_back();
    Node& n = m_tape.nodes[i];
    n.end = static_cast<uint32_t>(m_tape.nodes.size());
    uint64_t children = 0;
    for (uint32_t c = i + 1; c < n.end; c = m_tape.nodes[c].end)
        ++children;
    n.count = n.kind == Kind::Map ? children / 2 : children;
}

uint32_t TapeBuilder::copy(const Tape& other, uint32_t node)
{
    const uint32_t first = static_cast<uint32_t>(m_tape.nodes.size());
    const uint32_t last = other.nodes[node].end;
    const auto shift = static_cast<int64_t>(first) - static_cast<int64_t>(node);
    for (uint32_t i = node; i < last; ++i) {
        Node n = other.nodes[i];
        n.end = static_cast<uint32_t>(static_cast<int64_t>(n.end) + shift);
        if (n.kind == Kind::Str || n.kind == Kind::Bin) {
            const uint8_t* base = (n.flags & InPool) ? other.pool.data() : other.source->data();
            if (!(n.flags & InPool) && other.source == m_tape.source) {
                // Same source: keep the zero-copy reference.
            } else {
                const uint64_t off = m_tape.pool.size();
                m_tape.pool.insert(m_tape.pool.end(), base + n.payload, base + n.payload + n.count);
                n.payload = off;
                n.flags |= InPool;
            }
        }
        m_tape.nodes.push_back(n);
    }
    return first;
}

Tape TapeBuilder::finish() &&
{
    // Containers left open are closed, so that every `end` index is valid for readers.
    while (!m_stack.empty())
        end();
    return std::move(m_tape);
}

namespace {
bool isPlainKey(std::string_view k)
{
    if (k.empty())
        return false;
    for (unsigned char c : k) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

void appendJsonString(std::string& out, std::string_view s)
{
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}
} // namespace

std::string appendKeyToPath(const std::string& base, std::string_view key)
{
    std::string out = base;
    if (isPlainKey(key)) {
        if (!out.empty())
            out += '.';
        out += key;
    } else {
        out += '[';
        appendJsonString(out, key);
        out += ']';
    }
    return out;
}

std::string appendIndexToPath(const std::string& base, uint64_t index)
{
    return base + "[" + std::to_string(index) + "]";
}

namespace {

/// One backslash escape of a quoted path key, p[i] being the character after the backslash: appends
/// what it stands for to \a key and leaves i on its last character. Returns what is wrong, if anything.
std::optional<std::string> appendPathEscape(std::string_view p, size_t& i, std::string& key)
{
    switch (p[i]) {
    case 'n': key += '\n'; return std::nullopt;
    case 't': key += '\t'; return std::nullopt;
    case 'r': key += '\r'; return std::nullopt;
    case 'u': break;
    default: key += p[i]; return std::nullopt;
    }
    // as in JSON: four hex digits, a UTF-16 unit; a surrogate pair is one code point
    const auto unit = [&](size_t at) -> std::optional<uint32_t> {
        uint32_t v = 0;
        if (at + 4 > p.size())
            return std::nullopt;
        const auto r = std::from_chars(p.data() + at, p.data() + at + 4, v, 16);
        if (r.ec != std::errc() || r.ptr != p.data() + at + 4)
            return std::nullopt;
        return v;
    };
    auto cp = unit(i + 1);
    if (!cp)
        return "expected four hex digits after \\u";
    i += 4;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF)
        return "\\u escape of a lone low surrogate";
    if (*cp >= 0xD800 && *cp <= 0xDBFF) {
        const auto low = i + 2 < p.size() && p[i + 1] == '\\' && p[i + 2] == 'u' ? unit(i + 3) : std::nullopt;
        if (!low || *low < 0xDC00 || *low > 0xDFFF)
            return "\\u escape of a high surrogate without its low surrogate";
        cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
        i += 6;
    }
    appendUtf8(key, *cp);
    return std::nullopt;
}

} // namespace

Result<std::vector<PathStep>> parsePath(std::string_view p)
{
    std::vector<PathStep> steps;
    size_t i = 0;
    auto bad = [&](const std::string& why) {
        Error e;
        e.code = ErrorCode::Usage;
        e.what = "bad path '" + std::string(p) + "' at character " + std::to_string(i + 1) + ": " + why;
        return std::unexpected(e);
    };
    while (i < p.size()) {
        if (p[i] == '.') {
            if (steps.empty())
                return bad("a path cannot start with '.'");
            ++i;
        }
        if (i >= p.size())
            return bad("expected a key after '.'");
        if (p[i] == '[') {
            ++i;
            if (i < p.size() && p[i] == '"') {
                ++i;
                std::string key;
                while (i < p.size() && p[i] != '"') {
                    if (p[i] == '\\' && i + 1 < p.size()) {
                        ++i;
                        if (auto wrong = appendPathEscape(p, i, key))
                            return bad(*wrong);
                    } else {
                        key += p[i];
                    }
                    ++i;
                }
                if (i + 1 >= p.size() || p[i] != '"' || p[i + 1] != ']')
                    return bad("expected '\"]' to close a quoted key");
                i += 2;
                steps.push_back({false, 0, std::move(key)});
            } else {
                size_t j = i;
                while (j < p.size() && p[j] >= '0' && p[j] <= '9')
                    ++j;
                if (j == i || j >= p.size() || p[j] != ']')
                    return bad("expected a number and ']'");
                uint64_t idx = 0;
                for (size_t k = i; k < j; ++k)
                    idx = idx * 10 + static_cast<uint64_t>(p[k] - '0');
                steps.push_back({true, idx, {}});
                i = j + 1;
            }
        } else {
            size_t j = i;
            while (j < p.size() && p[j] != '.' && p[j] != '[')
                ++j;
            steps.push_back({false, 0, std::string(p.substr(i, j - i))});
            i = j;
        }
    }
    return steps;
}

Result<uint32_t> resolvePath(const Tape& t, const std::vector<PathStep>& steps)
{
    uint32_t cur = t.root();
    std::string walked;
    for (const auto& s : steps) {
        std::optional<uint32_t> next;
        if (s.isIndex) {
            next = t.element(cur, s.index);
            if (!next && t.isMap(cur)) // allow [i] on maps: the i-th entry's value
            {
                uint64_t k = 0;
                t.forEachEntry(cur, [&](uint32_t, uint32_t v) {
                    if (k++ == s.index)
                        next = v;
                });
            }
        } else {
            next = t.find(cur, s.key);
        }
        const std::string stepText = s.isIndex ? appendIndexToPath(walked, s.index) : appendKeyToPath(walked, s.key);
        if (!next) {
            Error e;
            e.code = ErrorCode::Usage;
            e.what = "no such path: '" + stepText + "' does not exist (the value at '" + (walked.empty() ? "<root>" : walked)
                + "' is a " + kindName(t[cur].kind)
                + (t[cur].kind == Kind::Array || t[cur].kind == Kind::Map ? " of " + std::to_string(t[cur].count) + " entries" : "")
                + ")";
            return std::unexpected(e);
        }
        walked = stepText;
        cur = *next;
    }
    return cur;
}

bool subtreeEqual(const Tape& a, uint32_t na, const Tape& b, uint32_t nb)
{
    const Node& x = a[na];
    const Node& y = b[nb];
    if (x.kind != y.kind || x.count != y.count)
        return false;
    switch (x.kind) {
    case Kind::Str:
    case Kind::Bin: {
        auto sa = a.bin(na);
        auto sb = b.bin(nb);
        // Empty payloads may have null data (empty pool); memcmp on null is undefined even for 0 bytes.
        return sa.size() == sb.size() && (sa.empty() || std::memcmp(sa.data(), sb.data(), sa.size()) == 0);
    }
    case Kind::Array:
    case Kind::Map: {
        uint32_t ca = na + 1, cb = nb + 1;
        while (ca < x.end && cb < y.end) {
            if (!subtreeEqual(a, ca, b, cb))
                return false;
            ca = a[ca].end;
            cb = b[cb].end;
        }
        return ca == x.end && cb == y.end;
    }
    default: // a Wide128 integer's high bits are its count, compared above; its flag tells i128 2^63 from i64 -2^63
        return x.payload == y.payload && (x.flags & Wide128) == (y.flags & Wide128);
    }
}

} // namespace ckpt
