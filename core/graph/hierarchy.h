// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/checkpoint.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

/**
 * What the grouping of a graph looks at: node count, directed edges (duplicates, self loops and
 * cycles allowed), and per node an op name and an optional module path ("encoder.layer3.attn",
 * '.' or '/' separated; empty when the node has none).
 */
struct GraphHierarchyInput {
    uint32_t nodeCount = 0;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    std::vector<std::string> op;
    std::vector<std::string> modulePath;
};

struct HierarchyOptions {
    uint32_t maxTopLevel = 32;   ///< items directly under the root at most (the view opens more while they fit)
    uint32_t maxChildren = 24;   ///< items under any other cluster at most (what one expand adds)
    uint32_t chainSegment = 16;  ///< longest piece of a chain shown as one box
    uint32_t minRun = 3;         ///< shortest chain or same-op run that becomes a box
};

/** One item of a cluster's contents: a sub-cluster or a single node. */
struct HierarchyItem {
    uint32_t index = 0;
    bool cluster = false;
    bool operator==(const HierarchyItem&) const = default;
};

struct GraphCluster {
    /** Module: nodes sharing a module-path prefix; Chain: single-input/single-output run; Run: consecutive same-op nodes; Block: consecutive items bundled to bound the fan-out. */
    enum class Kind : uint8_t { Root, Module, Chain, Run, Block };
    Kind kind = Kind::Root;
    uint32_t parent = UINT32_MAX;
    uint32_t begin = 0, end = 0;         ///< members: GraphHierarchy::order[begin, end)
    std::vector<HierarchyItem> items;    ///< contents in topological order
    std::string label;                   ///< module name, op sequence or op census
    uint32_t size() const { return end - begin; }
};

/**
 * A tree of clusters over the nodes: module paths first, then chains (split into segments), runs of
 * one op, and blocks of consecutive items wherever a level would have too many items. Every
 * cluster's members are one contiguous range of `order`, a topological order (lowest index first, so
 * the file's creation order where it is one; cycles are broken at the lowest-index waiting node).
 */
struct GraphHierarchy {
    std::vector<uint32_t> order;         ///< nodes, topologically
    std::vector<uint32_t> position;      ///< node -> index into order
    std::vector<uint32_t> parent;        ///< node -> the cluster listing it as an item
    std::vector<GraphCluster> clusters;  ///< [0] is the root; a child's index is larger than its parent's
    /** The clusters from the root down to the one listing \a node (root first). */
    std::vector<uint32_t> ancestors(uint32_t node) const;
};

GraphHierarchy buildGraphHierarchy(const GraphHierarchyInput& input, const HierarchyOptions& options = {});

/**
 * Grouping input of a checkpoint's graph for the layout nodes of layoutInputFor (\a names): ops, and
 * module paths from the metadata ("module", "scope", "name", "path"; a parameter path in "weight"
 * without its last part; "layer" N as "layer N"), else from an id with '/' in it.
 */
GraphHierarchyInput hierarchyInputFor(const ComputationGraphStore& graph, const std::vector<std::string>& names,
    const std::vector<std::pair<uint32_t, uint32_t>>& edges);

/**
 * Which clusters are open: the visible items are the contents of open clusters whose parents are
 * open, down to closed clusters and nodes. Pure bookkeeping; the UI lays out what it lists.
 */
class HierarchyCut
{
public:
    HierarchyCut() = default;
    /** Opens the root, then the largest closed clusters while the visible count stays within \a budget. */
    HierarchyCut(const GraphHierarchy& hierarchy, uint32_t budget);

    const std::vector<HierarchyItem>& visible() const { return m_visible; }
    /** Index into visible() of the item showing \a node. */
    uint32_t visibleIndexOf(uint32_t node) const { return m_unitOfNode[node]; }
    bool isOpen(uint32_t cluster) const { return m_open[cluster]; }
    /** Opens a visible closed cluster; false if it is not one. */
    bool open(uint32_t cluster);
    /** Closes an open cluster (and everything open inside it); false if it was not open or is the root. */
    bool close(uint32_t cluster);
    /** Opens every cluster on the way to \a node; true if anything changed. */
    bool reveal(uint32_t node);
    /** Members of a visible item (1 for a node). */
    uint32_t sizeOf(const HierarchyItem& item) const;

    /** Edges between visible items (indices into visible()), without self edges, sorted, with their multiplicity. */
    struct Edge {
        uint32_t from, to, count;
    };
    std::vector<Edge> visibleEdges(const std::vector<std::pair<uint32_t, uint32_t>>& nodeEdges) const;

private:
    void rebuild();
    const GraphHierarchy* m_h = nullptr;
    std::vector<uint8_t> m_open;
    std::vector<HierarchyItem> m_visible;
    std::vector<uint32_t> m_unitOfNode;
};

} // namespace ckpt
