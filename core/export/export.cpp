// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/export.h"

#include "core/codec/json.h"
#include "core/diff/diff.h"
#include "core/io/bytes.h"
#include "core/pack/burnpackrecord.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <unordered_map>
#include <zlib.h>

namespace ckpt {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

void putLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

std::span<const uint8_t> asBytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

/// Element sizes of safetensors' dtypes (F8 variants are one byte).
std::optional<uint32_t> safetensorsElementSize(std::string_view dtype)
{
    static const std::pair<std::string_view, uint32_t> table[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},
        {"I16", 2}, {"I8", 1}, {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1}, {"BOOL", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}};
    for (const auto& [name, size] : table)
        if (name == dtype)
            return size;
    return std::nullopt;
}

/// A tensor on its way out: its bytes are the record's (a view) or converted ones (owned).
struct Piece {
    const TensorEntry* entry = nullptr;
    std::string dtype;            ///< safetensors dtype, or npy descr for .npz
    uint32_t elementSize = 0;
    std::span<const uint8_t> bytes;
    std::vector<uint8_t> owned;
};

/// Legacy {value, shape} tensors hold numbers on the tape: encoded back into their dtype (exact:
/// the values are exact widenings of that dtype).
std::vector<uint8_t> encodeLegacy(const Record& r, const TensorEntry& t)
{
    const auto values = r.values(t, 0, t.numel);
    const uint32_t size = dtypeSize(t.dtype);
    std::vector<uint8_t> out(values.size() * size);
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        uint8_t* p = out.data() + i * size;
        switch (t.dtype) {
        case DType::F64: std::memcpy(p, &v, 8); break;
        case DType::F32:
        case DType::Flex32: {
            const float f = float(v);
            std::memcpy(p, &f, 4);
            break;
        }
        case DType::F16: {
            const uint16_t h = doubleToHalf(v);
            std::memcpy(p, &h, 2);
            break;
        }
        case DType::BF16: {
            const uint16_t h = floatToBf16(float(v));
            std::memcpy(p, &h, 2);
            break;
        }
        case DType::I64: case DType::U64: {
            const int64_t x = t.dtype == DType::U64 ? int64_t(uint64_t(v)) : int64_t(v);
            std::memcpy(p, &x, 8);
            break;
        }
        case DType::I32: case DType::U32: {
            const uint32_t x = t.dtype == DType::U32 ? uint32_t(v) : uint32_t(int32_t(v));
            std::memcpy(p, &x, 4);
            break;
        }
        case DType::I16: case DType::U16: {
            const uint16_t x = t.dtype == DType::U16 ? uint16_t(v) : uint16_t(int16_t(v));
            std::memcpy(p, &x, 2);
            break;
        }
        default: *p = uint8_t(int(v)); break;
        }
    }
    return out;
}

/// The selected tensors with their bytes, checked against shape x dtype (a --lenient record may lie).
Result<std::vector<Piece>> collect(const Record& r, const ExportSelection& what, ExportSummary& summary)
{
    if (r.partial && r.damage.empty())
        return fail(ErrorCode::Unsupported, "the bincode record was only scanned (no schema): pass --schema-from or --schema to export it");
    std::vector<Piece> pieces;
    uint64_t legacy = 0;
    for (const auto& t : r.tensors) {
        if (!what.includes(t.role))
            continue;
        auto dtype = safetensorsDtypeFor(t);
        if (!dtype)
            return std::unexpected(std::move(dtype.error()));
        Piece p;
        p.entry = &t;
        p.dtype = *dtype;
        p.elementSize = *safetensorsElementSize(p.dtype);
        if (t.legacy) {
            p.owned = encodeLegacy(r, t);
            p.bytes = p.owned;
            ++legacy;
        } else {
            p.bytes = r.payload(t);
        }
        if (t.numel > UINT64_MAX / p.elementSize || p.bytes.size() != t.numel * p.elementSize) {
            Error e{ErrorCode::Invalid, std::to_string(p.bytes.size()) + " payload bytes, but shape " + shapeString(t.shape) + " of " +
                    std::string(dtypeName(t.dtype)) + " needs " + std::to_string(t.numel * p.elementSize)};
            e.offset = t.offset;
            e.recordPath = t.path;
            return std::unexpected(std::move(e));
        }
        summary.payloadBytes += p.bytes.size();
        pieces.push_back(std::move(p));
    }
    summary.tensors = pieces.size();
    if (legacy)
        summary.notes.push_back(std::to_string(legacy) + " legacy {value, shape} tensors encoded as bytes of their dtype");
    return pieces;
}

} // namespace

