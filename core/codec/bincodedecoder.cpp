// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// readBincode: the schema-driven decoder, with its backtracking over the ambiguous nodes of a layout.
#include "core/codec/bincode.h"

#include "core/codec/bincodewire.h"
#include "core/codec/msgpack.h"
#include "core/codec/twinagreement.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

namespace ckpt {

using namespace bincode_detail;

namespace {

class Decoder {
    /** A reading chosen for an ambiguous node at its first occurrence; flippable while the other was never tried. */
    struct Decision {
        uint32_t node = 0;
        int8_t choice = 0;
        bool flippable = false;
        bool preferred = true;  ///< the choice is the schema's preferred reading
        std::string path;       ///< where the choice was made (for messages)
    };

public:
    Decoder(const BytesPtr& bytes, const BincodeSchema& schema, const BincodeReadOptions& options)
        : m_bytes(bytes)
        , m_data(bytes ? bytes->span() : std::span<const uint8_t>())
        , m_pos(options.startOffset)
        , m_s(schema)
        , m_pin(schema.nodes.size(), -1)
        , m_trialsLeft(options.maxTrials)
        , m_twin(options.twin)
    {
    }

    /**
     * Decodes the root; when a reading of the ambiguous nodes fails later on (or leaves bytes over),
     * decodes again with the latest decision whose other reading was never tried flipped
     * (chronological backtracking over whole decodes, so a choice that only fails in a later sibling,
     * e.g. a bare `Option<u64>` that misaligns the next field, is still undone).
     *
     * Which reading is kept: the first that consumes every byte. bincode ignores bytes after the value,
     * so a reading that leaves some is kept only when it is the twin's own (every ambiguous node read
     * the preferred way): a reading that needed other choices and still stops short is no evidence of
     * anything (4096 zero bytes read as None after None), and the file is refused with the reason the
     * preferred reading failed. Once a reading is kept, up to kMaxFitChecks of its choices are flipped
     * one at a time; each flip that also decodes the whole file is reported as an ambiguity.
     */
    Result<BincodeReadResult> run()
    {
        if (m_pos > m_data.size())
            return fail(ErrorCode::Usage, "start offset " + std::to_string(m_pos) + " is past the end (" + std::to_string(m_data.size()) + " bytes)");
        const uint64_t start = m_pos;
        std::optional<BincodeReadResult> leavesBytes;
        std::optional<Error> firstRunError;
        for (uint32_t attempt = 0;; ++attempt) {
            restart(start);
            PathLink root;
            auto r = value(m_s.root, &root);
            if (r && m_pos == m_data.size()) {
                auto whole = finish(start);
                reportOtherFits(start, whole);
                return whole;
            }
            if (r && !leavesBytes && allPreferred())
                leavesBytes = finish(start);
            else if (!r && attempt == 0)
                firstRunError = r.error();
            auto next = flippedDecisions();
            if (!next || attempt + 1 >= kMaxRedecodes || m_trialsLeft == 0)
                break;
            --m_trialsLeft;
            m_forced = std::move(*next);
        }
        if (leavesBytes)
            return std::move(*leavesBytes);
        if (firstRunError)
            return std::unexpected(std::move(*firstRunError));
        if (m_preferredFailure) {
            Error e = std::move(*m_preferredFailure);
            e.what = "no reading of the layout decodes the whole record, and the preferred one fails: " + e.what;
            return std::unexpected(std::move(e));
        }
        return fail(ErrorCode::Invalid, "no reading of the layout decodes the whole record", start);
    }

private:
    /** Choices of a kept reading checked for a second reading that fits (each check is one more decode). */
    static constexpr size_t kMaxFitChecks = 64;

    bool allPreferred() const
    {
        return std::all_of(m_pinLog.begin(), m_pinLog.end(), [](const Decision& d) { return d.preferred; });
    }

