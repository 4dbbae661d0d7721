// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/format.h"

namespace ckpt {

Result<RecordInput> recordInputOf(const BytesPtr& bytes, const std::string& name, const InflateLimits& limits, const Progress& progress)
{
    RecordInput input{bytes, bytes, isGzip(bytes->span()), name};
    if (input.gzipped) {
        auto inflated = gunzip(bytes->span(), limits, progress);
        if (!inflated)
            return std::unexpected(std::move(inflated.error()).withFile(name));
        input.decoded = *inflated;
    }
    if (input.decoded->size() == 0)
        return std::unexpected(Error{ErrorCode::Truncated, "the file is empty: expected a record", name, uint64_t(0)});
    return input;
}

} // namespace ckpt
