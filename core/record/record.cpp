// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The serde envelope family: decoding and indexing its records, and writing them in any of its recorders.
#include "core/record/record.h"

#include "core/codec/json.h"
#include "core/codec/msgpack.h"
#include "core/record/bincoderecord.h"
#include "core/record/index.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace ckpt {

namespace {

bool isByteSequence(const Tape& t, uint32_t node)
{
    if (!t.isArray(node) || t[node].end != node + 1 + t[node].count)
        return false;
    bool bytes = true;
    t.forEachChild(node, [&](uint32_t c) { bytes = bytes && t[c].kind == Kind::UInt && !t.isWide(c) && t.u64(c) <= 255; });
    return bytes;
}

void copyPackingBytes(TapeBuilder& b, const Tape& t, uint32_t node)
{
    const Node& n = t[node];
    if (n.kind == Kind::Map) {
        b.beginMap(n.srcOffset);
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            b.copy(t, k);
            if (t.isStr(k) && t.str(k) == "bytes" && isByteSequence(t, v)) {
                std::vector<uint8_t> bytes;
                t.forEachChild(v, [&](uint32_t c) { bytes.push_back(static_cast<uint8_t>(t.u64(c))); });
                b.bin(bytes, t[v].srcOffset);
            } else {
                copyPackingBytes(b, t, v);
            }
        });
        b.end();
    } else if (n.kind == Kind::Array) {
        b.beginArray(n.srcOffset);
        t.forEachChild(node, [&](uint32_t c) { copyPackingBytes(b, t, c); });
        b.end();
    } else {
        b.copy(t, node);
    }
}

/**
 * serde_bytes reads a TensorData's bytes from a MessagePack array of u8 as well as from a bin (no
 * recorder writes one, but rmp-serde accepts it): such arrays become Bin nodes, as the JSON reader
 * packs them, so the payload is contiguous.
 */
void packMsgpackByteArrays(Tape& t)
{
    bool any = false;
    for (uint32_t i = 0; i < t.nodes.size() && !any; ++i)
        if (t.isMap(i))
            t.forEachEntry(i, [&](uint32_t k, uint32_t v) { any = any || (t.isStr(k) && t.str(k) == "bytes" && t.isArray(v) && isByteSequence(t, v)); });
    if (!any)
        return;
    TapeBuilder b(t.source);
    copyPackingBytes(b, t, 0);
    t = std::move(b).finish();
}

} // namespace

