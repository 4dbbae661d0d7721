// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A safetensors file (Hugging Face's `safetensors` crate: an 8-byte little-endian header length, a
// JSON header, the tensors' bytes), parsed and checked: the one reader behind the safetensors family
// (safetensorsformat) and `ckpt import`.

#include "core/io/bytes.h"
#include "core/util/error.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt {

/** Element sizes of safetensors' dtypes (F8 variants are one byte); nullopt for an unknown name. */
std::optional<uint32_t> safetensorsElementSize(std::string_view dtype);

/** True when \a data starts like a safetensors file: a header length that fits, then '{'. */
bool looksLikeSafetensors(std::span<const uint8_t> data);

/** One tensor of a safetensors file. */
struct SafetensorsTensor {
    std::string name;
    std::string dtype;              ///< safetensors name: F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL F8_E5M2 F8_E4M3
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0;    ///< data_offsets, relative to the start of the data
    std::span<const uint8_t> data;  ///< view into the file's bytes
};

/** A parsed safetensors file (tensors in header order); \a bytes keeps the views alive. */
struct SafetensorsFile {
    std::string name;               ///< for messages
    BytesPtr bytes;
    uint64_t headerLength = 0;
    std::vector<SafetensorsTensor> tensors;
    std::vector<std::pair<std::string, std::string>> metadata;
    const SafetensorsTensor* find(std::string_view name) const;
};

/**
 * Reads a safetensors file by the published rules: the header length fits the file, the header is
 * a UTF-8 JSON object (may end in spaces), every entry has a known dtype, a shape of non-negative
 * integers and data_offsets [begin, end] with end - begin = numel x element size, no name twice,
 * `__metadata__` maps strings to strings, and the entries cover the data exactly (no overlap, no
 * hole, nothing after the last). Errors give the byte offset in the file.
 */
Result<SafetensorsFile> readSafetensors(const BytesPtr& bytes, const std::string& name);
Result<SafetensorsFile> openSafetensors(const std::string& path);

} // namespace ckpt
