// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/formats.h"
#include "core/run/loadedcheckpoint.h"

#include "core/diff/diff.h"
#include "core/graph/blob.h"
#include "core/graph/checkpoint.h"
#include "core/open/sniff.h"
#include "core/tensor/kernels/kernels.h"
#include "core/util/text.h"

#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

namespace ckpt::run_detail {

namespace {

constexpr size_t npos = size_t(-1);

/** The module path of the parameter a record tensor belongs to (its own module path for a parameter). */
std::string ownerOf(const Record& r, const TensorEntry& t, const Record* model)
{
    if (!t.paramId.empty()) {
        for (const Record* holder : {&r, model})
            if (holder)
                if (auto p = holder->findParam(t.paramId))
                    return holder->params[*p].modulePath;
    }
    return t.path;
}

void addRecordTensors(LoadedCheckpoint& c, uint32_t part, const Record& r, const Record* model, const std::string& filter)
{
    auto& index = c.byPart[part];
    index.assign(r.tensors.size(), npos);
    for (size_t i = 0; i < r.tensors.size(); ++i) {
        const TensorEntry& t = r.tensors[i];
        if (!filter.empty() && !globMatch(filter, t.path))
            continue;
        if (t.dtype == DType::QFloat)
            continue; // opaque quantized payloads have no values to follow
        LoadedTensor lt;
        lt.path = t.path;
        lt.role = t.role;
        lt.paramId = t.paramId;
        lt.stateName = t.stateName;
        lt.owner = ownerOf(r, t, model);
        lt.dtype = t.dtype;
        lt.boolStore = t.boolStore;
        lt.numel = t.numel;
        lt.bytes = t.legacy ? std::span<const uint8_t>() : r.payload(t);
        lt.record = &r;
        lt.entry = i;
        lt.part = part;
        index[i] = c.tensors.size();
        c.tensors.push_back(std::move(lt));
    }
}

/// A blob's element type for the timeline; raw bytes (U8) have no values to follow.
std::optional<DType> dtypeOfBlobView(BlobView v)
{
    return v == BlobView::U8 ? std::nullopt : std::optional(blobViewDType(v));
}

Result<std::shared_ptr<LoadedCheckpoint>> loadGraph(const RunPoint& p, const std::string& filter)
{
    auto c = std::make_shared<LoadedCheckpoint>();
    c->graph = true;
    c->byPart.resize(1);
    auto json = mapFile(p.files.front().path);
    if (!json)
        return std::unexpected(json.error());
    auto gc = loadGradientCheckpoint(*json);
    if (!gc) {
        Error e = gc.error();
        if (e.file.empty())
            e.file = p.files.front().path;
        return std::unexpected(e);
    }
    if (p.files.size() > 1) {
        auto carBytes = mapFile(p.files[1].path);
        if (!carBytes)
            return std::unexpected(carBytes.error());
        auto store = CarStore::open(*carBytes);
        if (!store) {
            Error e = store.error();
            if (e.file.empty())
                e.file = p.files[1].path;
            return std::unexpected(e);
        }
        c->car = std::move(*store);
    }
    if (!c->car)
        return c; // a checkpoint without its CAR names tensors it cannot show

    auto addBlock = [&](std::string path, TensorRole role, std::string owner, const std::string& cid, DType dtype) {
        if (!filter.empty() && !globMatch(filter, path))
            return;
        auto bytes = c->car->resolve(cid);
        if (!bytes)
            return; // a CID the CAR does not hold: nothing to read
        const uint32_t width = dtypeSize(dtype);
        if (width == 0 || bytes->size() % width != 0)
            return;
        LoadedTensor t;
        t.path = std::move(path);
        t.role = role;
        t.owner = std::move(owner);
        t.dtype = dtype;
        t.numel = bytes->size() / width;
        t.bytes = *bytes;
        t.cid = cid;
        c->tensors.push_back(std::move(t));
    };
    // Node ids are minted per checkpoint by most trainers: a node is named by its operation and its
    // rank among the nodes of that operation in file order (as the graph diff pairs them by position).
    std::map<std::string, uint64_t> seen;
    std::unordered_map<std::string_view, bool> produced; // CIDs some node outputs: the rest of the inputs are leaves (parameters, data)
    for (const auto& [key, node] : gc->graph.nodes)
        if (node.outputCid)
            produced.emplace(*node.outputCid, true);
    for (const auto& [key, node] : gc->graph.nodes) {
        const std::string name = "graph/" + node.op + "#" + std::to_string(seen[node.op]++);
        DType dtype = DType::F32;
        std::string owner = name;
        for (const auto& [k, v] : node.metadata) {
            if (k == "dtype")
                if (auto d = dtypeFromName(v == "f64" ? "F64" : v == "f16" ? "F16" : v == "bf16" ? "BF16" : "F32"))
                    dtype = *d;
            if (k == "weight" || k == "param" || k == "parameter")
                owner = v;
        }
        // The first leaf input after the data of a node that names its weight is that weight's value
        // (a LayerNorm's beta, the node's other leaf input, is not named: it belongs to the node).
        bool weightTaken = owner == name;
        for (size_t k = 0; k < node.inputCids.size(); ++k) {
            const std::string& cid = node.inputCids[k];
            if (produced.contains(cid))
                continue;
            const std::string slot = name + "/input[" + std::to_string(k) + "]";
            if (k > 0 && !weightTaken) {
                weightTaken = true;
                addBlock(slot, TensorRole::Param, owner, cid, dtype);
            } else
                addBlock(slot, TensorRole::Other, name, cid, dtype);
        }
        if (node.outputCid)
            addBlock(name + "/output", TensorRole::Other, owner, *node.outputCid, dtype);
        if (node.gradientCid)
            addBlock(name + "/gradient", TensorRole::Gradient, owner, *node.gradientCid, dtype);
    }
    for (const auto& blob : gc->optimizerState) {
        const std::string path = "optimizer_state/" + blob.key;
        if (!filter.empty() && !globMatch(filter, path))
            continue;
        const std::span<const uint8_t> head(blob.bytes.data(), std::min<size_t>(blob.bytes.size(), 1024));
        if (blob.bytes.size() > 8 && (blob.bytes.front() == '{' || blob.bytes.front() == '[') && looksLikeText(head))
            continue; // a JSON blob (a trainer's own state): not numbers. A short float blob may well be printable bytes.
        auto dtype = dtypeOfBlobView(inferBlobView(blob.key, blob.bytes.size()));
        if (!dtype)
            continue;
        const uint32_t width = dtypeSize(*dtype);
        if (width == 0 || blob.bytes.size() % width != 0)
            continue;
        // The blob lives in the decoded checkpoint, which must outlive the span: keep it.
        c->blobs.push_back(std::make_shared<std::vector<uint8_t>>(blob.bytes));
        LoadedTensor t;
        t.path = path;
        t.role = TensorRole::Optimizer;
        // "input.weight/exp_avg" belongs to input.weight, which the graph's nodes name as their weight
        const size_t slash = blob.key.rfind('/');
        t.owner = slash == std::string::npos ? path : blob.key.substr(0, slash);
        t.dtype = *dtype;
        t.numel = blob.bytes.size() / width;
        t.bytes = *c->blobs.back();
        c->tensors.push_back(std::move(t));
    }
    return c;
}

} // namespace

Result<std::shared_ptr<LoadedCheckpoint>> loadCheckpoint(const RunCheckpoints& run, const RunPoint& p, const std::string& filter)
{
    if (run.layout == RunLayout::GradientCheckpoints)
        return loadGraph(p, filter);
    auto c = std::make_shared<LoadedCheckpoint>();
    c->parts.resize(p.files.size());
    c->byPart.resize(p.files.size());
    for (size_t i = 0; i < p.files.size(); ++i) {
        auto r = openRecord(p.files[i].path);
        if (!r)
            return std::unexpected(r.error());
        c->parts[i] = std::move(*r);
    }
    const Record* model = c->parts.empty() ? nullptr : c->parts.front().get();
    for (size_t i = 0; i < c->parts.size(); ++i)
        addRecordTensors(*c, uint32_t(i), *c->parts[i], model, filter);
    return c;
}

std::vector<std::optional<size_t>> pairWithPrevious(const LoadedCheckpoint& cur, const LoadedCheckpoint& prev)
{
    std::vector<std::optional<size_t>> out(cur.tensors.size());
    if (cur.graph || prev.graph) {
        std::unordered_map<std::string_view, size_t> byPath;
        for (size_t j = 0; j < prev.tensors.size(); ++j)
            byPath.emplace(prev.tensors[j].path, j);
        for (size_t i = 0; i < cur.tensors.size(); ++i)
            if (auto it = byPath.find(cur.tensors[i].path); it != byPath.end())
                out[i] = it->second;
        return out;
    }
    for (size_t part = 0; part < cur.parts.size() && part < prev.parts.size(); ++part) {
        if (!cur.parts[part] || !prev.parts[part])
            continue;
        const auto partner = matchTensors(*cur.parts[part], *prev.parts[part]);
        for (size_t i = 0; i < partner.size(); ++i) {
            const size_t ci = cur.byPart[part][i];
            if (ci == npos || !partner[i].first)
                continue;
            const size_t pj = prev.byPart[part][*partner[i].first];
            if (pj != npos)
                out[ci] = pj;
        }
    }
    return out;
}

std::vector<TensorStats> statsOf(const LoadedCheckpoint& c, const std::vector<size_t>& indices, const ParallelFor& parallel)
{
    StatsOptions options;
    options.histogramBins = 0; // the timeline needs the moments only: one read of each tensor
    std::vector<StatsInput> inputs;
    std::vector<size_t> direct;
    std::vector<TensorStats> out(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
        const LoadedTensor& t = c.tensors[indices[k]];
        if (t.bytes.empty() && t.record) {
            out[k] = t.record->stats(t.record->tensors[t.entry], options); // legacy values on the tape
            continue;
        }
        inputs.push_back({t.elementType(), t.bytes});
        direct.push_back(k);
    }
    auto stats = computeStatsMany(inputs, options, parallel);
    for (size_t k = 0; k < direct.size(); ++k)
        out[direct[k]] = std::move(stats[k]);
    return out;
}

namespace {

double sumSquaredAny(const LoadedTensor& a, const LoadedTensor& b, uint64_t first, uint64_t count)
{
    const DType da = a.elementType(), db = b.elementType();
    if (da == db && da == DType::F32)
        return kernels::active().sumSquaredF32(a.bytes.data() + 4 * first, b.bytes.data() + 4 * first, count);
    if (da == db && da == DType::F64)
        return kernels::active().sumSquaredF64(a.bytes.data() + 8 * first, b.bytes.data() + 8 * first, count);
    // Every other pair (half types, integers, a precision change) widens exactly to double first.
    const auto va = elementsAsDouble(da, a.bytes, first, count);
    const auto vb = elementsAsDouble(db, b.bytes, first, count);
    double s = 0;
    for (size_t k = 0; k < va.size() && k < vb.size(); ++k) {
        const double d = vb[k] - va[k];
        if (std::isfinite(va[k]) && std::isfinite(vb[k]) && std::isfinite(d))
            s += d * d;
    }
    return s;
}

} // namespace

std::vector<double> updateNorms(const std::vector<UpdatePair>& pairs, const ParallelFor& parallel)
{
    struct Task {
        size_t pair;
        uint64_t first, count;
    };
    std::vector<Task> tasks;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const uint64_t n = pairs[i].b->numel;
        for (uint64_t first = 0; first < n; first += StatsChunkElements)
            tasks.push_back({i, first, std::min<uint64_t>(StatsChunkElements, n - first)});
    }
    std::vector<double> partial(tasks.size(), 0.0);
    auto body = [&](size_t k) {
        const Task& t = tasks[k];
        partial[k] = sumSquaredAny(*pairs[t.pair].a, *pairs[t.pair].b, t.first, t.count);
    };
    if (parallel)
        parallel(tasks.size(), body);
    else
        for (size_t k = 0; k < tasks.size(); ++k)
            body(k);
    std::vector<double> sums(pairs.size(), 0.0);
    for (size_t k = 0; k < tasks.size(); ++k)
        sums[tasks[k].pair] += partial[k]; // chunk order: independent of the thread count
    for (double& s : sums)
        s = std::sqrt(s);
    return sums;
}

std::vector<double> updateChunkSums(const UpdatePair& pair, size_t firstChunk, size_t chunks, const ParallelFor& parallel)
{
    const uint64_t n = pair.b->numel;
    const size_t all = statsChunkCount(n);
    firstChunk = std::min(firstChunk, all);
    chunks = std::min(chunks, all - firstChunk);
    std::vector<double> out(chunks, 0.0);
    auto body = [&](size_t c) {
        const uint64_t first = uint64_t(firstChunk + c) * StatsChunkElements;
        out[c] = sumSquaredAny(*pair.a, *pair.b, first, std::min<uint64_t>(StatsChunkElements, n - first));
    };
    if (parallel)
        parallel(chunks, body);
    else
        for (size_t c = 0; c < chunks; ++c)
            body(c);
    return out;
}

} // namespace ckpt::run_detail
