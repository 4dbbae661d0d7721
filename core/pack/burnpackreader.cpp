// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The burnpack reader (../shared/docs/format-burnpack.md §6): accepts exactly what burn-pack's reader
// accepts (plus 0.19's files). The metadata is decoded as burn-pack decodes it, with ciborium 0.2.2
// and serde derive: core/codec/cbor's Decoder gives ciborium's rules, the functions below give
// serde's shapes of burn-pack's Metadata, TensorDescriptor, DType and Scalar (duplicate struct fields
// are errors, duplicate map keys keep the last, a unit variant written as a map leaves its payload in
// the stream, `data_offsets` takes the first two elements of a longer array, bare "Bool" reads the
// next item as its payload). Then the file is checked in the reader's order, one phase a function.
// The tests use nlohmann's from_cbor as an independent oracle on the files we read and write.
#include "core/pack/burnpack.h"

#include "core/codec/cbor.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ckpt::pack {

namespace {

constexpr uint64_t kMaxFileSize = 107374182400ull; // MAX_FILE_SIZE (100 GiB)

using cbor::Decoder;
using cbor::Head;

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

std::string tensorPath(const std::string& name)
{
    return "tensors[" + quoted(name) + "]";
}

// ------------------------------------------------------------------------------------------------
// The metadata: serde's shapes over ciborium's decoder

struct RawTensor {
    BurnpackTensor t;
    bool haveDtype = false, haveShape = false, haveOffsets = false, haveParam = false;
};

constexpr const char* kDTypeVariants = "`F64`, `F32`, `Flex32`, `F16`, `BF16`, `I64`, `I32`, `I16`, `I8`, `U64`, `U32`, `U16`, `U8`, `Bool`, `QFloat`";

// {"Bool": store} (0.21.0-pre.3+) or the bare "Bool" of 0.19 - 0.21.0-pre.2
Result<void> deBoolStore(Decoder& d, const std::string& path, bool asMap, uint64_t at, BurnpackDType& out)
{
    out.kind = BurnpackDType::Kind::Bool;
    if (!asMap) {
        out.legacyBool = true;
        d.warn(at,
            "bool dtype in the Burn 0.19 - 0.21.0-pre.2 spelling \"Bool\": Burn >= 0.21.0-pre.3 rejects it "
            "(it reads the next item as the BoolStore)");
        return {};
    }
    return d.deEnum(path + ".Bool", "a BoolStore (`Native`, `U8` or `U32`)",
        [&](const std::string& store, bool storeMap, uint64_t sat, const Head& shead) -> Result<void> {
            if (auto s = boolStoreFromName(store))
                out.boolStore = *s;
            else
                return d.err(ErrorCode::Invalid, "unknown variant `" + store + "`, expected one of `Native`, `U8`, `U32`", sat, path + ".Bool");
            if (storeMap)
                d.warn(shead.at, "BoolStore written as a 1-entry map: its payload is left in the stream");
            return {};
        });
}

// {"QFloat": scheme}: the scheme is a struct whose fields changed with every cubecl release (§3.3), kept as opaque CBOR
Result<void> deQFloatScheme(Decoder& d, const std::string& path, bool asMap, uint64_t at, BurnpackDType& out)
{
    out.kind = BurnpackDType::Kind::QFloat;
    if (!asMap)
        return d.err(ErrorCode::Invalid, "QFloat needs its quantization scheme: expected {\"QFloat\": scheme}, found the bare variant name", at, path);
    const size_t from = d.pos();
    auto h = d.mapHead(path + ".QFloat", "a quantization scheme (a map)");
    if (!h)
        return std::unexpected(h.error());
    d.push(*h);
    if (auto a = d.deAny(path + ".QFloat"); !a)
        return a;
    out.qfloatScheme.assign(d.data() + from, d.data() + d.pos());
    return {};
}

Result<BurnpackDType> deDType(Decoder& d, const std::string& path)
{
    BurnpackDType out;
    auto r =
        d.deEnum(path, "a DType (a variant name or a 1-entry map)", [&](const std::string& name, bool asMap, uint64_t at, const Head& head) -> Result<void> {
            if (auto k = BurnpackDType::unitKind(name)) {
                out.kind = *k;
                if (asMap)
                // unit_variant() reads nothing: the payload stays in the stream (it desynchronises what follows)
                    d.warn(head.at, "DType " + name + " written as a 1-entry map: its payload is left in the stream, as ciborium does");
                return {};
            }
            if (name == "Bool")
                return deBoolStore(d, path, asMap, at, out);
            if (name == "QFloat")
                return deQFloatScheme(d, path, asMap, at, out);
            return d.err(ErrorCode::Invalid, "unknown variant `" + name + "`, expected one of " + kDTypeVariants, at, path);
        });
    if (!r)
        return std::unexpected(r.error());
    return out;
}

Result<BurnpackScalar> deScalar(Decoder& d, const std::string& path)
{
    BurnpackScalar out;
    auto r = d.deEnum(path, "a Scalar (a 1-entry map {\"Int\"|\"UInt\"|\"Float\"|\"Bool\": value})",
        [&](const std::string& name, bool, uint64_t at, const Head&) -> Result<void> {
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

Result<void> deDataOffsets(Decoder& d, const std::string& p, RawTensor& t)
{
    uint64_t vat = 0;
    cbor::TupleRest rest = cbor::TupleRest::None;
    auto v = d.deSeqU64(p, 2, &vat, &rest);
    if (!v)
        return std::unexpected(v.error());
    if (rest == cbor::TupleRest::Elements)
        d.warn(vat, "data_offsets has more than 2 elements: the extra ones are left in the stream (Burn reads them as what follows)");
    else if (rest == cbor::TupleRest::Break)
        d.warn(vat, "indefinite data_offsets array: its break is left in the stream");
    t.t.offsetsOffset = vat;
    t.t.start = (*v)[0];
    t.t.end = (*v)[1];
    return {};
}

Result<void> deParamId(Decoder& d, const std::string& p, RawTensor& t)
{
    auto n = d.pull(p);
    if (!n)
        return std::unexpected(n.error());
    if (n->type == cbor::Type::Simple && (n->arg == 22 || n->arg == 23)) {
        d.warn(n->at, "param_id is null: Burn reads None (ModuleRecord assigns a fresh id, OptimizerRecord panics)");
        return {};
    }
    d.push(*n);
    auto v = d.deU64(p);
    if (!v)
        return std::unexpected(v.error());
    t.t.paramId = *v;
    return {};
}

// Moves a decoded value into its place, or passes its error on.
template<class V, class T>
Result<void> store(Result<V> v, T& to)
{
    if (!v)
        return std::unexpected(v.error());
    to = std::move(*v);
    return {};
}

// Reads field \a key with \a read unless it was seen before: Burn's derived Deserialize refuses a
// field given twice.
template<class Read>
Result<void> readOnce(Decoder& d, bool& seen, const std::string& key, uint64_t at, const std::string& path, Read&& read)
{
    if (seen)
        return d.err(ErrorCode::Invalid, "duplicate field `" + key + "`", at, path);
    seen = true;
    return read();
}

// One field of a TensorDescriptor: \a key at \a at.
Result<void> deDescriptorField(Decoder& d, const std::string& path, const std::string& key, uint64_t at, RawTensor& t)
{
    const std::string p = path + "." + key;
    if (key == "dtype")
        return readOnce(d, t.haveDtype, key, at, path, [&] { return store(deDType(d, p), t.t.dtype); });
    if (key == "shape")
        return readOnce(d, t.haveShape, key, at, path, [&] { return store(d.deSeqU64(p, std::nullopt), t.t.shape); });
    if (key == "data_offsets")
        return readOnce(d, t.haveOffsets, key, at, path, [&] { return deDataOffsets(d, p, t); });
    if (key == "param_id")
        return readOnce(d, t.haveParam, key, at, path, [&] { return deParamId(d, p, t); });
    d.warn(at, "unknown descriptor key " + quoted(key) + " (ignored by Burn)");
    return d.deAny(p);
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
        auto fields = d.forEachEntry(head, path, [&]() -> Result<void> {
            uint64_t at = 0;
            auto key = d.deIdentifier(path, &at);
            if (!key)
                return std::unexpected(key.error());
            return deDescriptorField(d, path, *key, at, t);
        });
        if (!fields)
            return fields;
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
        return d.forEachEntry(head, path, [&]() -> Result<void> {
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
            return {};
        });
    });
}

// One field of the Metadata struct: \a key at \a at.
Result<void> deMetadataField(Decoder& d, const std::string& key, uint64_t at, ParsedMetadata& m, bool& haveTensors, bool& haveMetadata)
{
    if (key == "tensors")
        return readOnce(d, haveTensors, key, at, "", [&] {
            m.tensorsAt = d.here();
            return deStringMap(d, "tensors", "a map of tensor descriptors", m.tensors, [&](const std::string& p) { return deDescriptor(d, p); });
        });
    if (key == "metadata")
        return readOnce(d, haveMetadata, key, at, "",
            [&] { return deStringMap(d, "metadata", "a map of strings", m.metadata, [&](const std::string& p) { return d.deString(p); }); });
    if (key == "scalars")
        return readOnce(d, m.hasScalars, key, at, "",
            [&] { return deStringMap(d, "scalars", "a map of scalars", m.scalars, [&](const std::string& p) { return deScalar(d, p); }); });
    d.warn(at, "unknown top-level key " + quoted(key) + " (ignored by Burn)");
    return d.deAny(key);
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
        auto fields = d.forEachEntry(head, "", [&]() -> Result<void> {
            uint64_t at = 0;
            auto key = d.deIdentifier("", &at);
            if (!key)
                return std::unexpected(key.error());
            return deMetadataField(d, *key, at, m, haveTensors, haveMetadata);
        });
        if (!fields)
            return fields;
        if (!haveTensors)
            return d.err(ErrorCode::Invalid, "missing field `tensors`", head.at);
        return {};
    });
    if (!r)
        return std::unexpected(r.error());
    return m;
}