    /** Flips each untried choice of the kept reading alone; a flip that also decodes everything is an ambiguity. */
    void reportOtherFits(uint64_t start, BincodeReadResult& kept)
    {
        const std::vector<Decision> decisions = m_pinLog;
        size_t checked = 0;
        for (size_t i = 0; i < decisions.size() && checked < kMaxFitChecks && m_trialsLeft > 0; ++i) {
            if (!decisions[i].flippable)
                continue;
            ++checked;
            m_forced.assign(decisions.begin(), decisions.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            m_forced.back().choice = int8_t(1 - m_forced.back().choice);
            m_forced.back().flippable = false;
            restart(start);
            PathLink root;
            --m_trialsLeft;
            // A reading that gives the very same values (a u8 4 or a usize 4, Some(x) or a bare x) is
            // only another spelling of the type: not worth a word.
            if (!value(m_s.root, &root) || m_pos != m_data.size() || sameValues(kept.tape))
                continue;
            const TwinVerdict verdict = twinVerdict(kept.tape, decisions[i].path);
            if (verdict == TwinVerdict::Kept)
                continue;
            if (verdict == TwinVerdict::Other) {
                std::vector<std::string> said = std::move(kept.ambiguities);
                kept = finish(start);
                kept.ambiguities = std::move(said);
                break;
            }
            kept.ambiguities.push_back(describeChoice(decisions[i], decisions[i].choice) + " was kept; " + describeChoice(decisions[i], m_forced.back().choice)
                + " also decodes the whole record");
        }
        m_forced.clear();
    }

    enum class TwinVerdict : uint8_t { Neither, Kept, Other };
    /** Which of the kept reading and the one just decoded shows the twin's values at \a path, if only one does. */
    TwinVerdict twinVerdict(const Tape& kept, const std::string& path) const
    {
        if (!m_twin)
            return TwinVerdict::Neither;
        auto nodeAt = [&](const Tape& t) -> std::optional<uint32_t> {
            if (path.empty())
                return t.root();
            auto steps = parsePath(path);
            auto node = steps ? resolvePath(t, *steps) : std::unexpected(steps.error());
            return node ? std::optional(*node) : std::nullopt;
        };
        const auto inTwin = nodeAt(*m_twin);
        if (!inTwin)
            return TwinVerdict::Neither;
        Tape other;
        other.nodes = m_nodes;
        other.pool = m_pool;
        other.source = m_bytes;
        const auto inKept = nodeAt(kept), inOther = nodeAt(other);
        const bool keptAgrees = inKept && agreesWithTwin(kept, *inKept, *m_twin, *inTwin);
        const bool otherAgrees = inOther && agreesWithTwin(other, *inOther, *m_twin, *inTwin);
        return keptAgrees == otherAgrees ? TwinVerdict::Neither : keptAgrees ? TwinVerdict::Kept : TwinVerdict::Other;
    }

    bool sameValues(const Tape& kept) const
    {
        if (kept.nodes.size() != m_nodes.size())
            return false;
        for (size_t k = 0; k < m_nodes.size(); ++k) {
            const Node& a = kept.nodes[k];
            const Node& b = m_nodes[k];
            if (a.kind != b.kind || a.count != b.count || a.end != b.end || a.flags != b.flags)
                return false;
            if (a.flags & InPool) {
                // Names: pool offsets depend on which trials ran first; compare the text.
                if (std::memcmp(kept.pool.data() + a.payload, m_pool.data() + b.payload, a.count) != 0)
                    return false;
            } else if (a.payload != b.payload) {
                return false; // the value itself, or an offset in the input (equal offsets hold equal bytes)
            }
        }
        return true;
    }

    std::string describeChoice(const Decision& d, int8_t choice) const
    {
        const SchemaNode& n = m_s.nodes[d.node];
        std::string what;
        switch (n.kind) {
        case SchemaKind::Option: what = choice == 1 ? "a bare value" : "an Option"; break;
        case SchemaKind::Seq: what = choice == 1 ? "a tuple of " + std::to_string(n.tupleArity) : "a Vec"; break;
        default: {
            const SchemaNode& e = m_s.nodes[n.elements[static_cast<size_t>(choice)]];
            what = std::string("a ") + schemaKindName(e.kind) + (e.name.empty() ? "" : " " + e.name);
        }
        }
        return (d.path.empty() ? std::string("item") : d.path) + " read as " + what;
    }

private:
    /** Whole decodes a backtracking run may take (each is linear in the file, payloads are skipped). */
    static constexpr uint32_t kMaxRedecodes = 256;

    void restart(uint64_t start)
    {
        m_pos = start;
        m_nodes.clear();
        m_pool.clear();
        m_names.clear();
        std::fill(m_pin.begin(), m_pin.end(), int8_t(-1));
        m_pinLog.clear();
        m_twinEnums.clear();
        m_nonCanonical = 0;
    }

    BincodeReadResult finish(uint64_t start)
    {
        BincodeReadResult out;
        out.tape.nodes = std::move(m_nodes);
        out.tape.pool = std::move(m_pool);
        out.tape.source = m_bytes;
        out.consumed = m_pos - start;
        out.nonCanonicalVarints = m_nonCanonical;
        out.resolved = resolvedSchema();
        return out;
    }

    /** The decisions of the last run up to its latest flippable one, that one flipped; none when all were tried. */
    std::optional<std::vector<Decision>> flippedDecisions() const
    {
        for (size_t i = m_pinLog.size(); i-- > 0;) {
            if (!m_pinLog[i].flippable)
                continue;
            std::vector<Decision> next(m_pinLog.begin(), m_pinLog.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            next.back().choice = int8_t(1 - next.back().choice);
            next.back().flippable = false;
            return next;
        }
        return std::nullopt;
    }

    // ----- errors -----
    std::unexpected<Error> error(ErrorCode code, std::string what, uint64_t offset, const PathLink* path) const
    {
        Error e;
        e.code = code;
        e.what = std::move(what);
        e.offset = offset;
        e.recordPath = renderPath(path, [&](uint64_t keyNode) { return keyText(static_cast<uint32_t>(keyNode)); });
        return std::unexpected(std::move(e));
    }
    std::string keyText(uint32_t k) const
    {
        const Node& n = m_nodes[k];
        if (n.kind == Kind::Str) {
            const uint8_t* base = (n.flags & InPool) ? m_pool.data() : m_data.data();
            return std::string(reinterpret_cast<const char*>(base + n.payload), n.count);
        }
        if (n.kind == Kind::UInt)
            return std::to_string(n.payload);
        if (n.kind == Kind::Int)
            return std::to_string(static_cast<int64_t>(n.payload));
        return std::string("<") + kindName(n.kind) + " key>";
    }
    std::unexpected<Error> truncated(const char* what, const PathLink* path) const
    {
        return error(ErrorCode::Truncated, std::string("input ends inside ") + what + " (" + std::to_string(m_data.size()) + " bytes in all)", m_pos, path);
    }

    uint64_t remaining() const { return m_data.size() - m_pos; }

    // ----- primitives -----
    Result<uint64_t> varint(const char* what, const PathLink* path)
    {
        if (m_pos >= m_data.size())
            return truncated(what, path);
        const uint64_t at = m_pos;
        const uint8_t b = m_data[m_pos];
        auto little = [&](size_t n, uint64_t minCanonical) -> Result<uint64_t> {
            if (remaining() < 1 + n)
                return truncated(what, path);
            uint64_t v = 0;
            for (size_t k = 0; k < n; ++k)
                v |= uint64_t(m_data[m_pos + 1 + k]) << (8 * k);
            m_pos += 1 + n;
            if (v < minCanonical)
                ++m_nonCanonical; // bincode 1.3 accepts these; counted so callers know re-encoding differs
            return v;
        };
        if (b < kU16Marker) {
            ++m_pos;
            return b;
        }
        if (b == kU16Marker)
            return little(2, kU16Marker);
        if (b == kU32Marker)
            return little(4, 0x10000);
        if (b == kU64Marker)
            return little(8, 0x100000000ull);
        return error(ErrorCode::Malformed,
            std::string("expected a varint (") + what + "), found marker 0x" + (b == 0xfe ? "fe (u128, not valid here)" : "ff (reserved)"), at, path);
    }

    uint32_t pushNode(Kind k, uint64_t payload, uint64_t count, uint64_t src, uint8_t flags = 0)
    {
        const auto idx = static_cast<uint32_t>(m_nodes.size());
        m_nodes.push_back(Node{k, flags, 0, idx + 1, count, payload, src});
        return idx;
    }
    void close(uint32_t idx, uint64_t count)
    {
        m_nodes[idx].end = static_cast<uint32_t>(m_nodes.size());
        m_nodes[idx].count = count;
    }
    /** Names (struct fields, variants) go to the pool once each. */
    uint32_t pushName(std::string_view name, uint64_t src)
    {
        auto it = m_names.find(std::string(name));
        uint64_t off;
        if (it == m_names.end()) {
            off = m_pool.size();
            m_pool.insert(m_pool.end(), name.begin(), name.end());
            m_names.emplace(std::string(name), off);
        } else {
            off = it->second;
        }
        return pushNode(Kind::Str, off, name.size(), src, InPool);
    }

    // ----- the walk: one function per kind of schema node -----
    // The per-kind functions are inlined into value(), which is the decoder's hot loop: out of line,
    // `ckpt info` of a bincode record with 192k tensors spent about 10% longer in the decoder.
    Result<void> value(uint32_t si, const PathLink* path)
    {
        const SchemaNode& sn = m_s.nodes[si];
        switch (sn.kind) {
        case SchemaKind::Bool: return boolValue(path);
        case SchemaKind::U8:
        case SchemaKind::I8: return byteValue(sn.kind, path);
        case SchemaKind::U16:
        case SchemaKind::U32:
        case SchemaKind::U64:
        case SchemaKind::Usize: return unsignedValue(sn.kind, path);
        case SchemaKind::I16:
        case SchemaKind::I32:
        case SchemaKind::I64: return signedValue(sn.kind, path);
        case SchemaKind::U128:
        case SchemaKind::I128: return wideValue(sn.kind == SchemaKind::I128, path);
        case SchemaKind::F32: return floatValue<uint32_t>(Kind::F32, "an f32", path);
        case SchemaKind::F64: return floatValue<uint64_t>(Kind::F64, "an f64", path);
        case SchemaKind::Str:
        case SchemaKind::Bytes: return bytesValue(sn.kind == SchemaKind::Str, path);
        case SchemaKind::Char: return charValue(path);
        case SchemaKind::Unit: pushNode(Kind::Nil, 0, 0, m_pos); return {};
        case SchemaKind::UnitStruct: close(pushNode(Kind::Array, 0, 0, m_pos), 0); return {};
        case SchemaKind::Empty: return emptyValue(path);
        case SchemaKind::Option:
            if (sn.maybeBare)
                return ambiguous(si, path);
            return optionValue(si, path);
        case SchemaKind::Seq:
            if (sn.maybeTuple)
                return ambiguous(si, path);
            return seqValue(si, path, false);
        case SchemaKind::Either: return ambiguous(si, path);
        case SchemaKind::Map: return mapValue(sn, path);
        case SchemaKind::Tuple: return tupleValue(sn, path);
        case SchemaKind::Struct: return structValue(sn, path);
        case SchemaKind::Enum: return enumValue(si, path);
        case SchemaKind::DType: return dtypeValue(sn, path);
        }
        return error(ErrorCode::Invalid, "unknown schema node kind", m_pos, path);
    }

    [[gnu::always_inline]] Result<void> boolValue(const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < 1)
            return truncated("a bool", path);
        const uint8_t b = m_data[m_pos];
        if (b > 1)
            return error(ErrorCode::Malformed, "expected a bool (00 or 01), found 0x" + hex(b), at, path);
        ++m_pos;
        pushNode(Kind::Bool, b, 0, at);
        return {};
    }

    /** u8 and i8: one byte each, not a varint. */
    [[gnu::always_inline]] Result<void> byteValue(SchemaKind kind, const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < 1)
            return truncated(kind == SchemaKind::U8 ? "a u8" : "an i8", path);
        const uint8_t b = m_data[m_pos++];
        if (kind == SchemaKind::U8)
            pushNode(Kind::UInt, b, 0, at);
        else
            pushNode(Kind::Int, static_cast<uint64_t>(int64_t(int8_t(b))), 0, at);
        return {};
    }

