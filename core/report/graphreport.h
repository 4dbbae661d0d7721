// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/analysis.h"
#include "core/graph/blob.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/graph/layout.h"

#include <string>

namespace ckpt {

/**
 * Text renderings of a GradientCheckpoint for `ckpt graph`, `ckpt info`, `ckpt blocks` and
 * `ckpt show` (cli-contract.md). JSON keys of the contract come first and are never renamed;
 * extensions are added after them. All output is deterministic.
 */

/**
 * `ckpt graph --json`: node_count, edge_count, topological_order, cycle (null or the cycle's ids),
 * loss_cid, loss_provenance_chain, step, timestamp, optimizer_state [{key, len}]; then extensions:
 * blocked, phantom_ids, duplicate_edges, multiple_producers, notes, nodes (id, op, inputs, output,
 * gradient, cid kinds) and, when \a layout is given, `layout` {width, height, layers, nodes
 * [{id, x, y, width, height, layer}], edges [{from, to, points, back}], back_edges, groups}.
 */
std::string graphJson(const GradientCheckpoint& c, const GraphAnalysis& a, const LayoutResult* layout = nullptr,
    const std::vector<std::string>* layoutNames = nullptr);
/** Human-readable `ckpt graph`. */
std::string graphText(const GradientCheckpoint& c, const GraphAnalysis& a);
/** Graphviz DOT of the stored graph (node label = op + short id); back edges of cycles drawn red. */
std::string graphDot(const GradientCheckpoint& c, const GraphAnalysis& a);

/** `ckpt info --json` for a GradientCheckpoint (kind "gradient_checkpoint"). */
std::string checkpointInfoJson(const GradientCheckpoint& c, const GraphAnalysis& a);
std::string checkpointInfoText(const std::string& file, const GradientCheckpoint& c, const GraphAnalysis& a);

/** Warnings `validate` prints for a loadable checkpoint (cycles, blocked nodes, duplicates, ...). */
std::vector<std::string> checkpointWarnings(const GradientCheckpoint& c, const GraphAnalysis& a);

/** `ckpt blocks --json`: {"version", "roots", "header", "blocks": [{cid, codec, hash, size, offset, check}], "corrupted"}. */
std::string blocksJson(const CarStore& store);
std::string blocksText(const std::string& file, const CarStore& store);

/** One blob (`show FILE KEY`): view, stats and the first \a limit values. */
std::string blobJson(const OptimizerBlob& blob, BlobView view, size_t limit);
std::string blobText(const OptimizerBlob& blob, BlobView view, size_t limit);

/** One node (`show FILE NODE_ID`). */
std::string nodeJson(const ComputationNode& n, const ComputationGraphStore& g);
std::string nodeText(const ComputationNode& n, const ComputationGraphStore& g);

/** One block (`show FILE CID --blocks FILE.car`): CID facts, hash check and the LE interpretations of §3.2. */
std::string blockJson(const Cid& cid, std::span<const uint8_t> data, BlockCheck check, size_t limit);
std::string blockText(const Cid& cid, std::span<const uint8_t> data, BlockCheck check, size_t limit);

} // namespace ckpt
