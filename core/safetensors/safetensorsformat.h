// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/format.h"

namespace ckpt {

/** safetensors files behind the format interface: read as records (kind `safetensors`); written by `ckpt export`. */
const RecordFormat& safetensorsFormat();

} // namespace ckpt
