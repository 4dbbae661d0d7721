// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/torch/torchrecord.h"

#include "core/model/statedict.h"
#include "core/model/tensorprecision.h"
#include "core/util/int128.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace ckpt::torch {

namespace {

/** Containers nested deeper than this are refused (cli-contract.md, PyTorch limits). */
constexpr uint32_t kMaxDepth = 1000;

/** One place a tensor appears in the object (the memo can put one tensor in several places: tied weights). */
struct Occurrence {
    std::string path;
    uint32_t object = 0;
    uint32_t node = 0;
    uint32_t dataNode = 0;
};

/** A dict key as a path component: strings as they are, ints in decimal. */
std::string keyText(const Pickled& p, uint32_t k)
{
    const PyObject& o = p.objects[k];
    switch (o.kind) {
    case PyKind::Str: return o.s;
    case PyKind::Int: return std::to_string(o.i);
    case PyKind::Bool: return o.flag ? "True" : "False";
    case PyKind::None: return "None";
    case PyKind::Float: return std::to_string(o.f);
    default: return "<" + std::to_string(k) + ">";
    }
}

std::string joinPath(const std::string& base, std::string_view key)
{
    return base.empty() ? std::string(key) : base + "." + std::string(key);
}

/** Writes the unpickled object onto a tape, depth first, guarding depth, cycles and shared-container blow-up. */
class TapeWriter {
public:
    TapeWriter(const TorchFile& file)
        : m_p(file.pickled)
        , m_file(file)
        , m_b(file.bytes)
        , m_onPath(file.pickled.objects.size(), 0)
        // every object once, plus as many copies again as sharing may make: bounded by the input
        , m_budget(uint64_t(file.pickled.objects.size()) * 8 + (uint64_t(1) << 20))
    { }

    Result<Tape> write(std::vector<Occurrence>& tensors)
    {
        m_tensors = &tensors;
        if (auto r = value(m_p.root, "", 0); !r)
            return std::unexpected(r.error());
        return std::move(m_b).finish();
    }

private:
    std::unexpected<Error> limit(std::string what, uint32_t o) const
    {
        Error e{ErrorCode::Limit, std::move(what) + " (" + m_file.pickleName + ")"};
        e.offset = m_p.objects[o].offset;
        return std::unexpected(std::move(e));
    }

    Result<void> value(uint32_t o, const std::string& path, uint32_t depth)
    {
        if (depth > kMaxDepth)
            return limit("containers nested deeper than " + std::to_string(kMaxDepth), o);
        if (m_budget-- == 0)
            return limit("the pickle shares its containers so often that expanding them exceeds what the file can justify", o);
        const PyObject& v = m_p.objects[o];
        switch (v.kind) {
        case PyKind::None: m_b.nil(); return {};
        case PyKind::Bool: m_b.boolean(v.flag); return {};
        case PyKind::Int: m_b.integer(v.i); return {};
        case PyKind::BigInt: bigInt(v.s); return {};
        case PyKind::Float: m_b.f64(v.f); return {};
        case PyKind::Str:
        case PyKind::Global: m_b.str(v.s); return {};
        case PyKind::Bytes: m_b.bin(std::span(reinterpret_cast<const uint8_t*>(v.s.data()), v.s.size())); return {};
        case PyKind::Storage: m_b.str("storage " + m_p.storages[v.ref].key); return {};
        case PyKind::Tensor: tensor(o, path); return {};
        default: break;
        }
        if (m_onPath[o])
            return limit("a container that contains itself", o);
        m_onPath[o] = 1;
        if (v.kind == PyKind::Dict) {
            m_b.beginMap();
            for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
                const std::string k = keyText(m_p, v.items[i]);
                m_b.key(k);
                if (auto r = value(v.items[i + 1], joinPath(path, k), depth + 1); !r)
                    return r;
            }
        } else {
            m_b.beginArray();
            for (size_t i = 0; i < v.items.size(); ++i)
                if (auto r = value(v.items[i], joinPath(path, std::to_string(i)), depth + 1); !r)
                    return r;
        }
        m_b.end();
        m_onPath[o] = 0;
        return {};
    }

