// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// writeBincode: a tape encoded as the schema's type, the inverse of the decoder.
#include "core/codec/bincode.h"

#include "core/codec/bincodewire.h"
#include "core/util/utf8.h"

#include <array>
#include <bit>
#include <charconv>
#include <limits>

namespace ckpt {

using namespace bincode_detail;

namespace {

void putVarint(Sink& out, uint64_t v)
{
    uint8_t buf[9];
    size_t n = 0;
    if (v < kU16Marker) {
        buf[n++] = static_cast<uint8_t>(v);
    } else {
        const size_t width = v <= 0xffff ? 2 : v <= 0xffffffffu ? 4 : 8;
        buf[n++] = width == 2 ? kU16Marker : width == 4 ? kU32Marker : kU64Marker;
        for (size_t k = 0; k < width; ++k)
            buf[n++] = static_cast<uint8_t>(v >> (8 * k));
    }
    out.put(std::span<const uint8_t>(buf, n));
}

class Encoder {
public:
    Encoder(const Tape& t, const BincodeSchema& s, Sink& out)
        : m_t(t)
        , m_s(s)
        , m_out(out)
    {
    }

    /** Dispatches by the schema node's kind, one function per kind (inlined: the walk keeps the code it had as one switch). */
    Result<void> value(uint32_t si, uint32_t ti, const PathLink* path)
    {
        const SchemaNode& sn = m_s.nodes[si];
        const Node& tn = m_t[ti];
        switch (sn.kind) {
        case SchemaKind::Bool:
            if (tn.kind != Kind::Bool)
                return mismatch("a bool", ti, path);
            m_out.put(static_cast<uint8_t>(tn.payload ? 1 : 0));
            return {};
        case SchemaKind::U8:
        case SchemaKind::U16:
        case SchemaKind::U32:
        case SchemaKind::U64:
        case SchemaKind::Usize: return unsignedValue(sn.kind, ti, path);
        case SchemaKind::I8:
        case SchemaKind::I16:
        case SchemaKind::I32:
        case SchemaKind::I64: return signedValue(sn.kind, ti, path);
        case SchemaKind::U128:
        case SchemaKind::I128: return wideValue(sn.kind == SchemaKind::I128, ti, path);
        case SchemaKind::F32: return f32Value(ti, path);
        case SchemaKind::F64: return f64Value(ti, path);
        case SchemaKind::Str:
            if (tn.kind != Kind::Str)
                return mismatch("a string", ti, path);
            putVarint(m_out, tn.count);
            m_out.put(m_t.bin(ti));
            return {};
        case SchemaKind::Bytes: return bytesValue(ti, path);
        case SchemaKind::Char:
            // One scalar value: 1-4 bytes of UTF-8 (the Str is valid UTF-8 already), no length.
            if (tn.kind != Kind::Str || tn.count == 0 || tn.count > 4 || utf8SequenceLength(m_t.bin(ti)[0]) != tn.count)
                return mismatch("a char (one Unicode scalar value)", ti, path);
            m_out.put(m_t.bin(ti));
            return {};
        case SchemaKind::Unit:
            if (tn.kind != Kind::Nil && !(tn.kind == Kind::Array && tn.count == 0))
                return mismatch("() (nil)", ti, path);
            return {};
        case SchemaKind::UnitStruct:
            if (tn.kind != Kind::Nil && !(tn.kind == Kind::Array && tn.count == 0))
                return mismatch("a unit struct (empty array or nil)", ti, path);
            return {};
        case SchemaKind::Empty:
            // EmptyRecord/ConstantRecord serialize as None whatever was recorded (Burn ignores the value).
            m_out.put(uint8_t(0));
            return {};
        case SchemaKind::Option: return optionValue(sn, ti, path);
        case SchemaKind::Either: return eitherValue(sn, ti, path);
        case SchemaKind::Seq:
        case SchemaKind::Tuple: return seqValue(sn, ti, path);
        case SchemaKind::Map: return mapValue(sn, ti, path);
        case SchemaKind::Struct: return structValue(sn, ti, path);
        case SchemaKind::Enum: return enumValue(sn, ti, path);
        case SchemaKind::DType: return dtypeValue(sn, ti, path);
        }
        return error(ErrorCode::Invalid, "unknown schema node kind", ti, path);
    }

private:
    /** u8 as one byte, the wider ones as varints. */
    [[gnu::always_inline]] Result<void> unsignedValue(SchemaKind kind, uint32_t ti, const PathLink* path)
    {
        if (m_t.isWide(ti))
            return error(ErrorCode::Invalid, m_t.integerText(ti) + " does not fit in a " + schemaKindName(kind), ti, path);
        auto v = m_t.asU64(ti);
        if (!v && m_inKey && m_t[ti].kind == Kind::Str)
            v = keyNumber<uint64_t>(ti);
        if (!v)
            return mismatch(std::string("an unsigned integer (") + schemaKindName(kind) + ")", ti, path);
        const uint64_t max = kind == SchemaKind::U8 ? 0xff : kind == SchemaKind::U16 ? 0xffff : kind == SchemaKind::U32 ? 0xffffffffu : ~uint64_t(0);
        if (*v > max)
            return error(ErrorCode::Invalid, std::to_string(*v) + " does not fit in a " + schemaKindName(kind), ti, path);
        if (kind == SchemaKind::U8)
            m_out.put(static_cast<uint8_t>(*v));
        else
            putVarint(m_out, *v);
        return {};
    }

