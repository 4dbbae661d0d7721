// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// What a checkpoint writes: the TrainingRecord, burn-train's model/optim/scheduler files and (through
// GraphRecorder) the GradientCheckpoint, each in the layouts --layout asks for.
#include "app/train/trainer_detail.h"

#include "core/record/bincoderecord.h"
#include "core/tensor/dtype.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace ckpt::train::detail {

namespace {

constexpr const char* kBurnVersion = "0.21.0";

/** The stored element type of float tensors for a precision (Burn's FloatElem). */
DType storedFloat(Precision p)
{
    switch (p) {
    case Precision::Full: return DType::F32;
    case Precision::Half: return DType::F16;
    case Precision::Double: return DType::F64;
    }
    return DType::F32;
}

/** Appends a TensorData {bytes, shape, dtype} of \a m converted to the precision's float type. */
template<class T>
void writeTensorData(TapeBuilder& b, const Mat<T>& m, const std::vector<uint64_t>& shape, Precision precision)
{
    const DType dt = storedFloat(precision);
    std::vector<uint8_t> bytes(static_cast<size_t>(m.size()) * dtypeSize(dt));
    uint8_t* out = bytes.data();
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const T v = m.data()[i];
        if (dt == DType::F32) {
            const float f = static_cast<float>(v);
            std::memcpy(out + 4 * i, &f, 4);
        } else if (dt == DType::F64) {
            const double d = static_cast<double>(v);
            std::memcpy(out + 8 * i, &d, 8);
        } else {
            // half::f16::from_f32 of the f32 value; an f64 run narrows straight from f64 (from_f64).
            const uint16_t h = std::is_same_v<T, double> ? doubleToHalf(static_cast<double>(v)) : floatToHalf(static_cast<float>(v));
            std::memcpy(out + 2 * i, &h, 2);
        }
    }
    ckpt::writeTensorData(b, dtypeName(dt), shape, bytes);
}

} // namespace

template<class T>
void Trainer<T>::writeParam(TapeBuilder& b, const Param<T>& p, Precision pr)
{
    b.beginMap();
    b.key("id");
    b.str(paramIdFromU64(p.id));
    b.key("param");
    writeTensorData(b, p.value, p.shape, pr);
    b.end();
}

template<class T>
void Trainer<T>::writeParams(TapeBuilder& b, std::initializer_list<std::pair<std::string_view, const Param<T>*>> fields, Precision pr)
{
    for (const auto& [name, p] : fields) {
        b.key(name);
        writeParam(b, *p, pr);
    }
}

template<class T>
void Trainer<T>::writeLinear(TapeBuilder& b, const Param<T>& weight, const Param<T>& bias, Precision pr)
{
    b.beginMap();
    writeParams(b, {{"weight", &weight}, {"bias", &bias}}, pr);
    b.end();
}

template<class T>
void Trainer<T>::writeLayerNorm(TapeBuilder& b, const Param<T>& gamma, const Param<T>& beta, Precision pr)
{
    b.beginMap();
    writeParams(b, {{"gamma", &gamma}, {"beta", &beta}}, pr);
    b.key("epsilon");
    b.nil(); // a plain f64 field: EmptyRecord
    b.end();
}

template<class T>
void Trainer<T>::writeModule(TapeBuilder& b, Precision pr)
{
    using M = Mlp<T>;
    const auto& P = m_model.params;
    b.beginMap();
    b.key("input");
    writeLinear(b, P[M::W1], P[M::B1], pr);
    b.key("norm");
    writeLayerNorm(b, P[M::Gamma], P[M::Beta], pr);
    b.key("activation");
    b.nil();
    b.key("blocks");
    b.beginArray();
    for (size_t k = 0; k < m_model.blocks; ++k) {
        b.beginMap();
        b.key("fc1");
        writeLinear(b, P[M::blockParam(k, M::Fc1W)], P[M::blockParam(k, M::Fc1B)], pr);
        b.key("norm");
        writeLayerNorm(b, P[M::blockParam(k, M::NormGamma)], P[M::blockParam(k, M::NormBeta)], pr);
        b.key("fc2");
        writeLinear(b, P[M::blockParam(k, M::Fc2W)], P[M::blockParam(k, M::Fc2B)], pr);
        b.end();
    }
    b.end();
    b.key("output");
    writeLinear(b, P[M::W2], P[M::B2], pr);
    b.end();
}

template<class T>
void Trainer<T>::writeOptimizer(TapeBuilder& b, Precision pr)
{
    b.beginMap();
    for (size_t i : m_model.declarationOrder()) {
        const auto& p = m_model.params[i];
        const auto& s = m_optim.state[i];
        if (!s.present)
            continue;
        b.key(paramIdFromU64(p.id));
        b.beginMap();
        b.key("V1");
        b.beginMap();
        b.key("Rank" + std::to_string(p.shape.size()));
        b.beginMap();
        b.key("momentum");
        if (m_c.optimizer == OptimizerKind::Sgd) {
            if (s.velocity) {
                b.beginMap();
                b.key("velocity");
                writeTensorData(b, *s.velocity, p.shape, pr);
                b.end();
            } else {
                b.nil();
            }
        } else {
            b.beginMap();
            b.key("time");
            b.uinteger(s.time);
            b.key("moment_1");
            writeTensorData(b, s.moment1, p.shape, pr);
            b.key("moment_2");
            writeTensorData(b, s.moment2, p.shape, pr);
            b.key("max_moment_2");
            if (s.maxMoment2)
                writeTensorData(b, *s.maxMoment2, p.shape, pr);
            else
                b.nil();
            b.end();
        }
        b.end();
        b.end();
        b.end();
    }
    b.end();
}

