// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tensor/dtype.h"
#include "core/tensor/stats.h"
#include "core/util/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * How to read an optimizer_state blob. ipfrs writes none itself and fixes no encoding (§5 of the
 * spec): every byte convention in the workspace is little-endian without a header, so these views
 * are all little-endian over the whole blob.
 */
enum class BlobView { U8, F32, F64, F16, BF16, U64, I64, U32, I32 };

const char* blobViewName(BlobView v);
std::optional<BlobView> blobViewFromName(std::string_view name);
uint32_t blobViewWidth(BlobView v);
/** The tensor element type a view reads the bytes as (U8 for raw bytes). */
DType blobViewDType(BlobView v);

/**
 * The view an inspector shows by default, from the key and the length: keys ending in `step`
 * (`fc.weight/step`, `step`) of 8 bytes are u64 counters (4 bytes: u32); keys naming an explicit
 * type (`f64`, `double`, `f16`, `half`, `bf16`) use it when the length divides; Adam/SGD state
 * names (`exp_avg`, `exp_avg_sq`, `momentum`, `velocity`, `m`, `v`, ...) and every other blob
 * whose length is a multiple of 4 are f32; anything else is raw bytes.
 */
BlobView inferBlobView(std::string_view key, size_t byteLength);

/** Statistics over the values of a view: a tensor's (core/tensor/stats), without the histogram. */
using BlobStats = TensorStats;

/** Fails (Invalid) when the length is not a multiple of the view's element width. */
Result<BlobStats> blobStats(std::span<const uint8_t> bytes, BlobView view);
/** The first \a limit values of the view, widened to double (u64/i64 beyond 2^53 lose precision). */
Result<std::vector<double>> blobValues(std::span<const uint8_t> bytes, BlobView view, size_t limit = SIZE_MAX);

} // namespace ckpt