    /** i8 as one byte, the wider ones as zigzag varints. */
    [[gnu::always_inline]] Result<void> signedValue(SchemaKind kind, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        if (m_t.isWide(ti))
            return error(ErrorCode::Invalid, m_t.integerText(ti) + " does not fit in an " + schemaKindName(kind), ti, path);
        int64_t x;
        if (tn.kind == Kind::Int || (tn.kind == Kind::UInt && tn.payload <= uint64_t(std::numeric_limits<int64_t>::max())))
            x = static_cast<int64_t>(tn.payload);
        else if (auto k = m_inKey && tn.kind == Kind::Str ? keyNumber<int64_t>(ti) : std::nullopt)
            x = *k;
        else
            return mismatch(std::string("a signed integer (") + schemaKindName(kind) + ")", ti, path);
        const int64_t lim = kind == SchemaKind::I8 ? 0x7f
            : kind == SchemaKind::I16              ? 0x7fff
            : kind == SchemaKind::I32              ? 0x7fffffff
                                                   : std::numeric_limits<int64_t>::max();
        if (x > lim || x < -lim - 1)
            return error(ErrorCode::Invalid, std::to_string(x) + " does not fit in an " + schemaKindName(kind), ti, path);
        if (kind == SchemaKind::I8)
            m_out.put(static_cast<uint8_t>(static_cast<int8_t>(x)));
        else
            putVarint(m_out, (static_cast<uint64_t>(x) << 1) ^ static_cast<uint64_t>(x >> 63));
        return {};
    }

    /**
     * u128/i128 from what the tape holds for them: rmp-serde's 16 big-endian bytes, or an integer
     * (serde_json writes their digits). Written as bincode's varint (zigzag for i128), with the fe
     * marker and 16 little-endian bytes beyond 64 bits.
     */
    Result<void> wideValue(bool isSigned, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        UInt128 v = 0;
        if (tn.kind == Kind::Bin && tn.count == 16)
            v = get128BigEndian(m_t.bin(ti).data());
        else if (tn.kind == Kind::UInt)
            v = m_t.u128(ti);
        else if (tn.kind == Kind::Int)
            v = static_cast<UInt128>(m_t.i128(ti));
        else
            return mismatch(isSigned ? "an i128 (16 bytes or an integer)" : "a u128 (16 bytes or an integer)", ti, path);
        if (isSigned) {
            const bool negative = (v >> 127) != 0;
            v = (v << 1) ^ (negative ? ~UInt128(0) : UInt128(0));
        }
        if ((v >> 64) == 0) {
            putVarint(m_out, static_cast<uint64_t>(v));
            return {};
        }
        std::array<uint8_t, 17> buf{};
        buf[0] = kU128Marker;
        for (size_t k = 1; k < buf.size(); ++k, v >>= 8)
            buf[k] = static_cast<uint8_t>(v);
        m_out.put(std::span<const uint8_t>(buf.data(), buf.size()));
        return {};
    }

    [[gnu::always_inline]] Result<void> f32Value(uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        float f;
        if (tn.kind == Kind::F32)
            f = m_t.f32(ti);
        else if (tn.kind == Kind::F64)
            f = static_cast<float>(m_t.f64(ti)); // JSON records carry every float as f64
        else
            return mismatch("an f32", ti, path);
        putLittleEndian(std::bit_cast<uint32_t>(f));
        return {};
    }

    [[gnu::always_inline]] Result<void> f64Value(uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        if (tn.kind != Kind::F64 && tn.kind != Kind::F32)
            return mismatch("an f64", ti, path);
        putLittleEndian(std::bit_cast<uint64_t>(m_t.f64(ti)));
        return {};
    }

    /** A float's bits as bincode writes them (little endian, whatever the machine). */
    template<class Bits>
    void putLittleEndian(Bits bits)
    {
        uint8_t b[sizeof(Bits)];
        for (size_t k = 0; k < sizeof(Bits); ++k)
            b[k] = static_cast<uint8_t>(bits >> (8 * k));
        m_out.put(std::span<const uint8_t>(b, sizeof(Bits)));
    }