std::optional<ExportFormat> exportFormatFromPath(std::string_view path)
{
    const std::string p = lower(path);
    if (p.ends_with(".safetensors"))
        return ExportFormat::Safetensors;
    if (p.ends_with(".npz"))
        return ExportFormat::Npz;
    return std::nullopt;
}

bool ExportSelection::includes(TensorRole role) const
{
    switch (role) {
    case TensorRole::Param: return params;
    case TensorRole::Optimizer: return optimizer;
    case TensorRole::Gradient: return gradients;
    case TensorRole::Other: return other;
    }
    return false;
}

Result<ExportSelection> parseExportSelection(std::string_view list)
{
    ExportSelection s{false, false, false, false};
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string_view item = list.substr(start, comma - start);
        if (item == "params" || item == "param")
            s.params = true;
        else if (item == "optimizer")
            s.optimizer = true;
        else if (item == "gradients" || item == "gradient")
            s.gradients = true;
        else if (item == "other")
            s.other = true;
        else
            return fail(ErrorCode::Usage, "--what takes a comma-separated list of params, optimizer, gradients, other; got '" + std::string(item) + "'");
        start = comma + 1;
    }
    return s;
}

Result<std::string> safetensorsDtypeFor(const TensorEntry& t)
{
    switch (t.dtype) {
    case DType::F64: return std::string("F64");
    case DType::F32:
    case DType::Flex32: return std::string("F32");
    case DType::F16: return std::string("F16");
    case DType::BF16: return std::string("BF16");
    case DType::I64: return std::string("I64");
    case DType::I32: return std::string("I32");
    case DType::I16: return std::string("I16");
    case DType::I8: return std::string("I8");
    case DType::U64: return std::string("U64");
    case DType::U32: return std::string("U32");
    case DType::U16: return std::string("U16");
    case DType::U8: return std::string("U8");
    case DType::Bool: return std::string(t.numel && t.bytes == t.numel * 4 ? "U32" : "BOOL");
    case DType::QFloat: break;
    }
    Error e{ErrorCode::Unsupported, "a QFloat tensor (packed quantized layout) has no safetensors or numpy dtype"};
    e.recordPath = t.path;
    e.offset = t.offset;
    return std::unexpected(std::move(e));
}

std::string npyDescrFor(const TensorEntry& t)
{
    auto dtype = safetensorsDtypeFor(t);
    if (!dtype)
        return {};
    const std::string& d = *dtype;
    if (d == "BOOL")
        return "|b1";
    if (d == "BF16")
        return "<f4"; // widened: numpy has no bfloat16
    const char kind = d[0] == 'F' ? 'f' : d[0] == 'I' ? 'i' : 'u';
    int bits = 0;
    std::from_chars(d.data() + 1, d.data() + d.size(), bits); // "F32" -> 32
    return bits == 8 ? std::string("|") + kind + "1" : std::string("<") + kind + std::to_string(bits / 8);
}