    /** An int wider than 64 bits: exact up to 128, else its hexadecimal two's complement as text. */
    void bigInt(const std::string& le)
    {
        if (le.size() <= 16) {
            UInt128 u{};
            for (size_t i = 16; i-- > 0;) {
                const uint8_t byte = i < le.size() ? uint8_t(le[i]) : (uint8_t(le.back()) & 0x80 ? 0xff : 0);
                u = (u << 8) | UInt128(byte);
            }
            m_b.integer128(Int128(u));
            return;
        }
        static constexpr char kHex[] = "0123456789abcdef";
        std::string text = "0x";
        for (size_t i = le.size(); i-- > 0;) {
            text += kHex[uint8_t(le[i]) >> 4];
            text += kHex[uint8_t(le[i]) & 15];
        }
        m_b.str(text);
    }

    void tensor(uint32_t o, const std::string& path)
    {
        const PickledTensor& t = m_p.tensors[m_p.objects[o].ref];
        const TensorBytes& tb = m_file.tensors[m_p.objects[o].ref];
        Occurrence occ{path, o, m_b.beginMap(), 0};
        m_b.key("dtype");
        m_b.str(tb.torchDType);
        m_b.key("shape");
        m_b.beginArray();
        for (uint64_t d : t.shape)
            m_b.uinteger(d);
        m_b.end();
        m_b.key("stride");
        m_b.beginArray();
        for (int64_t s : t.stride)
            m_b.integer(s);
        m_b.end();
        m_b.key("storage_offset");
        m_b.uinteger(t.storageOffset);
        m_b.key("storage");
        occ.dataNode = m_b.str(m_p.storages[t.storage].key);
        m_b.key("device");
        m_b.str(m_p.storages[t.storage].location);
        m_b.key("requires_grad");
        m_b.boolean(t.requiresGrad);
        m_b.end();
        m_tensors->push_back(std::move(occ));
    }

    const Pickled& m_p;
    const TorchFile& m_file;
    TapeBuilder m_b;
    std::vector<uint8_t> m_onPath;
    uint64_t m_budget;
    std::vector<Occurrence>* m_tensors = nullptr;
};

/** The value of dict \a dict under string key \a key. */
std::optional<uint32_t> dictGet(const Pickled& p, uint32_t dict, std::string_view key)
{
    const PyObject& d = p.objects[dict];
    if (d.kind != PyKind::Dict)
        return std::nullopt;
    for (size_t i = 0; i + 1 < d.items.size(); i += 2)
        if (keyText(p, d.items[i]) == key)
            return d.items[i + 1];
    return std::nullopt;
}

bool isDict(const Pickled& p, std::optional<uint32_t> o)
{
    return o && p.objects[*o].kind == PyKind::Dict;
}

/** Where the parts of a checkpoint are: the state dict, the optimizer state (cli-contract.md's keys, in order). */
struct Parts {
    std::optional<uint32_t> model, optimizer;
    std::string modelPrefix, optimizerPrefix;
};

