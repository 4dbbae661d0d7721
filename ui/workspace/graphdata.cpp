// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/workspace/graphdata.h"

#include "ui/async/executor.h"

#include "core/graph/csr.h"
#include "core/graph/checkpointfiles.h"
#include "core/graph/locate.h"


#include <string_view>
#include <unordered_map>

namespace ckpt::ui {

Result<std::shared_ptr<const GraphData>> openGraph(GradientCheckpoint checkpoint, const QString& path, const Progress& progress,
    const AlongsideGraph& alongside)
{
    if (progress.cancelled())
        return fail(ErrorCode::Cancelled, "cancelled");
    auto data = graphDataFor(std::move(checkpoint), path, alongside);
    // ckpt-train writes the tensor blocks a checkpoint names as a CAR file beside it
    if (const auto car = carBeside(path.toStdString())) {
        auto store = openCarFile(*car);
        if (store) {
            data->car = std::move(*store);
            data->carPath = QString::fromStdString(*car);
        } else {
            data->carError = QString::fromStdString(store.error().message()); // the graph is still worth showing
        }
    }
    return std::shared_ptr<const GraphData>(std::move(data));
}

std::shared_ptr<GraphData> graphDataFor(GradientCheckpoint checkpoint, const QString& path, const AlongsideGraph& alongside)
{
    auto data = std::make_shared<GraphData>();
    data->path = path;
    data->checkpoint = std::move(checkpoint);
    // Three independent readings of the checkpoint (at 100k nodes each takes about a second): the
    // crate's order, cycles and provenance; the caller's reading of it (the Record tree's fields); and
    // the view's grouping. They run on whichever pool threads are idle, the rest on this thread
    // (runTogether never waits for work queued behind it). All three only read the checkpoint.
    const GradientCheckpoint& cp = data->checkpoint;
    runTogether({
        [&] { data->analysis = analyzeGraph(cp); },
        [&] {
            if (alongside)
                alongside(cp);
        },
        [&] {
            // no layout of the whole graph here: the view lays out only the groups it shows (100k nodes stay fast)
            data->input = layoutInputFor(cp.graph, &data->names);
            data->grouping = hierarchyInputFor(cp.graph, data->names, data->input.edges);
            data->hierarchy = buildGraphHierarchy(data->grouping);
        },
    });
    const size_t n = data->names.size();
    std::unordered_map<std::string_view, uint32_t> index;
    index.reserve(n * 2);
    for (size_t i = 0; i < n; ++i)
        index.try_emplace(data->names[i], uint32_t(i));
    data->nodeOf.assign(n, nullptr);
    for (const auto& [key, node] : data->checkpoint.graph.nodes)
        if (const auto it = index.find(key); it != index.end() && !data->nodeOf[it->second])
            data->nodeOf[it->second] = &node;
    Csr out = Csr::build(n, data->input.edges), in = Csr::build(n, data->input.edges, /*reverse=*/true);
    data->outOffset = std::move(out.offset);
    data->out = std::move(out.target);
    data->inOffset = std::move(in.offset);
    data->in = std::move(in.target);
    data->onProvenance.assign(n, 0);
    for (const auto& id : data->analysis.lossProvenanceChain)
        if (const auto it = index.find(id); it != index.end())
            data->onProvenance[it->second] = 1;
    return data;
}

} // namespace ckpt::ui