std::string exportMetadataJson(const Record& r, const ExportSelection& what)
{
    std::string j = "{\"format\":\"checkpoint-inspector export 1\",\"source\":";
    appendJsonQuoted(j, r.file);
    j += ",\"kind\":";
    appendJsonQuoted(j, recordKindName(r.kind));
    j += ",\"recorder\":";
    appendJsonQuoted(j, recorderName(r.recorder));
    j += ",\"precision\":";
    appendJsonQuoted(j, r.precisionText());
    j += ",\"metadata\":";
    if (r.burnpack.empty()) {
        j += "{";
        const std::pair<const char*, const std::string*> meta[] = {{"float", &r.metadata.floatType}, {"int", &r.metadata.intType},
            {"format", &r.metadata.format}, {"version", &r.metadata.version}, {"settings", &r.metadata.settings}};
        for (size_t i = 0; i < std::size(meta); ++i) {
            j += i ? ",\"" : "\"";
            j += meta[i].first;
            j += "\":";
            appendJsonQuoted(j, *meta[i].second);
        }
        j += "}";
    } else {
        j += "null"; // Burn >= 0.22 writes no recorder metadata (as `info --json` says)
    }
    j += ",\"scheduler\":";
    if (r.scheduler && r.schedulerNode) {
        j += "{\"kind\":";
        appendJsonQuoted(j, r.scheduler->kind);
        j += ",\"description\":";
        appendJsonQuoted(j, r.scheduler->description);
        j += ",\"value\":" + valueToJson(r.tape, *r.schedulerNode) + "}";
    } else {
        j += "null";
    }
    // The state as JSON, unless tensors in it would make the metadata as large as the tensors
    // themselves (a Bin is written as an array of numbers): those are exported as tensors anyway.
    uint64_t stateBinBytes = 0;
    if (r.stateNode)
        for (uint32_t n = *r.stateNode; n < r.tape[*r.stateNode].end; ++n)
            stateBinBytes += r.tape[n].kind == Kind::Bin ? r.tape[n].count : 0;
    constexpr uint64_t kStateBinLimit = 64 << 10;
    j += ",\"state\":" + (r.stateNode && stateBinBytes <= kStateBinLimit ? valueToJson(r.tape, *r.stateNode) : std::string("null"));
    if (stateBinBytes > kStateBinLimit)
        j.append(",\"state_omitted\":\"the continuation state holds ").append(std::to_string(stateBinBytes)).append(" payload bytes (its tensors are exported as tensors)\"");
    j += ",\"what\":[";
    bool first = true;
    for (auto [on, name] : {std::pair{what.params, "params"}, {what.optimizer, "optimizer"}, {what.gradients, "gradients"}, {what.other, "other"}})
        if (on) {
            j += first ? "\"" : ",\"";
            j += name;
            j += "\"";
            first = false;
        }
    j += "],\"tensors\":{";
    first = true;
    for (const auto& t : r.tensors) {
        if (!what.includes(t.role))
            continue;
        if (!first)
            j += ",";
        first = false;
        appendJsonQuoted(j, t.path);
        j += ":{\"role\":";
        appendJsonQuoted(j, tensorRoleName(t.role));
        j += ",\"param_id\":";
        if (t.paramId.empty())
            j += "null";
        else
            appendJsonQuoted(j, t.paramId);
        if (!t.stateName.empty()) {
            j += ",\"state\":";
            appendJsonQuoted(j, t.stateName);
        }
        j += ",\"dtype\":";
        appendJsonQuoted(j, dtypeName(t.dtype));
        j += "}";
    }
    return j + "}}";
}

// ------------------------------------------------------------------------------------------------
// safetensors