Parts findParts(const Pickled& p)
{
    Parts parts;
    const uint32_t root = p.root;
    if (isDict(p, dictGet(p, root, "state")) && dictGet(p, root, "param_groups")) {
        parts.optimizer = root;
        return parts;
    }
    for (std::string_view k : {"model", "state_dict", "model_state_dict", "module"})
        if (auto v = dictGet(p, root, k); isDict(p, v)) {
            parts.model = v;
            parts.modelPrefix = std::string(k) + ".";
            break;
        }
    for (std::string_view k : {"optimizer", "optimizer_state_dict"})
        if (auto v = dictGet(p, root, k); isDict(p, v) && !parts.optimizer) {
            parts.optimizer = v;
            parts.optimizerPrefix = std::string(k) + ".";
        }
    if (auto list = dictGet(p, root, "optimizer_states");
        !parts.optimizer && list && p.objects[*list].kind == PyKind::List && !p.objects[*list].items.empty() && isDict(p, p.objects[*list].items[0])) {
        parts.optimizer = p.objects[*list].items[0];
        parts.optimizerPrefix = "optimizer_states.0.";
    }
    if (!parts.model && !parts.optimizer && p.objects[root].kind == PyKind::Dict) {
        // the dict itself, when it maps names to tensors
        const auto& items = p.objects[root].items;
        bool tensors = !items.empty();
        for (size_t i = 1; i < items.size(); i += 2)
            tensors = tensors && p.objects[items[i]].kind == PyKind::Tensor;
        if (tensors)
            parts.model = root;
    }
    return parts;
}

/** The scalar in a 0-dim tensor or an int (Adam's `step`), as an unsigned count. */
std::optional<uint64_t> stepOf(const TorchFile& f, uint32_t o)
{
    const PyObject& v = f.pickled.objects[o];
    if (v.kind == PyKind::Int && v.i >= 0)
        return uint64_t(v.i);
    if (v.kind == PyKind::Float && v.f >= 0 && v.f < 1e18)
        return uint64_t(v.f);
    if (v.kind != PyKind::Tensor)
        return std::nullopt;
    const TensorBytes& tb = f.tensors[v.ref];
    double d = 0;
    if (tb.torchDType == "float32" && tb.bytes.size() == 4) {
        float x;
        std::memcpy(&x, tb.bytes.data(), 4);
        d = x;
    } else if (tb.torchDType == "float64" && tb.bytes.size() == 8) {
        std::memcpy(&d, tb.bytes.data(), 8);
    } else if (tb.torchDType == "int64" && tb.bytes.size() == 8) {
        int64_t x;
        std::memcpy(&x, tb.bytes.data(), 8);
        d = double(x);
    } else {
        return std::nullopt;
    }
    return d >= 0 && d < 1e18 ? std::optional(uint64_t(d)) : std::nullopt;
}

} // namespace

