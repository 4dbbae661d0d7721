// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"

namespace ckpt {

class Record;

/**
 * Indexes a decoded tape as a record envelope: kind, metadata, parameters, optimizer entries,
 * pending gradients, scheduler and tensors. \a lenient: what the typed decoders would reject is
 * noted in Record::damage instead of failing (the opening and the bincode layout search share it).
 */
Result<void> indexEnvelope(Record& r, bool lenient);

} // namespace ckpt