    [[gnu::always_inline]] Result<void> unsignedValue(SchemaKind kind, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto v = varint(schemaKindName(kind), path);
        if (!v)
            return std::unexpected(v.error());
        const uint64_t max = kind == SchemaKind::U16 ? 0xffff : kind == SchemaKind::U32 ? 0xffffffffu : ~uint64_t(0);
        if (*v > max)
            return error(ErrorCode::Invalid, std::to_string(*v) + " does not fit in a " + schemaKindName(kind), at, path);
        pushNode(Kind::UInt, *v, 0, at);
        return {};
    }

    /** i16, i32, i64: zigzag varints. */
    [[gnu::always_inline]] Result<void> signedValue(SchemaKind kind, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto v = varint(schemaKindName(kind), path);
        if (!v)
            return std::unexpected(v.error());
        const int64_t x = static_cast<int64_t>(*v >> 1) ^ -static_cast<int64_t>(*v & 1);
        const int64_t lim = kind == SchemaKind::I16 ? 0x7fff : kind == SchemaKind::I32 ? 0x7fffffff : std::numeric_limits<int64_t>::max();
        if (x > lim || x < -lim - 1)
            return error(ErrorCode::Invalid, std::to_string(x) + " does not fit in an " + schemaKindName(kind), at, path);
        pushNode(Kind::Int, static_cast<uint64_t>(x), 0, at);
        return {};
    }

