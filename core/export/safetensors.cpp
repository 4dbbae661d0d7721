// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors: the writer of a record's tensors (the reader is core/safetensors/safetensorsfile).
#include "core/export/pieces.h"

#include "core/codec/json.h"
#include "core/io/bytes.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace ckpt {

using namespace export_detail;

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

} // namespace ckpt
