// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/record.h"

#include <memory>
#include <optional>

namespace ckpt {

/** The Burn <= 0.21 records of one checkpoint: a TrainingRecord alone (model) or burn-train's three files. */
struct MigrateSources {
    std::shared_ptr<const Record> model, optim, scheduler;
    std::optional<uint64_t> epoch;   ///< from the input's name (model-N.*, record-N.*), if it has one
};

} // namespace ckpt
