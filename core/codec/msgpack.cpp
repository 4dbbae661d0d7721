// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/codec/msgpack.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace ckpt {

namespace {

// MessagePack stores multi-byte numbers big endian; Burn runs on little-endian hosts, so swap there.
template<class T>
T loadBigEndian(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::little)
        v = std::byteswap(v);
    return v;
}

template<class T>
void storeBigEndian(uint8_t* p, T v)
{
    if constexpr (std::endian::native == std::endian::little)
        v = std::byteswap(v);
    std::memcpy(p, &v, sizeof v);
}

std::string hexByte(uint8_t b)
{
    static constexpr char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}


/** An open array or map while decoding: its tape node and how many children are still expected. */
struct Frame {
    uint32_t node;
    uint64_t declared;  ///< children in total (2 per map entry)
    uint64_t remaining; ///< children not yet complete
};

class MsgpackDecoder {
public:
    MsgpackDecoder(const BytesPtr& bytes, const MsgpackReadOptions& options, const Progress& progress)
        : m_builder(bytes)
        , m_data(bytes->data())
        , m_size(bytes->size())
        , m_pos(options.startOffset)
        , m_options(options)
        , m_progress(progress)
    {
    }

    Result<MsgpackReadResult> run()
    {
        // Every node takes at least one input byte, so this never reserves more than the input justifies;
        // the cap keeps a big mapped file (whose structure is small) from reserving gigabytes.
        m_builder.reserve(static_cast<size_t>(std::min<uint64_t>(m_size - m_pos, 1u << 16)));
        m_stack.reserve(std::min<uint32_t>(m_options.maxDepth, 64));

        while (true) {
            auto r = decodeOne();
            if (!r)
                return std::unexpected(std::move(r.error()));
            if (!*r)
                continue; // a container was opened: its children come next
            // A value is complete: close every container whose last child this was.
            while (!m_stack.empty() && --m_stack.back().remaining == 0) {
                m_builder.end();
                m_stack.pop_back();
            }
            if (m_stack.empty())
                break;
        }

        MsgpackReadResult result;
        result.consumed = m_pos - m_options.startOffset;
        result.tape = std::move(m_builder).finish();
        m_progress.report(1.0);
        return result;
    }

private:
    static constexpr uint64_t kMaxNodes = std::numeric_limits<uint32_t>::max() - 1;
    static constexpr uint64_t kProgressEvery = 1u << 16; // nodes between progress reports/cancel checks

    uint64_t remainingBytes() const { return m_size - m_pos; }

