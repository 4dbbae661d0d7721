// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// .npz: numpy's zip of .npy members, stored (no compression), CRC-32 through zlib.
#include "core/export/pieces.h"

#include "core/io/bytes.h"

#include <cstring>
#include <zlib.h>

namespace ckpt {

using namespace export_detail;

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