    [[gnu::always_inline]] Result<void> bytesValue(uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        if (tn.kind == Kind::Bin) {
            putVarint(m_out, tn.count);
            m_out.put(m_t.bin(ti));
            return {};
        }
        if (tn.kind == Kind::Array) { // serde_bytes also reads a sequence of u8 (JSON integer arrays)
            putVarint(m_out, tn.count);
            Result<void> r;
            uint64_t k = 0;
            m_t.forEachChild(ti, [&](uint32_t c) {
                const auto v = m_t.asU64(c);
                if (r && (!v || *v > 255)) {
                    PathLink ep{path, PathLink::Index, {}, k};
                    r = mismatch("a byte 0..255", c, &ep);
                }
                if (r)
                    m_out.put(static_cast<uint8_t>(*v));
                ++k;
            });
            return r;
        }
        return mismatch("bytes", ti, path);
    }

    [[gnu::always_inline]] Result<void> optionValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        if (m_t[ti].kind == Kind::Nil) {
            if (sn.maybeBare && sn.preferAlternative && m_s.nodes[sn.elements[0]].kind == SchemaKind::Empty)
                return value(sn.elements[0], ti, path);
            m_out.put(uint8_t(0));
            return {};
        }
        if (!(sn.maybeBare && sn.preferAlternative))
            m_out.put(uint8_t(1));
        return value(sn.elements[0], ti, path);
    }

    [[gnu::always_inline]] Result<void> eitherValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        // Unsettled (nothing was decoded with it): the first reading that takes this value.
        Sink trial;
        Encoder first(m_t, m_s, trial);
        first.m_inKey = m_inKey;
        if (first.value(sn.elements[0], ti, path)) {
            m_out.put(std::span<const uint8_t>(trial.buffer()));
            return {};
        }
        return value(sn.elements[1], ti, path);
    }