    /**
     * Decodes one marker: a scalar (or an empty container) completely, giving true; a non-empty
     * container by opening a frame, giving false (it completes when its last child does).
     */
    Result<bool> decodeOne()
    {
        if (m_pos >= m_size) {
            std::string what = "truncated: expected a MessagePack value, found the end of the input";
            if (!m_stack.empty()) {
                const Frame& open = m_stack.back();
                const Node& container = m_builder.node(open.node);
                const bool isMap = container.kind == Kind::Map;
                what += " (the " + std::string(isMap ? "map" : "array") + " at offset " + std::to_string(container.srcOffset)
                    + " has " + std::to_string((open.declared - open.remaining) / (isMap ? 2 : 1)) + " of its "
                    + std::to_string(open.declared / (isMap ? 2 : 1)) + (isMap ? " entries)" : " elements)");
            } else if (m_pos == m_options.startOffset) {
                what += " (the input is empty)";
            }
            return error(ErrorCode::Truncated, std::move(what), m_pos);
        }
        if (m_builder.size() >= kMaxNodes)
            return error(ErrorCode::Limit, "more than 4294967294 values: the tape cannot index them", m_pos);
        if (m_builder.size() % kProgressEvery == 0 && m_builder.size() != 0) {
            if (m_progress.cancelled())
                return error(ErrorCode::Cancelled, "cancelled", m_pos);
            m_progress.report(static_cast<double>(m_pos) / static_cast<double>(m_size));
        }

        const uint64_t at = m_pos;
        const uint8_t m = m_data[m_pos++];
        if (m <= 0x7f) {
            m_builder.uinteger(m, at);
            return true;
        }
        if (m >= 0xe0) {
            m_builder.integer(static_cast<int8_t>(m), at);
            return true;
        }
        if (m <= 0x8f)
            return openContainer(Kind::Map, m & 0x0f, at, "fixmap");
        if (m <= 0x9f)
            return openContainer(Kind::Array, m & 0x0f, at, "fixarray");
        if (m <= 0xbf)
            return stringOrBinary(Kind::Str, m & 0x1f, at, "fixstr");

        switch (m) {
        case 0xc0: m_builder.nil(at); return true;
        case 0xc1: return error(ErrorCode::Malformed, "unknown MessagePack marker 0xc1 (never used by the format)", at);
        case 0xc2: m_builder.boolean(false, at); return true;
        case 0xc3: m_builder.boolean(true, at); return true;
        case 0xc4: return lengthThen(1, at, "bin8", [&](uint64_t n) { return stringOrBinary(Kind::Bin, n, at, "bin8"); });
        case 0xc5: return lengthThen(2, at, "bin16", [&](uint64_t n) { return stringOrBinary(Kind::Bin, n, at, "bin16"); });
        case 0xc6: return lengthThen(4, at, "bin32", [&](uint64_t n) { return stringOrBinary(Kind::Bin, n, at, "bin32"); });
        case 0xc7:
        case 0xc8:
        case 0xc9:
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8:
            return error(ErrorCode::Unsupported,
                "unsupported MessagePack extension type (marker " + hexByte(m)
                    + "): Burn records contain no ext values",
                at);
        case 0xca:
            return scalar(4, at, "float32", [&](const uint8_t* p) { m_builder.f32(std::bit_cast<float>(loadBigEndian<uint32_t>(p)), at); });
        case 0xcb:
            return scalar(8, at, "float64", [&](const uint8_t* p) { m_builder.f64(std::bit_cast<double>(loadBigEndian<uint64_t>(p)), at); });
        case 0xcc: return scalar(1, at, "uint8", [&](const uint8_t* p) { m_builder.uinteger(*p, at); });
        case 0xcd: return scalar(2, at, "uint16", [&](const uint8_t* p) { m_builder.uinteger(loadBigEndian<uint16_t>(p), at); });
        case 0xce: return scalar(4, at, "uint32", [&](const uint8_t* p) { m_builder.uinteger(loadBigEndian<uint32_t>(p), at); });
        case 0xcf: return scalar(8, at, "uint64", [&](const uint8_t* p) { m_builder.uinteger(loadBigEndian<uint64_t>(p), at); });
        case 0xd0: return scalar(1, at, "int8", [&](const uint8_t* p) { m_builder.integer(static_cast<int8_t>(*p), at); });
        case 0xd1:
            return scalar(2, at, "int16", [&](const uint8_t* p) { m_builder.integer(static_cast<int16_t>(loadBigEndian<uint16_t>(p)), at); });
        case 0xd2:
            return scalar(4, at, "int32", [&](const uint8_t* p) { m_builder.integer(static_cast<int32_t>(loadBigEndian<uint32_t>(p)), at); });
        case 0xd3:
            return scalar(8, at, "int64", [&](const uint8_t* p) { m_builder.integer(static_cast<int64_t>(loadBigEndian<uint64_t>(p)), at); });
        case 0xd9: return lengthThen(1, at, "str8", [&](uint64_t n) { return stringOrBinary(Kind::Str, n, at, "str8"); });
        case 0xda: return lengthThen(2, at, "str16", [&](uint64_t n) { return stringOrBinary(Kind::Str, n, at, "str16"); });
        case 0xdb: return lengthThen(4, at, "str32", [&](uint64_t n) { return stringOrBinary(Kind::Str, n, at, "str32"); });
        case 0xdc: return lengthThen(2, at, "array16", [&](uint64_t n) { return openContainer(Kind::Array, n, at, "array16"); });
        case 0xdd: return lengthThen(4, at, "array32", [&](uint64_t n) { return openContainer(Kind::Array, n, at, "array32"); });
        case 0xde: return lengthThen(2, at, "map16", [&](uint64_t n) { return openContainer(Kind::Map, n, at, "map16"); });
        case 0xdf: return lengthThen(4, at, "map32", [&](uint64_t n) { return openContainer(Kind::Map, n, at, "map32"); });
        default: break;
        }
        return error(ErrorCode::Malformed, "unknown MessagePack marker " + hexByte(m), at); // unreachable: all 256 handled
    }

