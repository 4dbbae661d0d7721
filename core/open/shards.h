// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Sharded sets: a Hugging Face `*.index.json` ({"metadata": ..., "weight_map": {tensor: shard}},
// `model.safetensors.index.json`, `pytorch_model.bin.index.json`) opens its shards, each through the
// registry, as one record of their family: tensors in shard order, every shard one RecordPart.

#include "core/model/format.h"

#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** True for a path named like an index of shards (`*.index.json`). */
bool isShardIndex(std::string_view path);

/** The shard files \a indexPath names, beside it, in order of first mention; empty when it cannot be read. */
std::vector<std::string> shardsOf(const std::string& indexPath);

/**
 * Opens the shards \a indexPath names (relative to its folder) as one record: every shard opens, all
 * of one family, every tensor of the weight map is in the shard it names, no tensor is in two shards.
 */
Result<RecordPtr> openShardedSet(const std::string& indexPath, const OpenOptions& options, const Progress& progress);

} // namespace ckpt
