// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/checkpoint.h"

#include "core/codec/json.h"
#include "core/codec/jsonfields.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace ckpt {

std::pair<uint32_t, uint32_t> jsonLineColumn(std::span<const uint8_t> text, uint64_t index)
{
    // serde_json: line = 1 + newlines before the line start; column = bytes between line start and index.
    index = std::min<uint64_t>(index, text.size());
    uint32_t line = 1;
    uint64_t lineStart = 0;
    for (uint64_t i = 0; i < index; ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    return {line, uint32_t(index - lineStart)};
}

namespace {

/** Rust's `Display` for f64 (what serde puts into "floating point `...`"): shortest digits, no exponent. */
std::string rustFloatDisplay(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, r.ptr);
    std::string sign;
    if (s[0] == '-') {
        sign = "-";
        s.erase(0, 1);
    }
    const auto e = s.find('e');
    int exp = 0; // to_chars wrote it: a sign and digits, always parseable
    const char* expBegin = s.data() + e + 1;
    std::from_chars(*expBegin == '+' ? expBegin + 1 : expBegin, s.data() + s.size(), exp);
    std::string digits;
    for (char c : s.substr(0, e))
        if (c != '.')
            digits += c;
    // value = 0.digits * 10^(exp+1)
    const int point = exp + 1;
    std::string out;
    if (point <= 0) {
        out = "0." + std::string(size_t(-point), '0') + digits;
    } else if (size_t(point) >= digits.size()) {
        out = digits + std::string(size_t(point) - digits.size(), '0');
    } else {
        out = digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
    }
    return sign + out;
}

/** Rust's `Debug` for str (what serde puts into "string ..."): quotes and escape_debug. */
std::string rustStrDebug(std::string_view s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\0': out += "\\0"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "\\u{%x}", c);
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

/** End offset (one past) of the JSON value starting at \a start; the input is known to be valid JSON. */
uint64_t endOfValue(std::span<const uint8_t> src, uint64_t start)
{
    uint64_t i = start;
    const uint64_t n = src.size();
    if (i >= n)
        return n;
    auto skipString = [&](uint64_t p) {
        ++p; // opening quote
        while (p < n && src[p] != '"')
            p += (src[p] == '\\') ? 2 : 1;
        return std::min(p + 1, n);
    };
    const uint8_t c = src[i];
    if (c == '"')
        return skipString(i);
    if (c == '[' || c == '{') {
        uint64_t depth = 0;
        while (i < n) {
            const uint8_t d = src[i];
            if (d == '"') {
                i = skipString(i);
                continue;
            }
            if (d == '[' || d == '{')
                ++depth;
            else if (d == ']' || d == '}') {
                if (--depth == 0)
                    return i + 1;
            }
            ++i;
        }
        return n;
    }
    while (i < n && src[i] != ',' && src[i] != ']' && src[i] != '}' && src[i] != ' ' && src[i] != '\n' && src[i] != '\t' && src[i] != '\r')
        ++i;
    return i;
}

uint64_t skipWhitespace(std::span<const uint8_t> src, uint64_t i)
{
    while (i < src.size() && (src[i] == ' ' || src[i] == '\n' || src[i] == '\t' || src[i] == '\r'))
        ++i;
    return i;
}

/**
 * A value seen by the typed decoder: a tape node, or one element of a Bin node that the JSON reader
 * packed from an array of small integers (those behave exactly like an array of UInt for serde).
 */
struct Val {
    uint32_t node = 0;
    int64_t binIndex = -1;
};

class Decoder {
public:
    explicit Decoder(const Tape& t)
        : m_t(t)
    {
        if (t.source)
            m_src = t.source->span();
    }

    DecodeNotes notes;

    // ---- positions and errors ------------------------------------------------------------------

    std::unexpected<Error> errorAt(std::string what, std::optional<uint64_t> index)
    {
        Error e;
        e.code = ErrorCode::Invalid;
        e.what = std::move(what);
        if (index && !m_src.empty()) {
            auto [l, c] = jsonLineColumn(m_src, *index);
            e.line = l;
            e.column = c;
        }
        return std::unexpected(std::move(e));
    }

    std::optional<uint64_t> start(const Val& v)
    {
        if (m_src.empty())
            return std::nullopt;
        const uint64_t s = m_t[v.node].srcOffset;
        if (v.binIndex < 0)
            return s;
        // Walk to the element inside the packed array text.
        uint64_t i = skipWhitespace(m_src, s + 1);
        for (int64_t k = 0; k < v.binIndex; ++k) {
            i = endOfValue(m_src, i);
            i = skipWhitespace(m_src, i);
            if (i < m_src.size() && m_src[i] == ',')
                i = skipWhitespace(m_src, i + 1);
        }
        return i;
    }
    std::optional<uint64_t> end(const Val& v)
    {
        auto s = start(v);
        if (!s)
            return s;
        return endOfValue(m_src, *s);
    }

    Kind kind(const Val& v) const
    {
        if (v.binIndex >= 0)
            return Kind::UInt;
        // An integer beyond 64 bits is the f64 serde_json makes of it for these typed fields (u64 at most).
        if (m_t.isWide(v.node))
            return Kind::F64;
        const Kind k = m_t[v.node].kind;
        return k == Kind::Bin ? Kind::Array : k;
    }
    bool isPackedBin(const Val& v) const { return v.binIndex < 0 && m_t[v.node].kind == Kind::Bin; }

    uint64_t uintValue(const Val& v) const
    {
        if (v.binIndex >= 0)
            return m_t.bin(v.node)[size_t(v.binIndex)];
        return m_t.u64(v.node);
    }

    /** serde's Unexpected rendering of a value. */
    std::string unexpected(const Val& v)
    {
        switch (kind(v)) {
        case Kind::Nil: return "null";
        case Kind::Bool: return std::string("boolean `") + (m_t.boolean(v.node) ? "true" : "false") + "`";
        case Kind::UInt: return "integer `" + std::to_string(uintValue(v)) + "`";
        case Kind::Int: return "integer `" + std::to_string(m_t.i64(v.node)) + "`";
        case Kind::F32:
        case Kind::F64: return "floating point `" + rustFloatDisplay(*m_t.asNumber(v.node)) + "`";
        case Kind::Str: return "string " + rustStrDebug(m_t.str(v.node));
        case Kind::Array: return "sequence";
        case Kind::Map: return "map";
        case Kind::Bin: return "sequence";
        }
        return "value";
    }

    /** serde_json::Deserializer::peek_invalid_type: scalars are consumed first, containers are not. */
    std::unexpected<Error> invalidType(const Val& v, std::string_view expected)
    {
        const Kind k = kind(v);
        const auto where = (k == Kind::Array || k == Kind::Map) ? start(v) : end(v);
        return errorAt("invalid type: " + unexpected(v) + ", expected " + std::string(expected), where);
    }

    // ---- children -----------------------------------------------------------------------------

    std::vector<Val> elements(const Val& arr)
    {
        std::vector<Val> out;
        if (isPackedBin(arr)) {
            const auto n = m_t[arr.node].count;
            out.reserve(n);
            for (uint64_t i = 0; i < n; ++i)
                out.push_back(Val{arr.node, int64_t(i)});
        } else {
            out.reserve(m_t[arr.node].count);
            m_t.forEachChild(arr.node, [&](uint32_t c) { out.push_back(Val{c, -1}); });
        }
        return out;
    }

    /** serde_json end_seq after a visitor accepted \a used elements of an array with more in it. */
    std::unexpected<Error> trailingElements(const std::vector<Val>& elems, size_t used)
    {
        auto s = start(elems[used]);
        return errorAt("trailing characters", s ? std::optional<uint64_t>(*s + 1) : std::nullopt);
    }

    // ---- primitive types ----------------------------------------------------------------------

    Result<std::string> string(const Val& v)
    {
        if (kind(v) != Kind::Str)
            return invalidType(v, "a string");
        return std::string(m_t.str(v.node));
    }

    Result<std::optional<std::string>> optString(const Val& v)
    {
        if (kind(v) == Kind::Nil)
            return std::optional<std::string>();
        auto s = string(v);
        if (!s)
            return std::unexpected(s.error());
        return std::optional<std::string>(std::move(*s));
    }

    /** u64 / u8 with serde's primitive visitor rules (negative -> invalid value, float -> invalid type). */
    Result<uint64_t> unsignedInt(const Val& v, uint64_t max, std::string_view name)
    {
        const Kind k = kind(v);
        if (k == Kind::UInt) {
            const uint64_t x = uintValue(v);
            if (x > max)
                return errorAt("invalid value: integer `" + std::to_string(x) + "`, expected " + std::string(name), end(v));
            return x;
        }
        if (k == Kind::Int) {
            const int64_t x = m_t.i64(v.node);
            // serde_json 1.0.87 parses "-0" as the float -0.0, which a u64/u8 visitor rejects.
            if (x == 0)
                return errorAt("invalid type: floating point `-0`, expected " + std::string(name), end(v));
            if (x < 0 || uint64_t(x) > max)
                return errorAt("invalid value: integer `" + std::to_string(x) + "`, expected " + std::string(name), end(v));
            return uint64_t(x);
        }
        return invalidType(v, name);
    }

    Result<std::vector<std::string>> stringVec(const Val& v)
    {
        if (kind(v) != Kind::Array)
            return invalidType(v, "a sequence");
        std::vector<std::string> out;
        for (const auto& e : elements(v)) {
            auto s = string(e);
            if (!s)
                return std::unexpected(s.error());
            out.push_back(std::move(*s));
        }
        return out;
    }

    Result<std::vector<uint8_t>> byteVec(const Val& v)
    {
        if (isPackedBin(v)) {
            auto b = m_t.bin(v.node);
            return std::vector<uint8_t>(b.begin(), b.end());
        }
        if (kind(v) != Kind::Array)
            return invalidType(v, "a sequence");
        std::vector<uint8_t> out;
        out.reserve(m_t[v.node].count);
        for (const auto& e : elements(v)) {
            auto x = unsignedInt(e, 255, "u8");
            if (!x)
                return std::unexpected(x.error());
            out.push_back(uint8_t(*x));
        }
        return out;
    }

    /** HashMap<String, T>: last-wins for repeated keys, first position kept. */
    template<class T, class F>
    Result<std::vector<std::pair<std::string, T>>> map(const Val& v, F&& decodeValue)
    {
        if (kind(v) != Kind::Map)
            return invalidType(v, "a map");
        std::vector<std::pair<std::string, T>> out;
        out.reserve(m_t[v.node].count);
        std::unordered_map<std::string, size_t> seen;
        seen.reserve(m_t[v.node].count);
        Error err;
        bool failed = false;
        m_t.forEachEntry(v.node, [&](uint32_t k, uint32_t val) {
            if (failed)
                return;
            auto decoded = decodeValue(Val{val, -1});
            if (!decoded) {
                err = decoded.error();
                failed = true;
                return;
            }
            const std::string_view key = m_t.str(k);
            if (auto it = seen.find(std::string(key)); it != seen.end()) {
                out[it->second].second = std::move(*decoded);
                ++notes.duplicateMapKeys;
            } else {
                out.emplace_back(std::string(key), std::move(*decoded));
                seen.emplace(out.back().first, out.size() - 1);
            }
        });
        if (failed)
            return std::unexpected(std::move(err));
        return out;
    }

    // ---- structs ------------------------------------------------------------------------------

    /**
     * Decodes a derive(Deserialize) struct: from a map (fields by name, unknown ignored, duplicates
     * rejected, missing reported in declaration order at the closing brace) or from an array (fields
     * by position). \a field(index, value) decodes one field; \a optional[i] says Option<..>.
     */
    template<class F>
    Result<void> structure(const Val& v, std::string_view name, const std::vector<std::string_view>& fields,
        const std::vector<bool>& optional, F&& field)
    {
        const std::string expecting = "struct " + std::string(name);
        const Kind k = kind(v);
        if (k == Kind::Array) {
            auto elems = elements(v);
            for (size_t i = 0; i < fields.size(); ++i) {
                if (i >= elems.size())
                    return errorAt("invalid length " + std::to_string(i) + ", expected " + expecting + " with "
                            + std::to_string(fields.size()) + (fields.size() == 1 ? " element" : " elements"),
                        end(v));
                if (auto r = field(i, elems[i]); !r)
                    return r;
            }
            if (elems.size() > fields.size())
                return trailingElements(elems, fields.size());
            return {};
        }
        if (k != Kind::Map)
            return invalidType(v, expecting);
        std::vector<bool> have(fields.size(), false);
        Result<void> result;
        for (uint32_t key = v.node + 1; key < m_t[v.node].end;) {
            const uint32_t val = m_t[key].end;
            const std::string_view keyText = m_t.str(key);
            size_t index = fields.size();
            for (size_t i = 0; i < fields.size(); ++i)
                if (fields[i] == keyText)
                    index = i;
            if (index == fields.size()) {
                ++notes.unknownFields;
            } else {
                if (have[index]) {
                    std::optional<uint64_t> at;
                    if (!m_src.empty())
                        at = skipWhitespace(m_src, endOfValue(m_src, m_t[key].srcOffset));
                    return errorAt("duplicate field `" + std::string(fields[index]) + "`", at);
                }
                have[index] = true;
                if (auto r = field(index, Val{val, -1}); !r)
                    return r;
            }
            key = m_t[val].end;
        }
        for (size_t i = 0; i < fields.size(); ++i)
            if (!have[i] && !optional[i])
                return errorAt("missing field `" + std::string(fields[i]) + "`", end(v));
        return {};
    }

    Result<ComputationNode> node(const Val& v)
    {
        ComputationNode n;
        static const std::vector<std::string_view> fields{"id", "op", "input_cids", "output_cid", "gradient_cid", "metadata"};
        static const std::vector<bool> optional{false, false, false, true, true, false};
        auto r = structure(v, "ComputationNode", fields, optional, [&](size_t i, const Val& f) -> Result<void> {
            switch (i) {
            case 0: return assign(n.id, string(f));
            case 1: return assign(n.op, string(f));
            case 2: return assign(n.inputCids, stringVec(f));
            case 3: return assign(n.outputCid, optString(f));
            case 4: return assign(n.gradientCid, optString(f));
            default: return assign(n.metadata, map<std::string>(f, [&](const Val& x) { return string(x); }));
            }
        });
        if (!r)
            return std::unexpected(r.error());
        return n;
    }

    Result<std::pair<std::string, std::string>> edge(const Val& v)
    {
        if (kind(v) != Kind::Array)
            return invalidType(v, "a tuple of size 2");
        auto elems = elements(v);
        std::pair<std::string, std::string> e;
        for (size_t i = 0; i < 2; ++i) {
            if (i >= elems.size())
                return errorAt("invalid length " + std::to_string(i) + ", expected a tuple of size 2", end(v));
            auto s = string(elems[i]);
            if (!s)
                return std::unexpected(s.error());
            (i == 0 ? e.first : e.second) = std::move(*s);
        }
        if (elems.size() > 2)
            return trailingElements(elems, 2);
        return e;
    }

    Result<ComputationGraphStore> graph(const Val& v)
    {
        ComputationGraphStore g;
        static const std::vector<std::string_view> fields{"nodes", "edges"};
        static const std::vector<bool> optional{false, false};
        auto r = structure(v, "ComputationGraphStore", fields, optional, [&](size_t i, const Val& f) -> Result<void> {
            if (i == 0)
                return assign(g.nodes, map<ComputationNode>(f, [&](const Val& x) { return node(x); }));
            if (kind(f) != Kind::Array)
                return invalidType(f, "a sequence");
            for (const auto& e : elements(f)) {
                auto pair = edge(e);
                if (!pair)
                    return std::unexpected(pair.error());
                g.edges.push_back(std::move(*pair));
            }
            return {};
        });
        if (!r)
            return std::unexpected(r.error());
        for (const auto& [key, n] : g.nodes)
            if (key != n.id)
                ++notes.nodeKeyIdMismatches;
        return g;
    }

    Result<GradientCheckpoint> checkpoint(const Val& v)
    {
        GradientCheckpoint c;
        static const std::vector<std::string_view> fields{"graph", "step", "loss_cid", "optimizer_state", "timestamp"};
        static const std::vector<bool> optional{false, false, true, false, false};
        auto r = structure(v, "GradientCheckpoint", fields, optional, [&](size_t i, const Val& f) -> Result<void> {
            switch (i) {
            case 0: return assign(c.graph, graph(f));
            case 1: return assign(c.step, unsignedInt(f, UINT64_MAX, "u64"));
            case 2: return assign(c.lossCid, optString(f));
            case 3: {
                auto m = map<std::vector<uint8_t>>(f, [&](const Val& x) { return byteVec(x); });
                if (!m)
                    return std::unexpected(m.error());
                c.optimizerState.clear();
                for (auto& [k, b] : *m)
                    c.optimizerState.push_back(OptimizerBlob{std::move(k), std::move(b)});
                return {};
            }
            default: return assign(c.timestamp, unsignedInt(f, UINT64_MAX, "u64"));
            }
        });
        if (!r)
            return std::unexpected(r.error());
        c.notes = notes;
        return c;
    }

private:
    template<class T, class R>
    static Result<void> assign(T& target, R&& r)
    {
        if (!r)
            return std::unexpected(r.error());
        target = std::move(*r);
        return {};
    }

    const Tape& m_t;
    std::span<const uint8_t> m_src;
};

// ---- writing ---------------------------------------------------------------------------------

// a node's members before its metadata map, in ipfrs's field order
constexpr JsonField<ComputationNode> kNodeFields[] = {{"id", &ComputationNode::id}, {"op", &ComputationNode::op}, {"input_cids", &ComputationNode::inputCids},
    {"output_cid", &ComputationNode::outputCid}, {"gradient_cid", &ComputationNode::gradientCid}};

void putGraph(TapeBuilder& b, const ComputationGraphStore& g)
{
    b.beginMap();
    b.key("nodes");
    b.beginMap();
    for (const auto& [key, n] : g.nodes) {
        b.key(key);
        b.beginMap();
        putFields(b, n, kNodeFields);
        b.key("metadata");
        b.beginMap();
        for (const auto& [k, v] : n.metadata) {
            b.key(k);
            b.str(v);
        }
        b.end();
        b.end();
    }
    b.end();
    b.key("edges");
    b.beginArray();
    for (const auto& [from, to] : g.edges) {
        b.beginArray();
        b.str(from);
        b.str(to);
        b.end();
    }
    b.end();
    b.end();
}

} // namespace

Result<GradientCheckpoint> decodeGradientCheckpoint(const Tape& tape)
{
    if (tape.empty())
        return fail(ErrorCode::Invalid, "empty tape, expected struct GradientCheckpoint");
    Decoder d(tape);
    return d.checkpoint(Val{tape.root(), -1});
}

Result<ComputationGraphStore> decodeGraphStore(const Tape& tape)
{
    if (tape.empty())
        return fail(ErrorCode::Invalid, "empty tape, expected struct ComputationGraphStore");
    Decoder d(tape);
    return d.graph(Val{tape.root(), -1});
}

GraphFileKind sniffGraphFile(const Tape& tape)
{
    if (tape.empty() || !tape.isMap(tape.root()))
        return GraphFileKind::Other;
    if (tape.find(tape.root(), "graph"))
        return GraphFileKind::GradientCheckpoint;
    if (tape.find(tape.root(), "nodes") && tape.find(tape.root(), "edges"))
        return GraphFileKind::GraphStoreOnly;
    return GraphFileKind::Other;
}

Result<GradientCheckpoint> loadGradientCheckpoint(const BytesPtr& bytes, bool allowGraphOnly)
{
    // Blobs are arrays of small integers under arbitrary keys; the reader's "bytes"-key packing does
    // not apply to them, and they decode fine as arrays of UInt nodes.
    // serde_json's recursion limit never triggers here: the typed part of a checkpoint is six levels
    // deep, a deeper value is either rejected at its first bracket or skipped as an unknown field,
    // and serde_json skips ignored values without recursing. The tape reader is iterative, so no
    // depth limit is needed for safety either.
    if (bytes) {
        if (auto fast = readGradientCheckpointFast(bytes->span()))
            return std::move(*fast);
    }
    JsonReadOptions options;
    options.maxDepth = UINT32_MAX;
    auto tape = readJson(bytes, options);
    if (!tape)
        return std::unexpected(tape.error());
    if (allowGraphOnly && sniffGraphFile(*tape) == GraphFileKind::GraphStoreOnly) {
        Decoder d(*tape);
        auto g = d.graph(Val{tape->root(), -1});
        if (!g)
            return std::unexpected(g.error());
        GradientCheckpoint c;
        c.graph = std::move(*g);
        c.notes = d.notes;
        return c;
    }
    return decodeGradientCheckpoint(*tape);
}

Tape gradientCheckpointToTape(const GradientCheckpoint& c)
{
    // The tape of a 100,000-node graph is some 1.6 million nodes and 25 MB of strings: growing them
    // by doubling copied and first-touched about twice that (a second of the app's open, most of it
    // page faults). Counted exactly first, as putGraph below writes them.
    size_t nodes = 16, pool = 64;
    for (const auto& [key, n] : c.graph.nodes) {
        nodes += 15 + n.inputCids.size() + 2 * n.metadata.size();
        pool += key.size() + n.id.size() + n.op.size() + 54 + (n.outputCid ? n.outputCid->size() : 0) + (n.gradientCid ? n.gradientCid->size() : 0);
        for (const auto& cid : n.inputCids)
            pool += cid.size();
        for (const auto& [k, v] : n.metadata)
            pool += k.size() + v.size();
    }
    for (const auto& [from, to] : c.graph.edges) {
        nodes += 3;
        pool += from.size() + to.size();
    }
    for (const auto& blob : c.optimizerState) {
        nodes += 2;
        pool += blob.key.size() + blob.bytes.size();
    }
    TapeBuilder b;
    b.reserve(nodes);
    b.reservePool(pool);
    b.beginMap();
    b.key("graph");
    putGraph(b, c.graph);
    putU(b, "step", c.step);
    putOpt(b, "loss_cid", c.lossCid);
    b.key("optimizer_state");
    b.beginMap();
    for (const auto& blob : c.optimizerState) {
        b.key(blob.key);
        // A Bin node is written by writeJson as an array of integers: exactly serde's Vec<u8>.
        b.bin(blob.bytes, 0, FromJsonArray);
    }
    b.end();
    putU(b, "timestamp", c.timestamp);
    b.end();
    return std::move(b).finish();
}

std::vector<uint8_t> saveGradientCheckpoint(const GradientCheckpoint& c)
{
    const Tape t = gradientCheckpointToTape(c);
    Sink sink;
    writeJson(t, t.root(), JsonStyle::Pretty, sink);
    return std::move(sink.buffer());
}

std::vector<uint8_t> graphStoreCheckpointBytes(const ComputationGraphStore& g)
{
    TapeBuilder b;
    putGraph(b, g);
    const Tape t = std::move(b).finish();
    Sink sink;
    writeJson(t, t.root(), JsonStyle::Compact, sink);
    return std::move(sink.buffer());
}

} // namespace ckpt
