// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// writeJson: a tape as serde_json's compact or pretty text, and its string quoting.
#include "core/codec/json.h"

#include "core/codec/msgpack.h"

#include <charconv>
#include <vector>

namespace ckpt {

namespace {

// ------------------------------------------------------------------------------------------------
// Writer (serde_json's CompactFormatter / PrettyFormatter with "  ")
// ------------------------------------------------------------------------------------------------

class JsonWriter {
public:
    JsonWriter(const Tape& tape, JsonStyle style, JsonFloats floats, Sink& out)
        : m_tape(tape)
        , m_pretty(style == JsonStyle::Pretty)
        , m_nlohmann(floats == JsonFloats::Nlohmann)
        , m_out(out)
    {
        m_buf.reserve(kChunk + 4096);
    }

    void run(uint32_t root)
    {
        writeValue(root);
        while (!m_stack.empty()) {
            Frame& f = m_stack.back();
            if (f.next >= f.end) {
                const bool isMap = f.isMap;
                m_stack.pop_back();
                newlineIndent(m_stack.size());
                m_buf += isMap ? '}' : ']';
                continue;
            }
            if (f.any)
                m_buf += ',';
            f.any = true;
            newlineIndent(m_stack.size());
            if (f.isMap) {
                const uint32_t key = f.next;
                const uint32_t value = m_tape.nodes[key].end;
                f.next = m_tape.nodes[value].end;
                writeKey(key);
                m_buf += m_pretty ? ": " : ":";
                writeValue(value); // may push a frame: f is not used after this
            } else {
                const uint32_t value = f.next;
                f.next = m_tape.nodes[value].end;
                writeValue(value);
            }
            flushIfLarge();
        }
        m_out.put(std::string_view(m_buf));
        m_buf.clear();
    }

private:
    struct Frame {
        uint32_t end;
        uint32_t next;
        bool isMap;
        bool any;
    };
    static constexpr size_t kChunk = 1 << 16;

    void flushIfLarge()
    {
        if (m_buf.size() >= kChunk) {
            m_out.put(std::string_view(m_buf));
            m_buf.clear();
        }
    }

    void newlineIndent(size_t depth)
    {
        if (!m_pretty)
            return;
        m_buf += '\n';
        m_buf.append(depth * 2, ' ');
    }

    void appendUnsigned(uint64_t v)
    {
        char b[24];
        const auto r = std::to_chars(b, b + sizeof b, v);
        m_buf.append(b, r.ptr);
    }
    void appendSigned(int64_t v)
    {
        char b[24];
        const auto r = std::to_chars(b, b + sizeof b, v);
        m_buf.append(b, r.ptr);
    }

    /** A UInt or Int node's digits: a wide one (a u128/i128) exactly, as serde_json writes those. */
    void appendInteger(uint32_t i)
    {
        const Node& n = m_tape.nodes[i];
        if (m_tape.isWide(i))
            m_buf += m_tape.integerText(i);
        else if (n.kind == Kind::Int)
            appendSigned(static_cast<int64_t>(n.payload));
        else
            appendUnsigned(n.payload);
    }

    /**
     * serde_json's MapKeySerializer writes integer keys as quoted decimals. Keys of other kinds
     * (which serde_json 1.0.87 refuses to serialize) are written as their quoted text rendering.
     */
    void writeKey(uint32_t key)
    {
        const Node& n = m_tape.nodes[key];
        switch (n.kind) {
        case Kind::Str: appendJsonQuoted(m_buf, m_tape.str(key)); return;
        case Kind::UInt:
        case Kind::Int:
            m_buf += '"';
            appendInteger(key);
            m_buf += '"';
            return;
        case Kind::F32: appendJsonQuoted(m_buf, formatJsonF32(m_tape.f32(key))); return;
        case Kind::F64: appendJsonQuoted(m_buf, formatJsonF64(m_tape.f64(key))); return;
        case Kind::Nil: appendJsonQuoted(m_buf, "null"); return;
        default: appendJsonQuoted(m_buf, m_tape.keyText(key)); return;
        }
    }

    void writeValue(uint32_t i)
    {
        const Node& n = m_tape.nodes[i];
        switch (n.kind) {
        case Kind::Nil: m_buf += "null"; return;
        case Kind::Bool: m_buf += n.payload ? "true" : "false"; return;
        case Kind::UInt:
        case Kind::Int: appendInteger(i); return;
        case Kind::F32:
            m_buf += m_nlohmann ? formatNlohmannF64(double(m_tape.f32(i))) : formatJsonF32(m_tape.f32(i));
            return;
        case Kind::F64: m_buf += m_nlohmann ? formatNlohmannF64(m_tape.f64(i)) : formatJsonF64(m_tape.f64(i)); return;
        case Kind::Str: appendJsonQuoted(m_buf, m_tape.str(i)); return;
        case Kind::Bin: writeBytes(m_tape.bin(i)); return;
        case Kind::Array:
        case Kind::Map:
            if (n.end == i + 1) {
                m_buf += n.kind == Kind::Map ? "{}" : "[]";
                return;
            }
            m_buf += n.kind == Kind::Map ? '{' : '[';
            m_stack.push_back(Frame{n.end, i + 1, n.kind == Kind::Map, false});
            return;
        }
    }

    /** serialize_bytes: an array of integers, one per line in pretty mode. */
    void writeBytes(std::span<const uint8_t> bytes)
    {
        if (bytes.empty()) {
            m_buf += "[]";
            return;
        }
        m_buf += '[';
        const size_t depth = m_stack.size() + 1;
        for (size_t k = 0; k < bytes.size(); ++k) {
            if (k)
                m_buf += ',';
            newlineIndent(depth);
            appendUnsigned(bytes[k]);
            flushIfLarge();
        }
        newlineIndent(depth - 1);
        m_buf += ']';
    }

    const Tape& m_tape;
    bool m_pretty;
    bool m_nlohmann;
    Sink& m_out;
    std::string m_buf;
    std::vector<Frame> m_stack;
};

} // namespace

void writeJson(const Tape& tape, uint32_t node, JsonStyle style, Sink& out, JsonFloats floats)
{
    if (node >= tape.nodes.size())
        return;
    JsonWriter(tape, style, floats, out).run(node);
}

std::string jsonText(const Tape& tape, uint32_t node, JsonStyle style, JsonFloats floats)
{
    Sink sink;
    writeJson(tape, node, style, sink, floats);
    return std::string(sink.buffer().begin(), sink.buffer().end());
}

void appendJsonQuoted(std::string& out, std::string_view s)
{
    // Decoded strings are valid UTF-8 (the readers check it), but a report also quotes what the user
    // typed, such as a file name in another encoding: JSON text must stay valid, so a byte that starts
    // no valid sequence is written as U+FFFD, as Rust's from_utf8_lossy would show it.
    const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
    if (size_t bad = firstInvalidUtf8(bytes, s.size()); bad < s.size()) {
        std::string repaired;
        size_t from = 0;
        while (bad < s.size()) {
            repaired.append(s.substr(from, bad - from));
            repaired += "\xEF\xBF\xBD";
            from = bad + 1;
            bad = from + firstInvalidUtf8(bytes + from, s.size() - from);
        }
        repaired.append(s.substr(from));
        appendJsonQuoted(out, repaired);
        return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    size_t run = 0;
    for (size_t k = 0; k < s.size(); ++k) {
        const auto c = static_cast<uint8_t>(s[k]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(s.data() + run, k - run);
        run = k + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\f': out += "\\f"; break;
        case '\r': out += "\\r"; break;
        default:
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

} // namespace ckpt
