// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/checkpoint.h"
#include "core/util/progress.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

/** Input of the layered layout: node sizes and directed edges between node indices. */
struct LayoutInput {
    struct Size {
        double width = 80;
        double height = 32;
    };
    std::vector<Size> nodes;
    std::vector<std::pair<uint32_t, uint32_t>> edges; ///< (from, to), indices into nodes; duplicates and self loops allowed
};

struct LayoutOptions {
    double layerGap = 40;        ///< vertical space between the bottom of one layer and the top of the next
    double nodeGap = 20;         ///< minimal horizontal space between boxes of a layer
    double dummyWidth = 8;       ///< width reserved for a long edge passing through a layer
    int crossingSweeps = 4;      ///< barycenter sweeps (alternating down/up)
    int coordinateSweeps = 4;    ///< coordinate refinement sweeps (alternating down/up)
    uint64_t maxDummies = 4'000'000; ///< beyond this, remaining long edges are drawn straight (no bends)
    uint32_t maxDummySpan = UINT32_MAX; ///< edges spanning more layers than this are drawn straight (no dummies, no room taken)
    uint32_t minGroupLength = 3; ///< shortest chain of single-in/single-out nodes reported as a group
    /**
     * > 0: when the layers stack up much higher than they are wide, they wrap into side-by-side
     * columns (cut between layers, left to right) so that width / height comes near this ratio;
     * an edge into the next column leaves its column at the bottom and enters the next at the top.
     */
    double foldAspect = 0;        ///< also: a layer far wider than the graph is tall wraps into rows
    double columnGap = 80;       ///< horizontal space between folded columns
    uint32_t foldMinCount = 0;   ///< fold only more layers than this, wrap only layers of more vertices than this
};

struct LayoutNode {
    double x = 0, y = 0;          ///< top-left corner
    double width = 0, height = 0;
    uint32_t layer = 0;
    uint32_t order = 0;           ///< position within the layer, left to right
    uint32_t row = 0;             ///< row of a wrapped layer (LayoutOptions::foldAspect), top to bottom
};

struct LayoutEdge {
    uint32_t from = 0, to = 0;
    std::vector<std::pair<double, double>> points; ///< polyline from the source's box to the target's box
    bool reversed = false;        ///< a back edge of a cycle: drawn upwards
    bool selfLoop = false;        ///< from == to: no polyline (the UI draws a loop marker)
    bool straight = false;        ///< long edge over the dummy budget: drawn as one straight segment
};

/** A chain of nodes each with one successor feeding one with one predecessor: collapsible into one box. */
struct LayoutGroup {
    std::vector<uint32_t> nodes;  ///< in chain order
    double x = 0, y = 0, width = 0, height = 0; ///< bounding box of the member boxes
};

struct LayoutResult {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;        ///< same order as LayoutInput::edges
    std::vector<uint32_t> backEdges;      ///< indices of edges reversed to break cycles (self loops included)
    std::vector<LayoutGroup> groups;
    double width = 0, height = 0;         ///< bounds: every box lies in [0, width] x [0, height] (a folded edge dips layerGap/2 beyond)
    uint32_t layerCount = 0;
    uint32_t columns = 1;                 ///< folded columns (LayoutOptions::foldAspect)
    uint64_t dummyCount = 0;
    uint64_t crossings = 0;               ///< crossings between adjacent layers after the sweeps (counted exactly)
};

/**
 * Sugiyama-style layered layout: DFS cycle breaking (back edges reversed and reported), longest-path
 * ranking with sources pulled down next to their first consumer, dummy vertices for long edges,
 * barycenter crossing reduction, per-layer least-squares coordinate assignment (pool-adjacent-
 * violators with separation constraints: boxes in a layer never overlap, order is kept), polyline
 * routing through the dummies. Deterministic (no hashing, stable sorts); O((V + D) log(V + D)) per
 * sweep for V nodes and D dummies. Cancellable through \a progress (returns Cancelled).
 */
Result<LayoutResult> layoutGraph(const LayoutInput& input, const LayoutOptions& options = {},
    const Progress& progress = Progress::none());

/**
 * Layout input for a checkpoint's graph: one box per node key (file order) sized for its op, plus
 * one small box per phantom id named by an edge; edges as stored. \a names receives the id of
 * every layout node.
 */
LayoutInput layoutInputFor(const ComputationGraphStore& graph, std::vector<std::string>* names = nullptr);

} // namespace ckpt
