// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/analysis.h"
#include "core/graph/car.h"
#include "core/graph/hierarchy.h"
#include "core/graph/layout.h"
#include "core/record/record.h"
#include "ui/run/metriclog.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ckpt::ui {

/** A tensor of the workspace: which record, which of its tensors. Views exchange these, never pointers. */
struct TensorRef {
    int record = -1;
    int tensor = -1;
    bool valid() const { return record >= 0 && tensor >= 0; }
    friend bool operator==(const TensorRef&, const TensorRef&) = default;
    QString key() const { return QString::number(record) + QLatin1Char(':') + QString::number(tensor); }
    static TensorRef fromKey(const QString& key);
};

/**
 * Parent/row tables of a tape, so a tree model answers parent() and index() in O(1). Built off the
 * GUI thread together with the record.
 */
struct TapeIndex {
    std::vector<uint32_t> parent;     ///< value node -> parent container (UINT32_MAX for the root)
    std::vector<uint32_t> row;        ///< value node -> row under its parent
    std::vector<uint32_t> firstChild; ///< container -> offset into children (UINT32_MAX for scalars)
    std::vector<uint32_t> children;   ///< value nodes of containers, contiguous per container
    std::vector<uint32_t> childCountOf; ///< container -> number of value children
    std::vector<uint32_t> keyOf;      ///< value node -> its key node in a map (UINT32_MAX otherwise)
    std::vector<int32_t> tensorAt;    ///< node -> index into Record::tensors of the TensorData map there, -1
    uint32_t childCount(uint32_t node) const { return childCountOf[node]; }
    uint32_t child(uint32_t node, uint32_t r) const { return children[firstChild[node] + r]; }
    static TapeIndex build(const Record& record);
};

/** One opened record with its index. */
struct LoadedRecord {
    std::shared_ptr<const Record> record;
    std::shared_ptr<const TapeIndex> index;
    QString path;
};

/** The ckpt path of a tape node (item[0].fc1.weight), from the index's parent chain. */
std::string nodePath(const LoadedRecord& record, uint32_t node);

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

/** Everything the window shows: the records opened together (e.g. a run's model/optim/scheduler) and the loss history. */
struct Workspace {
    QStringList inputs;
    std::vector<LoadedRecord> records;
    std::optional<LossHistory> loss;
    std::shared_ptr<const GraphData> graph;
    QStringList errors;     ///< full core messages (file, offset/line:column, path, what)
    QStringList warnings;

    const TensorEntry* tensor(TensorRef r) const;
    /** The parameter (record, index into params) with this id, first match. */
    std::optional<std::pair<int, size_t>> findParam(const std::string& id) const;
    /** Tensors attached to a parameter across all records: the param tensor first. */
    std::vector<TensorRef> tensorsOfParam(const std::string& id) const;
    /**
     * What a researcher reads for each tensor of a record, in the record's tensor order: the parameter
     * by its module name ("input.weight"), an optimizer state or pending gradient by the parameter it
     * belongs to ("input.weight · moment_2", "input.weight · gradient"), anything else by its path
     * without the record prefix. Parameters are looked up across all records, so an optimizer file of
     * a run directory names the model file's parameters.
     */
    std::vector<QString> tensorNames(int record) const;
    /** The module name ("input.weight") of every parameter of every record, by parameter id. */
    std::unordered_map<std::string, QString> parameterNames() const;
    /** The record holding a caller state (TrainingRecord item 5), -1 if none. */
    int stateRecord() const;
    int optimizerRecord() const;
    int schedulerRecord() const;
};

/**
 * Files a path stands for: a file is itself; a burn-train run directory gives the newest
 * `checkpoint/{model,optim,scheduler}-N.*`, or the newest `checkpoint/record-STEP.*` of ckpt-train.
 */
QStringList recordFilesOf(const QString& path);

/** A decoded checkpoint made ready for the graph view: names, grouping, analysis (no CAR). */
std::shared_ptr<GraphData> graphDataFor(GradientCheckpoint checkpoint, const QString& path);

/** graph/step-N.car for graph/step-N.json. */
QString carBesideGraph(const QString& graphPath);
/** Maps and indexes a CARv1 file; errors carry the file and offset. */
Result<std::shared_ptr<const CarStore>> openCarFile(const QString& path);

/**
 * Opens every input (synchronously; the UI runs this in a worker). Errors are collected, not fatal.
 * \a lenient ("Open Damaged File…"): records the typed decoders reject are still shown, partial,
 * with the reason as a warning.
 */
Workspace loadWorkspace(const QStringList& inputs, const Progress& progress, bool lenient = false);

} // namespace ckpt::ui