    /** A Vec (a length, then the elements) or a tuple (the elements alone). */
    [[gnu::always_inline]] Result<void> seqValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        if (tn.kind != Kind::Array)
            return mismatch("an array", ti, path);
        const bool tuple = sn.kind == SchemaKind::Tuple || (sn.maybeTuple && sn.preferAlternative);
        if (tuple) {
            const uint64_t arity = sn.kind == SchemaKind::Tuple ? sn.elements.size() : sn.tupleArity;
            if (tn.count != arity)
                return error(ErrorCode::Invalid, "expected a tuple of " + std::to_string(arity) + ", found an array of " + std::to_string(tn.count), ti, path);
        } else {
            putVarint(m_out, tn.count);
        }
        Result<void> r;
        uint64_t k = 0;
        m_t.forEachChild(ti, [&](uint32_t c) {
            if (!r)
                return;
            PathLink ep{path, PathLink::Index, {}, k};
            r = value(sn.kind == SchemaKind::Tuple ? sn.elements[k] : sn.elements[0], c, &ep);
            ++k;
        });
        return r;
    }

    [[gnu::always_inline]] Result<void> mapValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        if (tn.kind != Kind::Map)
            return mismatch("a map", ti, path);
        putVarint(m_out, tn.count);
        Result<void> r;
        uint64_t k = 0;
        m_t.forEachEntry(ti, [&](uint32_t key, uint32_t val) {
            if (!r)
                return;
            PathLink kp{path, PathLink::Index, {}, k++};
            m_inKey = true;
            r = value(sn.elements[0], key, &kp);
            m_inKey = false;
            if (!r)
                return;
            PathLink vp{path, PathLink::TapeKey, {}, key};
            r = value(sn.elements[1], val, &vp);
        });
        return r;
    }

    /** The fields in declaration order, looked up by name in the tape's map. */
    [[gnu::always_inline]] Result<void> structValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        if (m_t[ti].kind != Kind::Map)
            return mismatch("a struct (map)" + (sn.name.empty() ? std::string() : " " + sn.name), ti, path);
        for (const auto& f : sn.fields) {
            PathLink fp{path, PathLink::Key, f.name, 0};
            const auto v = m_t.find(ti, f.name);
            if (!v) {
                const SchemaKind fk = m_s.nodes[f.type].kind;
                if (fk == SchemaKind::Option || fk == SchemaKind::Empty || fk == SchemaKind::Unit || fk == SchemaKind::UnitStruct) {
                    // MessagePack/JSON loaders take a missing Option as None; mirror that.
                    if (fk == SchemaKind::Option || fk == SchemaKind::Empty)
                        m_out.put(uint8_t(0));
                    continue;
                }
                return error(ErrorCode::Invalid, "missing field '" + f.name + "'", ti, path);
            }
            if (auto r = value(f.type, *v, &fp); !r)
                return r;
        }
        return {};
    }

    /** A variant by name (a unit variant) or {name: payload}: its index, then the payload. */
    [[gnu::always_inline]] Result<void> enumValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        std::string_view name;
        std::optional<uint32_t> payload;
        if (tn.kind == Kind::Str) {
            name = m_t.str(ti);
        } else if (tn.kind == Kind::Map && tn.count == 1 && m_t.isStr(ti + 1)) {
            name = m_t.str(ti + 1);
            payload = m_t[ti + 1].end;
        } else {
            return mismatch("an enum variant (name or {name: value})", ti, path);
        }
        for (uint32_t k = 0; k < sn.variants.size(); ++k) {
            const SchemaVariant& v = sn.variants[k];
            if (v.name != name)
                continue;
            if ((v.kind == VariantKind::Unit) != !payload)
                return error(ErrorCode::Invalid, "variant '" + v.name + (payload ? "' has no payload" : "' needs a payload"), ti, path);
            putVarint(m_out, variantIndex(v, k));
            if (!payload)
                return {};
            PathLink vp{path, PathLink::Key, v.name, 0};
            return value(v.payload, *payload, &vp);
        }
        return error(ErrorCode::Invalid, "'" + std::string(name) + "' is not a variant of enum " + (sn.name.empty() ? std::string("?") : sn.name), ti, path);
    }

    /** A DType name as the index of the schema's table; 0.21's {Bool: store} with its BoolStore index. */
    [[gnu::always_inline]] Result<void> dtypeValue(const SchemaNode& sn, uint32_t ti, const PathLink* path)
    {
        const Node& tn = m_t[ti];
        std::string_view name;
        std::optional<uint32_t> store;
        if (tn.kind == Kind::Str) {
            name = m_t.str(ti);
        } else if (tn.kind == Kind::Map && tn.count == 1 && m_t.isStr(ti + 1) && m_t.str(ti + 1) == "Bool") {
            name = "Bool";
            store = m_t[ti + 1].end;
        } else {
            return mismatch("a DType name", ti, path);
        }
        const auto d = dtypeFromName(name);
        const auto index = d ? dtypeIndex(sn.dtypeTable, *d) : std::nullopt;
        if (!index || *d == DType::QFloat)
            return error(ErrorCode::Invalid,
                "DType '" + std::string(name) + "' cannot be written with the " + std::string(dtypeTableName(sn.dtypeTable)) + " table", ti, path);
        putVarint(m_out, *index);
        if (*d == DType::Bool && sn.dtypeTable == DTypeTable::Burn021) {
            BoolStore storeValue = BoolStore::Native; // a bare "Bool" of an older file means Native
            if (store) {
                if (!m_t.isStr(*store))
                    return mismatch("a BoolStore name", *store, path);
                const auto s = boolStoreFromName(m_t.str(*store));
                if (!s)
                    return error(ErrorCode::Invalid, "unknown BoolStore '" + std::string(m_t.str(*store)) + "'", *store, path);
                storeValue = *s;
            }
            putVarint(m_out, uint64_t(storeValue));
        } else if (store) {
            return error(ErrorCode::Invalid, "Bool(BoolStore) cannot be written with the " + std::string(dtypeTableName(sn.dtypeTable)) + " table", ti, path);
        }
        return {};
    }
    /**
     * JSON writes every map key as a string: serde_json's key deserializer reads an integer key from
     * its decimal text, so an integer-keyed map of a JSON record is re-encoded the same way.
     */
    template<class T>
    std::optional<T> keyNumber(uint32_t ti) const
    {
        const std::string_view text = m_t.str(ti);
        T v{};
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || text.empty())
            return std::nullopt;
        return v;
    }

    bool m_inKey = false; ///< encoding a map key (integer keys may be JSON strings)

    std::unexpected<Error> error(ErrorCode code, std::string what, uint32_t ti, const PathLink* path) const
    {
        Error e;
        e.code = code;
        e.what = std::move(what);
        e.recordPath = renderPath(path, [&](uint64_t key) { return m_t.keyText(static_cast<uint32_t>(key)); });
        (void)ti;
        return std::unexpected(std::move(e));
    }
    std::unexpected<Error> mismatch(const std::string& expected, uint32_t ti, const PathLink* path) const
    {
        return error(ErrorCode::Invalid, "expected " + expected + ", found a " + kindName(m_t[ti].kind), ti, path);
    }

    const Tape& m_t;
    const BincodeSchema& m_s;
    Sink& m_out;
};

} // namespace

Result<void> writeBincode(const Tape& tape, uint32_t node, const BincodeSchema& schema, Sink& out)
{
    if (auto v = schema.validate(); !v)
        return std::unexpected(v.error());
    if (node >= tape.nodes.size())
        return fail(ErrorCode::Usage, "tape node " + std::to_string(node) + " does not exist");
    Encoder e(tape, schema, out);
    PathLink root;
    if (auto r = e.value(schema.root, node, &root); !r)
        return r;
    return out.ok() ? Result<void>() : out.finish();
}

} // namespace ckpt