    /** A u128/i128 varint: fe carries 16 little-endian bytes; the shorter markers as for u64. */
    Result<UInt128> varint128(const char* what, const PathLink* path)
    {
        if (m_pos >= m_data.size() || m_data[m_pos] != kU128Marker) {
            auto v = varint(what, path);
            if (!v)
                return std::unexpected(v.error());
            return UInt128(*v);
        }
        if (remaining() < 17)
            return truncated(what, path);
        UInt128 v = 0;
        for (int k = 16; k >= 1; --k)
            v = (v << 8) | m_data[m_pos + static_cast<uint64_t>(k)];
        m_pos += 17;
        if ((v >> 64) == 0)
            ++m_nonCanonical;
        return v;
    }

    static UInt128 unzigzag(UInt128 v) { return (v >> 1) ^ (UInt128(0) - (v & 1)); }

    /** u128/i128: on the tape the 16 big-endian bytes rmp-serde writes for them (a Bin, in the pool). */
    Result<void> wideValue(bool isSigned, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto v = varint128(isSigned ? "an i128" : "a u128", path);
        if (!v)
            return std::unexpected(v.error());
        std::array<uint8_t, 16> bigEndian{};
        put128BigEndian(isSigned ? unzigzag(*v) : *v, bigEndian.data());
        const uint64_t offset = m_pool.size();
        m_pool.insert(m_pool.end(), bigEndian.begin(), bigEndian.end());
        pushNode(Kind::Bin, offset, bigEndian.size(), at, InPool);
        return {};
    }

    /** f32 and f64: their little-endian bits, kept as they are in the node's payload. */
    template<class Bits>
    [[gnu::always_inline]] Result<void> floatValue(Kind kind, const char* what, const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < sizeof(Bits))
            return truncated(what, path);
        Bits bits = 0;
        std::memcpy(&bits, m_data.data() + m_pos, sizeof(Bits));
        if constexpr (std::endian::native == std::endian::big)
            bits = std::byteswap(bits);
        m_pos += sizeof(Bits);
        pushNode(kind, bits, 0, at);
        return {};
    }

