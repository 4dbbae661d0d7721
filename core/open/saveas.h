// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/format.h"
#include "core/model/record.h"

#include <string>

namespace ckpt {

/**
 * `ckpt convert`'s write (shared with the Python module): \a record in \a recorder and \a precision
 * at \a path, atomically. Within a family the family converts (writing bincode takes the exact Rust
 * layout: the record's own, or the one \a layoutOptions name with --schema / --schema-from /
 * --scheduler, else derived from the record); across families the target family imports the record,
 * through Burn 0.21's envelope where it needs one, and the warnings say what did not carry over.
 */
Result<SaveAsResult> saveRecordAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions);

} // namespace ckpt