    /** A fixed-size scalar body of \a width bytes after the marker. */
    template<class Emit>
    Result<bool> scalar(uint64_t width, uint64_t at, const char* name, Emit&& emit)
    {
        if (remainingBytes() < width)
            return truncatedHeader(width, at, name, "value");
        emit(m_data + m_pos);
        m_pos += width;
        return true;
    }

    /** Reads a big-endian length field of \a width bytes and passes it on. */
    template<class Next>
    Result<bool> lengthThen(uint64_t width, uint64_t at, const char* name, Next&& next)
    {
        if (remainingBytes() < width)
            return truncatedHeader(width, at, name, "length");
        uint64_t n = 0;
        switch (width) {
        case 1: n = m_data[m_pos]; break;
        case 2: n = loadBigEndian<uint16_t>(m_data + m_pos); break;
        default: n = loadBigEndian<uint32_t>(m_data + m_pos); break;
        }
        m_pos += width;
        return next(n);
    }

    std::unexpected<Error> truncatedHeader(uint64_t width, uint64_t at, const char* name, const char* what)
    {
        return error(ErrorCode::Truncated,
            std::string("truncated: ") + name + " needs " + std::to_string(width) + " " + what
                + (width == 1 ? " byte" : " bytes") + " but only " + std::to_string(remainingBytes())
                + (remainingBytes() == 1 ? " byte remains" : " bytes remain"),
            at);
    }

    /** A str or bin whose payload of \a length bytes starts at m_pos; referenced, never copied. */
    Result<bool> stringOrBinary(Kind kind, uint64_t length, uint64_t at, const char* name)
    {
        if (length > remainingBytes()) {
            return error(ErrorCode::Truncated,
                std::string("truncated: ") + name + " header declares " + std::to_string(length) + " bytes but only "
                    + std::to_string(remainingBytes()) + (remainingBytes() == 1 ? " byte remains" : " bytes remain"),
                at);
        }
        // The bytes are checked once: every str, and a bin only where serde would read it as a key.
        const bool serdeKey = m_options.serdeStrings && decodingKey();
        const size_t bad = kind == Kind::Str || serdeKey ? firstInvalidUtf8(m_data + m_pos, static_cast<size_t>(length)) : length;
        if (kind == Kind::Bin && serdeKey && bad == length)
            kind = Kind::Str;
        else if (m_options.serdeStrings && kind == Kind::Str && !serdeKey && bad != length && valueOfKey("bytes"))
            kind = Kind::Bin; // a TensorData payload: serde_bytes takes the bytes rmp-serde falls back to
        if (kind == Kind::Str) {
            if (bad != length) {
                return error(ErrorCode::Malformed,
                    "expected UTF-8 text in a " + std::string(name) + " of " + std::to_string(length)
                        + " bytes (starting at offset " + std::to_string(at) + "), found invalid byte "
                        + hexByte(m_data[m_pos + bad]) + " at position " + std::to_string(bad),
                    m_pos + bad);
            }
            m_builder.strRef(m_pos, length, at);
        } else {
            m_builder.binRef(m_pos, length, at);
        }
        m_pos += length;
        return true;
    }

    /** The value being decoded is the value of the key \a name in the innermost open map. */
    bool valueOfKey(std::string_view name)
    {
        if (m_stack.empty())
            return false;
        const Frame& f = m_stack.back();
        if (m_builder.node(f.node).kind != Kind::Map || (f.declared - f.remaining) % 2 == 0)
            return false;
        const Node& k = m_builder.node(keyOfValue(f));
        return k.kind == Kind::Str && std::string_view(reinterpret_cast<const char*>(m_data + k.payload), k.count) == name;
    }