// ------------------------------------------------------------------------------------------------
// The file, phase by phase (§6.1's steps)

std::unexpected<Error> failAt(ErrorCode code, std::string what, uint64_t offset, std::string path = {})
{
    Error e;
    e.code = code;
    e.what = std::move(what);
    e.offset = offset;
    e.recordPath = std::move(path);
    return std::unexpected(std::move(e));
}

uint16_t le16(const uint8_t* p)
{
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t le32(const uint8_t* p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

/** What the phases share: the input, the file being built, and what the checks learnt. */
struct Reading {
    const uint8_t* p = nullptr;
    uint64_t L = 0;                       // the input's length
    BurnpackFile f;
    uint64_t mend = 0;                    // the unaligned metadata end
    uint64_t tensorsAt = 0;               // where the tensors map starts
    uint64_t E = 0;                       // the largest end offset
    const BurnpackTensor* last = nullptr; // the tensor with that end
};

// 1-5: the size limit and the header; sets mend
Result<void> readHeader(Reading& r)
{
    const uint8_t* p = r.p;
    const uint64_t L = r.L;
    BurnpackFile& f = r.f;
    if (L > kMaxFileSize)
        return failAt(ErrorCode::Limit, "Validation error: File size " + std::to_string(L) + " exceeds maximum allowed size of 107374182400 bytes", 0);
    if (L < kBurnpackHeaderSize)
        return failAt(ErrorCode::Truncated,
            "Invalid header: insufficient bytes: expected a 10-byte burnpack header, the input has " + std::to_string(L) + " bytes", L);
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
        return failAt(ErrorCode::Limit,
            "Validation error: Metadata size " + std::to_string(f.metadataSize) + " exceeds maximum allowed size of 104857600 bytes (potential DoS attack)", 6);
    r.mend = kBurnpackHeaderSize + f.metadataSize;
    if (L < r.mend)
        return failAt(ErrorCode::Truncated,
            "Invalid header: insufficient bytes: the header declares " + std::to_string(f.metadataSize) + " bytes of metadata (up to offset "
                + std::to_string(r.mend) + "), the input has " + std::to_string(L) + " bytes",
            L);
    return {};
}

// 6-7: the metadata, decoded; the tensor count; tensors, metadata and scalars into the file
Result<void> readMetadata(Reading& r)
{
    BurnpackFile& f = r.f;
    Decoder d(std::span(r.p + kBurnpackHeaderSize, f.metadataSize), kBurnpackHeaderSize,
        "burn-pack rejects the metadata (MetadataDeserializationError): ", kBurnpackRecursionLimit);
    auto md = deMetadata(d);
    if (!md)
        return std::unexpected(md.error());
    for (auto& w : d.warnings())
        f.warnings.push_back({w.offset, std::move(w.what)});
    if (d.consumed() < f.metadataSize)
        f.warnings.push_back({kBurnpackHeaderSize + d.consumed(),
            std::to_string(f.metadataSize - d.consumed()) + " bytes after the metadata's CBOR item inside the declared metadata size (ignored by Burn)"});

    if (md->tensors.size() > kBurnpackMaxTensorCount)
        return failAt(ErrorCode::Limit,
            "Validation error: File contains " + std::to_string(md->tensors.size()) + " tensors, exceeding maximum of 100000 (potential DoS attack)",
            md->tensorsAt, "tensors");
    r.tensorsAt = md->tensorsAt;
    f.tensors.reserve(md->tensors.size());
    for (auto& [name, raw] : md->tensors) {
        raw.t.name = name;
        f.tensors.push_back(std::move(raw.t));
    }
    f.metadata.assign(md->metadata.begin(), md->metadata.end());
    f.scalars.assign(md->scalars.begin(), md->scalars.end());
    return {};
}

// 8: the file must hold the largest end (measured from the unaligned metadata end); sets E and last
Result<void> checkLargestEnd(Reading& r)
{
    for (const auto& t : r.f.tensors)
        if (!r.last || t.end > r.E) {
            r.E = t.end;
            r.last = &t;
        }
    if (!r.last)
        return {};
    uint64_t need = 0;
    if (__builtin_add_overflow(r.mend, r.E, &need))
        return failAt(ErrorCode::Limit,
            "Validation error: File size calculation overflow: metadata end " + std::to_string(r.mend) + " + data offset " + std::to_string(r.E),
            r.last->offsetsOffset, tensorPath(r.last->name) + ".data_offsets");
    if (need > r.L)
        return failAt(ErrorCode::Truncated,
            "Validation error: File truncated: expected at least " + std::to_string(need) + " bytes, got " + std::to_string(r.L) + " bytes", r.L);
    return {};
}

// The tensors tile the data section back to back in physical order (0.19's writer).
bool tilesBackToBack(const BurnpackFile& f)
{
    uint64_t cur = 0;
    for (size_t i : f.physicalOrder()) {
        if (f.tensors[i].start != cur || f.tensors[i].end < f.tensors[i].start)
            return false;
        cur = f.tensors[i].end;
    }
    return true;
}

// The layout (§5.3) and the data section's start
void detectLayout(Reading& r)
{
    BurnpackFile& f = r.f;
    const uint64_t A = burnpackAlign(r.mend), L = r.L, mend = r.mend, E = r.E;
    bool allAligned = true;
    for (const auto& t : f.tensors)
        allAligned = allAligned && t.start % kBurnpackAlignment == 0;
    // The tests in the precedence of §5.3: a layout may follow from several, the first decides.
    // NOLINTBEGIN(bugprone-branch-clone)
    if (A == mend || L == A + E)
        f.layout = BurnpackLayout::Aligned256;
    else if (L == mend + E)
        f.layout = BurnpackLayout::Unaligned;
    else if (allAligned)
        f.layout = BurnpackLayout::Aligned256;
    else if (tilesBackToBack(f))
        f.layout = BurnpackLayout::Unaligned;
    else {
        f.layout = BurnpackLayout::Aligned256;
        f.warnings.push_back(
            {L, "unknown layout (file length " + std::to_string(L) + " fits neither the aligned nor the 0.19 layout): read as aligned, as Burn >= 0.20 does"});
    }
    // NOLINTEND(bugprone-branch-clone)
    f.dataStart = f.layout == BurnpackLayout::Aligned256 ? A : mend;
    if (f.layout == BurnpackLayout::Unaligned)
        f.warnings.push_back({mend, "Burn 0.19 / 0.20.0-pre.1-4 layout (data right after the metadata): Burn >= 0.20.0-pre.5 reads it at the wrong offsets"});
    if (auto v = std::find_if(f.metadata.begin(), f.metadata.end(), [](const auto& e) { return e.first == "version"; }); v != f.metadata.end()) {
        const std::string& s = v->second;
        const bool oldWriter = s.starts_with("0.19") || (s.starts_with("0.20.0-pre.") && s.size() == 12 && s[11] >= '1' && s[11] <= '4');
        if (oldWriter != (f.layout == BurnpackLayout::Unaligned) && A != mend)
            f.warnings.push_back(
                {r.tensorsAt, "metadata version \"" + s + "\" suggests the " + (oldWriter ? "unaligned" : "aligned") + " layout, the file's length the other"});
    }
}

// 9: every tensor's range (name order), as into_tensors() checks it; the payload views
Result<void> checkRanges(Reading& r, const BurnpackReadOptions& options)
{
    BurnpackFile& f = r.f;
    for (auto& t : f.tensors) {
        const std::string path = tensorPath(t.name) + ".data_offsets";
        uint64_t s = 0, e = 0;
        std::optional<Error> bad;
        if (__builtin_add_overflow(f.dataStart, t.start, &s) || __builtin_add_overflow(f.dataStart, t.end, &e))
            bad = failAt(ErrorCode::Limit, "Validation error: Tensor '" + t.name + "' has corrupted offset data: offsets overflow", t.offsetsOffset, path)
                      .error();
        else if (e < s)
            bad = failAt(ErrorCode::Invalid,
                "Validation error: Tensor '" + t.name + "' has corrupted offset data: end " + std::to_string(e) + " < start " + std::to_string(s),
                t.offsetsOffset, path)
                      .error();
        else if (e - s > kBurnpackMaxTensorSize)
            bad = failAt(ErrorCode::Limit,
                "Validation error: Tensor '" + t.name + "' size " + std::to_string(e - s)
                    + " exceeds maximum allowed size of 10737418240 bytes (potential DoS attack)",
                t.offsetsOffset, path)
                      .error();
        else if (e > r.L)
            bad = failAt(ErrorCode::Truncated,
                "Validation error: Tensor '" + t.name + "' data range " + std::to_string(s) + ".." + std::to_string(e) + " could not be viewed (source is "
                    + std::to_string(r.L) + " bytes)",
                t.offsetsOffset, path)
                      .error();
        if (bad) {
            if (options.checkTensorRanges)
                return std::unexpected(std::move(*bad));
            f.warnings.push_back({t.offsetsOffset, bad->what + " (Burn fails when the tensors are taken; a scheduler record never takes them)"});
            continue;
        }
        t.data = std::span(r.p + s, static_cast<size_t>(e - s));
    }
    return {};
}

// What becomes of something Burn 0.22.1 rejects: an error; read leniently, a warning and the file's
// damage, so that it still shows; in a part Burn never takes (a scheduler file's tensors), a warning.
enum class Rejection { Fail, Damage, Tolerate };

Rejection rejection(const BurnpackReadOptions& options, bool takenByBurn)
{
    if (!takenByBurn)
        return Rejection::Tolerate;
    return options.lenient ? Rejection::Damage : Rejection::Fail;
}

Result<void> rejected(BurnpackFile& f, Rejection how, Error e)
{
    if (how == Rejection::Fail)
        return std::unexpected(std::move(e));
    if (how == Rejection::Damage && f.damage.empty())
        f.damage = e.message();
    f.warnings.push_back({e.offset.value_or(0), e.what});
    return {};
}

// 10 (Burn 0.22.1, cli-contract "burnpack"): a tensor's bytes are numel x size (QFloat aside) and its
// element count fits in 64 bits. Older readers took such a tensor and read past or short of it;
// statistics over a partial tensor are never computed: a refused tensor is shown, never read.
Result<void> checkSizes(BurnpackFile& f, const BurnpackReadOptions& options)
{
    for (auto& t : f.tensors) {
        const uint64_t size = t.dtype.elementSize();
        if (size == 0 || t.end < t.start)
            continue; // QFloat's packed payload; a range checkRanges reported
        uint64_t numel = 1;
        bool overflow = false;
        for (uint64_t d : t.shape)
            overflow = __builtin_mul_overflow(numel, d, &numel) || overflow;
        uint64_t want = 0;
        const bool wantOverflows = overflow || __builtin_mul_overflow(numel, size, &want);
        if (!wantOverflows && want == t.end - t.start)
            continue;
        t.refused = overflow ? "shape " + shapeString(t.shape) + " has more than 2^64 elements"
                             : std::to_string(t.end - t.start) + " bytes stored, shape " + shapeString(t.shape) + " of " + t.dtype.name() + " needs "
                + (wantOverflows ? std::string("more than 2^64") : std::to_string(want));
        t.data = {};
        Error e = failAt(ErrorCode::Invalid,
            "Validation error: Tensor '" + t.name + "': " + t.refused + " (Burn 0.22.1 rejects it; older readers read a partial tensor)", t.offsetsOffset,
            tensorPath(t.name) + ".data_offsets")
                      .error();
        if (auto r = rejected(f, rejection(options, options.checkTensorRanges), std::move(e)); !r)
            return r;
    }
    return {};
}

// A file in 0.19's unaligned layout with what only Burn >= 0.21 writes (scalars, a {"Bool": store}
// dtype): no Burn version reads it (0.19 and 0.20 do not know those, 0.21 and later read the data at
// the aligned offsets).
Result<void> checkLayoutAgainstVersion(const Reading& r, BurnpackFile& f, const BurnpackReadOptions& options)
{
    if (f.layout != BurnpackLayout::Unaligned || burnpackAlign(r.mend) == r.mend)
        return {};
    const bool boolStore =
        std::ranges::any_of(f.tensors, [](const BurnpackTensor& t) { return t.dtype.kind == BurnpackDType::Kind::Bool && !t.dtype.legacyBool; });
    if (f.scalars.empty() && !boolStore)
        return {};
    return rejected(f, rejection(options, true),
        failAt(ErrorCode::Invalid,
            std::string("the data starts right after the metadata (Burn 0.19's layout) in a file with ")
                + (f.scalars.empty() ? "a {\"Bool\": store} dtype" : "scalars")
                + ", which only Burn >= 0.21 writes: no Burn version reads it (0.21 and later read the data 256-byte aligned)",
            r.mend)
            .error());
}

// What Burn tolerates in the tensors (§6.2, §6.4): alignment, overlaps
void warnTensors(BurnpackFile& f)
{
    for (const auto& t : f.tensors) {
        if (f.layout == BurnpackLayout::Aligned256 && t.start % kBurnpackAlignment != 0)
            f.warnings.push_back({t.offsetsOffset, "tensor '" + t.name + "' starts at " + std::to_string(t.start) + ", not a multiple of 256"});
    }
    uint64_t reach = 0;
    const BurnpackTensor* prev = nullptr;
    for (size_t i : f.physicalOrder()) {
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

// What Burn tolerates around the tensors: bytes between them, a short or long data section, padding
void warnBytes(const Reading& r, BurnpackFile& f)
{
    const uint8_t* p = r.p;
    const uint64_t L = r.L, E = r.E;
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
    if (L < f.dataStart + E)
        f.warnings.push_back({L,
            "the file ends at " + std::to_string(L) + ", before the end of its data section at " + std::to_string(f.dataStart + E)
                + " (padding or data cut short; Burn only checks the unaligned metadata end + the largest offset)"});
    if (f.dataStart + E < L && (r.last || L > f.dataStart))
        f.warnings.push_back({f.dataStart + E, std::to_string(L - f.dataStart - E) + " bytes after the last tensor (ignored by Burn)"});
    for (uint64_t i = r.mend; i < std::min(f.dataStart, L); ++i)
        if (p[i] != 0) {
            f.warnings.push_back({i, "non-zero padding byte before the data section (never read by Burn)"});
            break;
        }
}

// canonical metadata: what our ciborium-exact encoder writes for this content
void checkCanonical(const Reading& r, BurnpackFile& f)
{
    if (auto enc = encodeBurnpackMetadata(contentOf(f))) {
        f.canonicalMetadata = enc->size() == f.metadataSize && std::equal(enc->begin(), enc->end(), r.p + kBurnpackHeaderSize);
    }
    if (!f.canonicalMetadata)
        f.warnings.push_back({kBurnpackHeaderSize,
            "the metadata is not byte for byte what burn-pack's writer produces for this content (CBOR encoding, key order, offsets or extra entries)"});
}

} // namespace

Result<BurnpackFile> readBurnpack(const BytesPtr& bytes, const BurnpackReadOptions& options)
{
    if (!bytes)
        return fail(ErrorCode::Usage, "no input");
    try {
        Reading r;
        r.p = bytes->data();
        r.L = bytes->size();
        r.f.source = bytes;
        for (auto phase : {readHeader, readMetadata, checkLargestEnd})
            if (auto x = phase(r); !x)
                return std::unexpected(x.error());
        detectLayout(r);
        if (auto x = checkLayoutAgainstVersion(r, r.f, options); !x)
            return std::unexpected(x.error());
        if (auto x = checkRanges(r, options); !x)
            return std::unexpected(x.error());
        if (auto x = checkSizes(r.f, options); !x)
            return std::unexpected(x.error());
        warnTensors(r.f);
        warnBytes(r, r.f);
        checkCanonical(r, r.f);
        return std::move(r.f);
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

} // namespace ckpt::pack