namespace {

/** The optimizer's state entries, each linked to a state-dict name by order and shape where that holds. */
struct OptimizerLink {
    std::map<int64_t, std::string> names; ///< state index -> parameter name (empty when ambiguous)
    std::string ambiguous;                ///< why no link was made ("" when linked or no model)
};

/** param_groups[*].params in order: the indices the optimizer gave its parameters. */
std::vector<int64_t> groupParams(const Pickled& p, uint32_t optimizer)
{
    std::vector<int64_t> out;
    auto groups = dictGet(p, optimizer, "param_groups");
    if (!groups || p.objects[*groups].kind != PyKind::List)
        return out;
    for (uint32_t g : p.objects[*groups].items)
        if (auto params = dictGet(p, g, "params"); params && p.objects[*params].kind == PyKind::List)
            for (uint32_t i : p.objects[*params].items)
                if (p.objects[i].kind == PyKind::Int)
                    out.push_back(p.objects[i].i);
    return out;
}

/** The shape a state entry's moments give its parameter (a moment shaped like it), if any: none before the first step. */
std::optional<std::vector<uint64_t>> stateShape(const Pickled& p, std::optional<uint32_t> state, int64_t index)
{
    auto entry = state ? dictGet(p, *state, std::to_string(index)) : std::nullopt;
    if (!isDict(p, entry))
        return std::nullopt;
    const auto& fields = p.objects[*entry].items;
    for (size_t f = 0; f + 1 < fields.size(); f += 2)
        if (const PyObject& v = p.objects[fields[f + 1]]; v.kind == PyKind::Tensor && !p.tensors[v.ref].shape.empty())
            return p.tensors[v.ref].shape;
    return std::nullopt;
}

/**
 * Links the optimizer's parameters to the state dict's by order and shape: param_groups[*].params
 * follow model.parameters() (the state dict's order without its buffers), but an optimizer built on
 * part of the model (frozen layers) holds a subsequence. The link is made when exactly one in-order
 * embedding matches every shape; counted by dynamic programming, saturating at 2.
 */
OptimizerLink linkOptimizer(const Pickled& p, const Parts& parts)
{
    OptimizerLink link;
    if (!parts.model || !parts.optimizer)
        return link;
    std::vector<std::pair<std::string, const PickledTensor*>> candidates;
    const auto& items = p.objects[*parts.model].items;
    for (size_t i = 0; i + 1 < items.size(); i += 2)
        if (p.objects[items[i + 1]].kind == PyKind::Tensor && !isStateDictBuffer(keyText(p, items[i])))
            candidates.emplace_back(keyText(p, items[i]), &p.tensors[p.objects[items[i + 1]].ref]);
    const std::vector<int64_t> order = groupParams(p, *parts.optimizer);
    const size_t n = candidates.size(), m = order.size();
    if (m > n) {
        link.ambiguous = "the optimizer's param_groups list " + std::to_string(m) + " parameters, the state dict has only " + std::to_string(n)
            + " tensors that are not buffers";
        return link;
    }
    if ((n + 1) * (m + 1) > (size_t(1) << 26)) {
        link.ambiguous = "too many parameters to link by order and shape (" + std::to_string(n) + " x " + std::to_string(m) + ")";
        return link;
    }
    auto state = dictGet(p, *parts.optimizer, "state");
    std::vector<std::optional<std::vector<uint64_t>>> shapes;
    shapes.reserve(order.size());
    for (int64_t index : order)
        shapes.push_back(stateShape(p, state, index));
    auto fits = [&](size_t i, size_t j) {
        return !shapes[j] || *shapes[j] == candidates[i].second->shape;
    };
    // ways[i][j]: embeddings of the optimizer's parameters j.. into candidates i.. (0, 1 or 2 = more)
    std::vector<uint8_t> ways((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint8_t& {
        return ways[i * (m + 1) + j];
    };
    for (size_t i = n + 1; i-- > 0;)
        for (size_t j = m + 1; j-- > 0;) {
            if (j == m)
                at(i, j) = 1;
            else if (i < n)
                at(i, j) = uint8_t(std::min(2, at(i + 1, j) + (fits(i, j) ? at(i + 1, j + 1) : 0)));
        }
    if (at(0, 0) != 1) {
        link.ambiguous = at(0, 0) == 0 ? "no order of the state dict's parameters has the shapes of the optimizer's state"
                                       : "the optimizer's state fits the state dict's parameters in more than one way by order and shape";
        return link;
    }
    for (size_t i = 0, j = 0; j < m; ++i)
        if (fits(i, j) && at(i + 1, j + 1) == 1 && at(i + 1, j) == 0)
            link.names[order[j++]] = candidates[i].first;
    return link;
}

/** A parameter group's Adam hyper-parameters: "betas": (b1, b2) and "eps", where they are valid values. */
struct GroupHyper {
    std::optional<double> beta1, beta2, epsilon;
};

/** Each parameter index's group hyper-parameters (param_groups[g].params lists the indices of group g). */
std::map<int64_t, GroupHyper> groupHyperparameters(const Pickled& p, uint32_t optimizer)
{
    std::map<int64_t, GroupHyper> out;
    auto groups = dictGet(p, optimizer, "param_groups");
    if (!groups || p.objects[*groups].kind != PyKind::List)
        return out;
    auto number = [&](uint32_t o) -> std::optional<double> {
        const PyObject& v = p.objects[o];
        return v.kind == PyKind::Float ? std::optional(v.f) : v.kind == PyKind::Int ? std::optional(double(v.i)) : std::nullopt;
    };
    for (uint32_t g : p.objects[*groups].items) {
        GroupHyper h;
        if (auto betas = dictGet(p, g, "betas"); betas && p.objects[*betas].kind == PyKind::Tuple && p.objects[*betas].items.size() == 2) {
            auto b1 = number(p.objects[*betas].items[0]), b2 = number(p.objects[*betas].items[1]);
            if (b1 && b2 && *b1 >= 0 && *b1 < 1 && *b2 >= 0 && *b2 < 1) {
                h.beta1 = b1;
                h.beta2 = b2;
            }
        }
        if (auto eps = dictGet(p, g, "eps"); eps && number(*eps) && *number(*eps) > 0 && std::isfinite(*number(*eps)))
            h.epsilon = number(*eps);
        if (auto params = dictGet(p, g, "params"); params && p.objects[*params].kind == PyKind::List)
            for (uint32_t i : p.objects[*params].items)
                if (p.objects[i].kind == PyKind::Int)
                    out[p.objects[i].i] = h;
    }
    return out;
}

/** The optimizer a state entry's fields name (torch.optim's state keys). */
std::string optimizerName(const std::vector<std::string>& fields)
{
    auto has = [&](std::string_view f) {
        return std::ranges::find(fields, f) != fields.end();
    };
    if (has("exp_avg") && has("exp_avg_sq"))
        return "Adam/AdamW";
    if (has("momentum_buffer"))
        return "SGD";
    if (has("square_avg"))
        return "RmsProp";
    if (has("sum"))
        return "AdaGrad";
    return "unknown";
}

void fillTensors(Record& r, const TorchFile& f, const std::vector<Occurrence>& occurrences)
{
    std::map<uint32_t, std::string> firstOfStorage;
    for (const Occurrence& occ : occurrences) {
        const uint32_t ti = f.pickled.objects[occ.object].ref;
        const PickledTensor& t = f.pickled.tensors[ti];
        const TensorBytes& tb = f.tensors[ti];
        TensorEntry e;
        e.path = occ.path;
        e.node = occ.node;
        e.dataNode = occ.dataNode;
        e.shape = t.shape;
        e.numel = tb.elementSize ? tb.bytes.size() / tb.elementSize : 0;
        e.bytes = tb.bytes.size();
        e.offset = tb.fileOffset;
        e.view = tb.bytes;
        const auto dtype = t.quantized ? std::nullopt : burnDTypeOfTorch(tb.torchDType);
        e.dtype = dtype.value_or(DType::QFloat);
        if (!dtype)
            e.foreignDType = std::string(tb.torchDType);
        auto [first, fresh] = firstOfStorage.emplace(tb.storageIdentity, e.path);
        if (!fresh)
            e.sharesStorageWith = first->second;
        r.tensors.push_back(std::move(e));
    }
    settleTensorPrecision(r);
}

/** Roles, parameters and optimizer entries from the parts and the link. */
void fillRoles(Record& r, const TorchFile& f, const Parts& parts, const OptimizerLink& link)
{
    const Pickled& p = f.pickled;
    std::map<std::string, size_t> byPath;
    for (size_t i = 0; i < r.tensors.size(); ++i)
        byPath.emplace(r.tensors[i].path, i);
    std::set<std::string> linked;
    for (const auto& [index, name] : link.names)
        linked.insert(name);
    if (parts.model) {
        const auto& items = p.objects[*parts.model].items;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const std::string name = keyText(p, items[i]);
            auto it = byPath.find(parts.modelPrefix + name);
            if (it == byPath.end())
                continue;
            TensorEntry& e = r.tensors[it->second];
            const bool param = !isStateDictBuffer(name) && (link.names.empty() || linked.contains(name));
            e.role = param ? TensorRole::Param : TensorRole::Other;
            if (param) {
                e.paramId = name;
                r.params.push_back({name, std::nullopt, e.path, it->second});
            }
        }
    }
    if (!parts.optimizer)
        return;
    auto state = dictGet(p, *parts.optimizer, "state");
    if (!isDict(p, state))
        return;
    const auto& entries = p.objects[*state].items;
    const auto groups = groupHyperparameters(p, *parts.optimizer);
    for (size_t i = 0; i + 1 < entries.size(); i += 2) {
        const PyObject& key = p.objects[entries[i]];
        OptimizerEntry oe;
        oe.path = parts.optimizerPrefix + "state." + keyText(p, entries[i]);
        if (key.kind == PyKind::Int) {
            if (auto it = link.names.find(key.i); it != link.names.end())
                oe.paramId = it->second;
            if (auto g = groups.find(key.i); g != groups.end()) {
                oe.beta1 = g->second.beta1;
                oe.beta2 = g->second.beta2;
                oe.epsilon = g->second.epsilon;
            }
        }
        std::vector<std::string> fields;
        if (isDict(p, entries[i + 1])) {
            const auto& items = p.objects[entries[i + 1]].items;
            for (size_t k = 0; k + 1 < items.size(); k += 2) {
                const std::string field = keyText(p, items[k]);
                fields.push_back(field);
                if (field == "step")
                    oe.time = stepOf(f, items[k + 1]);
                if (auto it = byPath.find(oe.path + "." + field); it != byPath.end()) {
                    TensorEntry& e = r.tensors[it->second];
                    e.role = TensorRole::Optimizer;
                    e.paramId = oe.paramId;
                    e.stateName = field;
                    oe.tensors.push_back(it->second);
                }
            }
        }
        oe.optimizer = optimizerName(fields);
        oe.amsgrad = std::ranges::find(fields, "max_exp_avg_sq") != fields.end();
        r.optimizer.push_back(std::move(oe));
    }
}

RecordKind kindOf(const Pickled& p, const Parts& parts)
{
    if (parts.optimizer && parts.optimizerPrefix.empty())
        return RecordKind::TorchOptimizerState;
    if (parts.model && *parts.model == p.root)
        return RecordKind::TorchStateDict;
    return RecordKind::TorchCheckpoint;
}

} // namespace

Result<std::shared_ptr<const Record>> torchRecordOf(const std::shared_ptr<TorchFile>& file, const std::string& name)
{
    std::vector<Occurrence> occurrences;
    auto tape = TapeWriter(*file).write(occurrences);
    if (!tape)
        return std::unexpected(std::move(tape.error()).withFile(name));
    auto r = std::make_shared<Record>();
    r->file = name;
    r->recorder = file->legacy ? Recorder::PyTorchLegacy : Recorder::PyTorch;
    r->tape = std::move(*tape);
    r->fileSize = r->decodedSize = file->bytes->size();
    r->sharedStorages = true;
    const Parts parts = findParts(file->pickled);
    r->kind = kindOf(file->pickled, parts);
    fillTensors(*r, *file, occurrences);
    const OptimizerLink link = linkOptimizer(file->pickled, parts);
    fillRoles(*r, *file, parts, link);
    if (!link.ambiguous.empty())
        r->warnings.push_back("optimizer state not linked to parameters: " + link.ambiguous);
    if (auto epoch = dictGet(file->pickled, file->pickled.root, "epoch");
        epoch && file->pickled.objects[*epoch].kind == PyKind::Int && file->pickled.objects[*epoch].i >= 0)
        r->epoch = uint64_t(file->pickled.objects[*epoch].i);
    RecordPart part;
    part.file = name;
    part.container = file;
    part.node = 0;
    r->parts.push_back(std::move(part));
    return std::shared_ptr<const Record>(std::move(r));
}

const TorchFile& torchFileOf(const RecordPart& part)
{
    return *static_cast<const TorchFile*>(part.container.get());
}

} // namespace ckpt::torch
