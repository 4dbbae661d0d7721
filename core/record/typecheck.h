// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"

namespace ckpt {

class Record;

/**
 * The strict verdict on an indexed record: accepted iff the typed serde decoder of its declared
 * type would decode it (every value of a type the record kind fixes: envelope, metadata,
 * TensorData with len == numel * size, ParamSerde, adaptor enums, optimizer states, pending
 * gradients with unique ids and float dtypes, the parameter contract, ModelState version 1).
 * Values of types the file does not declare (a module's own fields, the caller state, the
 * scheduler scalar) are not judged. The error names the offset and path.
 */
Result<void> checkRecordTypes(const Record& record);

} // namespace ckpt