    /** A String (UTF-8 checked) or a serde_bytes payload: a length and the bytes, referenced in place. */
    [[gnu::always_inline]] Result<void> bytesValue(bool isStr, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto len = varint(isStr ? "a string length" : "a byte length", path);
        if (!len)
            return std::unexpected(len.error());
        if (*len > remaining())
            return error(ErrorCode::Truncated,
                std::string(isStr ? "string" : "byte array") + " declares " + std::to_string(*len) + " bytes but only " + std::to_string(remaining())
                    + " remain",
                at, path);
        if (isStr && firstInvalidUtf8(m_data.data() + m_pos, *len) != *len) // Rust's str::from_utf8
            return error(ErrorCode::Malformed, "string is not valid UTF-8", m_pos, path);
        pushNode(isStr ? Kind::Str : Kind::Bin, m_pos, *len, at);
        m_pos += *len;
        return {};
    }

    /** A char: one UTF-8 sequence, its length told by its first byte (serde's char through bincode). */
    Result<void> charValue(const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < 1)
            return truncated("a char", path);
        const uint8_t lead = m_data[m_pos];
        const uint64_t length = utf8SequenceLength(lead);
        if (length > remaining())
            return truncated("a char", path);
        if (firstInvalidUtf8(m_data.data() + m_pos, length) != length)
            return error(ErrorCode::Malformed, "not a char (one UTF-8 sequence)", at, path);
        pushNode(Kind::Str, m_pos, length, at);
        m_pos += length;
        return {};
    }

