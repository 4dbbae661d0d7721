// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"
#include "core/value/tape.h"

#include <string>

namespace ckpt {

/** An Invalid error at a tape node: its source offset, the record path and what was wrong. */
inline Error invalidAt(const Tape& t, uint32_t node, std::string path, std::string what)
{
    Error e;
    e.code = ErrorCode::Invalid;
    e.what = std::move(what);
    e.recordPath = std::move(path);
    e.offset = t[node].srcOffset;
    return e;
}

} // namespace ckpt
