// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/record.h"

namespace ckpt {

/**
 * For formats that keep each tensor's dtype (burnpack, PyTorch, safetensors): Record::precision is
 * full / half / double when every float tensor has that width, and mixedPrecision when they differ.
 */
void settleTensorPrecision(Record& r);

} // namespace ckpt