    /** The key node of the entry whose value the map frame \a f decodes (its children so far are complete). */
    uint32_t keyOfValue(const Frame& f)
    {
        uint32_t key = f.node + 1; // completed siblings have their final `end`
        for (uint64_t i = 0; i + 1 < f.declared - f.remaining; ++i)
            key = m_builder.node(key).end;
        return key;
    }

    /** The value being decoded is a map key (the innermost open container is a map expecting one). */
    bool decodingKey()
    {
        if (m_stack.empty())
            return false;
        const Frame& f = m_stack.back();
        return m_builder.node(f.node).kind == Kind::Map && (f.declared - f.remaining) % 2 == 0;
    }

    /** Opens an array or map of \a count elements (entries for maps); empty ones close at once (true). */
    Result<bool> openContainer(Kind kind, uint64_t count, uint64_t at, const char* name)
    {
        const bool isMap = kind == Kind::Map;
        const uint64_t children = isMap ? count * 2 : count; // count < 2^32, no overflow
        // Each element takes at least one byte, so a count beyond the remaining bytes is a lie or a
        // truncation; refusing it here keeps a hostile header from driving any allocation.
        if (children > remainingBytes()) {
            return error(ErrorCode::Limit,
                std::string(isMap ? "map" : "array") + " header (" + name + ") declares " + std::to_string(count)
                    + (isMap ? " entries" : " elements") + " but only " + std::to_string(remainingBytes())
                    + (remainingBytes() == 1 ? " byte remains" : " bytes remain")
                    + (isMap ? " (each entry needs at least 2)" : ""),
                at);
        }
        if (m_stack.size() >= m_options.maxDepth) {
            return error(ErrorCode::Limit,
                "nesting deeper than " + std::to_string(m_options.maxDepth) + " containers is refused", at);
        }
        const uint32_t node = isMap ? m_builder.beginMap(at) : m_builder.beginArray(at);
        if (children == 0) {
            m_builder.end();
            return true;
        }
        m_stack.push_back({node, children, children});
        return false;
    }

    /** The error, with the record path of the value being decoded (built only now, from the stack). */
    std::unexpected<Error> error(ErrorCode code, std::string what, uint64_t offset)
    {
        auto e = fail(code, std::move(what), offset);
        e.error().recordPath = currentPath();
        return e;
    }

    /** Text of a completed key node, read straight from the source bytes (strRef keys). */
    std::string keyText(uint32_t k)
    {
        const Node& n = m_builder.node(k);
        switch (n.kind) {
        case Kind::Str: return std::string(reinterpret_cast<const char*>(m_data + n.payload), n.count);
        case Kind::UInt: return std::to_string(n.payload);
        case Kind::Int: return std::to_string(static_cast<int64_t>(n.payload));
        case Kind::Bool: return n.payload ? "true" : "false";
        default: return std::string("<") + kindName(n.kind) + " key>";
        }
    }

    void appendFrame(std::string& path, const Frame& f)
    {
        const uint64_t done = f.declared - f.remaining; // children complete so far
        if (m_builder.node(f.node).kind == Kind::Array) {
            path += '[' + std::to_string(done) + ']';
            return;
        }
        if (done % 2 == 0)
            return; // decoding a key: the map itself is the best place to point at
        const std::string piece = appendKeyToPath(std::string(), keyText(keyOfValue(f)));
        if (!path.empty() && piece.front() != '[')
            path += '.';
        path += piece;
    }

    std::string currentPath()
    {
        // Deep nesting (a hostile file) would make a path of hundreds of kilobytes; keep both ends.
        constexpr size_t kKeep = 24;
        std::string path;
        const size_t depth = m_stack.size();
        for (size_t i = 0; i < depth; ++i) {
            if (depth > 2 * kKeep && i == kKeep) {
                path += "[… " + std::to_string(depth - 2 * kKeep) + " levels …]";
                i = depth - kKeep - 1;
                continue;
            }
            appendFrame(path, m_stack[i]);
        }
        return path;
    }

