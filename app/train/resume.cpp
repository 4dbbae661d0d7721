// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The two resume paths: a TrainingRecord (restore) and a GradientCheckpoint with its CAR (restoreGraph),
// each validated completely before the first step, and the opening of what --resume names.
#include "app/train/trainer.h"

#include "app/train/trainer_detail.h"
#include "core/codec/json.h"
#include "core/graph/checkpoint.h"
#include "core/graph/locate.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/open/sniff.h"
#include "core/tensor/dtype.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <set>

namespace ckpt::train {

namespace detail {

namespace {

/** A parameter's module path ("blocks.3.fc1.weight") in the record's path syntax (".blocks[3].fc1.weight"). */
std::string recordPathOf(const std::string& modulePath)
{
    std::string out;
    size_t start = 0;
    while (start <= modulePath.size()) {
        const size_t dot = std::min(modulePath.find('.', start), modulePath.size());
        const std::string part = modulePath.substr(start, dot - start);
        const bool index = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        out += index ? "[" + part + "]" : "." + part;
        start = dot + 1;
    }
    return out;
}

/** The ParamSerde node of a module path in a module record: names are struct fields, numbers Vec elements. */
std::optional<uint32_t> moduleParam(const Tape& t, uint32_t module, const std::string& modulePath)
{
    std::optional<uint32_t> node = module;
    size_t start = 0;
    while (node && start <= modulePath.size()) {
        const size_t dot = std::min(modulePath.find('.', start), modulePath.size());
        const std::string part = modulePath.substr(start, dot - start);
        uint64_t index = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
        if (ec == std::errc() && end == part.data() + part.size())
            node = t.isArray(*node) && index < t[*node].count ? t.element(*node, static_cast<uint32_t>(index)) : std::nullopt;
        else
            node = t.isMap(*node) ? t.find(*node, part) : std::nullopt;
        start = dot + 1;
    }
    return node;
}

/** Reads a TensorData map into \a out (shape checked first, then byte length, before any copy). */
template<class T>
Result<DType> readTensorData(const Tape& t, uint32_t node, const std::string& path, const std::vector<uint64_t>& shape, Mat<T>& out)
{
    if (!t.isMap(node))
        return invalid("expected a TensorData map {bytes, shape, dtype}", path);
    auto bytesNode = t.find(node, "bytes");
    auto shapeNode = t.find(node, "shape");
    auto dtypeNode = t.find(node, "dtype");
    if (!bytesNode || !shapeNode || !dtypeNode)
        return invalid("TensorData lacks bytes, shape or dtype", path);
    std::vector<uint64_t> recorded;
    bool shapeOk = t.isArray(*shapeNode);
    if (shapeOk)
        t.forEachChild(*shapeNode, [&](uint32_t e) {
            if (auto v = t.asU64(e))
                recorded.push_back(*v);
            else
                shapeOk = false;
        });
    if (!shapeOk)
        return invalid("shape is not an array of usize", appendKeyToPath(path, "shape"));
    if (recorded != shape)
        return invalid("shape " + shapeString(recorded) + " does not match the model's " + shapeString(shape)
                + " (a record of another model?)",
            appendKeyToPath(path, "shape"));
    if (!t.isStr(*dtypeNode))
        return invalid("dtype is not a string", appendKeyToPath(path, "dtype"));
    const auto dt = dtypeFromName(t.str(*dtypeNode));
    if (!dt || !(*dt == DType::F32 || *dt == DType::F64 || *dt == DType::F16 || *dt == DType::BF16))
        return invalid("expected a float dtype (F32, F64, F16, BF16), found " + std::string(t.str(*dtypeNode)),
            appendKeyToPath(path, "dtype"));
    if (t[*bytesNode].kind != Kind::Bin)
        return invalid("bytes is not a byte string", appendKeyToPath(path, "bytes"));
    uint64_t numel = 1;
    for (uint64_t d : shape)
        numel *= d;
    const auto data = t.bin(*bytesNode);
    if (data.size() != numel * dtypeSize(*dt))
        return invalid("bytes holds " + std::to_string(data.size()) + " bytes, " + std::string(dtypeName(*dt)) + " " + shapeString(shape)
                + " needs " + std::to_string(numel * dtypeSize(*dt)),
            appendKeyToPath(path, "bytes"));
    const Eigen::Index rows = shape.size() == 2 ? static_cast<Eigen::Index>(shape[0]) : 1;
    const Eigen::Index cols = static_cast<Eigen::Index>(shape.size() == 2 ? shape[1] : shape[0]);
    out.resize(rows, cols);
    for (uint64_t i = 0; i < numel; ++i) {
        T v;
        switch (*dt) {
        case DType::F32: {
            float f;
            std::memcpy(&f, data.data() + 4 * i, 4);
            v = static_cast<T>(f);
            break;
        }
        case DType::F64: {
            double d;
            std::memcpy(&d, data.data() + 8 * i, 8);
            v = static_cast<T>(d);
            break;
        }
        case DType::F16: {
            uint16_t h;
            std::memcpy(&h, data.data() + 2 * i, 2);
            v = static_cast<T>(halfToFloat(h));
            break;
        }
        default: {
            uint16_t h;
            std::memcpy(&h, data.data() + 2 * i, 2);
            v = static_cast<T>(bf16ToFloat(h));
            break;
        }
        }
        out.data()[i] = v;
    }
    return *dt;
}

} // namespace

template<class T>
Result<void> Trainer<T>::restore(const Record& rec, const TrainProgress& progress, std::vector<std::string>& notes)
{
    const Tape& t = rec.tape;
    if (!rec.moduleNode || !rec.optimizerNode || !rec.schedulerNode || !rec.gradientsNode || !rec.stateNode)
        return invalid("not a TrainingRecord: item must be [module, optimizer, scheduler, gradients, state]", "item");
    if (auto r = adoptProgress(progress, "item[4].progress"); !r)
        return r;

    noteProgressEdits(notes);

    // Module: ids and shapes, and exactly the configured number of blocks (a Vec<Block> record).
    const uint32_t module = *rec.moduleNode;
    auto blocksNode = t.isMap(module) ? t.find(module, "blocks") : std::nullopt;
    if (!blocksNode || !t.isArray(*blocksNode))
        return invalid("expected field `blocks`, an array of Block records (a record of another model?)", "item[0].blocks");
    if (t[*blocksNode].count != m_c.blocks)
        return invalid(std::to_string(t[*blocksNode].count) + " blocks, but config.model.blocks is " + std::to_string(m_c.blocks),
            "item[0].blocks");
    std::set<uint64_t> ids;
    for (auto& p : m_model.params) {
        const std::string path = "item[0]" + recordPathOf(p.modulePath);
        auto paramNode = moduleParam(t, module, p.modulePath);
        if (!paramNode || !t.isMap(*paramNode))
            return invalid("missing parameter " + p.modulePath + " (a record of another model?)", path);
        auto idNode = t.find(*paramNode, "id");
        auto valueNode = t.find(*paramNode, "param");
        if (!idNode || !t.isStr(*idNode) || !valueNode)
            return invalid("expected ParamSerde {id, param}", path);
        auto id = paramIdToU64(t.str(*idNode));
        if (!id)
            return invalid("parameter id \"" + std::string(t.str(*idNode)) + "\" is not a Burn u64 ParamId", path + ".id");
        if (!ids.insert(*id).second)
            return invalid("parameter id " + std::string(t.str(*idNode)) + " is used twice", path + ".id");
        p.id = *id;
        auto dt = readTensorData(t, *valueNode, path + ".param", p.shape, p.value);
        if (!dt)
            return std::unexpected(dt.error());
        noteRounding(*dt, notes);
    }

    // Optimizer: one entry per trained parameter, keyed by the module's ids, with consistent time.
    const uint32_t optim = *rec.optimizerNode;
    if (!t.isMap(optim))
        return invalid("optimizer record is not a map {param id: state}", "item[1]");
    std::set<uint64_t> seen;
    std::string badKey;
    t.forEachEntry(optim, [&](uint32_t k, uint32_t) {
        auto id = t.isStr(k) ? paramIdToU64(t.str(k)) : std::nullopt;
        if (!id || !ids.count(*id))
            badKey = t.keyText(k);
        else
            seen.insert(*id);
    });
    if (!badKey.empty())
        return invalid("optimizer entry \"" + badKey + "\" belongs to no parameter of the model", "item[1]");
    for (size_t i = 0; i < m_model.params.size(); ++i) {
        auto& p = m_model.params[i];
        const std::string key = paramIdFromU64(p.id);
        const std::string path = "item[1][\"" + key + "\"]";
        auto entry = t.find(optim, key);
        if (!entry) {
            // Burn's OptimizerAdaptor takes a parameter without an entry as never stepped and initialises
            // its state at the next step; `ckpt patch --reset-optimizer` relies on that. Said, not refused.
            if (m_p.optimizerSteps > 0)
                notes.push_back("no optimizer state for " + p.modulePath + " (" + key + ") after " + std::to_string(m_p.optimizerSteps)
                    + " optimizer steps: re-initialised at the next step, as Burn does");
            continue;
        }
        if (m_p.optimizerSteps == 0)
            return invalid("optimizer state for " + p.modulePath + " although progress.optimizer_steps is 0", path);
        if (auto r = readOptimizerEntry(t, *entry, path, p, m_optim.state[i], notes); !r)
            return r;
    }

    // Scheduler.
    if (auto r = m_sched.read(t, *rec.schedulerNode); !r)
        return r;
    const Scheduler expected = expectedScheduler();
    const uint64_t windows = m_p.optimizerSteps + (m_p.pendingMicroBatches > 0 ? 1 : 0);
    if (!m_sched.samePosition(expected))
        notes.push_back("scheduler state edited (" + m_sched.position() + ", " + std::to_string(windows) + " steps give "
            + expected.position() + "): honoured");

    // Pending gradients (GradientsParamsRecord).
    const uint32_t grads = *rec.gradientsNode;
    auto list = t.isMap(grads) ? t.find(grads, "gradients") : std::nullopt;
    if (!list || !t.isArray(*list))
        return invalid("expected GradientsParamsRecord {gradients: [[id, dtype, data], ...]}", "item[3]");
    std::set<uint64_t> pending;
    uint64_t index = 0;
    Result<void> gradResult;
    t.forEachChild(*list, [&](uint32_t e) {
        const std::string path = "item[3].gradients[" + std::to_string(index++) + "]";
        if (!gradResult)
            return;
        if (!t.isArray(e) || t[e].count != 3) {
            gradResult = invalid("expected a tuple (u64 id, DType, TensorData)", path);
            return;
        }
        const uint32_t idNode = *t.element(e, 0), dtNode = *t.element(e, 1), dataNode = *t.element(e, 2);
        auto id = t.asU64(idNode);
        auto it = id ? std::find_if(m_model.params.begin(), m_model.params.end(), [&](const Param<T>& p) { return p.id == *id; })
                     : m_model.params.end();
        if (it == m_model.params.end()) {
            gradResult = invalid("pending gradient for an id that is no parameter of the model", path + "[0]");
            return;
        }
        if (!pending.insert(*id).second) {
            gradResult = invalid("duplicate pending gradient id", path + "[0]");
            return;
        }
        if (!t.isStr(dtNode) || !dtypeFromName(t.str(dtNode)) || !isFloat(*dtypeFromName(t.str(dtNode)))) {
            gradResult = invalid("expected a float DType name", path + "[1]");
            return;
        }
        const size_t pi = static_cast<size_t>(it - m_model.params.begin());
        auto dt = readTensorData(t, dataNode, path + "[2]", it->shape, m_accum[pi]);
        if (!dt) {
            gradResult = std::unexpected(dt.error());
            return;
        }
        noteRounding(*dt, notes);
    });
    if (!gradResult)
        return gradResult;
    if (m_p.pendingMicroBatches > 0 && pending.size() != m_model.params.size())
        return invalid(std::to_string(m_p.pendingMicroBatches) + " pending micro-batches but " + std::to_string(pending.size())
                + " of " + std::to_string(m_model.params.size()) + " pending gradients",
            "item[3].gradients");
    if (m_p.pendingMicroBatches == 0 && !pending.empty())
        return invalid("pending gradients present but progress.pending_micro_batches is 0", "item[3].gradients");
    return {};
}

template<class T>
Result<void> Trainer<T>::adoptProgress(const TrainProgress& progress, const std::string& path)
{
    m_p = progress;
    if (m_p.pendingMicroBatches >= m_c.gradAccum)
        return invalid("pending_micro_batches " + std::to_string(m_p.pendingMicroBatches) + " is not below grad_accum "
                + std::to_string(m_c.gradAccum),
            path + ".pending_micro_batches");
    if (m_p.step != m_p.optimizerSteps * m_c.gradAccum + m_p.pendingMicroBatches)
        return invalid("step " + std::to_string(m_p.step) + " does not equal optimizer_steps * grad_accum + pending_micro_batches = "
                + std::to_string(m_p.optimizerSteps * m_c.gradAccum + m_p.pendingMicroBatches),
            path + ".step");
    if (m_p.epoch == 0 || m_p.dataCursor >= m_c.datasetSize || m_p.dataCursor % m_c.batchSize != 0)
        return invalid("epoch must be >= 1 and data_cursor a multiple of batch_size below dataset_size", path);
    return {};
}

template<class T>
void Trainer<T>::noteProgressEdits(std::vector<std::string>& notes)
{
    // Positions an unedited run would be at; an edit is honoured (the record is the truth) and announced.
    const uint64_t samples = m_p.step * m_c.batchSize;
    auto noteEdit = [&](const char* field, uint64_t value, uint64_t expected) {
        if (value != expected)
            notes.push_back(std::string(field) + " edited (" + std::to_string(value) + ", " + std::to_string(m_p.step) + " steps give "
                + std::to_string(expected) + "): honoured");
    };
    noteEdit("rng_counter", m_p.rngCounter, samples);
    noteEdit("samples_seen", m_p.samplesSeen, samples);
    noteEdit("epoch", m_p.epoch, samples / m_c.datasetSize + 1);
    noteEdit("data_cursor", m_p.dataCursor, samples % m_c.datasetSize);
}

template<class T>
Scheduler Trainer<T>::expectedScheduler() const
{
    Scheduler expected(m_c);
    const uint64_t windows = m_p.optimizerSteps + (m_p.pendingMicroBatches > 0 ? 1 : 0);
    for (uint64_t i = 0; i < windows && i < 10'000'000; ++i)
        expected.step();
    return expected;
}

template<class T>
Result<void> Trainer<T>::restoreGraph(const GraphResumeSource& src, const TrainProgress& progress, std::vector<std::string>& notes)
{
    const std::string statePath = std::string("optimizer_state[\"") + kResumeStateKey + "\"]";
    if (auto r = adoptProgress(progress, statePath + ".caller_state.progress"); !r)
        return r;
    noteProgressEdits(notes);
    if (src.checkpoint.step != m_p.step)
        return invalid("step " + std::to_string(src.checkpoint.step) + " differs from the caller state's progress.step "
                + std::to_string(m_p.step),
            "step");
    const Tape& t = src.state;
    auto tensorFrom = [&](uint32_t map, const std::string& mapPath, const Param<T>& p, Mat<T>& out) -> Result<void> {
        const std::string path = mapPath + "[\"" + p.modulePath + "\"]";
        auto cidNode = t.find(map, p.modulePath);
        if (!cidNode || !t.isStr(*cidNode))
            return invalid("missing the CID of " + p.modulePath, path);
        const std::string cidText(t.str(*cidNode));
        auto cid = parseCid(cidText);
        auto index = cid ? src.car.find(*cid) : std::nullopt;
        if (!index)
            return invalid("block " + cidText + " is not in " + src.carPath, path);
        if (src.car.verify(*index) != BlockCheck::Ok)
            return invalid("block " + cidText + " in " + src.carPath + " does not match its CID (corrupted)", path);
        return rawInto(src.car.data(src.car.blocks()[*index]), p, path + " (block " + cidText + ")", out);
    };
    auto params = t.find(src.stateNode, "parameters");
    auto pendingMap = t.find(src.stateNode, "pending_gradients");
    if (!params || !t.isMap(*params) || !pendingMap || !t.isMap(*pendingMap))
        return invalid("expected {caller_state, parameters, pending_gradients}", statePath);
    for (size_t i = 0; i < m_model.params.size(); ++i) {
        auto& p = m_model.params[i];
        if (auto r = tensorFrom(*params, statePath + ".parameters", p, p.value); !r)
            return r;
        if (m_p.pendingMicroBatches > 0)
            if (auto r = tensorFrom(*pendingMap, statePath + ".pending_gradients", p, m_accum[i]); !r)
                return r;
    }
    if (m_p.pendingMicroBatches == 0 && t[*pendingMap].count != 0)
        return invalid("pending gradients present but progress.pending_micro_batches is 0", statePath + ".pending_gradients");

    // Optimizer blobs "<parameter path>/<state>", exactly those the configured optimizer keeps.
    std::set<std::string> used{kResumeStateKey};
    auto blob = [&](const std::string& key) -> const std::vector<uint8_t>* {
        for (const auto& b : src.checkpoint.optimizerState)
            if (b.key == key) {
                used.insert(key);
                return &b.bytes;
            }
        return nullptr;
    };
    const bool trained = m_p.optimizerSteps > 0;
    for (size_t i = 0; i < m_model.params.size(); ++i) {
        const auto& p = m_model.params[i];
        auto& s = m_optim.state[i];
        s = ParamState<T>{};
        s.present = trained;
        auto want = [&](const char* name, bool needed, std::optional<Mat<T>>& out) -> Result<void> {
            const std::string key = p.modulePath + "/" + name;
            const auto* bytes = blob(key);
            if (!bytes && needed && trained)
                return invalid("missing optimizer blob " + key + " after " + std::to_string(m_p.optimizerSteps) + " optimizer steps",
                    "optimizer_state");
            if (bytes && (!needed || !trained))
                return invalid("optimizer blob " + key + " does not belong to the configured optimizer at this step",
                    "optimizer_state[\"" + key + "\"]");
            if (!bytes)
                return {};
            Mat<T> m;
            if (auto r = rawInto(*bytes, p, "optimizer_state[\"" + key + "\"]", m); !r)
                return r;
            out = std::move(m);
            return {};
        };
        std::optional<Mat<T>> m1, m2;
        if (m_c.optimizer == OptimizerKind::Sgd) {
            if (auto r = want("momentum_buffer", m_c.momentum != 0.0, s.velocity); !r)
                return r;
            continue;
        }
        if (auto r = want("exp_avg", true, m1); !r)
            return r;
        if (auto r = want("exp_avg_sq", true, m2); !r)
            return r;
        if (auto r = want("max_exp_avg_sq", m_c.amsgrad, s.maxMoment2); !r)
            return r;
        const std::string stepKey = p.modulePath + "/step";
        const auto* time = blob(stepKey);
        if (trained) {
            if (!time || time->size() != 8)
                return invalid("expected an 8-byte little-endian step count", "optimizer_state[\"" + stepKey + "\"]");
            std::memcpy(&s.time, time->data(), 8);
            if (s.time != m_p.optimizerSteps)
                return invalid("step " + std::to_string(s.time) + " does not match progress.optimizer_steps " + std::to_string(m_p.optimizerSteps),
                    "optimizer_state[\"" + stepKey + "\"]");
            s.moment1 = std::move(*m1);
            s.moment2 = std::move(*m2);
        } else if (time) {
            return invalid("optimizer blob " + stepKey + " before the first optimizer step", "optimizer_state[\"" + stepKey + "\"]");
        }
    }
    for (const auto& b : src.checkpoint.optimizerState)
        if (!used.count(b.key))
            return invalid("optimizer blob " + b.key + " belongs to no parameter state of the configured optimizer",
                "optimizer_state[\"" + b.key + "\"]");
    m_sched = expectedScheduler();
    return {};
}

template<class T>
Result<void> Trainer<T>::rawInto(std::span<const uint8_t> bytes, const Param<T>& p, const std::string& what, Mat<T>& out)
{
    uint64_t numel = 1;
    for (uint64_t d : p.shape)
        numel *= d;
    if (bytes.size() != numel * sizeof(T))
        return invalid(std::to_string(bytes.size()) + " bytes, but " + p.modulePath + " " + shapeString(p.shape) + " needs "
                + std::to_string(numel * sizeof(T)) + " (" + (sizeof(T) == 8 ? "f64" : "f32") + " elements)",
            what);
    out.resize(p.value.rows(), p.value.cols());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return {};
}

template<class T>
void Trainer<T>::noteRounding(DType dt, std::vector<std::string>& notes)
{
    const bool rounded = dt == DType::F16 || dt == DType::BF16 || (dt == DType::F32 && std::is_same_v<T, double>);
    if (rounded && !m_roundingNoted) {
        m_roundingNoted = true;
        notes.push_back(std::string("record stores ") + std::string(dtypeName(dt)) + " tensors: the " + std::string(dtypeName(m_c.dtype))
            + " training state was rounded (resumption is not exact)");
    }
}

template<class T>
Result<void> Trainer<T>::readOptimizerEntry(const Tape& t, uint32_t entry, const std::string& path, const Param<T>& p, ParamState<T>& s,
    std::vector<std::string>& notes)
{
    auto v1 = t.isMap(entry) ? t.find(entry, "V1") : std::nullopt;
    const std::string rankKey = "Rank" + std::to_string(p.shape.size());
    auto ranked = v1 && t.isMap(*v1) ? t.find(*v1, rankKey) : std::nullopt;
    if (!ranked || !t.isMap(*ranked))
        return invalid("expected {\"V1\": {\"" + rankKey + "\": state}} for a rank-" + std::to_string(p.shape.size()) + " parameter", path);
    const std::string statePath = path + ".V1." + rankKey;
    auto momentum = t.find(*ranked, "momentum");
    if (!momentum)
        return invalid("missing field `momentum` (is this a record of another optimizer?)", statePath);
    s = ParamState<T>{};
    s.present = true;
    if (m_c.optimizer == OptimizerKind::Sgd) {
        if (t[*momentum].kind == Kind::Nil) {
            if (m_c.momentum != 0.0)
                return invalid("SGD momentum is configured but the state has none", statePath + ".momentum");
            return {};
        }
        auto velocity = t.isMap(*momentum) ? t.find(*momentum, "velocity") : std::nullopt;
        if (!velocity)
            return invalid("expected MomentumState {velocity} or nil (is this a record of another optimizer?)", statePath + ".momentum");
        Mat<T> v;
        auto dt = readTensorData(t, *velocity, statePath + ".momentum.velocity", p.shape, v);
        if (!dt)
            return std::unexpected(dt.error());
        noteRounding(*dt, notes);
        s.velocity = std::move(v);
        return {};
    }
    const std::string mp = statePath + ".momentum";
    auto time = t.isMap(*momentum) ? t.find(*momentum, "time") : std::nullopt;
    auto m1 = t.isMap(*momentum) ? t.find(*momentum, "moment_1") : std::nullopt;
    auto m2 = t.isMap(*momentum) ? t.find(*momentum, "moment_2") : std::nullopt;
    if (!time || !m1 || !m2)
        return invalid("expected AdaptiveMomentumState {time, moment_1, moment_2, max_moment_2} (is this a record of another optimizer?)", mp);
    auto tv = t.asU64(*time);
    if (!tv)
        return invalid("time is not a usize", mp + ".time");
    if (*tv != m_p.optimizerSteps)
        return invalid("time " + std::to_string(*tv) + " does not match progress.optimizer_steps " + std::to_string(m_p.optimizerSteps),
            mp + ".time");
    s.time = *tv;
    for (auto [node, target, name] : {std::tuple{*m1, &s.moment1, "moment_1"}, std::tuple{*m2, &s.moment2, "moment_2"}}) {
        auto dt = readTensorData(t, node, mp + "." + name, p.shape, *target);
        if (!dt)
            return std::unexpected(dt.error());
        noteRounding(*dt, notes);
    }
    auto mm = t.find(*momentum, "max_moment_2");
    if (mm && t[*mm].kind != Kind::Nil) {
        Mat<T> v;
        auto dt = readTensorData(t, *mm, mp + ".max_moment_2", p.shape, v);
        if (!dt)
            return std::unexpected(dt.error());
        s.maxMoment2 = std::move(v);
    }
    if (m_c.amsgrad && !s.maxMoment2)
        return invalid("amsgrad is configured but max_moment_2 is nil", mp + ".max_moment_2");
    if (!m_c.amsgrad && s.maxMoment2)
        return invalid("max_moment_2 present but amsgrad is not configured", mp + ".max_moment_2");
    return {};
}

template Result<void> Trainer<float>::restore(const Record&, const TrainProgress&, std::vector<std::string>&);
template Result<void> Trainer<double>::restore(const Record&, const TrainProgress&, std::vector<std::string>&);
template Result<void> Trainer<float>::restoreGraph(const GraphResumeSource&, const TrainProgress&, std::vector<std::string>&);
template Result<void> Trainer<double>::restoreGraph(const GraphResumeSource&, const TrainProgress&, std::vector<std::string>&);

} // namespace detail

using detail::invalid;

Result<std::shared_ptr<const Record>> openTrainingRecord(const std::string& path)
{
    auto rec = openRecord(path);
    if (!rec)
        return rec;
    const bool bincode = (*rec)->recorder == Recorder::Bin || (*rec)->recorder == Recorder::BinGz;
    if (!bincode || ((*rec)->kind == RecordKind::TrainingRecord && (*rec)->stateNode))
        return rec;
    // core's built-in ckpt-train layouts (core/record/bincoderecord.cpp) read every TrainingRecord
    // the trainer writes, the scheduler record type taken from the caller state's config.
    auto e = fail(ErrorCode::Invalid, "a bincode record that none of the trainer's TrainingRecord layouts decodes (another model, or a damaged file)");
    e.error().file = path;
    return e;
}

Result<std::optional<GraphResumeSource>> openGraphResume(const std::string& path)
{
    // core's detector decides; a record is left to openTrainingRecord, which maps it (once).
    if (sniffFile(path) != FileFamily::GradientCheckpoint)
        return std::nullopt;
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto checkpoint = loadGradientCheckpoint(*bytes);
    if (!checkpoint)
        return std::unexpected(std::move(checkpoint.error()).withFile(path));
    GraphResumeSource src;
    src.checkpoint = std::move(*checkpoint);
    const auto blob = std::find_if(src.checkpoint.optimizerState.begin(), src.checkpoint.optimizerState.end(),
        [](const OptimizerBlob& b) { return b.key == kResumeStateKey; });
    if (blob == src.checkpoint.optimizerState.end()) {
        auto e = invalid(std::string("a GradientCheckpoint without ckpt-train's continuation state (optimizer_state has no \"") + kResumeStateKey
                + "\" entry): its graph alone does not say the run's configuration, data position or updated parameters",
            "optimizer_state");
        e.error().file = path;
        return e;
    }
    const std::string blobPath = std::string("optimizer_state[\"") + kResumeStateKey + "\"]";
    auto state = readJson(makeBytes(std::vector<uint8_t>(blob->bytes)));
    if (!state || !state->isMap(state->root())) {
        auto e = invalid("is not a JSON object {caller_state, parameters, pending_gradients}" + (state ? std::string() : ": " + state.error().message()),
            blobPath);
        e.error().file = path;
        return e;
    }
    auto caller = state->find(state->root(), "caller_state");
    if (!caller) {
        auto e = invalid("has no caller_state", blobPath);
        e.error().file = path;
        return e;
    }
    src.state = std::move(*state);
    src.stateNode = src.state.root();
    src.callerStateNode = *caller;
    src.carPath = carPathFor(path); // the CAR ckpt-train writes next to it
    auto carBytes = mapFile(src.carPath);
    if (!carBytes)
        return std::unexpected(std::move(carBytes.error()).withFile(src.carPath));
    auto car = CarStore::open(*carBytes);
    if (!car)
        return std::unexpected(std::move(car.error()).withFile(src.carPath));
    src.car = std::move(*car);
    return src;
}

} // namespace ckpt::train
