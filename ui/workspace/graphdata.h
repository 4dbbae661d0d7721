// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/analysis.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/graph/hierarchy.h"
#include "core/graph/layout.h"
#include "core/util/progress.h"

#include <QString>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ckpt::ui {

/** A GradientCheckpoint with its layout and analysis (computed in the loading worker). */
struct GraphData {
    QString path;
    GradientCheckpoint checkpoint;
    std::vector<std::string> names;   ///< node id of every layout node
    LayoutInput input;                ///< box sizes and edges by node index (layoutInputFor)
    GraphHierarchyInput grouping;     ///< ops and module paths by node index
    GraphHierarchy hierarchy;         ///< the groups the view opens and closes (laid out per view, not here)
    GraphAnalysis analysis;
    // by node index, built with the rest on the loading thread so that showing the graph is quick
    std::vector<const ComputationNode*> nodeOf;        ///< the node (into checkpoint), null for a phantom
    std::vector<uint32_t> outOffset, out, inOffset, in; ///< adjacency both ways (CSR) of input.edges
    std::vector<uint8_t> onProvenance;                 ///< on the loss's provenance chain
    /** The CAR file beside the JSON (graph/step-N.car for graph/step-N.json), opened when it exists. */
    std::shared_ptr<const CarStore> car;
    QString carPath;
    QString carError;   ///< the CAR beside the JSON exists but could not be read
};

/**
 * Work that only reads the checkpoint (the Record tree's copy of its fields), run on another thread
 * while the graph is prepared; done when graphDataFor returns.
 */
using AlongsideGraph = std::function<void(const GradientCheckpoint&)>;

/** A decoded checkpoint made ready for the graph view: names, grouping, analysis (no CAR). */
std::shared_ptr<GraphData> graphDataFor(GradientCheckpoint checkpoint, const QString& path, const AlongsideGraph& alongside = {});

/**
 * A decoded GradientCheckpoint made ready for the graph view (graphDataFor), with the CAR beside it
 * opened when there is one (a CAR that cannot be read is GraphData::carError: the graph is still
 * worth showing). Fails only when cancelled.
 */
Result<std::shared_ptr<const GraphData>> openGraph(GradientCheckpoint checkpoint, const QString& path, const Progress& progress,
    const AlongsideGraph& alongside = {});

} // namespace ckpt::ui
