// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The JSON and text documents of one record (cli-contract.md: info, tensors, tree, show, state,
// check-resume), produced in core so that the CLI and the app's "Copy as JSON" share one code path.
// Keys are an interface: extend, never rename. Runs have theirs in runjson.h, diffs in diffjson.h.

#include "core/record/record.h"
#include "core/tensor/shape.h"
#include "core/tensor/stats.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <string>

namespace ckpt {

struct ResumeCheck;

/** `ckpt info --json`. */
std::string infoJson(const Record& r);

struct TensorRow {
    const TensorEntry* entry;
    TensorStats stats;
};
/** Bytes of tensor payload per batch of tensorRows (a batch may be larger when one tensor is). */
inline constexpr uint64_t kTensorRowsBatchBytes = uint64_t(64) << 20;

/**
 * Statistics of the tensors whose path matches \a filter (empty = all), in file order, computed in
 * batches of about \a batchBytes whose chunks \a parallel spreads (progress and cancellation per
 * batch: a cancelled run returns the rows of the batches done).
 */
std::vector<TensorRow> tensorRows(const Record& r, std::string_view filter, const Progress& progress = Progress::none(),
    const ParallelFor& parallel = {}, uint64_t batchBytes = kTensorRowsBatchBytes);
/** `ckpt tensors --json`: the contract's per-tensor objects. */
std::string tensorsJson(const Record& r, const std::vector<TensorRow>& rows);

/** `ckpt tree --json`: the record as nested {key, path, kind, ...} nodes; \a depth < 0 = unlimited. */
std::string treeJson(const Record& r, int depth);
/** `ckpt tree`: indented text. */
std::string treeText(const Record& r, int depth);

/** `ckpt show --json`: a node or tensor by path (tensors: shape, stats and the first \a limit values). */
Result<std::string> showJson(const Record& r, std::string_view path, uint64_t limit);
Result<std::string> showText(const Record& r, std::string_view path, uint64_t limit);

/** `ckpt state --json`: the caller-defined continuation state as JSON (serde_json pretty form). */
Result<std::string> stateJson(const Record& r);

/** `ckpt check-resume --json`. */
std::string checkResumeJson(const Record& r, const std::vector<ResumeCheck>& checks);

} // namespace ckpt
