// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

#include <string>
#include <vector>

namespace ckpt {

struct SaveAsResult {
    std::vector<std::string> warnings; ///< precision loss and the like (convertRecord's)
    std::vector<std::string> notes;    ///< how the bincode layout was settled
};

/**
 * `ckpt convert`'s write (shared with the Python module): \a record in \a recorder and \a precision
 * at \a path, atomically. Writing bincode takes the exact Rust layout (the record's own, or the one
 * \a layoutOptions name with --schema / --schema-from / --scheduler, else derived from the record);
 * MessagePack written from a JSON record takes the layout that says which floats are f32.
 */
Result<SaveAsResult> saveRecordAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions);

} // namespace ckpt
