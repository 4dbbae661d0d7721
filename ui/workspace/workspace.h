// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The workspace: the records, graph and loss history opened together. Each of its parts has its own
// header (tensorref.h, loadedrecord.h, graphdata.h); this one includes them for the views.

#include "core/run/run.h"
#include "ui/run/metriclog.h"
#include "ui/workspace/graphdata.h"
#include "ui/workspace/loadedrecord.h"
#include "ui/workspace/tensorref.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ckpt::ui {

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
 * Opens every input (synchronously; the UI runs this in a worker). Errors are collected, not fatal.
 * \a lenient ("Open Damaged File…"): records the typed decoders reject are still shown, partial,
 * with the reason as a warning.
 */
Workspace loadWorkspace(const QStringList& inputs, const Progress& progress, bool lenient = false);

} // namespace ckpt::ui
