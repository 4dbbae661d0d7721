// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace ckpt {

class Record;
struct OptimizerForensics;

/** `ckpt optimizer --json` (cli-contract.md, "Repair and verify"). */
std::string optimizerForensicsJson(const Record& r, const OptimizerForensics& f);

} // namespace ckpt
