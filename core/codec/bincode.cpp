// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The schema-less side of bincode: the envelope metadata and the structural scan for tensors
// (readBincode and writeBincode have a file each).
#include "core/codec/bincode.h"

#include "core/codec/bincodewire.h"
#include "core/codec/msgpack.h"

namespace ckpt {

using namespace bincode_detail;

namespace {

/** A canonical varint at \a p (the scan only trusts the encodings Burn writes). */
std::optional<uint64_t> scanVarint(std::span<const uint8_t> d, size_t& p)
{
    if (p >= d.size())
        return std::nullopt;
    const uint8_t b = d[p];
    if (b < kU16Marker) {
        ++p;
        return b;
    }
    const size_t width = b == kU16Marker ? 2 : b == kU32Marker ? 4 : b == kU64Marker ? 8 : 0;
    if (width == 0 || d.size() - p < 1 + width)
        return std::nullopt;
    uint64_t v = 0;
    for (size_t k = 0; k < width; ++k)
        v |= uint64_t(d[p + 1 + k]) << (8 * k);
    const uint64_t minimum = width == 2 ? kU16Marker : width == 4 ? 0x10000 : 0x100000000ull;
    if (v < minimum)
        return std::nullopt;
    p += 1 + width;
    return v;
}

bool isIdChar(uint8_t c, size_t idLength)
{
    if (idLength == 36)
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'v'); // BASE32_DNSSEC alphabet
}

} // namespace

Result<BincodeMetadata> readBincodeMetadata(std::span<const uint8_t> bytes)
{
    BincodeMetadata m;
    std::string* fields[] = {&m.float_, &m.int_, &m.format, &m.version, &m.settings};
    static const char* names[] = {"float", "int", "format", "version", "settings"};
    size_t p = 0;
    for (int k = 0; k < 5; ++k) {
        const size_t at = p;
        auto len = scanVarint(bytes, p);
        if (!len)
            return fail(ErrorCode::Malformed, std::string("expected the length of metadata.") + names[k] + " (a varint)", at);
        if (*len > bytes.size() - p)
            return fail(ErrorCode::Truncated,
                std::string("metadata.") + names[k] + " declares " + std::to_string(*len) + " bytes but only " + std::to_string(bytes.size() - p) + " remain", at);
        if (firstInvalidUtf8(bytes.data() + p, *len) != *len) // Rust's str::from_utf8
            return fail(ErrorCode::Malformed, std::string("metadata.") + names[k] + " is not valid UTF-8", p);
        fields[k]->assign(reinterpret_cast<const char*>(bytes.data() + p), *len);
        p += *len;
    }
    m.consumed = p;
    return m;
}

Result<BincodeScanResult> scanBincode(std::span<const uint8_t> d, const Progress& progress)
{
    BincodeScanResult out;
    size_t p = 0;
    if (auto m = readBincodeMetadata(d)) {
        out.table = dtypeTableForVersion(m->version);
        p = m->consumed;
        out.metadata = std::move(*m);
    }
    // Every float TensorData of a record is converted to the precision's float type when saved, so a
    // candidate of another float dtype is a coincidence of bytes (most often F64/F32: indices 0 and 1).
    std::optional<DType> floatElem;
    if (out.metadata) {
        const std::string& f = out.metadata->float_;
        floatElem = f == "f32" ? std::optional(DType::F32) : f == "f64" ? std::optional(DType::F64)
            : f.find("bf16") != std::string::npos || f.find("bfloat16") != std::string::npos ? std::optional(DType::BF16)
            : f.find("f16") != std::string::npos || f.find("binary16") != std::string::npos ? std::optional(DType::F16)
                                                                                          : std::nullopt;
    }
    size_t nextReport = p + (1u << 20);
    while (p < d.size()) {
        if (p >= nextReport) {
            if (progress.cancelled())
                return fail(ErrorCode::Cancelled, "scan cancelled", p);
            progress.report(double(p) / double(d.size()));
            nextReport = p + (1u << 20);
        }
        size_t q = p;
        const auto length = scanVarint(d, q);
        if (!length || *length == 0 || *length > d.size() - q) {
            ++p;
            continue;
        }
        const size_t payload = q;
        q += *length;
        const auto rank = scanVarint(d, q);
        if (!rank || *rank > 8) {
            ++p;
            continue;
        }
        std::vector<uint64_t> shape;
        uint64_t product = 1;
        bool ok = true;
        for (uint64_t k = 0; k < *rank && ok; ++k) {
            const auto dim = scanVarint(d, q);
            ok = dim.has_value();
            if (ok) {
                shape.push_back(*dim);
                ok = !__builtin_mul_overflow(product, *dim, &product) && product <= *length;
            }
        }
        const auto index = ok ? scanVarint(d, q) : std::nullopt;
        const auto dtype = index && *index < 32 ? dtypeFromIndex(out.table, static_cast<uint32_t>(*index)) : std::nullopt;
        const bool boolStore = dtype == DType::Bool && out.table == DTypeTable::Burn021;
        const bool foreignFloat = dtype && floatElem && isFloat(*dtype) && *dtype != *floatElem;
        if (!dtype || *dtype == DType::QFloat || boolStore || foreignFloat || product * dtypeSize(*dtype) != *length) {
            ++p;
            continue;
        }
        ScannedTensor t;
        t.offset = p;
        t.payloadOffset = payload;
        t.length = *length;
        t.shape = std::move(shape);
        t.dtype = *dtype;
        t.end = q;
        const size_t floor = out.tensors.empty() ? (out.metadata ? out.metadata->consumed : 0) : out.tensors.back().end;
        for (size_t idLength : {13u, 10u, 36u}) {
            if (p < floor + idLength + 1 || d[p - idLength - 1] != idLength)
                continue;
            bool id = true;
            for (size_t k = p - idLength; k < p && id; ++k)
                id = isIdChar(d[k], idLength);
            if (id) {
                t.paramId.assign(reinterpret_cast<const char*>(d.data() + p - idLength), idLength);
                break;
            }
        }
        out.tensors.push_back(std::move(t));
        p = q;
    }
    progress.report(1.0);
    return out;
}

} // namespace ckpt
