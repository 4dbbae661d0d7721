// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/checkpoint.h"

#include <string>
#include <vector>

namespace ckpt {

/** An edge (from, to) that occurs more than once in `edges`. */
struct DuplicateEdge {
    std::string from;
    std::string to;
    uint64_t count = 0;
};

/** A tensor CID and the nodes (ids, file order) that claim to produce or consume it. */
struct CidUsers {
    std::string cid;
    std::vector<std::string> nodes;
};

/**
 * What the graph of a checkpoint looks like to the crate and to an inspector. All lists are
 * deterministic: they depend only on the file (map order = file order where the crate would use its
 * random HashMap order).
 */
struct GraphAnalysis {
    /** ComputationGraphStore::topological_order(), exactly (sorted-batch Kahn, phantom ids included). */
    std::vector<std::string> topologicalOrder;
    /**
     * Map keys the crate's order silently drops (on a cycle, downstream of one, or waiting on an
     * edge from an id that is not a node), in file order.
     */
    std::vector<std::string> blocked;
    /** One concrete cycle among the blocked nodes: c[0] -> c[1] -> ... -> c[n-1] -> c[0]. Empty if none. */
    std::vector<std::string> cycle;
    /** Edge endpoints that are not node keys ("phantom" ids), in first-seen order. */
    std::vector<std::string> phantomIds;
    std::vector<DuplicateEdge> duplicateEdges;
    /** CIDs with more than one producing node (provenance is then ambiguous). */
    std::vector<CidUsers> multipleProducers;
    /** provenance_chain(loss_cid) as node ids (empty without a loss CID or producer). */
    std::vector<std::string> lossProvenanceChain;
};

/** The crate's topological_order() over the map keys and the stored edges. */
std::vector<std::string> topologicalOrder(const ComputationGraphStore& graph);

/**
 * The crate's provenance_chain(output_cid) as node ids. "First node in HashMap order" is taken as
 * first in file order, which is one of the orders the crate can produce; it is the only order when
 * every CID on the walk has one producer.
 */
std::vector<std::string> provenanceChain(const ComputationGraphStore& graph, std::string_view outputCid);

/** find_consumers(cid) as node ids in file order. */
std::vector<std::string> findConsumers(const ComputationGraphStore& graph, std::string_view cid);

/** Every CID that is some node's input, with its consumers (CIDs in first-seen order). */
std::vector<CidUsers> consumersByCid(const ComputationGraphStore& graph);
/** Every CID that is some node's output, with its producers. */
std::vector<CidUsers> producersByCid(const ComputationGraphStore& graph);

/** Runs everything above; linear-ish in nodes + edges (sorting aside). */
GraphAnalysis analyzeGraph(const GradientCheckpoint& checkpoint);
GraphAnalysis analyzeGraph(const ComputationGraphStore& graph, const std::optional<std::string>& lossCid);

} // namespace ckpt
