// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/workspace/workspace.h"

#include "core/edit/edit.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QtConcurrent/QtConcurrentRun>

#include <string_view>
#include <unordered_map>


namespace ckpt::ui {

namespace {
constexpr uint32_t None = UINT32_MAX;
}

TensorRef TensorRef::fromKey(const QString& key)
{
    const auto parts = key.split(QLatin1Char(':'));
    if (parts.size() != 2)
        return {};
    return {parts[0].toInt(), parts[1].toInt()};
}

TapeIndex TapeIndex::build(const Record& record)
{
    const Tape& tape = record.tape;
    const size_t n = tape.nodes.size();
    TapeIndex ix;
    ix.parent.assign(n, None);
    ix.row.assign(n, 0);
    ix.firstChild.assign(n, None);
    ix.keyOf.assign(n, None);
    ix.childCountOf.assign(n, 0);
    ix.tensorAt.assign(n, -1);
    ix.children.reserve(n);
    for (size_t t = 0; t < record.tensors.size(); ++t)
        if (record.tensors[t].node < n)
            ix.tensorAt[record.tensors[t].node] = int32_t(t);
    // Pre-order walk with an explicit stack: tapes from hostile files may be deep.
    std::vector<uint32_t> stack;
    if (n > 0)
        stack.push_back(0);
    while (!stack.empty()) {
        const uint32_t c = stack.back();
        stack.pop_back();
        const Node& node = tape[c];
        if (node.kind != Kind::Array && node.kind != Kind::Map)
            continue;
        ix.firstChild[c] = uint32_t(ix.children.size());
        uint32_t r = 0;
        const size_t before = ix.children.size();
        if (node.kind == Kind::Array) {
            tape.forEachChild(c, [&](uint32_t ch) {
                ix.children.push_back(ch);
                ix.parent[ch] = c;
                ix.row[ch] = r++;
            });
        } else {
            tape.forEachEntry(c, [&](uint32_t k, uint32_t v) {
                ix.children.push_back(v);
                ix.parent[v] = c;
                ix.row[v] = r++;
                ix.keyOf[v] = k;
            });
        }
        ix.childCountOf[c] = r;
        for (size_t i = ix.children.size(); i > before; --i)
            stack.push_back(ix.children[i - 1]);
    }
    return ix;
}

std::string nodePath(const LoadedRecord& lr, uint32_t node)
{
    const TapeIndex& ix = *lr.index;
    std::vector<uint32_t> chain;
    for (uint32_t n = node; n != None && n != 0; n = ix.parent[n])
        chain.push_back(n);
    std::string path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (ix.keyOf[*it] != None)
            path = appendKeyToPath(path, lr.record->tape.keyText(ix.keyOf[*it]));
        else
            path = appendIndexToPath(path, ix.row[*it]);
    }
    return path;
}

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

QStringList recordFilesOf(const QString& path)
{
    if (!QFileInfo(path).isDir())
        return {path};
    auto run = openRunDirectory(path.toStdString());
    if (!run)
        return {};
    QStringList files;
    // a ckpt-train TrainingRecord holds everything; burn-train splits model/optim/scheduler
    if (auto rec = run->latest("record")) {
        files << QString::fromStdString(rec->path);
        return files;
    }
    for (const char* kind : {"model", "optim", "scheduler"})
        if (auto c = run->latest(kind))
            files << QString::fromStdString(c->path);
    return files;
}

namespace {

/** The newest DIR/graph/step-N.json of a ckpt-train run. */
QString newestGraphOf(const QString& runDir)
{
    const QDir dir(QDir(runDir).filePath(QStringLiteral("graph")));
    QString best;
    qlonglong bestStep = -1;
    for (const QString& name : dir.entryList({QStringLiteral("step-*.json")}, QDir::Files)) {
        const qlonglong step = name.mid(5, name.size() - 10).toLongLong();
        if (step > bestStep) {
            bestStep = step;
            best = dir.filePath(name);
        }
    }
    return best;
}

/** A GradientCheckpoint JSON, laid out; nullopt (no error) when the file is not one. */
std::optional<Result<std::shared_ptr<const GraphData>>> tryGraph(const QString& path, const Progress& progress)
{
    auto bytes = mapFile(path.toStdString());
    if (!bytes)
        return std::nullopt;
    const auto span = (*bytes)->span();
    size_t i = 0;
    while (i < span.size() && (span[i] == ' ' || span[i] == '\n' || span[i] == '\r' || span[i] == '\t'))
        ++i;
    if (i >= span.size() || span[i] != '{')
        return std::nullopt; // not JSON: a record
    auto cp = loadGradientCheckpoint(*bytes, true);
    if (!cp) {
        // a JSON record (PrettyJson) is not a graph: let openRecord have it
        if (cp.error().what.find("missing field `graph`") != std::string::npos || cp.error().what.find("missing field `nodes`") != std::string::npos)
            return std::nullopt;
        return std::unexpected(std::move(cp.error()).withFile(path.toStdString()));
    }
    if (progress.cancelled())
        return fail(ErrorCode::Cancelled, "cancelled");
    auto data = graphDataFor(std::move(*cp), path);
    // ckpt-train writes the tensor blocks a checkpoint names as a CAR file beside it
    const QString car = carBesideGraph(path);
    if (QFileInfo::exists(car)) {
        auto store = openCarFile(car);
        if (store) {
            data->car = std::move(*store);
            data->carPath = car;
        } else {
            data->carError = QString::fromStdString(store.error().message()); // the graph is still worth showing
        }
    }
    return std::shared_ptr<const GraphData>(std::move(data));
}

/**
 * The checkpoint's fields (graph, step, loss CID, optimizer state blobs, timestamp) as a tape in the
 * crate's member order, so the Record tree shows a GradientCheckpoint as it shows a record. It has
 * no tensors, parameters or caller state: the other panels pass over it.
 */
LoadedRecord gradientCheckpointFields(const GraphData& graph)
{
    auto record = std::make_shared<Record>();
    record->file = graph.path.toStdString();
    record->kind = RecordKind::GradientCheckpoint;
    record->recorder = Recorder::PrettyJson;
    record->tape = gradientCheckpointToTape(graph.checkpoint);
    record->itemNode = record->tape.root();
    LoadedRecord lr;
    lr.index = std::make_shared<const TapeIndex>(TapeIndex::build(*record));
    lr.record = std::move(record);
    lr.path = graph.path;
    return lr;
}

} // namespace

