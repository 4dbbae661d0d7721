// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The record model every format family fills: names, and reading a record's tensors.
#include "core/model/record.h"

#include <cmath>

namespace ckpt {

std::string_view recordKindName(RecordKind k)
{
    switch (k) {
    case RecordKind::TrainingRecord: return "training_record";
    case RecordKind::ModelStateTrainingRecord: return "model_state_training_record";
    case RecordKind::ModuleRecord: return "module_record";
    case RecordKind::OptimizerRecord: return "optimizer_record";
    case RecordKind::SchedulerRecord: return "scheduler_record";
    case RecordKind::GradientCheckpoint: return "gradient_checkpoint";
    case RecordKind::RunDirectory: return "run_directory";
    case RecordKind::BurnTrainCheckpoint: return "burn_train_checkpoint";
    case RecordKind::TorchStateDict: return "torch_state_dict";
    case RecordKind::TorchOptimizerState: return "torch_optimizer_state";
    case RecordKind::TorchCheckpoint: return "torch_checkpoint";
    case RecordKind::Safetensors: return "safetensors";
    case RecordKind::TorchDcp: return "torch_dcp";
    }
    return "unknown";
}

std::string_view tensorRoleName(TensorRole r)
{
    switch (r) {
    case TensorRole::Param: return "param";
    case TensorRole::Optimizer: return "optimizer";
    case TensorRole::Gradient: return "gradient";
    case TensorRole::Other: return "other";
    }
    return "other";
}

std::span<const uint8_t> Record::payload(const TensorEntry& t) const
{
    if (t.legacy)
        return {};
    if (t.view)
        return *t.view;
    return tape.bin(t.dataNode);
}

namespace {
/// Legacy {value, shape} payloads are numbers on the tape; half precision stores f16 bit patterns.
std::vector<double> legacyValues(const Record& r, const TensorEntry& t, uint64_t first, uint64_t count)
{
    std::vector<double> out;
    uint64_t i = 0;
    r.tape.forEachChild(t.dataNode, [&](uint32_t c) {
        if (i >= first && out.size() < count) {
            double v = r.tape.asNumber(c).value_or(std::nan(""));
            if (t.dtype == DType::F16 && r.tape[c].kind == Kind::UInt && !r.tape.isWide(c))
                v = halfToFloat(static_cast<uint16_t>(r.tape.u64(c)));
            out.push_back(v);
        }
        ++i;
    });
    return out;
}
} // namespace

TensorStats Record::stats(const TensorEntry& t, const StatsOptions& options) const
{
    if (t.legacy) {
        auto v = legacyValues(*this, t, 0, UINT64_MAX);
        return computeStats(std::span<const double>(v), options);
    }
    return computeStats(t.elementType(), payload(t), options);
}

std::vector<TensorStats> Record::stats(std::span<const size_t> indices, const StatsOptions& options, const ParallelFor& parallel) const
{
    // legacy tensors are widened into buffers that live until the batch is done
    std::vector<std::vector<double>> widened;
    widened.reserve(indices.size()); // never reallocates: the spans below point into its elements
    std::vector<StatsInput> inputs;
    inputs.reserve(indices.size());
    for (size_t i : indices) {
        const TensorEntry& t = tensors[i];
        if (t.legacy) {
            widened.push_back(legacyValues(*this, t, 0, UINT64_MAX));
            const auto& v = widened.back();
            inputs.push_back({DType::F64, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(double))});
        } else {
            inputs.push_back({t.elementType(), payload(t)});
        }
    }
    return computeStatsMany(inputs, options, parallel);
}

std::vector<double> Record::values(const TensorEntry& t, uint64_t first, uint64_t count) const
{
    if (t.legacy)
        return legacyValues(*this, t, first, count);
    return elementsAsDouble(t.elementType(), payload(t), first, count);
}

uint64_t Record::tensorBytes() const
{
    uint64_t sum = 0;
    for (const auto& t : tensors)
        sum += t.bytes;
    return sum;
}

std::optional<size_t> Record::findParam(std::string_view id) const
{
    for (size_t i = 0; i < params.size(); ++i)
        if (params[i].id == id)
            return i;
    return std::nullopt;
}

std::optional<size_t> Record::findTensor(std::string_view path) const
{
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].path == path)
            return i;
    return std::nullopt;
}

std::string_view Record::precisionText() const
{
    return mixedPrecision ? std::string_view("mixed") : precisionName(precision);
}

std::vector<size_t> Record::tensorsOfParam(std::string_view id) const
{
    std::vector<size_t> out;
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].paramId == id)
            out.push_back(i);
    return out;
}

namespace {
/** {bytes, shape, dtype} in serde's field order, the dtype's value written by \a dtype. */
template<class WriteDType>
void tensorDataMap(TapeBuilder& b, std::span<const uint64_t> shape, std::span<const uint8_t> bytes, WriteDType&& dtype)
{
    b.beginMap();
    b.key("bytes");
    b.bin(bytes);
    b.key("shape");
    b.beginArray();
    for (uint64_t d : shape)
        b.uinteger(d);
    b.end();
    b.key("dtype");
    dtype();
    b.end();
}
} // namespace

void writeTensorData(TapeBuilder& b, std::string_view dtype, std::span<const uint64_t> shape, std::span<const uint8_t> bytes)
{
    tensorDataMap(b, shape, bytes, [&] { b.str(dtype); });
}

void writeTensorData(TapeBuilder& b, const TensorEntry& t, std::span<const uint8_t> bytes)
{
    tensorDataMap(b, t.shape, bytes, [&] {
        if (t.dtype != DType::Bool) {
            b.str(dtypeName(t.dtype));
            return;
        }
        b.beginMap();
        b.key("Bool");
        b.str(boolStoreName(t.boolStore));
        b.end();
    });
}

} // namespace ckpt