    /** Burn's EmptyRecord/ConstantRecord: always written as None (00). */
    [[gnu::always_inline]] Result<void> emptyValue(const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < 1)
            return truncated("an empty record (00)", path);
        if (m_data[m_pos] != 0)
            return error(ErrorCode::Malformed, "expected an empty record (00), found 0x" + hex(m_data[m_pos]), at, path);
        ++m_pos;
        pushNode(Kind::Nil, 0, 0, at);
        return {};
    }

    [[gnu::always_inline]] Result<void> mapValue(const SchemaNode& sn, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto count = varint("a map length", path);
        if (!count)
            return std::unexpected(count.error());
        if (auto r = checkCount(*count, m_s.minEncodedSize(sn.elements[0]) + m_s.minEncodedSize(sn.elements[1]), at, "map", path); !r)
            return r;
        const uint32_t idx = pushNode(Kind::Map, 0, 0, at);
        for (uint64_t k = 0; k < *count; ++k) {
            const uint32_t keyNode = static_cast<uint32_t>(m_nodes.size());
            PathLink kp{path, PathLink::Index, {}, k};
            if (auto r = value(sn.elements[0], &kp); !r)
                return r;
            PathLink vp{path, PathLink::TapeKey, {}, keyNode};
            if (auto r = value(sn.elements[1], &vp); !r)
                return r;
        }
        close(idx, *count);
        return {};
    }

    [[gnu::always_inline]] Result<void> tupleValue(const SchemaNode& sn, const PathLink* path)
    {
        const uint32_t idx = pushNode(Kind::Array, 0, 0, m_pos);
        for (size_t k = 0; k < sn.elements.size(); ++k) {
            PathLink ep{path, PathLink::Index, {}, k};
            if (auto r = value(sn.elements[k], &ep); !r)
                return r;
        }
        close(idx, sn.elements.size());
        return {};
    }

    /** A struct: its fields in declaration order, no names nor count on the wire; a map on the tape. */
    [[gnu::always_inline]] Result<void> structValue(const SchemaNode& sn, const PathLink* path)
    {
        const uint64_t at = m_pos;
        const uint32_t idx = pushNode(Kind::Map, 0, 0, at);
        for (const auto& f : sn.fields) {
            pushName(f.name, m_pos);
            PathLink fp{path, PathLink::Key, f.name, 0};
            if (auto r = value(f.type, &fp); !r)
                return r;
        }
        close(idx, sn.fields.size());
        if (m_trialDepth > 0)
            return checkConsistency(sn, idx, at, path);
        return {};
    }

    /** A u32 variant index, then the payload: a unit variant is its name, others {name: payload}. */
    Result<void> enumValue(uint32_t si, const PathLink* path)
    {
        const SchemaNode& sn = m_s.nodes[si];
        const uint64_t at = m_pos;
        auto index = varint("an enum variant index", path);
        if (!index)
            return std::unexpected(index.error());
        if (*index > 0xffffffffu)
            return error(ErrorCode::Invalid, "enum variant index " + std::to_string(*index) + " does not fit in a u32", at, path);
        auto position =
            sn.indicesFromTwin ? variantFromTwin(si, static_cast<uint32_t>(*index), at, path) : variantAtIndex(sn, static_cast<uint32_t>(*index), at, path);
        if (!position)
            return std::unexpected(position.error());
        const SchemaVariant& v = sn.variants[*position];
        if (v.kind == VariantKind::Unit) {
            pushName(v.name, at);
            return {};
        }
        const uint32_t idx = pushNode(Kind::Map, 0, 0, at);
        pushName(v.name, at);
        PathLink vp{path, PathLink::Key, v.name, 0};
        if (auto r = value(v.payload, &vp); !r)
            return r;
        close(idx, 1);
        return {};
    }

    Result<size_t> variantAtIndex(const SchemaNode& sn, uint32_t index, uint64_t at, const PathLink* path) const
    {
        for (size_t k = 0; k < sn.variants.size(); ++k)
            if (variantIndex(sn.variants[k], k) == index)
                return k;
        return error(ErrorCode::Invalid,
            "invalid variant index " + std::to_string(index) + " of enum " + (sn.name.empty() ? std::string("?") : sn.name) + " (it has "
                + std::to_string(sn.variants.size()) + " variants)",
            at, path);
    }

    /**
     * An enum a twin showed: the variant is the one the twin names at this occurrence, and the index
     * read here becomes its index, which every other occurrence must agree with. Past the twin's
     * occurrences (a twin with fewer elements), only indices seen before are known.
     */
    Result<size_t> variantFromTwin(uint32_t si, uint32_t index, uint64_t at, const PathLink* path)
    {
        const SchemaNode& sn = m_s.nodes[si];
        TwinEnumState& state = m_twinEnums[si];
        const uint32_t occurrence = state.occurrences++;
        auto bound = std::find_if(state.bound.begin(), state.bound.end(), [&](const auto& b) { return b.first == index; });
        if (occurrence >= sn.twinSeen.size()) {
            if (bound != state.bound.end())
                return bound->second;
            return error(ErrorCode::Invalid,
                sn.twinSeen.empty()
                    ? "the bincode indices of enum " + sn.name + " are unknown (a twin shows names, not indices): the schema needs \"indices\""
                    : "enum variant index " + std::to_string(index) + ": the twin shows no variant here and no earlier occurrence had this index",
                at, path);
        }
        const std::string& name = sn.twinSeen[occurrence];
        const auto named = std::find_if(sn.variants.begin(), sn.variants.end(), [&](const SchemaVariant& v) { return v.name == name; });
        if (named == sn.variants.end())
            return error(ErrorCode::Invalid, "the layout lists no variant " + name + " the twin shows here", at, path);
        const auto position = static_cast<size_t>(named - sn.variants.begin());
        if (bound != state.bound.end() && bound->second != position)
            return error(ErrorCode::Invalid,
                "enum variant index " + std::to_string(index) + " is " + sn.variants[bound->second].name + " earlier, but the twin shows " + name + " here", at,
                path);
        for (const auto& [otherIndex, otherPosition] : state.bound)
            if (otherPosition == position && otherIndex != index)
                return error(ErrorCode::Invalid,
                    "the twin shows " + name + " here, with variant index " + std::to_string(index) + "; earlier it had index " + std::to_string(otherIndex),
                    at, path);
        if (bound == state.bound.end())
            state.bound.emplace_back(index, position);
        return position;
    }

    /** Burn's DType by the index of the schema's table; 0.21's Bool carries a BoolStore index after it. */
    [[gnu::always_inline]] Result<void> dtypeValue(const SchemaNode& sn, const PathLink* path)
    {
        const uint64_t at = m_pos;
        auto index = varint("a DType index", path);
        if (!index)
            return std::unexpected(index.error());
        const auto d = *index <= 0xffffffffu ? dtypeFromIndex(sn.dtypeTable, static_cast<uint32_t>(*index)) : std::nullopt;
        if (!d)
            return error(ErrorCode::Invalid,
                "invalid DType index " + std::to_string(*index) + " for the " + std::string(dtypeTableName(sn.dtypeTable)) + " table", at, path);
        if (*d == DType::QFloat)
            return error(ErrorCode::Unsupported, "quantized tensors (DType QFloat) are not supported in bincode records", at, path);
        if (*d == DType::Bool && sn.dtypeTable == DTypeTable::Burn021) {
            auto store = varint("a BoolStore index", path);
            if (!store)
                return std::unexpected(store.error());
            if (*store > uint64_t(BoolStore::U32))
                return error(ErrorCode::Invalid, "invalid BoolStore index " + std::to_string(*store), at, path);
            const uint32_t idx = pushNode(Kind::Map, 0, 0, at);
            pushName("Bool", at);
            pushName(boolStoreName(static_cast<BoolStore>(*store)), at);
            close(idx, 1);
            return {};
        }
        pushName(dtypeName(*d), at);
        return {};
    }

    static std::string hex(uint8_t b)
    {
        static const char* digits = "0123456789abcdef";
        return {digits[b >> 4], digits[b & 15]};
    }

    Result<void> checkCount(uint64_t count, uint64_t minElement, uint64_t at, const char* what, const PathLink* path) const
    {
        // Elements that may take zero bytes (units) still cost a tape node each: allow a bounded number.
        constexpr uint64_t kZeroSizeAllowance = 1 << 16;
        const bool ok = minElement == 0 ? count <= remaining() + kZeroSizeAllowance : count <= remaining() / minElement;
        if (!ok)
            return error(ErrorCode::Limit,
                std::string(what) + " declares " + std::to_string(count) + " elements of at least " + std::to_string(minElement) + " byte(s), but only "
                    + std::to_string(remaining()) + " bytes remain",
                at, path);
        return {};
    }

    Result<void> optionValue(uint32_t si, const PathLink* path)
    {
        const uint64_t at = m_pos;
        if (remaining() < 1)
            return truncated("an Option tag", path);
        const uint8_t tag = m_data[m_pos];
        if (tag > 1)
            return error(ErrorCode::Malformed, "expected an Option tag (00 None or 01 Some), found 0x" + hex(tag), at, path);
        ++m_pos;
        if (tag == 0) {
            pushNode(Kind::Nil, 0, 0, at);
            return {};
        }
        return value(m_s.nodes[si].elements[0], path);
    }

    Result<void> seqValue(uint32_t si, const PathLink* path, bool asTuple)
    {
        const SchemaNode& sn = m_s.nodes[si];
        const uint64_t at = m_pos;
        uint64_t count = sn.tupleArity;
        if (!asTuple) {
            auto c = varint("a sequence length", path);
            if (!c)
                return std::unexpected(c.error());
            count = *c;
        }
        if (auto r = checkCount(count, m_s.minEncodedSize(sn.elements[0]), at, "sequence", path); !r)
            return r;
        const uint32_t idx = pushNode(Kind::Array, 0, 0, at);
        for (uint64_t k = 0; k < count; ++k) {
            PathLink ep{path, PathLink::Index, {}, k};
            if (auto r = value(sn.elements[0], &ep); !r)
                return r;
        }
        close(idx, count);
        return {};
    }

    /**
     * An Option that may be a bare T, or a Vec that may be a tuple: the first occurrence tries the
     * preferred reading, then the other, each a complete decode of the subtree with consistency checks
     * (ParamSerde id lengths, TensorData byte counts); the reading that works is pinned for every later
     * occurrence of the node (and reported in the resolved schema).
     */
    Result<void> ambiguous(uint32_t si, const PathLink* path)
    {
        const SchemaNode& sn = m_s.nodes[si];
        auto decodeAs = [&](int8_t choice) -> Result<void> {
            if (sn.kind == SchemaKind::Either)
                return value(sn.elements[static_cast<size_t>(choice)], path);
            if (sn.kind == SchemaKind::Option)
                return choice == 1 ? value(sn.elements[0], path) : optionValue(si, path);
            return seqValue(si, path, choice == 1);
        };
        if (m_pin[si] >= 0)
            return decodeAs(m_pin[si]);
        // A later run of the backtracking replays the earlier decisions and takes the flipped one.
        const size_t decision = m_pinLog.size();
        const bool forced = decision < m_forced.size() && m_forced[decision].node == si;
        // A u128 or an i128: the reading that gives the twin's value, when it shows one, is the type.
        const std::optional<int8_t> byTwin = twinReading(sn, path);
        const int8_t preferred = byTwin ? *byTwin : preferredReading(sn);
        const int8_t first = forced ? m_forced[decision].choice : preferred;
        const std::string where = renderPath(path, [&](uint64_t keyNode) { return keyText(static_cast<uint32_t>(keyNode)); });
        std::optional<Error> firstError;
        for (int8_t choice : {first, int8_t(1 - first)}) {
            if (m_trialsLeft == 0)
                return error(ErrorCode::Limit, "too many trial decodes of ambiguous schema nodes", m_pos, path);
            --m_trialsLeft;
            const uint64_t pos = m_pos;
            const size_t nodes = m_nodes.size();
            const size_t pins = m_pinLog.size();
            const uint64_t nonCanonical = m_nonCanonical;
            const auto twinEnums = m_twinEnums;
            m_pin[si] = choice;
            const bool flippable = !byTwin && (forced ? m_forced[decision].flippable : choice == first);
            m_pinLog.push_back({si, choice, flippable, choice == preferred, where});
            ++m_trialDepth;
            auto r = decodeAs(choice);
            --m_trialDepth;
            if (r)
                return r;
            if (!firstError)
                firstError = r.error();
            if (choice == preferred && !m_preferredFailure)
                m_preferredFailure = r.error();
            m_pos = pos;
            m_nodes.resize(nodes);
            while (m_pinLog.size() > pins) {
                m_pin[m_pinLog.back().node] = -1;
                m_pinLog.pop_back();
            }
            m_nonCanonical = nonCanonical;
            m_twinEnums = twinEnums;
            if (forced)
                break; // the other reading of a forced decision was tried by an earlier run
        }
        return std::unexpected(*firstError);
    }

    /**
     * Either of u128 and i128 where the twin showed the value (its 16 big-endian bytes): the reading
     * of the varint here that gives them; nullopt without a twin value or when neither does (the
     * twin is another record), and the bytes are left to settle it.
     */
    std::optional<int8_t> twinReading(const SchemaNode& sn, const PathLink* path)
    {
        if (sn.kind != SchemaKind::Either || sn.twinSeen.empty() || sn.twinSeen[0].size() != 16)
            return std::nullopt;
        const uint64_t pos = m_pos, nonCanonical = m_nonCanonical;
        auto v = varint128("a u128 or an i128", path);
        m_pos = pos;
        m_nonCanonical = nonCanonical;
        if (!v)
            return std::nullopt;
        const UInt128 twin = get128BigEndian(reinterpret_cast<const uint8_t*>(sn.twinSeen[0].data()));
        for (int8_t choice : {int8_t(0), int8_t(1)}) {
            const SchemaKind k = m_s.nodes[sn.elements[static_cast<size_t>(choice)]].kind;
            if ((k == SchemaKind::U128 && *v == twin) || (k == SchemaKind::I128 && unzigzag(*v) == twin))
                return choice;
        }
        return std::nullopt;
    }

    /**
     * 1 for the alternative (bare T, tuple), 0 for the declared reading (Option, Vec). A maybe-tuple
     * Seq's arity is the length its twin had: a Vec reading whose count differs from it is the less
     * likely one (`(true, false)` = `01 00` also reads as a Vec of one `false`), so the tuple goes first.
     */
    int8_t preferredReading(const SchemaNode& sn) const
    {
        if (sn.kind == SchemaKind::Either)
            return 0;
        if (sn.kind == SchemaKind::Seq && !sn.preferAlternative && m_pos < m_data.size()) {
            const uint8_t b = m_data[m_pos];
            if (b < kU16Marker && b != sn.tupleArity)
                return 1;
        }
        return sn.preferAlternative ? 1 : 0;
    }

    /** Burn invariants used to reject a wrong reading of an ambiguous node. */
    Result<void> checkConsistency(const SchemaNode& sn, uint32_t idx, uint64_t at, const PathLink* path) const
    {
        auto field = [&](std::string_view name) -> std::optional<uint32_t> {
            for (uint32_t k = idx + 1; k < m_nodes[idx].end;) {
                const uint32_t v = m_nodes[k].end;
                if (keyText(k) == name)
                    return v;
                k = m_nodes[v].end;
            }
            return std::nullopt;
        };
        if (sn.name == "ParamSerde") {
            auto id = field("id");
            if (id && m_nodes[*id].kind == Kind::Str) {
                const uint64_t n = m_nodes[*id].count;
                if (n != 10 && n != 13 && n != 36)
                    return error(ErrorCode::Invalid, "a ParamSerde id has 10, 13 or 36 characters, not " + std::to_string(n), at, path);
            }
        } else if (sn.name == "TensorData") {
            auto bytes = field("bytes");
            auto shape = field("shape");
            auto dt = field("dtype");
            if (bytes && shape && dt && m_nodes[*dt].kind == Kind::Str && m_nodes[*shape].kind == Kind::Array) {
                const auto d = dtypeFromName(keyText(*dt));
                if (d && *d != DType::QFloat && *d != DType::Bool) {
                    uint64_t product = dtypeSize(*d);
                    bool overflow = false;
                    for (uint32_t c = *shape + 1; c < m_nodes[*shape].end && !overflow; c = m_nodes[c].end)
                        overflow = __builtin_mul_overflow(product, m_nodes[c].payload, &product);
                    if (overflow || product != m_nodes[*bytes].count) {
                        const bool rank0 = m_nodes[*shape].count == 0;
                        return error(ErrorCode::Invalid,
                            "TensorData of " + std::string(rank0 ? "rank 0 (one element)" : "rank " + std::to_string(m_nodes[*shape].count)) + " and dtype "
                                + std::string(dtypeName(*d)) + " needs " + (overflow ? std::string("more than 2^64") : std::to_string(product))
                                + " bytes, found " + std::to_string(m_nodes[*bytes].count),
                            at, path);
                    }
                }
            }
        }
        return {};
    }

    BincodeSchema resolvedSchema() const
    {
        VariantIndices bound;
        for (const auto& [node, state] : m_twinEnums)
            bound[node] = state.bound;
        return resolveSchema(m_s, m_pin, bound);
    }

    BytesPtr m_bytes;
    std::span<const uint8_t> m_data;
    uint64_t m_pos;
    const BincodeSchema& m_s;
    std::vector<Node> m_nodes;
    std::vector<uint8_t> m_pool;
    std::unordered_map<std::string, uint64_t> m_names;
    std::vector<int8_t> m_pin;
    std::vector<Decision> m_pinLog;   ///< first occurrences of ambiguous nodes, in decoding order
    std::vector<Decision> m_forced;   ///< decisions a backtracking run replays
    uint32_t m_trialsLeft;
    const Tape* m_twin;
    uint32_t m_trialDepth = 0;
    std::optional<Error> m_preferredFailure; ///< the first failure of a preferred reading, in any run
    /** An enum a twin showed (indicesFromTwin): its occurrences so far and the indices they bound. */
    struct TwinEnumState {
        uint32_t occurrences = 0;
        std::vector<std::pair<uint32_t, size_t>> bound; ///< (bincode index, variant position)
    };
    std::map<uint32_t, TwinEnumState> m_twinEnums; ///< by schema node; part of a trial's state
    uint64_t m_nonCanonical = 0;
};

} // namespace

Result<BincodeReadResult> readBincode(const BytesPtr& bytes, const BincodeSchema& schema, const BincodeReadOptions& options)
{
    if (auto v = schema.validate(); !v)
        return std::unexpected(v.error());
    Decoder d(bytes, schema, options);
    return d.run();
}

} // namespace ckpt