    TapeBuilder m_builder;
    const uint8_t* m_data;
    uint64_t m_size;
    uint64_t m_pos;
    const MsgpackReadOptions& m_options;
    const Progress& m_progress;
    std::vector<Frame> m_stack;
};

/** Header writer: marker plus big-endian field, collected in a small buffer and put as one span. */
class HeaderWriter {
public:
    explicit HeaderWriter(Sink& out)
        : m_out(out)
    {
    }
    void marker(uint8_t m) { m_out.put(m); }
    template<class T>
    void markerWith(uint8_t m, T v)
    {
        uint8_t buf[1 + sizeof(T)];
        buf[0] = m;
        storeBigEndian(buf + 1, v);
        m_out.put(std::span<const uint8_t>(buf, sizeof buf));
    }

    void unsignedValue(uint64_t v)
    {
        if (v <= 0x7f)
            marker(static_cast<uint8_t>(v));
        else if (v <= 0xff)
            markerWith(0xcc, static_cast<uint8_t>(v));
        else if (v <= 0xffff)
            markerWith(0xcd, static_cast<uint16_t>(v));
        else if (v <= 0xffffffffu)
            markerWith(0xce, static_cast<uint32_t>(v));
        else
            markerWith(0xcf, v);
    }

    void signedValue(int64_t v)
    {
        if (v >= 0)
            unsignedValue(static_cast<uint64_t>(v)); // rmp-serde writes non-negative signed values as unsigned
        else if (v >= -32)
            marker(static_cast<uint8_t>(static_cast<int8_t>(v)));
        else if (v >= std::numeric_limits<int8_t>::min())
            markerWith(0xd0, static_cast<uint8_t>(static_cast<int8_t>(v)));
        else if (v >= std::numeric_limits<int16_t>::min())
            markerWith(0xd1, static_cast<uint16_t>(static_cast<int16_t>(v)));
        else if (v >= std::numeric_limits<int32_t>::min())
            markerWith(0xd2, static_cast<uint32_t>(static_cast<int32_t>(v)));
        else
            markerWith(0xd3, static_cast<uint64_t>(v));
    }

    /**
     * A u128/i128 beyond 64 bits (a Wide128 node, high and low halves of its two's complement) as
     * rmp-serde writes every u128 and i128: serialize_bytes of to_be_bytes(), a bin 8 of 16 bytes.
     */
    void wideInteger(uint64_t high, uint64_t low)
    {
        uint8_t buf[2 + 16] = {0xc4, 16};
        storeBigEndian(buf + 2, high);
        storeBigEndian(buf + 10, low);
        m_out.put(std::span<const uint8_t>(buf, sizeof buf));
    }

    /** Header of a str/bin/array/map: fix form (if the kind has one) or the 8/16/32-bit length. */
    void lengthHeader(uint64_t n, int fixBase, uint64_t fixMax, int m8, uint8_t m16, uint8_t m32)
    {
        if (fixBase >= 0 && n <= fixMax)
            marker(static_cast<uint8_t>(fixBase + static_cast<int>(n)));
        else if (m8 >= 0 && n <= 0xff)
            markerWith(static_cast<uint8_t>(m8), static_cast<uint8_t>(n));
        else if (n <= 0xffff)
            markerWith(m16, static_cast<uint16_t>(n));
        else
            markerWith(m32, static_cast<uint32_t>(n)); // MessagePack cannot express more; tapes from decoders never hold more
    }
    void strHeader(uint64_t n) { lengthHeader(n, 0xa0, 31, 0xd9, 0xda, 0xdb); }
    void binHeader(uint64_t n) { lengthHeader(n, -1, 0, 0xc4, 0xc5, 0xc6); }
    void arrayHeader(uint64_t n) { lengthHeader(n, 0x90, 15, -1, 0xdc, 0xdd); }
    void mapHeader(uint64_t n) { lengthHeader(n, 0x80, 15, -1, 0xde, 0xdf); }

private:
    Sink& m_out;
};