Result<ExportSummary> exportSafetensors(const Record& r, const ExportSelection& what, const std::string& path)
{
    ExportSummary summary;
    auto pieces = collect(r, what, summary);
    if (!pieces)
        return std::unexpected(std::move(pieces.error()));
    // Data order: largest elements first, so with the data starting at a multiple of 8 every tensor
    // starts at a multiple of its element size although the format allows no gaps.
    std::vector<size_t> order(pieces->size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*pieces)[a].elementSize > (*pieces)[b].elementSize; });
    std::vector<uint64_t> begin(pieces->size());
    uint64_t at = 0;
    for (size_t i : order) {
        begin[i] = at;
        at += (*pieces)[i].bytes.size();
    }
    std::string header = "{";
    for (size_t i = 0; i < pieces->size(); ++i) {
        const Piece& p = (*pieces)[i];
        appendJsonQuoted(header, p.entry->path);
        header.append(":{\"dtype\":\"").append(p.dtype).append("\",\"shape\":[");
        for (size_t d = 0; d < p.entry->shape.size(); ++d)
            header.append(d ? "," : "").append(std::to_string(p.entry->shape[d]));
        header.append("],\"data_offsets\":[").append(std::to_string(begin[i])).append(",");
        header.append(std::to_string(begin[i] + p.bytes.size())).append("]},");
    }
    header += "\"__metadata__\":{\"ckpt\":";
    appendJsonQuoted(header, exportMetadataJson(r, what));
    header += "}}";
    while ((8 + header.size()) % 8)
        header += ' ';
    std::vector<uint8_t> prefix;
    putLe(prefix, header.size(), 8);
    auto w = writeFileAtomic(path, [&](const std::function<Result<void>(std::span<const uint8_t>)>& sink) -> Result<void> {
        if (auto s = sink(prefix); !s)
            return s;
        if (auto s = sink(asBytes(header)); !s)
            return s;
        for (size_t i : order)
            if (auto s = sink((*pieces)[i].bytes); !s)
                return s;
        return {};
    });
    if (!w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const
{
    for (const auto& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

Result<SafetensorsFile> readSafetensors(BytesPtr bytes, const std::string& name)
{
    const auto all = bytes->span();
    auto bad = [&](ErrorCode code, std::string what, uint64_t offset) {
        Error e{code, std::move(what), name};
        e.offset = offset;
        return std::unexpected(std::move(e));
    };
    if (all.size() < 8)
        return bad(ErrorCode::Truncated, "expected an 8-byte little-endian header length, found " + std::to_string(all.size()) + " bytes", 0);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | all[size_t(i)];
    if (n > all.size() - 8)
        return bad(ErrorCode::Truncated, "header length " + std::to_string(n) + " exceeds the " + std::to_string(all.size() - 8) + " bytes after it", 0);
    if (n == 0 || all[8] != '{')
        return bad(ErrorCode::Malformed, "expected the JSON header to start with '{'", 8);
    const uint64_t dataStart = 8 + n;
    const uint64_t dataSize = all.size() - dataStart;
    auto tape = readJson(makeBytes(std::vector<uint8_t>(all.begin() + 8, all.begin() + long(dataStart))), JsonReadOptions{64, false, true});
    if (!tape) {
        Error e = tape.error();
        e.file = name;
        e.what = "header JSON: " + e.what;
        e.offset = 8 + e.offset.value_or(0);
        e.line.reset();
        e.column.reset();
        return std::unexpected(std::move(e));
    }
    const Tape& t = *tape;
    auto at = [&](uint32_t node) { return 8 + t[node].srcOffset; };
    if (!t.isMap(0))
        return bad(ErrorCode::Invalid, "expected the header to be a JSON object", 8);
    SafetensorsFile file;
    file.name = name;
    file.bytes = bytes;
    file.headerLength = n;
    std::unordered_map<std::string, size_t> seen;
    bool metadataSeen = false;
    Result<void> status;
    t.forEachEntry(0, [&](uint32_t k, uint32_t v) {
        if (!status)
            return;
        const std::string key(t.str(k));
        auto err = [&](std::string what, uint32_t node) {
            Error e{ErrorCode::Invalid, std::move(what), name};
            e.offset = at(node);
            e.recordPath = key;
            status = std::unexpected(std::move(e));
        };
        if (key == "__metadata__") {
            if (metadataSeen)
                return err("__metadata__ given twice", k);
            metadataSeen = true;
            if (t[v].kind == Kind::Nil)
                return;
            if (!t.isMap(v))
                return err("expected __metadata__ to be an object of strings", v);
            t.forEachEntry(v, [&](uint32_t mk, uint32_t mv) {
                if (!status)
                    return;
                if (!t.isStr(mv))
                    return err("expected metadata value " + std::string(t.str(mk)) + " to be a string", mv);
                file.metadata.emplace_back(std::string(t.str(mk)), std::string(t.str(mv)));
            });
            return;
        }
        if (seen.contains(key))
            return err("tensor name given twice", k);
        if (!t.isMap(v))
            return err("expected {dtype, shape, data_offsets}", v);
        SafetensorsTensor st;
        st.name = key;
        auto dt = t.find(v, "dtype");
        auto shape = t.find(v, "shape");
        auto offsets = t.find(v, "data_offsets");
        if (!dt || !t.isStr(*dt))
            return err("expected a dtype string", v);
        st.dtype = std::string(t.str(*dt));
        auto size = safetensorsElementSize(st.dtype);
        if (!size)
            return err("unknown dtype " + st.dtype + " (expected BOOL U8 I8 F8_E5M2 F8_E4M3 I16 U16 F16 BF16 I32 U32 F32 F64 I64 U64)", *dt);
        if (!shape || !t.isArray(*shape))
            return err("expected a shape array", v);
        uint64_t numel = 1;
        bool overflow = false;
        t.forEachChild(*shape, [&](uint32_t c) {
            if (t[c].kind != Kind::UInt) {
                overflow = true;
                return;
            }
            const uint64_t d = t.u64(c);
            st.shape.push_back(d);
            if (d && numel > UINT64_MAX / d)
                overflow = true;
            numel *= d;
        });
        if (overflow)
            return err("expected a shape of non-negative integers whose product fits in 64 bits", *shape);
        if (!offsets || !t.isArray(*offsets) || t[*offsets].count != 2 || t[*offsets + 1].kind != Kind::UInt || t[*offsets + 2].kind != Kind::UInt)
            return err("expected data_offsets [begin, end] of two non-negative integers", offsets ? *offsets : v);
        st.begin = t.u64(*offsets + 1);
        st.end = t.u64(*offsets + 2);
        if (st.end < st.begin || st.end > dataSize)
            return err("data_offsets [" + std::to_string(st.begin) + ", " + std::to_string(st.end) + "] lie outside the " +
                    std::to_string(dataSize) + " data bytes", *offsets);
        if (numel > UINT64_MAX / *size || st.end - st.begin != numel * *size)
            return err("data_offsets span " + std::to_string(st.end - st.begin) + " bytes, but shape " + shapeString(st.shape) + " of " +
                    st.dtype + " needs " + std::to_string(numel * *size), *offsets);
        st.data = all.subspan(dataStart + st.begin, st.end - st.begin);
        seen.emplace(key, file.tensors.size());
        file.tensors.push_back(std::move(st));
    });
    if (!status)
        return std::unexpected(std::move(status.error()));
    // The format leaves no holes and no overlaps: sorted by begin, each tensor starts where the last ended.
    std::vector<const SafetensorsTensor*> sorted;
    for (const auto& st : file.tensors)
        sorted.push_back(&st);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
    uint64_t expected = 0;
    for (const auto* st : sorted) {
        if (st->begin != expected) {
            Error e{ErrorCode::Invalid,
                st->begin > expected ? "a hole in the data: bytes [" + std::to_string(expected) + ", " + std::to_string(st->begin) + ") belong to no tensor"
                                     : "overlaps the tensor before it (data_offsets begin " + std::to_string(st->begin) + ", expected " + std::to_string(expected) + ")",
                name};
            e.offset = dataStart + std::min(expected, st->begin);
            e.recordPath = st->name;
            return std::unexpected(std::move(e));
        }
        expected = st->end;
    }
    if (expected != dataSize)
        return bad(ErrorCode::Invalid, std::to_string(dataSize - expected) + " data bytes after the last tensor belong to no tensor", dataStart + expected);
    return file;
}

Result<SafetensorsFile> openSafetensors(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()));
    return readSafetensors(*bytes, path);
}

// ------------------------------------------------------------------------------------------------
// import

namespace {
/// Which tensors of \a target take which bytes of \a file (checked), and the summary of the import.
Result<std::vector<std::pair<size_t, std::span<const uint8_t>>>> importPlan(const Record& target, const SafetensorsFile& file,
    ImportSummary& summary)
{
    if (target.partial)
        return fail(ErrorCode::Unsupported, "the target record was only scanned or opened leniently: import needs a record that opens strictly");
    std::unordered_map<std::string_view, size_t> byPath;
    for (size_t i = 0; i < target.tensors.size(); ++i)
        byPath.emplace(target.tensors[i].path, i);
    auto bad = [&](ErrorCode code, const std::string& tensor, std::string what) {
        Error e{code, std::move(what), file.name};
        e.recordPath = tensor;
        return std::unexpected(std::move(e));
    };
    std::vector<std::pair<size_t, std::span<const uint8_t>>> replace;
    std::vector<bool> named(target.tensors.size(), false);
    for (const auto& st : file.tensors) {
        auto it = byPath.find(st.name);
        if (it == byPath.end())
            return bad(ErrorCode::Invalid, st.name, "the target record has no tensor of this path");
        const TensorEntry& t = target.tensors[it->second];
        named[it->second] = true;
        auto dtype = safetensorsDtypeFor(t);
        if (!dtype)
            return std::unexpected(Error(dtype.error()).withFile(file.name));
        if (st.dtype != *dtype)
            return bad(ErrorCode::Invalid, st.name, "expected dtype " + *dtype + " (the record's " + std::string(dtypeName(t.dtype)) + "), found " + st.dtype);
        if (st.shape != t.shape)
            return bad(ErrorCode::Invalid, st.name, "expected shape " + shapeString(t.shape) + ", found " + shapeString(st.shape));
        if (t.legacy) {
            const auto old = encodeLegacy(target, t);
            if (old.size() != st.data.size() || !std::equal(old.begin(), old.end(), st.data.begin()))
                return bad(ErrorCode::Unsupported, st.name, "a legacy {value, shape} tensor (Burn <= 0.13) cannot take new values; convert the record first");
            ++summary.unchanged;
            continue;
        }
        const auto old = target.payload(t);
        if (old.size() == st.data.size() && std::equal(old.begin(), old.end(), st.data.begin())) {
            ++summary.unchanged;
            continue;
        }
        if (!t.view && target.tape[t.dataNode].kind != Kind::Bin)
            return bad(ErrorCode::Unsupported, st.name, "the payload is not a byte string on the tape");
        replace.emplace_back(it->second, st.data);
    }
    for (bool n : named)
        summary.untouched += n ? 0 : 1;
    summary.replaced = replace.size();
    // The file's record metadata, when it has ours, should describe the same continuation.
    for (const auto& [key, value] : file.metadata) {
        if (key != "ckpt")
            continue;
        auto meta = readJson(makeBytes(std::string_view(value)), JsonReadOptions{128, false, true});
        if (!meta || !meta->isMap(0)) {
            summary.warnings.push_back("the file's ckpt metadata is not a JSON object; ignored");
            break;
        }
        if (auto kind = meta->find(0, "kind"); kind && meta->isStr(*kind) && meta->str(*kind) != recordKindName(target.kind))
            summary.warnings.push_back("the file was exported from a " + std::string(meta->str(*kind)) + ", the target is a " +
                std::string(recordKindName(target.kind)));
        if (auto state = meta->find(0, "state"); state && target.stateNode
            && valueToJson(*meta, *state) != valueToJson(target.tape, *target.stateNode))
            summary.warnings.push_back("the file's continuation state differs from the target's; the target's is kept (change it with ckpt edit)");
    }
    return replace;
}

/// A burnpack target: its file with the new payloads (spans into \a file), in its physical order.
Result<pack::BurnpackContent> importedBurnpackContent(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.burnpack.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: import into one of them");
    auto plan = importPlan(target, file, summary);
    if (!plan)
        return std::unexpected(plan.error());
    pack::BurnpackContent content = pack::contentOf(*target.burnpack.front().pack);
    std::unordered_map<std::string_view, size_t> entryOf;
    for (size_t i = 0; i < content.tensors.size(); ++i)
        entryOf.emplace(content.tensors[i].name, i);
    for (const auto& [tensor, data] : *plan)
        content.tensors[entryOf.at(target.tensors[tensor].path)].data = data;
    return content;
}
} // namespace

Result<Tape> importedEnvelope(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.recorder == Recorder::Burnpack)
        return fail(ErrorCode::Unsupported, "a burnpack record has no envelope: importedRecord() reads its new bytes back");
    auto plan = importPlan(target, file, summary);
    if (!plan)
        return std::unexpected(plan.error());
    uint64_t poolBytes = 0;
    for (const auto& [tensor, data] : *plan)
        poolBytes += data.size();
    Tape out = target.tape;
    out.pool.reserve(out.pool.size() + poolBytes);
    for (const auto& [tensor, data] : *plan) {
        Node& n = out.nodes[target.tensors[tensor].dataNode];
        n.flags |= InPool;
        n.payload = out.pool.size();
        n.count = data.size();
        out.pool.insert(out.pool.end(), data.begin(), data.end());
    }
    return out;
}

