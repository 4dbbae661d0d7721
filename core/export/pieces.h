// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the safetensors, .npz and import files of core/export share: a tensor on its way out (its
// bytes viewed or converted), little-endian integers, and the selection of a record's tensors.
// Internal to core/export.

#include "core/export/export.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::export_detail {

void putLe(std::vector<uint8_t>& out, uint64_t v, int bytes);
inline std::span<const uint8_t> asBytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

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
std::vector<uint8_t> encodeLegacy(const Record& r, const TensorEntry& t);
/// Values as little-endian elements of \a dtype (floats rounded to nearest; integers truncated: callers pass exact ones).
std::vector<uint8_t> encodeValues(std::span<const double> values, DType dtype);

/// The selected tensors with their bytes, checked against shape x dtype (a --lenient record may lie).
Result<std::vector<Piece>> collect(const Record& r, const ExportSelection& what, ExportSummary& summary);

} // namespace ckpt::export_detail
