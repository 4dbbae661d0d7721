// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

#include <optional>
#include <string>
#include <vector>

namespace ckpt {

/**
 * A module record that holds some of a model's parameters: what Burn 0.22's `into_record_group`
 * writes (the parameters of one group) and `load_record` applies with `allow_partial(true)` over
 * the checkpoint a run started from, which keeps its own values for the rest. Such a record is not
 * damaged; a resumption from it lacks the parameters listed here.
 *
 * The file itself does not say it is partial (burnpack has no such mark): the whole model is known
 * only from a basis beside it, which `basis` names.
 */
struct PartialModule {
    size_t held = 0;                  ///< parameters the module record holds
    size_t whole = 0;                 ///< parameters of the whole model, as far as the basis shows
    /** Module paths of the parameters it lacks: from the optimizer's metadata sorted by path, then the whole record's in its order. */
    std::vector<std::string> missing;
    std::vector<std::string> missingIds; ///< their parameter ids (base32), parallel to `missing`
    std::string basis;                ///< how the whole model is known
};

/**
 * From the record itself: Burn 0.22's optimizer record names each parameter's module path in its
 * metadata (format-burnpack.md §8.3), so optimizer state for a path the model part does not hold
 * shows a partial module record. \a whole, if given, is the record a resumption starts from (the
 * run's full checkpoint): its parameters the record lacks are missing too, matched by parameter id
 * (Burn keeps ids across a run's checkpoints) or else by module path (what `load_record` matches).
 * nullopt when nothing shows a missing parameter, or the record holds no module part.
 */
std::optional<PartialModule> partialModuleOf(const Record& record, const Record* whole = nullptr);

/** "a partial module record (Burn 0.22 allow_partial): N of M parameters". */
std::string partialModuleSummary(const PartialModule& partial);

/** The summary with its basis and the first missing paths (at most \a shown, then "and K more"). */
std::string partialModuleDetail(const PartialModule& partial, size_t shown = 8);

} // namespace ckpt