Result<std::shared_ptr<const Record>> importedRecord(const Record& target, const SafetensorsFile& file, ImportSummary& summary)
{
    if (target.recorder == Recorder::Burnpack) {
        auto content = importedBurnpackContent(target, file, summary);
        if (!content)
            return std::unexpected(content.error());
        auto bytes = pack::encodeBurnpack(*content);
        if (!bytes)
            return std::unexpected(bytes.error());
        return openBurnpackRecord(makeBytes(std::move(*bytes)), target.file);
    }
    auto tape = importedEnvelope(target, file, summary);
    if (!tape)
        return std::unexpected(tape.error());
    auto indexed = indexRecord(std::move(*tape), target.recorder, target.file);
    if (!indexed)
        return std::unexpected(indexed.error());
    auto copy = std::make_shared<Record>(**indexed);
    copy->bincodeSchema = target.bincodeSchema;
    copy->schemaSource = target.schemaSource;
    copy->fileSize = target.fileSize;
    return std::shared_ptr<const Record>(std::move(copy));
}

Result<ImportSummary> importSafetensors(const Record& target, const SafetensorsFile& file, const std::string& outPath)
{
    ImportSummary summary;
    if (target.recorder == Recorder::Burnpack) {
        auto content = importedBurnpackContent(target, file, summary);
        if (!content)
            return std::unexpected(std::move(content.error()));
        if (auto w = pack::writeBurnpack(outPath, *content); !w)
            return std::unexpected(Error(w.error()).withFile(outPath));
        return summary;
    }
    auto tape = importedEnvelope(target, file, summary);
    if (!tape)
        return std::unexpected(std::move(tape.error()));
    if (auto w = saveRecord(*tape, target.recorder, outPath, target.bincodeSchema.get()); !w)
        return std::unexpected(Error(w.error()).withFile(outPath));
    return summary;
}

