// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Export to PyTorch: a Burn record's parameters as a state dict, and with --what all its Adam/AdamW
// (or SGD) state as torch.optim's state dict, by Burn's PyTorch rules (core/model/crossframework.h).
#include "core/export/pieces.h"

#include "core/model/statedict.h"
#include "core/torch/torchwriter.h"

#include <cmath>
#include <cstring>
#include <set>

namespace ckpt {

using namespace export_detail;
using torch::PyValue;

namespace {

/// The hyper-parameters a record's continuation state keeps (ckpt-train's `config.optimizer`, `progress.last_lr`).
struct Hyperparameters {
    std::optional<double> lr, beta1, beta2, epsilon, weightDecay, momentum, dampening;
    std::optional<bool> amsgrad, nesterov;
};

/// The first map under \a node (depth-first, at most \a depth levels down) that has key \a key.
std::optional<uint32_t> mapWith(const Tape& t, uint32_t node, std::string_view key, int depth)
{
    if (!t.isMap(node) || depth < 0)
        return std::nullopt;
    if (t.find(node, key))
        return node;
    std::optional<uint32_t> found;
    t.forEachEntry(node, [&](uint32_t, uint32_t v) {
        if (!found)
            found = mapWith(t, v, key, depth - 1);
    });
    return found;
}

Hyperparameters hyperparametersOf(const Record& r)
{
    Hyperparameters h;
    if (!r.stateNode)
        return h;
    const Tape& t = r.tape;
    const auto number = [&](uint32_t map, std::string_view key) -> std::optional<double> {
        const auto v = t.find(map, key);
        return v ? t.asNumber(*v) : std::nullopt;
    };
    const auto flag = [&](uint32_t map, std::string_view key) -> std::optional<bool> {
        const auto v = t.find(map, key);
        return v && t[*v].kind == Kind::Bool ? std::optional(t.boolean(*v)) : std::nullopt;
    };
    if (auto o = mapWith(t, *r.stateNode, "beta_1", 6)) {
        h.lr = number(*o, "lr");
        h.beta1 = number(*o, "beta_1");
        h.beta2 = number(*o, "beta_2");
        h.epsilon = number(*o, "epsilon");
        h.weightDecay = number(*o, "weight_decay");
        h.amsgrad = flag(*o, "amsgrad");
        h.momentum = number(*o, "momentum");
        h.dampening = number(*o, "dampening");
        h.nesterov = flag(*o, "nesterov");
    }
    // the learning rate in use, after the scheduler: torch keeps it in the group's lr
    if (auto p = mapWith(t, *r.stateNode, "last_lr", 6))
        if (auto lr = number(*p, "last_lr"); lr && *lr > 0)
            h.lr = lr;
    return h;
}

/// A tensor on its way to torch: its bytes in a dtype torch has, transposed where the rules say.
struct OutTensor {
    torch::TensorOut out;
    std::vector<uint8_t> owned;
};

Result<OutTensor> outTensor(const Record& r, const TensorEntry& t, bool transpose)
{
    OutTensor o;
    o.out.dtype = t.elementType() == DType::Flex32 ? DType::F32 : t.elementType();
    o.out.shape = t.shape;
    std::span<const uint8_t> bytes = r.payload(t);
    if (t.legacy) {
        o.owned = encodeLegacy(r, t);
        bytes = o.owned;
    }
    if (t.dtype == DType::Bool && t.boolStore == BoolStore::U32) { // torch's bool is a byte
        std::vector<uint8_t> narrow(t.numel);
        for (uint64_t i = 0; i < t.numel && 4 * i < bytes.size(); ++i)
            narrow[i] = bytes[4 * i] != 0;
        o.owned = std::move(narrow);
        bytes = o.owned;
        o.out.dtype = DType::Bool;
    }
    const size_t size = dtypeSize(o.out.dtype);
    if (t.dtype == DType::QFloat || bytes.size() != t.numel * size)
        return std::unexpected(
            Error{ErrorCode::Unsupported, t.dtype == DType::QFloat ? "a quantized tensor has no PyTorch dtype" : "the payload is not shape x dtype bytes",
                r.file, std::nullopt, std::nullopt, std::nullopt, t.path});
    if (transpose) {
        o.owned = transposedMatrix(bytes, t.shape[0], t.shape[1], size);
        o.out.shape = {t.shape[1], t.shape[0]};
        bytes = o.owned;
    }
    o.out.bytes = bytes;
    return o;
}

/// What the export builds: the tensors (owned where converted) and the objects naming them.
struct TorchExport {
    std::vector<OutTensor> tensors;
    PyValue model = PyValue::container(PyValue::Kind::OrderedDict);
    std::vector<std::pair<std::string, const ParamEntry*>> order; ///< state-dict names in record order
    std::vector<std::string> notes;
};

Result<void> addParameters(const Record& r, const TorchExportOptions& o, TorchExport& x)
{
    std::set<std::string> seen;
    for (const auto& p : r.params) {
        if (p.tensor >= r.tensors.size())
            continue;
        const TensorEntry& t = r.tensors[p.tensor];
        auto name = applyNameRewrites(o.rewrites, pytorchNameOfBurnPath(p.modulePath));
        if (!name)
            return std::unexpected(std::move(name.error()));
        if (!seen.insert(*name).second)
            return std::unexpected(Error{ErrorCode::Invalid, "two parameters are both named " + *name + " in PyTorch (check --map)", r.file, std::nullopt,
                std::nullopt, std::nullopt, t.path});
        auto out = outTensor(r, t, isLinearWeight(*name, t.shape.size()));
        if (!out)
            return std::unexpected(std::move(out.error()));
        x.model.set(PyValue::of(*name), PyValue::tensorAt(x.tensors.size()));
        x.tensors.push_back(std::move(*out));
        x.order.emplace_back(std::move(*name), &p);
    }
    return {};
}

/// PyTorch's `param_groups[0]` for \a optimizer ("Adam/AdamW" or "SGD"), with the record's hyper-parameters where it has them.
PyValue paramGroup(std::string_view optimizer, const Hyperparameters& h, int64_t parameters, std::vector<std::string>& notes)
{
    std::vector<std::string> defaulted;
    const auto take = [&](const std::optional<double>& v, double fallback, const char* name) {
        if (!v)
            defaulted.emplace_back(name);
        return PyValue::of(v.value_or(fallback));
    };
    PyValue g = PyValue::container(PyValue::Kind::Dict);
    g.set(PyValue::of(std::string("lr")), take(h.lr, 1e-3, "lr"));
    if (optimizer == "SGD") {
        g.set(PyValue::of(std::string("momentum")), take(h.momentum, 0.0, "momentum"));
        g.set(PyValue::of(std::string("dampening")), take(h.dampening, 0.0, "dampening"));
        g.set(PyValue::of(std::string("weight_decay")), take(h.weightDecay, 0.0, "weight_decay"));
        g.set(PyValue::of(std::string("nesterov")), PyValue::of(h.nesterov.value_or(false)));
    } else { // Burn's AdamConfig defaults where the record does not say: betas (0.9, 0.999), epsilon 1e-5
        PyValue betas = PyValue::container(PyValue::Kind::Tuple);
        betas.items = {take(h.beta1, 0.9, "beta_1"), take(h.beta2, 0.999, "beta_2")};
        g.set(PyValue::of(std::string("betas")), std::move(betas));
        g.set(PyValue::of(std::string("eps")), take(h.epsilon, 1e-5, "epsilon"));
        g.set(PyValue::of(std::string("weight_decay")), take(h.weightDecay, 0.0, "weight_decay"));
        g.set(PyValue::of(std::string("amsgrad")), PyValue::of(h.amsgrad.value_or(false)));
    }
    // torch.optim's other group keys, at their defaults (load_state_dict replaces the whole group)
    g.set(PyValue::of(std::string("maximize")), PyValue::of(false));
    g.set(PyValue::of(std::string("foreach")), PyValue::none());
    if (optimizer != "SGD")
        g.set(PyValue::of(std::string("capturable")), PyValue::of(false));
    g.set(PyValue::of(std::string("differentiable")), PyValue::of(false));
    if (optimizer != "SGD")
        g.set(PyValue::of(std::string("fused")), PyValue::none());
    PyValue params = PyValue::container(PyValue::Kind::List);
    for (int64_t i = 0; i < parameters; ++i)
        params.items.push_back(PyValue::of(i));
    g.set(PyValue::of(std::string("params")), std::move(params));
    if (!defaulted.empty()) {
        std::string list;
        for (const auto& d : defaulted)
            list += (list.empty() ? "" : ", ") + d;
        notes.push_back("the record does not keep " + list + ": Burn's defaults written (lr 1e-3 when unknown; set it in torch)");
    }
    return g;
}

/// torch.optim's state dict: per parameter index (model.parameters() order: the state dict without its buffers) its moments and step.
Result<PyValue> optimizerState(const Record& r, TorchExport& x, uint64_t& step)
{
    std::string optimizer;
    PyValue state = PyValue::container(PyValue::Kind::Dict);
    int64_t index = 0;
    for (const auto& [name, param] : x.order) {
        if (isStateDictBuffer(name))
            continue; // a buffer (BatchNorm's running stats) is no parameter of torch's optimizer
        const int64_t i = index++;
        const OptimizerEntry* oe = nullptr;
        for (const auto& e : r.optimizer)
            if (e.paramId == param->id)
                oe = &e;
        if (!oe)
            continue; // no step taken for this parameter yet: torch starts its state fresh too
        // Burn's SGD with momentum and Muon keep the same state (a velocity): written as SGD's momentum_buffer
        const std::string family = oe->optimizer == "SGD/Muon" ? "SGD" : oe->optimizer;
        if (family != "Adam/AdamW" && family != "SGD")
            return fail(ErrorCode::Unsupported,
                "the " + oe->optimizer + " state of " + name + " has no torch.optim counterpart written here (Adam, AdamW and SGD are)");
        if (!optimizer.empty() && optimizer != family)
            return fail(ErrorCode::Unsupported, std::string("the record mixes ").append(optimizer).append(" and ").append(family).append(" state"));
        optimizer = family;
        PyValue s = PyValue::container(PyValue::Kind::Dict);
        if (optimizer != "SGD") { // torch >= 1.12 keeps Adam's step as a float32 scalar tensor
            const float t = float(oe->time.value_or(0));
            OutTensor st;
            st.owned.resize(4);
            std::memcpy(st.owned.data(), &t, 4);
            st.out = {DType::F32, {}, st.owned};
            s.set(PyValue::of(std::string("step")), PyValue::tensorAt(x.tensors.size()));
            x.tensors.push_back(std::move(st));
            step = std::max(step, oe->time.value_or(0));
        }
        for (size_t k : oe->tensors) {
            const TensorEntry& t = r.tensors[k];
            auto out = outTensor(r, t, isLinearWeight(name, t.shape.size()));
            if (!out)
                return std::unexpected(std::move(out.error()));
            s.set(PyValue::of(std::string(pytorchStateName(t.stateName))), PyValue::tensorAt(x.tensors.size()));
            x.tensors.push_back(std::move(*out));
        }
        state.set(PyValue::of(i), std::move(s));
    }
    PyValue groups = PyValue::container(PyValue::Kind::List);
    groups.items.push_back(paramGroup(optimizer.empty() ? "Adam/AdamW" : optimizer, hyperparametersOf(r), index, x.notes));
    PyValue o = PyValue::container(PyValue::Kind::Dict);
    o.set(PyValue::of(std::string("state")), std::move(state));
    o.set(PyValue::of(std::string("param_groups")), std::move(groups));
    return o;
}

} // namespace

std::optional<TorchExportWhat> parseTorchExportWhat(std::string_view what)
{
    if (what == "params")
        return TorchExportWhat::Params;
    if (what == "all")
        return TorchExportWhat::All;
    return std::nullopt;
}

Result<ExportSummary> exportTorch(const Record& r, const TorchExportOptions& o, const std::string& path)
{
    if (followsPyTorchConventions(r))
        return fail(ErrorCode::Usage, r.file + " is already a PyTorch or safetensors checkpoint: export takes a Burn record");
    TorchExport x;
    if (auto p = addParameters(r, o, x); !p)
        return std::unexpected(std::move(p.error()));
    if (x.order.empty())
        return fail(ErrorCode::Invalid, r.file + " has no parameters to export (an optimizer or scheduler file alone has none)");
    PyValue root = std::move(x.model);
    uint64_t step = 0;
    if (o.what == TorchExportWhat::All) {
        auto optimizer = optimizerState(r, x, step);
        if (!optimizer)
            return std::unexpected(std::move(optimizer.error()));
        PyValue all = PyValue::container(PyValue::Kind::Dict);
        all.set(PyValue::of(std::string("model")), std::move(root));
        all.set(PyValue::of(std::string("optimizer")), std::move(*optimizer));
        all.set(PyValue::of(std::string("step")), PyValue::of(int64_t(step)));
        root = std::move(all);
    }
    std::vector<torch::TensorOut> tensors;
    ExportSummary summary;
    for (auto& t : x.tensors) {
        t.out.bytes = t.owned.empty() ? t.out.bytes : std::span<const uint8_t>(t.owned);
        summary.payloadBytes += t.out.bytes.size();
        tensors.push_back(t.out);
    }
    summary.tensors = tensors.size();
    summary.notes = std::move(x.notes);
    if (auto w = torch::writeTorchFile(path, root, tensors); !w)
        return std::unexpected(std::move(w.error()));
    return summary;
}

} // namespace ckpt