namespace {
/** How an envelope record's (inflated) bytes are encoded. */
enum class RecordWire { Msgpack, Json, Bincode };

bool isSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/** From the first bytes after gzip: a MessagePack map, JSON (or a BOM, which the JSON reader rejects), else bincode. */
RecordWire sniffRecordWire(std::span<const uint8_t> d)
{
    if (d.empty())
        return RecordWire::Bincode;
    const uint8_t b = d[0];
    if ((b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf)
        return RecordWire::Msgpack;
    size_t i = 0;
    while (i < d.size() && isSpace(d[i]))
        ++i;
    if (i < d.size() && (d[i] == '{' || d[i] == '['))
        return RecordWire::Json;
    if (d.size() >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
        return RecordWire::Json; // a BOM: let the JSON reader reject it with serde_json's message
    return RecordWire::Bincode;
}

/** The recorder that writes this wire format, compressed or not. */
Recorder recorderOf(RecordWire wire, bool gzip)
{
    switch (wire) {
    case RecordWire::Msgpack: return gzip ? Recorder::NamedMpkGz : Recorder::NamedMpk;
    case RecordWire::Json: return gzip ? Recorder::JsonGz : Recorder::PrettyJson;
    case RecordWire::Bincode: return gzip ? Recorder::BinGz : Recorder::Bin;
    }
    return Recorder::NamedMpk;
}

/** The wire format a recorder of this family writes. */
RecordWire wireOf(Recorder r)
{
    switch (r) {
    case Recorder::PrettyJson:
    case Recorder::JsonGz: return RecordWire::Json;
    case Recorder::Bin:
    case Recorder::BinGz: return RecordWire::Bincode;
    default: return RecordWire::Msgpack;
    }
}
} // namespace

Result<std::shared_ptr<const Record>> openEnvelopeFile(const std::string& path, const OpenOptions& options)
{
    Result<BytesPtr> bytes = path == "-" ? readStdin() : mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto input = recordInputOf(*bytes, path, options.limits, Progress::none());
    if (!input)
        return std::unexpected(std::move(input.error()));
    return openEnvelope(*input, options, Progress::none());
}

Result<std::shared_ptr<const Record>> openEnvelope(const RecordInput& input, const OpenOptions& options, const Progress& progress)
{
    const std::string& name = input.name;
    const BytesPtr& decoded = input.decoded;
    auto rec = std::make_shared<Record>();
    rec->file = name;
    rec->fileSize = input.file->size();
    rec->decodedSize = decoded->size();
    const RecordWire wire = options.assumeRecorder ? wireOf(*options.assumeRecorder) : sniffRecordWire(decoded->span());
    if (!options.assumeRecorder && wire == RecordWire::Bincode && looksLikeText(decoded->span()))
        return std::unexpected(Error{ErrorCode::Invalid,
            "not a checkpoint: plain text that is not JSON (expected a Burn record: MessagePack, JSON or bincode; "
            "a GradientCheckpoint; a CAR file; or a run directory)",
            name, uint64_t(0)});
    switch (wire) {
    case RecordWire::Msgpack: {
        MsgpackReadOptions mo;
        mo.serdeStrings = true; // a record is judged as rmp-serde reads it into Burn's types
        auto r = readMsgpack(decoded, mo, progress);
        if (!r)
            return std::unexpected(std::move(r.error()).withFile(name));
        rec->tape = std::move(r->tape);
        packMsgpackByteArrays(rec->tape);
        if (r->consumed < decoded->size())
            rec->warnings.push_back(std::to_string(decoded->size() - r->consumed) + " trailing bytes after the record at offset "
                + std::to_string(r->consumed) + " (rmp-serde ignores them)");
        break;
    }
    case RecordWire::Json: {
        auto r = readJson(decoded, {}, progress);
        if (!r)
            return std::unexpected(std::move(r.error()).withFile(name));
        rec->tape = std::move(*r);
        break;
    }
    case RecordWire::Bincode: {
        auto r = decodeBincodeRecord(decoded, options, *rec);
        if (!r)
            return std::unexpected(std::move(r.error()).withFile(name));
        break;
    }
    }
    rec->recorder = options.assumeRecorder.value_or(recorderOf(wire, input.gzipped));
    if (rec->partial)
        return std::shared_ptr<const Record>(std::move(rec));
    if (auto r = indexEnvelope(*rec, options.lenient); !r)
        return std::unexpected(std::move(r.error()).withFile(name));
    if (rec->damage.empty()) {
        if (auto r = checkRecordTypes(*rec); !r) {
            if (!options.lenient)
                return std::unexpected(std::move(r.error()).withFile(name));
            rec->damage = r.error().message();
        }
    }
    if (!rec->damage.empty())
        rec->partial = true;
    return std::shared_ptr<const Record>(std::move(rec));
}

Result<std::shared_ptr<const Record>> indexRecord(Tape tape, Recorder recorder, const std::string& name)
{
    auto rec = std::make_shared<Record>();
    rec->file = name;
    rec->tape = std::move(tape);
    rec->recorder = recorder;
    if (auto r = indexEnvelope(*rec, false); !r)
        return std::unexpected(std::move(r.error()).withFile(name));
    return std::shared_ptr<const Record>(std::move(rec));
}

// ---------------------------------------------------------------------------------------------
// Writing

namespace {

/// Pretty JSON of a nested value: serde_json's output at depth 0 with every line break re-indented.
void writeJsonIndented(const Tape& t, uint32_t node, Sink& out, int depth)
{
    const std::string indent(size_t(depth) * 2, ' ');
    Sink inner([&](std::span<const uint8_t> chunk) -> Result<void> {
        size_t start = 0;
        for (size_t i = 0; i < chunk.size(); ++i) {
            if (chunk[i] == '\n') {
                out.put(chunk.subspan(start, i + 1 - start));
                out.put(indent);
                start = i + 1;
            }
        }
        out.put(chunk.subspan(start));
        return {};
    });
    writeJson(t, node, JsonStyle::Pretty, inner);
    (void)inner.finish();
}

Result<void> encodeEnvelope(const Tape& env, Recorder recorder, Sink& out, const BincodeSchema* schema)
{
    if (env.empty() || !env.isMap(0))
        return fail(ErrorCode::Invalid, "expected a record envelope map to encode");
    switch (recorder) {
    case Recorder::NamedMpk:
    case Recorder::NamedMpkGz: {
        const uint64_t n = env[0].count;
        if (n < 16) {
            out.put(static_cast<uint8_t>(0x80 | n));
        } else {
            out.put(uint8_t(0xde));
            out.put(static_cast<uint8_t>(n >> 8));
            out.put(static_cast<uint8_t>(n));
        }
        env.forEachEntry(0, [&](uint32_t k, uint32_t v) {
            writeMsgpack(env, k, out);
            if (env.isStr(k) && env.str(k) == "_b")
                out.put(uint8_t(0x90)); // PhantomData: rmp-serde writes a unit struct as []
            else
                writeMsgpack(env, v, out);
        });
        return {};
    }
    case Recorder::PrettyJson:
    case Recorder::JsonGz: {
        const bool pretty = recorder == Recorder::PrettyJson; // JsonGz uses serde_json::to_writer (compact)
        out.put(std::string_view("{"));
        bool first = true;
        env.forEachEntry(0, [&](uint32_t k, uint32_t v) {
            std::string key;
            appendJsonQuoted(key, env.keyText(k));
            if (pretty) {
                out.put(std::string_view(first ? "\n  " : ",\n  "));
                out.put(key);
                out.put(std::string_view(": "));
            } else {
                if (!first)
                    out.put(uint8_t(','));
                out.put(key);
                out.put(uint8_t(':'));
            }
            first = false;
            if (env.isStr(k) && env.str(k) == "_b")
                out.put(std::string_view("null"));
            else if (pretty)
                writeJsonIndented(env, v, out, 1);
            else
                writeJson(env, v, JsonStyle::Compact, out);
        });
        out.put(std::string_view(pretty && !first ? "\n}" : "}"));
        return {};
    }
    case Recorder::Bin:
    case Recorder::BinGz: return encodeBincodeRecord(env, out, schema);
    default:
        return fail(ErrorCode::Unsupported,
            "a Burn <= 0.21 record is not written as " + std::string(recorderName(recorder)) + " by re-encoding: use `ckpt migrate IN OUT_DIR` (Burn 0.22's model/optim/scheduler files)");
    }
    return {};
}

} // namespace

Result<std::vector<uint8_t>> encodeRecord(const Tape& env, Recorder recorder, const BincodeSchema* schema)
{
    Sink sink;
    if (auto r = encodeEnvelope(env, recorder, sink, schema); !r)
        return std::unexpected(r.error());
    if (auto r = sink.finish(); !r)
        return std::unexpected(r.error());
    if (isGzipped(recorder))
        return gzip(sink.buffer());
    return std::move(sink.buffer());
}

Result<void> saveRecord(const Tape& env, Recorder recorder, const std::string& path, const BincodeSchema* schema)
{
    if (isGzipped(recorder)) {
        auto bytes = encodeRecord(env, recorder, schema);
        if (!bytes)
            return std::unexpected(std::move(bytes.error()).withFile(path));
        return writeFileAtomic(path, *bytes);
    }
    // Uncompressed: stream, so a 1 GiB record is never held twice in memory.
    return writeFileAtomic(path, [&](const auto& downstream) -> Result<void> {
        Sink sink(downstream);
        if (auto r = encodeEnvelope(env, recorder, sink, schema); !r)
            return r;
        return sink.finish();
    });
}

// ---------------------------------------------------------------------------------------------
// Precision conversion

namespace {

struct Converter {
    const Record& rec;
    Precision to;
    ConvertResult& report;
    TapeBuilder& b;
    uint64_t rounded = 0, overflowed = 0, flushed = 0, narrowed = 0;

    DType floatTarget() const { return to == Precision::Half ? DType::F16 : to == Precision::Double ? DType::F64 : DType::F32; }
    DType intTarget() const { return to == Precision::Half ? DType::I16 : to == Precision::Double ? DType::I64 : DType::I32; }

    std::vector<uint8_t> convertFloats(const TensorEntry& t, DType target)
    {
        const uint64_t n = t.numel;
        std::vector<uint8_t> out(n * dtypeSize(target));
        auto src = rec.payload(t);
        for (uint64_t i = 0; i < n; ++i) {
            const double v = elementAt(t.dtype, src, i);
            switch (target) {
            case DType::F16: {
                // half::f16::from_f32 of the stored f32 (Burn converts via the element's f32 value).
                const uint16_t h = t.dtype == DType::F64 ? doubleToHalf(v) : floatToHalf(static_cast<float>(v));
                const double back = halfToFloat(h);
                if (std::isfinite(v) && !std::isfinite(back))
                    ++overflowed;
                else if (v != 0 && back == 0)
                    ++flushed;
                else if (back != v && !(std::isnan(v) && std::isnan(back)))
                    ++rounded;
                std::memcpy(out.data() + i * 2, &h, 2);
                break;
            }
            case DType::F32: {
                const float f = static_cast<float>(v);
                if (std::isfinite(v) && !std::isfinite(f))
                    ++overflowed;
                else if (double(f) != v && !(std::isnan(v)))
                    ++rounded;
                std::memcpy(out.data() + i * 4, &f, 4);
                break;
            }
            default: {
                std::memcpy(out.data() + i * 8, &v, 8);
                break;
            }
            }
        }
        return out;
    }

    std::vector<uint8_t> convertInts(const TensorEntry& t, DType target)
    {
        const uint64_t n = t.numel;
        std::vector<uint8_t> out(n * dtypeSize(target));
        auto src = rec.payload(t);
        for (uint64_t i = 0; i < n; ++i) {
            int64_t v = 0;
            switch (t.dtype) {
            case DType::I64: std::memcpy(&v, src.data() + i * 8, 8); break;
            case DType::I32: { int32_t x; std::memcpy(&x, src.data() + i * 4, 4); v = x; break; }
            case DType::I16: { int16_t x; std::memcpy(&x, src.data() + i * 2, 2); v = x; break; }
            default: v = static_cast<int64_t>(elementAt(t.dtype, src, i));
            }
            switch (target) {
            case DType::I16: { auto x = static_cast<int16_t>(v); narrowed += (x != v); std::memcpy(out.data() + i * 2, &x, 2); break; }
            case DType::I32: { auto x = static_cast<int32_t>(v); narrowed += (x != v); std::memcpy(out.data() + i * 4, &x, 4); break; }
            default: std::memcpy(out.data() + i * 8, &v, 8);
            }
        }
        return out;
    }

    /// Copies the subtree at \a node, replacing every indexed tensor's dtype and bytes.
    void copy(uint32_t node)
    {
        copyReplacing(b, rec.tape, node, [&](uint32_t n) {
            const auto it = tensorAt.find(n);
            if (it == tensorAt.end())
                return false;
            emitTensor(rec.tensors[it->second]);
            return true;
        });
    }

    void emitTensor(const TensorEntry& e)
    {
        const Tape& t = rec.tape;
        const bool isF = isFloat(e.dtype) && e.dtype != DType::QFloat;
        const bool isI = e.dtype == DType::I16 || e.dtype == DType::I32 || e.dtype == DType::I64;
        if (e.legacy) {
            // {value: [...], shape}: values in the target element type (f16 as u16 bits).
            b.beginMap();
            t.forEachEntry(e.node, [&](uint32_t k, uint32_t v) {
                b.copy(t, k);
                if (v != e.dataNode) {
                    b.copy(t, v);
                    return;
                }
                auto vals = rec.values(e, 0, UINT64_MAX); // a legacy tensor: its numbers on the tape
                b.beginArray();
                for (double x : vals) {
                    if (isI)
                        b.integer(static_cast<int64_t>(x));
                    else if (to == Precision::Half)
                        b.uinteger(doubleToHalf(x));
                    else if (to == Precision::Full)
                        b.f32(static_cast<float>(x));
                    else
                        b.f64(x);
                }
                b.end();
            });
            b.end();
            ++report.tensorsConverted;
            return;
        }
        DType target = e.dtype;
        std::vector<uint8_t> bytes;
        if (isF) {
            target = floatTarget();
            if (target != e.dtype)
                bytes = convertFloats(e, target);
        } else if (isI) {
            target = intTarget();
            if (target != e.dtype)
                bytes = convertInts(e, target);
        }
        if (target == e.dtype) {
            b.copy(t, e.node);
            return;
        }
        ++report.tensorsConverted;
        b.beginMap(t[e.node].srcOffset);
        t.forEachEntry(e.node, [&](uint32_t k, uint32_t v) {
            b.copy(t, k);
            const std::string key = t.keyText(k);
            if (key == "bytes")
                b.bin(bytes, 0, t[v].flags & FromJsonArray);
            else if (key == "dtype")
                b.str(dtypeName(target));
            else
                b.copy(t, v);
        });
        b.end();
    }

    std::unordered_map<uint32_t, size_t> tensorAt;
};

} // namespace

Result<Tape> convertedEnvelope(const Record& record, Recorder recorder, Precision precision, ConvertResult& report)
{
    if (record.partial)
        return fail(ErrorCode::Unsupported, "the bincode record was only scanned (no schema): pass --schema-from or --schema to convert it");
    const Tape& t = record.tape;
    TapeBuilder b(t.source);
    Converter c{record, precision, report, b};
    for (size_t i = 0; i < record.tensors.size(); ++i)
        c.tensorAt.emplace(record.tensors[i].node, i);
    const bool ruda = record.metadata.format.starts_with("ruda");
    const Metadata meta = makeMetadata(recorder, precision, record.metadata.version.empty() ? "0.21.0" : record.metadata.version, ruda);
    beginEnvelope(b, meta);
    c.copy(record.itemNode);
    endEnvelope(b);
    if (c.rounded)
        report.warnings.push_back(std::to_string(c.rounded) + " values were rounded to " + std::string(precisionName(precision)) + " precision");
    if (c.overflowed)
        report.warnings.push_back(std::to_string(c.overflowed) + " finite values overflowed to infinity");
    if (c.flushed)
        report.warnings.push_back(std::to_string(c.flushed) + " non-zero values underflowed to zero");
    if (c.narrowed)
        report.warnings.push_back(std::to_string(c.narrowed) + " integers did not fit the narrower integer type and wrapped");
    // Scalars of the caller state and scheduler are not affected by precision settings (§4); say so once.
    return std::move(b).finish();
}

Result<ConvertResult> convertRecord(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const BincodeSchema* bincodeTarget)
{
    ConvertResult report;
    auto env = convertedEnvelope(record, recorder, precision, report);
    if (!env)
        return std::unexpected(env.error());
    // JSON carries every float as f64: the layout says which fields are f32 (rmp-serde writes them `ca`).
    const bool fromJson = record.recorder == Recorder::PrettyJson || record.recorder == Recorder::JsonGz;
    if (bincodeTarget && fromJson && (recorder == Recorder::NamedMpk || recorder == Recorder::NamedMpkGz)) {
        auto typed = withLayoutValueKinds(*env, *bincodeTarget);
        if (!typed)
            return std::unexpected(typed.error());
        env = std::move(*typed);
    }
    // A bincode source carries the exact (settled) Rust layout; the layout does not depend on precision.
    if (auto r = saveRecord(*env, recorder, path, bincodeTarget ? bincodeTarget : record.bincodeSchema.get()); !r)
        return std::unexpected(r.error());
    return report;
}

} // namespace ckpt