// ------------------------------------------------------------------------------------------------
// .npz

namespace {

/// The .npy v1.0 header: magic, version, length, the dict padded with spaces and '\n' to 64 bytes.
std::vector<uint8_t> npyHeader(const std::string& descr, const std::vector<uint64_t>& shape)
{
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i)
        dict += (i ? ", " : "") + std::to_string(shape[i]);
    dict += shape.size() == 1 ? ",), }" : "), }";
    const size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::vector<uint8_t> h = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    putLe(h, dict.size(), 2);
    h.insert(h.end(), dict.begin(), dict.end());
    return h;
}

uint32_t crcOf(uint32_t crc, std::span<const uint8_t> s)
{
    while (!s.empty()) {
        const size_t n = std::min<size_t>(s.size(), size_t(1) << 30);
        crc = uint32_t(crc32(crc, s.data(), uInt(n)));
        s = s.subspan(n);
    }
    return crc;
}

struct ZipMember {
    std::string name;
    std::vector<uint8_t> head;      ///< .npy header, or the whole member for small ones
    std::span<const uint8_t> body;  ///< payload view
    uint32_t crc = 0;
    uint64_t size = 0;
    uint64_t offset = 0;            ///< of the local file header
};

void localHeader(std::vector<uint8_t>& out, const ZipMember& m, bool central)
{
    putLe(out, central ? 0x02014b50 : 0x04034b50, 4);
    if (central)
        putLe(out, 20, 2);          // made by: MS-DOS compatible, spec 2.0
    putLe(out, 10, 2);              // needed: 1.0 (stored)
    putLe(out, 0x0800, 2);          // names are UTF-8
    putLe(out, 0, 2);               // stored
    putLe(out, 0, 2);               // 00:00:00, fixed so the same record gives the same archive
    putLe(out, (0 << 9) | (1 << 5) | 1, 2); // 1980-01-01
    putLe(out, m.crc, 4);
    putLe(out, m.size, 4);
    putLe(out, m.size, 4);
    putLe(out, m.name.size(), 2);
    putLe(out, 0, 2);               // extra
    if (central) {
        putLe(out, 0, 2);           // comment
        putLe(out, 0, 2);           // disk
        putLe(out, 0, 2);           // internal attributes
        putLe(out, 0, 4);           // external attributes
        putLe(out, m.offset, 4);
    }
    out.insert(out.end(), m.name.begin(), m.name.end());
}

} // namespace

