// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/io/bytes.h"
#include "core/util/progress.h"

namespace ckpt {

/** True if \a data starts with the gzip magic 1f 8b. */
bool isGzip(std::span<const uint8_t> data);

struct InflateLimits {
    /** Hard ceiling on the inflated size; a gzip bomb stops here with ErrorCode::Limit. */
    uint64_t maxOutputBytes = uint64_t(64) << 30;
};

/**
 * Inflates the first gzip member of \a compressed (as flate2's GzDecoder reads it; bytes after the
 * first member are ignored). The output buffer grows with the data actually produced; the ISIZE
 * trailer is used only as a hint when it is plausible (deflate cannot expand more than 1032:1).
 * Errors carry the compressed byte offset where inflation failed.
 */
Result<BytesPtr> gunzip(std::span<const uint8_t> compressed, const InflateLimits& limits = {},
    const Progress& progress = Progress::none());

/**
 * Compresses \a payload as one gzip member with the header flate2's GzEncoder writes
 * (1f 8b 08 00 00000000 00 ff) at compression level 6. The deflate bytes come from libdeflate and
 * differ from miniz_oxide's, as any two deflate encoders may; the inflated payload is identical.
 */
Result<std::vector<uint8_t>> gzip(std::span<const uint8_t> payload, int level = 6);

} // namespace ckpt
