// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/safetensors/safetensorsfile.h"

#include "core/codec/json.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <unordered_map>

namespace ckpt {

std::optional<uint32_t> safetensorsElementSize(std::string_view dtype)
{
    static const std::pair<std::string_view, uint32_t> table[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2},
        {"I8", 1}, {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1}, {"BOOL", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}};
    for (const auto& [name, size] : table)
        if (name == dtype)
            return size;
    return std::nullopt;
}

bool looksLikeSafetensors(std::span<const uint8_t> data)
{
    if (data.size() < 10)
        return false;
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | data[size_t(i)];
    // no bincode record's first string (its metadata's float type) is followed by '{'
    return n >= 2 && n <= data.size() - 8 && data[8] == '{';
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const
{
    for (const auto& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

Result<SafetensorsFile> readSafetensors(const BytesPtr& bytes, const std::string& name)
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
    auto at = [&](uint32_t node) {
        return 8 + t[node].srcOffset;
    };
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
            const auto dim = t.asU64(c); // JSON's non-negative integers, not beyond 64 bits
            if (!dim) {
                overflow = true;
                return;
            }
            const uint64_t d = *dim;
            st.shape.push_back(d);
            if (d && numel > UINT64_MAX / d)
                overflow = true;
            numel *= d;
        });
        if (overflow)
            return err("expected a shape of non-negative integers whose product fits in 64 bits", *shape);
        if (!offsets || !t.isArray(*offsets) || t[*offsets].count != 2 || !t.asU64(*offsets + 1) || !t.asU64(*offsets + 2))
            return err("expected data_offsets [begin, end] of two non-negative integers", offsets ? *offsets : v);
        st.begin = *t.asU64(*offsets + 1);
        st.end = *t.asU64(*offsets + 2);
        if (st.end < st.begin || st.end > dataSize)
            return err("data_offsets [" + std::to_string(st.begin) + ", " + std::to_string(st.end) + "] lie outside the " + std::to_string(dataSize)
                    + " data bytes",
                *offsets);
        if (numel > UINT64_MAX / *size || st.end - st.begin != numel * *size)
            return err("data_offsets span " + std::to_string(st.end - st.begin) + " bytes, but shape " + shapeString(st.shape) + " of " + st.dtype + " needs "
                    + std::to_string(numel * *size),
                *offsets);
        st.data = all.subspan(dataStart + st.begin, st.end - st.begin);
        seen.emplace(key, file.tensors.size());
        file.tensors.push_back(std::move(st));
    });
    if (!status)
        return std::unexpected(std::move(status.error()));
    // The format leaves no holes and no overlaps: sorted by begin, each tensor starts where the last ended.
    std::vector<const SafetensorsTensor*> sorted;
    sorted.reserve(file.tensors.size());
    for (const auto& st : file.tensors)
        sorted.push_back(&st);
    std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
    uint64_t expected = 0;
    for (const auto* st : sorted) {
        if (st->begin != expected) {
            Error e{ErrorCode::Invalid,
                st->begin > expected
                    ? "a hole in the data: bytes [" + std::to_string(expected) + ", " + std::to_string(st->begin) + ") belong to no tensor"
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

} // namespace ckpt