Result<ExportSummary> exportNpz(const Record& r, const ExportSelection& what, const std::string& path)
{
    ExportSummary summary;
    auto pieces = collect(r, what, summary);
    if (!pieces)
        return std::unexpected(std::move(pieces.error()));
    uint64_t widened = 0;
    std::vector<ZipMember> members;
    members.reserve(pieces->size() + 1);
    uint64_t offset = 0;
    constexpr uint64_t kZipMax = 0xFFFFFFFFu;
    for (auto& p : *pieces) {
        if (p.dtype == "BF16") {
            // numpy has no bfloat16: float32 holds every bf16 exactly.
            std::vector<uint8_t> wide(p.bytes.size() * 2);
            for (size_t i = 0; i < p.bytes.size() / 2; ++i) {
                const float f = bf16ToFloat(uint16_t(p.bytes[2 * i] | (p.bytes[2 * i + 1] << 8)));
                std::memcpy(wide.data() + 4 * i, &f, 4);
            }
            p.owned = std::move(wide);
            p.bytes = p.owned;
            ++widened;
        }
        ZipMember m;
        m.name = p.entry->path + ".npy";
        m.head = npyHeader(npyDescrFor(*p.entry), p.entry->shape);
        m.body = p.bytes;
        m.size = m.head.size() + m.body.size();
        m.offset = offset;
        if (m.size >= kZipMax || offset >= kZipMax || m.name.size() > 0xFFFF)
            return fail(ErrorCode::Limit, "the .npz would need ZIP64 (a member or the archive reaches 4 GiB), which is not written; export to .safetensors instead");
        offset += 30 + m.name.size() + m.size;
        members.push_back(std::move(m));
    }
    {
        ZipMember meta;
        meta.name = "ckpt-metadata.json";
        const std::string json = exportMetadataJson(r, what);
        meta.head.assign(json.begin(), json.end());
        meta.size = meta.head.size();
        meta.offset = offset;
        offset += 30 + meta.name.size() + meta.size;
        members.push_back(std::move(meta));
    }
    std::vector<uint8_t> central;
    for (const auto& m : members)
        central.resize(central.size() + 46 + m.name.size());
    if (offset + central.size() >= kZipMax || members.size() >= 0xFFFF)
        return fail(ErrorCode::Limit, "the .npz would need ZIP64 (4 GiB or 65535 members), which is not written; export to .safetensors instead");
    if (widened)
        summary.notes.push_back(std::to_string(widened) + " BF16 tensors widened to float32 (numpy has no bfloat16)");
    for (auto& m : members)
        m.crc = crcOf(crcOf(uint32_t(crc32(0, Z_NULL, 0)), m.head), m.body);
    central.clear();
    for (const auto& m : members)
        localHeader(central, m, true);
    std::vector<uint8_t> end;
    putLe(end, 0x06054b50, 4);
    putLe(end, 0, 2);
    putLe(end, 0, 2);
    putLe(end, members.size(), 2);
    putLe(end, members.size(), 2);
    putLe(end, central.size(), 4);
    putLe(end, offset, 4);
    putLe(end, 0, 2);
    auto w = writeFileAtomic(path, [&](const std::function<Result<void>(std::span<const uint8_t>)>& sink) -> Result<void> {
        for (const auto& m : members) {
            std::vector<uint8_t> head;
            localHeader(head, m, false);
            head.insert(head.end(), m.head.begin(), m.head.end());
            if (auto s = sink(head); !s)
                return s;
            if (!m.body.empty())
                if (auto s = sink(m.body); !s)
                    return s;
        }
        if (auto s = sink(central); !s)
            return s;
        return sink(end);
    });
    if (!w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

} // namespace ckpt