std::shared_ptr<GraphData> graphDataFor(GradientCheckpoint checkpoint, const QString& path)
{
    auto data = std::make_shared<GraphData>();
    data->path = path;
    data->checkpoint = std::move(checkpoint);
    // the crate's order, cycles and provenance on a second core while the grouping is built here
    // (at 100k nodes each takes about a second); both only read the checkpoint
    const GradientCheckpoint& cp = data->checkpoint;
    QFuture<GraphAnalysis> analysis = QtConcurrent::run([&cp] { return analyzeGraph(cp); });
    // no layout of the whole graph here: the view lays out only the groups it shows (100k nodes stay fast)
    data->input = layoutInputFor(data->checkpoint.graph, &data->names);
    data->grouping = hierarchyInputFor(data->checkpoint.graph, data->names, data->input.edges);
    data->hierarchy = buildGraphHierarchy(data->grouping);
    const size_t n = data->names.size();
    std::unordered_map<std::string_view, uint32_t> index;
    index.reserve(n * 2);
    for (size_t i = 0; i < n; ++i)
        index.try_emplace(data->names[i], uint32_t(i));
    data->nodeOf.assign(n, nullptr);
    for (const auto& [key, node] : data->checkpoint.graph.nodes)
        if (const auto it = index.find(key); it != index.end() && !data->nodeOf[it->second])
            data->nodeOf[it->second] = &node;
    auto csr = [n](const auto& edges, bool reverse, std::vector<uint32_t>& offset, std::vector<uint32_t>& target) {
        offset.assign(n + 1, 0);
        for (const auto& e : edges)
            ++offset[(reverse ? e.second : e.first) + 1];
        for (size_t v = 0; v < n; ++v)
            offset[v + 1] += offset[v];
        target.resize(edges.size());
        std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
        for (const auto& e : edges)
            target[fill[reverse ? e.second : e.first]++] = reverse ? e.first : e.second;
    };
    csr(data->input.edges, false, data->outOffset, data->out);
    csr(data->input.edges, true, data->inOffset, data->in);
    data->analysis = analysis.result();
    data->onProvenance.assign(n, 0);
    for (const auto& id : data->analysis.lossProvenanceChain)
        if (const auto it = index.find(id); it != index.end())
            data->onProvenance[it->second] = 1;
    return data;
}

QString carBesideGraph(const QString& graphPath)
{
    QString car = graphPath;
    if (car.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        car.chop(5);
    return car + QStringLiteral(".car");
}

Result<std::shared_ptr<const CarStore>> openCarFile(const QString& path)
{
    auto bytes = mapFile(path.toStdString());
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path.toStdString()));
    auto store = CarStore::open(*bytes);
    if (!store)
        return std::unexpected(std::move(store.error()).withFile(path.toStdString()));
    return std::make_shared<const CarStore>(std::move(*store));
}

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
        if (info.isDir()) {
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
            const QStringList found = recordFilesOf(input);
            if (found.isEmpty() && !ws.loss)
                ws.errors << input + QStringLiteral(": no records (checkpoint/model-N.*, record-STEP.*) and no metric logs found");
            files << found;
            if (const QString g = newestGraphOf(input); !g.isEmpty())
                files << g;
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
        if (files[i].endsWith(QLatin1String(".json"))) {
            if (auto graph = tryGraph(files[i], sub)) {
                if (*graph) {
                    ws.graph = **graph;
                    if (!ws.graph->carError.isEmpty())
                        ws.warnings << ws.graph->carError;
                    ws.records.push_back(gradientCheckpointFields(*ws.graph));
                }
                else
                    ws.errors << QString::fromStdString(graph->error().message());
                continue;
            }
        }
        OpenOptions options;
        options.lenient = lenient;
        auto opened = openRecord(files[i].toStdString(), options, sub);
        if (!opened) {
            ws.errors << QString::fromStdString(opened.error().message());
            continue;
        }
        // One verdict with `ckpt validate`: parts that do not fit their parameters fail loading too.
        if (auto v = validateRecord(**opened); !v) {
            const QString why = QString::fromStdString(Error(v.error()).withFile(files[i].toStdString()).message());
            if (!lenient) {
                ws.errors << why;
                continue;
            }
            ws.warnings << files[i] + QStringLiteral(": DAMAGED, partial view: ") + why;
        }
        LoadedRecord lr;
        lr.record = *opened;
        lr.index = std::make_shared<const TapeIndex>(TapeIndex::build(*lr.record));
        lr.path = files[i];
        if (!lr.record->damage.empty())
            ws.warnings << files[i] + QStringLiteral(": DAMAGED, partial view: ") + QString::fromStdString(lr.record->damage);
        for (const auto& w : lr.record->warnings)
            ws.warnings << files[i] + QStringLiteral(": ") + QString::fromStdString(w);
        ws.records.push_back(std::move(lr));
        progress.report(base + span);
    }
    return ws;
}

} // namespace ckpt::ui
