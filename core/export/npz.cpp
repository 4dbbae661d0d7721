// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// .npz: numpy's zip of .npy members, stored (no compression), through core/io/zipwriter.
#include "core/export/pieces.h"

#include "core/io/zipwriter.h"

#include <cstring>

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

} // namespace

Result<ExportSummary> exportNpz(const Record& r, const ExportSelection& what, const std::string& path)
{
    ExportSummary summary;
    auto pieces = collect(r, what, summary);
    if (!pieces)
        return std::unexpected(std::move(pieces.error()));
    uint64_t widened = 0;
    std::vector<ZipMemberOut> members;
    members.reserve(pieces->size() + 1);
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
        members.push_back({p.entry->path + ".npy", npyHeader(npyDescrFor(*p.entry), p.entry->shape), p.bytes, 1});
    }
    const std::string json = exportMetadataJson(r, what);
    members.push_back({"ckpt-metadata.json", std::vector<uint8_t>(json.begin(), json.end()), {}, 1});
    if (widened)
        summary.notes.push_back(std::to_string(widened) + " BF16 tensors widened to float32 (numpy has no bfloat16)");
    if (auto w = writeStoredZip(path, members); !w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

} // namespace ckpt