template<class T>
void Trainer<T>::writeGradients(TapeBuilder& b, Precision pr)
{
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    if (m_p.pendingMicroBatches > 0) {
        std::vector<size_t> order(m_model.params.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t c) { return m_model.params[a].id < m_model.params[c].id; });
        for (size_t i : order) {
            b.beginArray();
            b.uinteger(m_model.params[i].id);
            b.str(std::is_same_v<T, double> ? "F64" : "F32");
            writeTensorData(b, m_accum[i], m_model.params[i].shape, pr);
            b.end();
        }
    }
    b.end();
    b.end();
}

template<class T>
Result<void> Trainer<T>::save(TapeBuilder&& b, const fs::path& path, const BincodeSchema* schema)
{
    endEnvelope(b);
    Tape tape = std::move(b).finish();
    auto r = saveRecord(tape, m_c.recorder, path.string(), schema);
    if (!r)
        return std::unexpected(std::move(r.error()).withFile(path.string()));
    return {};
}

template<class T>
void Trainer<T>::writeTrainingItem(TapeBuilder& b, const Metadata& meta)
{
    beginEnvelope(b, meta);
    b.beginArray();
    writeModule(b, m_c.precision);
    writeOptimizer(b, m_c.precision);
    m_sched.write(b);
    writeGradients(b, m_c.precision);
    writeCallerState(b, m_c, m_p);
    b.end();
}

template<class T>
Result<void> Trainer<T>::checkpoint()
{
    const fs::path dir = fs::path(m_out) / "checkpoint";
    const std::string ext(recorderExtension(m_c.recorder));
    const Metadata meta = makeMetadata(m_c.recorder, m_c.precision, kBurnVersion);
    const Precision pr = m_c.precision;
    // Bincode is written with the trainer's own Rust types (core's ckpt-train layouts): a layout
    // derived from the values would write Some(x) of an Option field (diverge_at, loss_tail) as a bare x.
    const bool bincode = m_c.recorder == Recorder::Bin || m_c.recorder == Recorder::BinGz;
    const DTypeTable table = dtypeTableForVersion(kBurnVersion);
    if (m_c.layout & LayoutTrainingRecord) {
        TapeBuilder b;
        writeTrainingItem(b, meta);
        std::optional<BincodeSchema> layout;
        if (bincode) {
            const auto recordType = schedulerRecordType(schedulerName(m_c.scheduler));
            if (recordType)
                layout = ckptTrainRecordLayout(m_c.optimizer == OptimizerKind::Sgd, *recordType, table);
            if (!layout)
                return invalid("no bincode layout for the scheduler " + std::string(schedulerName(m_c.scheduler)));
        }
        if (auto r = save(std::move(b), dir / ("record-" + std::to_string(m_p.step) + "." + ext), layout ? &*layout : nullptr); !r)
            return r;
    }
    if (m_c.layout & LayoutBurnRun) {
        // burn-train names checkpoints by epoch: the epoch the last micro-batch belonged to.
        const uint64_t epoch = (m_p.dataCursor == 0 && m_p.epoch > 1) ? m_p.epoch - 1 : m_p.epoch;
        const std::string suffix = "-" + std::to_string(epoch) + "." + ext;
        {
            TapeBuilder b;
            beginEnvelope(b, meta);
            writeModule(b, pr);
            const std::optional<BincodeSchema> layout = bincode ? std::optional(ckptTrainModuleLayout(table)) : std::nullopt;
            if (auto r = save(std::move(b), dir / ("model" + suffix), layout ? &*layout : nullptr); !r)
                return r;
        }
        {
            TapeBuilder b;
            beginEnvelope(b, meta);
            writeOptimizer(b, pr);
            if (auto r = save(std::move(b), dir / ("optim" + suffix)); !r)
                return r;
        }
        {
            TapeBuilder b;
            beginEnvelope(b, meta);
            m_sched.write(b);
            if (auto r = save(std::move(b), dir / ("scheduler" + suffix)); !r)
                return r;
        }
        m_logs.flush();
    }
    if (m_c.layout & LayoutGradientCheckpoint) {
        if (auto r = m_graph.write(fs::path(m_out) / "graph", m_c, m_p, m_model, m_optim.state, m_accum); !r)
            return r;
    }
    return {};
}

template void Trainer<float>::writeTrainingItem(TapeBuilder&, const Metadata&);
template void Trainer<double>::writeTrainingItem(TapeBuilder&, const Metadata&);
template Result<void> Trainer<float>::checkpoint();
template Result<void> Trainer<double>::checkpoint();

} // namespace ckpt::train::detail
