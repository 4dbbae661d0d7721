// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/pieces.h"

#include "core/tensor/shape.h"

#include <cstring>

namespace ckpt::export_detail {

void putLe(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

std::vector<uint8_t> encodeLegacy(const Record& r, const TensorEntry& t)
{
    return encodeValues(r.values(t, 0, t.numel), t.dtype);
}

std::vector<uint8_t> encodeValues(std::span<const double> values, DType dtype)
{
    const uint32_t size = dtypeSize(dtype);
    std::vector<uint8_t> out(values.size() * size);
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        uint8_t* p = out.data() + i * size;
        switch (dtype) {
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
            const int64_t x = dtype == DType::U64 ? int64_t(uint64_t(v)) : int64_t(v);
            std::memcpy(p, &x, 8);
            break;
        }
        case DType::I32: case DType::U32: {
            const uint32_t x = dtype == DType::U32 ? uint32_t(v) : uint32_t(int32_t(v));
            std::memcpy(p, &x, 4);
            break;
        }
        case DType::I16: case DType::U16: {
            const uint16_t x = dtype == DType::U16 ? uint16_t(v) : uint16_t(int16_t(v));
            std::memcpy(p, &x, 2);
            break;
        }
        default: *p = uint8_t(int(v)); break;
        }
    }
    return out;
}

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
            Error e{ErrorCode::Invalid,
                std::to_string(p.bytes.size()) + " payload bytes, but shape " + shapeString(t.shape) + " of " + t.dtypeLabel() + " needs "
                    + std::to_string(t.numel * p.elementSize)};
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

} // namespace ckpt::export_detail