/** The bytes of an array flagged FromBinArray, if it still is a byte sequence. */
std::optional<std::vector<uint8_t>> bytesOfBinArray(const Tape& tape, uint32_t array)
{
    std::vector<uint8_t> bytes;
    bytes.reserve(static_cast<size_t>(tape[array].count));
    bool ok = true;
    tape.forEachChild(array, [&](uint32_t c) {
        const auto v = tape.asU64(c);
        if (!v || *v > 0xff)
            ok = false;
        else
            bytes.push_back(static_cast<uint8_t>(*v));
    });
    if (!ok)
        return std::nullopt;
    return bytes;
}

} // namespace

Result<MsgpackReadResult> readMsgpack(const BytesPtr& bytes, const MsgpackReadOptions& options, const Progress& progress)
{
    if (!bytes)
        return fail(ErrorCode::Usage, "no input bytes given to the MessagePack reader");
    if (options.startOffset > bytes->size()) {
        return fail(ErrorCode::Usage,
            "start offset " + std::to_string(options.startOffset) + " is beyond the end of the input ("
                + std::to_string(bytes->size()) + " bytes)");
    }
    MsgpackDecoder decoder(bytes, options, progress);
    return decoder.run();
}

void writeMsgpack(const Tape& tape, uint32_t node, Sink& out)
{
    HeaderWriter w(out);
    // The tape is in pre-order and so is MessagePack: one linear pass writes the subtree.
    const uint32_t last = tape[node].end;
    for (uint32_t i = node; i < last; ++i) {
        const Node& n = tape[i];
        switch (n.kind) {
        case Kind::Nil: w.marker(0xc0); break;
        case Kind::Bool: w.marker(n.payload ? 0xc3 : 0xc2); break;
        case Kind::UInt:
        case Kind::Int:
            if (n.flags & Wide128)
                w.wideInteger(n.count, n.payload);
            else if (n.kind == Kind::UInt)
                w.unsignedValue(n.payload);
            else
                w.signedValue(static_cast<int64_t>(n.payload));
            break;
        case Kind::F32: w.markerWith(0xca, static_cast<uint32_t>(n.payload)); break;
        case Kind::F64: w.markerWith(0xcb, n.payload); break;
        case Kind::Str:
            w.strHeader(n.count);
            out.put(tape.bin(i)); // Tape::bin gives the raw bytes of Str nodes as well
            break;
        case Kind::Bin:
            w.binHeader(n.count);
            out.put(tape.bin(i));
            break;
        case Kind::Array:
            if (n.flags & FromBinArray) {
                if (auto bytes = bytesOfBinArray(tape, i)) {
                    w.binHeader(bytes->size());
                    out.put(std::span<const uint8_t>(*bytes));
                    i = n.end - 1; // children are consumed
                    break;
                }
            }
            w.arrayHeader(n.count);
            break;
        case Kind::Map: w.mapHeader(n.count); break;
        }
    }
}

/**
 * Index of the first byte that is not part of valid UTF-8, or n when all of \a s is valid. Same rules
 * as Rust's str::from_utf8 (which rmp-serde uses for String): no overlong forms, no surrogates,
 * nothing above U+10FFFF. The ASCII fast path matters for long keys and ids.
 */
size_t firstInvalidUtf8(const uint8_t* s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            std::memcpy(&w, s + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        const uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len = 0;
        uint8_t lo = 0x80, hi = 0xbf; // allowed range of the second byte
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0)
                lo = 0xa0; // overlong
            else if (c == 0xed)
                hi = 0x9f; // surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0)
                lo = 0x90; // overlong
            else if (c == 0xf4)
                hi = 0x8f; // above U+10FFFF
        } else {
            return i;
        }
        if (i + len > n || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k < len; ++k)
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
        i += len;
    }
    return n;
}

} // namespace ckpt
