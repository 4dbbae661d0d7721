// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/format.h"

namespace ckpt {

/** PyTorch's torch.save files (zip and legacy format) behind the format interface: read, never executed, not written. */
const RecordFormat& torchFormat();

} // namespace ckpt
