// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/workspace/workspace.h"

#include "core/edit/edit.h"
#include "core/edit/partialmodule.h"
#include "core/open/formats.h"
#include "core/open/openfile.h"
#include "core/run/runpolicy.h"

#include <QDir>
#include <QFileInfo>

#include <string_view>
#include <unordered_map>

namespace ckpt::ui {

const TensorEntry* Workspace::tensor(TensorRef r) const
{
    if (r.record < 0 || size_t(r.record) >= records.size())
        return nullptr;
    const auto& rec = *records[size_t(r.record)].record;
    if (r.tensor < 0 || size_t(r.tensor) >= rec.tensors.size())
        return nullptr;
    return &rec.tensors[size_t(r.tensor)];
}

std::optional<std::pair<int, size_t>> Workspace::findParam(const std::string& id) const
{
    for (size_t i = 0; i < records.size(); ++i)
        if (auto p = records[i].record->findParam(id))
            return std::pair<int, size_t>{int(i), *p};
    return std::nullopt;
}

namespace {
// "item[0].input.weight" (TrainingRecord) and "item.input.weight" (module record) are both
// "input.weight": the record envelope is not part of the model's name.
std::string_view withoutRecordPrefix(std::string_view path)
{
    for (std::string_view prefix : {std::string_view("item[0]."), std::string_view("item.")})
        if (path.starts_with(prefix))
            return path.substr(prefix.size());
    return path;
}
} // namespace

std::unordered_map<std::string, QString> Workspace::parameterNames() const
{
    std::unordered_map<std::string, QString> names;
    for (const LoadedRecord& r : records)
        for (const ParamEntry& p : r.record->params)
            names.try_emplace(p.id, QString::fromUtf8(withoutRecordPrefix(p.modulePath)));
    return names;
}

std::vector<QString> Workspace::tensorNames(int record) const
{
    const auto parameterName = parameterNames();
    const Record& rec = *records[size_t(record)].record;
    std::vector<QString> names;
    names.reserve(rec.tensors.size());
    static const QString separator = QStringLiteral(" · ");
    for (const TensorEntry& t : rec.tensors) {
        if (t.role == TensorRole::Other || t.paramId.empty()) {
            names.push_back(QString::fromUtf8(withoutRecordPrefix(t.path)));
            continue;
        }
        // An optimizer file opened without its model still names the parameter by its id.
        const auto param = parameterName.find(t.paramId);
        QString name = param != parameterName.end() ? param->second
                                                    : QStringLiteral("param ") + QString::fromStdString(t.paramId);
        if (t.role == TensorRole::Optimizer)
            name += separator + QString::fromStdString(t.stateName);
        else if (t.role == TensorRole::Gradient)
            name += separator + QStringLiteral("gradient");
        names.push_back(std::move(name));
    }
    return names;
}

std::vector<TensorRef> Workspace::tensorsOfParam(const std::string& id) const
{
    std::vector<TensorRef> out;
    if (id.empty())
        return out;
    for (size_t i = 0; i < records.size(); ++i) {
        const Record& rec = *records[i].record;
        for (size_t t = 0; t < rec.tensors.size(); ++t)
            if (rec.tensors[t].paramId == id && rec.tensors[t].role == TensorRole::Param)
                out.push_back({int(i), int(t)});
    }
    for (size_t i = 0; i < records.size(); ++i) {
        const Record& rec = *records[i].record;
        for (size_t t = 0; t < rec.tensors.size(); ++t)
            if (rec.tensors[t].paramId == id && rec.tensors[t].role != TensorRole::Param)
                out.push_back({int(i), int(t)});
    }
    return out;
}

int Workspace::stateRecord() const
{
    for (size_t i = 0; i < records.size(); ++i)
        if (records[i].record->stateNode)
            return int(i);
    return -1;
}

int Workspace::optimizerRecord() const
{
    for (size_t i = 0; i < records.size(); ++i)
        if (!records[i].record->optimizer.empty())
            return int(i);
    return -1;
}

int Workspace::schedulerRecord() const
{
    for (size_t i = 0; i < records.size(); ++i)
        if (records[i].record->scheduler || records[i].record->schedulerNode)
            return int(i);
    return -1;
}

namespace {

/**
 * The checkpoint's fields (graph, step, loss CID, optimizer state blobs, timestamp) as a tape in the
 * crate's member order, so the Record tree shows a GradientCheckpoint as it shows a record. It has
 * no tensors, parameters or caller state: the other panels pass over it.
 */
LoadedRecord gradientCheckpointFields(const GradientCheckpoint& checkpoint, const QString& path)
{
    auto record = std::make_shared<Record>();
    record->file = path.toStdString();
    record->kind = RecordKind::GradientCheckpoint;
    record->recorder = Recorder::PrettyJson;
    record->tape = gradientCheckpointToTape(checkpoint);
    record->itemNode = record->tape.root();
    return loadedRecordOf(std::move(record), path);
}

} // namespace

Workspace loadWorkspace(const QStringList& inputs, const Progress& progress, bool lenient)
{
    Workspace ws;
    ws.inputs = inputs;
    QStringList files;
    for (const QString& input : inputs) {
        const QFileInfo info(input);
        if (!info.exists()) {
            ws.errors << input + QStringLiteral(": no such file or directory");
            continue;
        }
        if (info.isDir() && !isRecordDirectory(input.toStdString())) { // a Distributed Checkpoint directory is one record
            // read once: its records, metric logs and graph come from this one listing
            auto run = openRunDirectory(input.toStdString());
            if (!run) {
                ws.errors << QString::fromStdString(run.error().message());
                continue;
            }
            if (!run->series.empty()) {
                LossHistory loss = lossHistoryFrom(*run);
                ws.warnings << loss.warnings;
                ws.loss = std::move(loss);
            }
            const std::vector<std::string> found = filesToOpen(*run);
            if (found.empty() && !ws.loss)
                ws.errors << input + QStringLiteral(": no records (checkpoint/model-N.*, record-STEP.*) and no metric logs found");
            for (const std::string& f : found)
                files << QString::fromStdString(f);
            if (const auto g = newestGraphOf(input.toStdString()))
                files << QString::fromStdString(*g);
        } else {
            files << input;
        }
    }
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (progress.cancelled())
            break;
        const double base = double(i) / double(files.size());
        const double span = 1.0 / double(files.size());
        Progress sub;
        sub.onProgress = [&](double f) { progress.report(base + span * f * 0.9); };
        sub.isCancelled = progress.isCancelled;
        const std::string file = files[i].toStdString();
        // one call down per file: core maps it once, sniffs the mapping and decodes it as what it is
        OpenOptions options;
        options.lenient = lenient;
        // a burn-train 0.22 model-N.bpk shows its epoch's optimizer and scheduler beside it
        options.wholeCheckpoint = true;
        auto opened = openFile(file, options, sub);
        if (!opened) {
            ws.errors << QString::fromStdString(opened.error().message());
            continue;
        }
        if (opened->checkpoint) {
            // the Record tree's copy of the checkpoint's fields is built while the graph is grouped
            LoadedRecord fields;
            auto graph = openGraph(std::move(*opened->checkpoint), files[i], sub,
                [&](const GradientCheckpoint& checkpoint) { fields = gradientCheckpointFields(checkpoint, files[i]); });
            if (!graph) {
                ws.errors << QString::fromStdString(graph.error().message());
                continue;
            }
            ws.graph = std::move(*graph);
            if (!ws.graph->carError.isEmpty())
                ws.warnings << ws.graph->carError;
            ws.records.push_back(std::move(fields));
            continue;
        }
        const auto& record = opened->record;
        // One verdict with `ckpt validate`: parts that do not fit their parameters fail loading too.
        if (auto v = validateRecord(*record); !v) {
            const QString why = QString::fromStdString(Error(v.error()).withFile(file).message());
            if (!lenient) {
                ws.errors << why;
                continue;
            }
            ws.warnings << files[i] + QStringLiteral(": DAMAGED, partial view: ") + why;
        }
        LoadedRecord lr = loadedRecordOf(record, files[i]);
        if (!lr.record->damage.empty())
            ws.warnings << files[i] + QStringLiteral(": DAMAGED, partial view: ") + QString::fromStdString(lr.record->damage);
        for (const auto& w : lr.record->warnings)
            ws.warnings << files[i] + QStringLiteral(": ") + QString::fromStdString(w);
        // not damage (it opens and validates), but a resumption from it lacks parameters: say which
        if (auto partial = partialModuleOf(*lr.record))
            ws.warnings << files[i] + QStringLiteral(": ") + QString::fromStdString(partialModuleDetail(*partial));
        ws.records.push_back(std::move(lr));
        progress.report(base + span);
    }
    return ws;
}

} // namespace ckpt::ui
