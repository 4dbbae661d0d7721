// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Interpreting a decoded envelope: what kind of record it is, where its tensors, parameters,
// optimizer entries, pending gradients, scheduler and caller state are (format spec §5 - §9).
#include "core/record/index.h"

#include "core/codec/json.h"
#include "core/codec/msgpack.h"
#include "core/record/errors.h"
#include "core/record/record.h"
#include "core/tensor/shape.h"

#include <algorithm>
#include <unordered_map>

namespace ckpt {

namespace {

bool looksLikeParamIdKey(std::string_view k)
{
    if (k.size() == 13 || k.size() == 10)
        return paramIdToU64(k).has_value();
    return k.size() == 36 && k[8] == '-' && k[13] == '-';
}

class Indexer {
public:
    Indexer(Record& r, bool lenient)
        : m_r(r)
        , m_t(r.tape)
        , m_lenient(lenient)
    {
    }

    /// A TensorData's dtype value: "F32", or {"Bool": store} / {"QFloat": scheme}.
    struct StoredDType {
        DType dtype = DType::F32;
        BoolStore store = BoolStore::Native;
        std::optional<uint32_t> scheme; ///< QFloat: the scheme's node
    };
    Result<StoredDType> dtypeOf(uint32_t node, const std::string& path)
    {
        // rmp-serde also reads an enum from its variant index (serde_json does not).
        if (m_t[node].kind == Kind::UInt && !m_t.isWide(node) && (m_r.recorder == Recorder::NamedMpk || m_r.recorder == Recorder::NamedMpkGz)) {
            const auto d = m_t.u64(node) <= UINT32_MAX ? dtypeFromIndex(dtypeTableForVersion(m_r.metadata.version), uint32_t(m_t.u64(node))) : std::nullopt;
            if (d && *d != DType::QFloat && !(*d == DType::Bool && dtypeTableForVersion(m_r.metadata.version) == DTypeTable::Burn021))
                return StoredDType{.dtype = *d};
        }
        if (auto name = serdeText(m_t, node)) { // a unit variant's name, matched by bytes (a bin too)
            auto d = dtypeFromName(*name);
            if (!d)
                return std::unexpected(invalidAt(m_t, node, path, "unknown dtype \"" + std::string(*name) + "\": expected one of F64 F32 Flex32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 Bool QFloat"));
            return StoredDType{.dtype = *d};
        }
        if (m_t.isMap(node) && m_t[node].count == 1) {
            const uint32_t k = node + 1;
            const uint32_t v = m_t[k].end;
            const std::string name = m_t.keyText(k);
            if (name == "Bool") {
                const auto store = m_t.isStr(v) ? boolStoreFromName(m_t.str(v)) : std::nullopt;
                return StoredDType{.dtype = DType::Bool, .store = store.value_or(BoolStore::Native)};
            }
            if (name == "QFloat")
                return StoredDType{.dtype = DType::QFloat, .scheme = v};
            // {"F32": nil}: serde reads a unit variant from a one-entry map with a unit payload too.
            if (auto d = dtypeFromName(name); d && *d != DType::Bool && *d != DType::QFloat && m_t[v].kind == Kind::Nil)
                return StoredDType{.dtype = *d};
            return std::unexpected(invalidAt(m_t, node, path, "unknown dtype variant \"" + name + "\""));
        }
        return std::unexpected(invalidAt(m_t, node, path, std::string("expected a dtype name, found a ") + kindName(m_t[node].kind)));
    }

    Result<std::vector<uint64_t>> shapeOf(uint32_t node, const std::string& path, uint64_t& numel)
    {
        if (!m_t.isArray(node))
            return std::unexpected(invalidAt(m_t, node, path, std::string("expected the shape as an array of integers, found a ") + kindName(m_t[node].kind)));
        std::vector<uint64_t> shape;
        numel = 1;
        bool overflow = false;
        std::optional<Error> err;
        m_t.forEachChild(node, [&](uint32_t c) {
            if (err)
                return;
            auto d = m_t.asU64(c);
            if (!d) {
                err = invalidAt(m_t, c, path, std::string("expected a non-negative dimension, found a ") + kindName(m_t[c].kind));
                return;
            }
            shape.push_back(*d);
            if (*d != 0 && numel > UINT64_MAX / *d)
                overflow = true;
            numel *= *d;
        });
        if (err)
            return std::unexpected(*err);
        if (overflow)
            return std::unexpected(invalidAt(m_t, node, path, "shape's element count overflows 64 bits"));
        return shape;
    }

    /// Is this map a TensorData {bytes, shape, dtype} (any order) or a legacy {value, shape}?
    enum class TensorForm { None, Data, Legacy };
    TensorForm formOf(uint32_t node)
    {
        if (!m_t.isMap(node))
            return TensorForm::None;
        const uint64_t n = m_t[node].count;
        // serde ignores unknown fields: a TensorData or ParamSerde with an extra key still is one.
        if (n >= 3 && m_t.find(node, "bytes") && m_t.find(node, "shape") && m_t.find(node, "dtype"))
            return TensorForm::Data;
        if (n == 2 && m_t.find(node, "value") && m_t.find(node, "shape")) {
            auto v = *m_t.find(node, "value");
            if (m_t.isArray(v))
                return TensorForm::Legacy;
        }
        return TensorForm::None;
    }

    Result<size_t> addTensor(uint32_t node, const std::string& path, TensorRole role, std::string paramId, std::string stateName)
    {
        TensorEntry e;
        e.path = path;
        e.role = role;
        e.paramId = std::move(paramId);
        e.stateName = std::move(stateName);
        e.node = node;
        const auto form = formOf(node);
        auto shape = shapeOf(*m_t.find(node, "shape"), appendKeyToPath(path, "shape"), e.numel);
        if (!shape)
            return std::unexpected(shape.error());
        e.shape = std::move(*shape);
        if (form == TensorForm::Legacy) {
            e.legacy = true;
            e.dataNode = *m_t.find(node, "value");
            // Legacy payloads carry no dtype: the precision settings decide (§5.4); f16 is stored as u16 bits.
            e.dtype = m_r.precision == Precision::Half ? DType::F16 : m_r.precision == Precision::Double ? DType::F64 : DType::F32;
            bool ints = true;
            m_t.forEachChild(e.dataNode, [&](uint32_t c) { ints = ints && (m_t[c].kind == Kind::UInt || m_t[c].kind == Kind::Int); });
            if (ints && m_r.precision != Precision::Half && m_t[e.dataNode].count > 0)
                e.dtype = m_r.precision == Precision::Double ? DType::I64 : DType::I32;
            if (m_t[e.dataNode].count != e.numel)
                return std::unexpected(invalidAt(m_t, e.dataNode, appendKeyToPath(path, "value"),
                    "legacy tensor has " + std::to_string(m_t[e.dataNode].count) + " values but its shape holds " + std::to_string(e.numel)));
            e.bytes = e.numel * dtypeSize(e.dtype);
        } else {
            const uint32_t dt = *m_t.find(node, "dtype");
            auto d = dtypeOf(dt, appendKeyToPath(path, "dtype"));
            if (!d)
                return std::unexpected(d.error());
            e.dtype = d->dtype;
            e.boolStore = d->store;
            if (d->scheme)
                e.quant = jsonText(m_t, *d->scheme, JsonStyle::Compact);
            e.dataNode = *m_t.find(node, "bytes");
            const Node& b = m_t[e.dataNode];
            if (b.kind == Kind::Bin || b.kind == Kind::Str) { // serde_bytes also takes a string's bytes
                e.bytes = b.count;
                if (!(b.flags & InPool))
                    e.offset = b.payload;
            } else if (b.kind == Kind::Array) {
                // serde_bytes also accepts a sequence of u8 (a JSON array that was not packed).
                return std::unexpected(invalidAt(m_t, e.dataNode, appendKeyToPath(path, "bytes"),
                    "tensor bytes given as an array that is not all integers 0..255"));
            } else {
                return std::unexpected(invalidAt(m_t, e.dataNode, appendKeyToPath(path, "bytes"),
                    std::string("expected the tensor's bytes, found a ") + kindName(b.kind)));
            }
            const uint32_t size = dtypeSize(e.dtype, d->store);
            if (size != 0) {
                const bool overflow = e.numel != 0 && size > UINT64_MAX / e.numel;
                if (overflow || e.numel * size != e.bytes)
                    return std::unexpected(invalidAt(m_t, e.dataNode, appendKeyToPath(path, "bytes"),
                        "tensor of shape " + shapeString(e.shape) + " and dtype " + e.dtypeLabel() + " needs "
                            + (overflow ? std::string("more than 2^64") : std::to_string(e.numel * size)) + " bytes, found " + std::to_string(e.bytes)));
            }
        }
        m_r.tensors.push_back(std::move(e));
        return m_r.tensors.size() - 1;
    }

    /// Generic walk: every TensorData below \a node gets \a role; ParamSerde maps register parameters.
    Result<void> walk(uint32_t node, const std::string& path, TensorRole role, const std::string& paramId, const std::string& lastKey)
    {
        const Node& n = m_t[node];
        if (n.kind == Kind::Map) {
            const auto form = formOf(node);
            if (form != TensorForm::None) {
                auto r = addTensor(node, path, role, paramId, role == TensorRole::Optimizer ? lastKey : std::string());
                if (!r)
                    return std::unexpected(r.error());
                return {};
            }
            // ParamSerde {id, param}
            if (n.count >= 2 && role == TensorRole::Param) {
                auto id = m_t.find(node, "id");
                auto param = m_t.find(node, "param");
                const auto idName = id ? serdeText(m_t, *id) : std::nullopt;
                if (idName && param && formOf(*param) != TensorForm::None) {
                    const std::string idText(*idName);
                    if (m_seenParamIds.contains(idText))
                        m_r.warnings.push_back("parameter id " + idText + " appears twice (at " + m_seenParamIds[idText] + " and " + path + ")");
                    m_seenParamIds.emplace(idText, path);
                    auto t = addTensor(*param, appendKeyToPath(path, "param"), TensorRole::Param, idText, {});
                    if (!t)
                        return std::unexpected(t.error());
                    m_r.params.push_back({idText, paramIdToU64(idText), path, *t});
                    return {};
                }
            }
            Result<void> res;
            m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
                if (!res)
                    return;
                const std::string key = m_t.keyText(k);
                res = walk(v, appendKeyToPath(path, key), role, paramId, key);
            });
            return res;
        }
        if (n.kind == Kind::Array) {
            if (n.end == node + 1 + n.count) // only scalars: nothing to find inside
                return {};
            Result<void> res;
            uint64_t i = 0;
            m_t.forEachChild(node, [&](uint32_t c) {
                if (!res)
                    return;
                res = walk(c, appendIndexToPath(path, i++), role, paramId, lastKey);
            });
            return res;
        }
        return {};
    }

    Result<void> indexOptimizer(uint32_t node, const std::string& path)
    {
        m_r.optimizerNode = node;
        if (!m_t.isMap(node))
            return walk(node, path, TensorRole::Optimizer, {}, {});
        Result<void> res;
        m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            if (!res)
                return;
            const std::string id = m_t.keyText(k);
            std::string p = appendKeyToPath(path, id);
            OptimizerEntry oe;
            oe.paramId = id;
            oe.node = v;
            uint32_t state = v;
            // {"V1": {"RankN": state}}
            if (m_t.isMap(state) && m_t[state].count == 1 && m_t.keyText(state + 1) == "V1") {
                p = appendKeyToPath(p, "V1");
                state = m_t[state + 1].end;
                if (m_t.isMap(state) && m_t[state].count == 1) {
                    const std::string rank = m_t.keyText(state + 1);
                    if (rank.starts_with("Rank"))
                        oe.rank = static_cast<uint32_t>(std::atoi(rank.c_str() + 4));
                    p = appendKeyToPath(p, rank);
                    state = m_t[state + 1].end;
                }
            }
            oe.path = p;
            oe.stateNode = state;
            oe.optimizer = classifyOptimizer(state);
            const size_t before = m_r.tensors.size();
            res = walk(state, p, TensorRole::Optimizer, id, {});
            for (size_t i = before; i < m_r.tensors.size(); ++i)
                oe.tensors.push_back(i);
            oe.time = findTime(state);
            if (auto mom = m_t.find(state, "momentum"); mom && m_t.isMap(*mom)) {
                if (auto mx = m_t.find(*mom, "max_moment_2"); mx && m_t[*mx].kind != Kind::Nil)
                    oe.amsgrad = true;
            }
            m_r.optimizer.push_back(std::move(oe));
        });
        return res;
    }

    std::string classifyOptimizer(uint32_t state)
    {
        if (m_t.isArray(state) && m_t[state].count == 2)
            return "Fp32Master";
        if (!m_t.isMap(state))
            return "unknown";
        if (auto mom = m_t.find(state, "momentum")) {
            if (m_t[*mom].kind == Kind::Nil)
                return "SGD";
            if (m_t.isMap(*mom)) {
                if (m_t.find(*mom, "moment_1"))
                    return "Adam/AdamW";
                if (m_t.find(*mom, "velocity"))
                    return state == 0 ? "SGD" : (m_t[state].count == 1 ? "SGD/Muon" : "SGD");
                if (m_t.find(*mom, "exp_avg"))
                    return "Adan";
            }
        }
        if (m_t.find(state, "square_avg"))
            return "RmsProp";
        if (m_t.find(state, "lr_decay"))
            return "AdaGrad";
        return "unknown";
    }

    std::optional<uint64_t> findTime(uint32_t state)
    {
        if (!m_t.isMap(state))
            return std::nullopt;
        if (auto t = m_t.find(state, "time"))
            return m_t.asU64(*t);
        std::optional<uint64_t> out;
        m_t.forEachEntry(state, [&](uint32_t, uint32_t v) {
            if (!out && m_t.isMap(v))
                if (auto t = m_t.find(v, "time"))
                    out = m_t.asU64(*t);
        });
        return out;
    }

    Result<void> indexGradients(uint32_t node, const std::string& path)
    {
        m_r.gradientsNode = node;
        auto list = m_t.isMap(node) ? m_t.find(node, "gradients") : std::nullopt;
        if (!list || !m_t.isArray(*list))
            return std::unexpected(invalidAt(m_t, node, path, "expected the pending gradients {\"gradients\": [[id, dtype, tensor], ...]}"));
        const std::string lp = appendKeyToPath(path, "gradients");
        Result<void> res;
        uint64_t i = 0;
        std::optional<uint64_t> previous;
        m_t.forEachChild(*list, [&](uint32_t e) {
            if (!res)
                return;
            const std::string ep = appendIndexToPath(lp, i++);
            if (!m_t.isArray(e) || m_t[e].count != 3) {
                res = std::unexpected(invalidAt(m_t, e, ep, "expected a gradient entry [u64 id, dtype, tensor]"));
                return;
            }
            const uint32_t idNode = e + 1;
            const uint32_t dtNode = m_t[idNode].end;
            const uint32_t tNode = m_t[dtNode].end;
            auto id = m_t.asU64(idNode);
            if (!id) {
                res = std::unexpected(invalidAt(m_t, idNode, appendIndexToPath(ep, 0), std::string("expected the parameter id as u64, found a ") + kindName(m_t[idNode].kind)));
                return;
            }
            if (previous && *id == *previous && !m_lenient) {
                res = std::unexpected(invalidAt(m_t, idNode, appendIndexToPath(ep, 0), "duplicate pending gradient for parameter id " + std::to_string(*id)));
                return;
            }
            if (previous && *id < *previous)
                m_r.warnings.push_back("pending gradients are not sorted by id at " + ep + " (Ruda writes them ascending)");
            previous = id;
            auto native = dtypeOf(dtNode, appendIndexToPath(ep, 1));
            if (!native) {
                res = std::unexpected(native.error());
                return;
            }
            if (formOf(tNode) != TensorForm::Data) {
                res = std::unexpected(invalidAt(m_t, tNode, appendIndexToPath(ep, 2), "expected a TensorData {bytes, shape, dtype}"));
                return;
            }
            auto t = addTensor(tNode, appendIndexToPath(ep, 2), TensorRole::Gradient, paramIdFromU64(*id), std::string(dtypeName(native->dtype)));
            if (!t) {
                res = std::unexpected(t.error());
                return;
            }
            m_r.gradients.push_back({*id, paramIdFromU64(*id), std::string(dtypeName(native->dtype)), *t});
        });
        return res;
    }

    void describeScheduler(uint32_t node)
    {
        SchedulerInfo s;
        s.node = node;
        const Node& n = m_t[node];
        if (m_t.isWide(node)) { // no scheduler keeps a 128-bit integer
            s.kind = "unknown";
            s.description = std::string("a 128-bit ") + kindName(n.kind) + " record";
            m_r.scheduler = s;
            return;
        }
        switch (n.kind) {
        case Kind::Nil: s.kind = "constant"; s.description = "constant learning rate (the record is ())"; break;
        case Kind::Int:
            s.kind = "step";
            s.description = "StepLr iter_idx = " + std::to_string(m_t.i64(node)) + (m_t.i64(node) == -1 ? " (never stepped)" : "");
            break;
        case Kind::UInt:
            if (n.payload == UINT64_MAX) {
                s.kind = "cosine";
                s.description = "CosineAnnealing current_iter = usize::MAX (never stepped)";
            } else {
                s.kind = "usize";
                s.description = "step counter " + std::to_string(n.payload)
                    + " (StepLr iter_idx, Linear remaining_iters, Cosine current_iter or Noam step: the record does not say which)";
            }
            break;
        case Kind::F64:
        case Kind::F32: s.kind = "exponential"; s.description = "ExponentialLr previous_lr = " + std::to_string(m_t.f64(node)); break;
        case Kind::Map:
            if (m_t.find(node, "schedulers")) {
                s.kind = "composed";
                s.description = "ComposedLrScheduler of " + std::to_string(m_t[*m_t.find(node, "schedulers")].count) + " schedulers";
                break;
            }
            [[fallthrough]];
        default: s.kind = "unknown"; s.description = std::string("a ") + kindName(n.kind) + " record";
        }
        m_r.scheduler = s;
    }

    bool looksLikeOptimizerMap(uint32_t node)
    {
        if (!m_t.isMap(node) || m_t[node].count == 0)
            return false;
        bool all = true;
        m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            all = all && m_t.isStr(k) && looksLikeParamIdKey(m_t.str(k)) && m_t.isMap(v) && m_t[v].count == 1 && m_t.keyText(v + 1) == "V1";
        });
        return all;
    }

    Result<void> run()
    {
        const uint32_t item = m_r.itemNode;
        const std::string ip = "item";
        const Node& n = m_t[item];
        if (n.kind == Kind::Array && n.count == 5) {
            m_r.kind = RecordKind::TrainingRecord;
            uint32_t e[5];
            uint32_t c = item + 1;
            for (int i = 0; i < 5; ++i, c = m_t[c].end)
                e[i] = c;
            m_r.moduleNode = e[0];
            if (auto r = walk(e[0], appendIndexToPath(ip, 0), TensorRole::Param, {}, {}); !r)
                return r;
            if (auto r = indexOptimizer(e[1], appendIndexToPath(ip, 1)); !r)
                return r;
            m_r.schedulerNode = e[2];
            describeScheduler(e[2]);
            if (auto r = indexGradients(e[3], appendIndexToPath(ip, 3)); !r)
                return r;
            m_r.stateNode = e[4];
            return walk(e[4], appendIndexToPath(ip, 4), TensorRole::Other, {}, {});
        }
        if (n.kind == Kind::Array && n.count == 7 && m_t.asU64(item + 1)) {
            m_r.kind = RecordKind::ModelStateTrainingRecord;
            uint32_t e[7];
            uint32_t c = item + 1;
            for (int i = 0; i < 7; ++i, c = m_t[c].end)
                e[i] = c;
            m_r.moduleNode = e[1];
            if (auto r = walk(e[1], appendIndexToPath(ip, 1), TensorRole::Param, {}, {}); !r)
                return r;
            if (auto r = indexOptimizer(e[3], appendIndexToPath(ip, 3)); !r)
                return r;
            m_r.schedulerNode = e[4];
            describeScheduler(e[4]);
            if (auto r = indexGradients(e[5], appendIndexToPath(ip, 5)); !r)
                return r;
            m_r.stateNode = e[6];
            return walk(e[6], appendIndexToPath(ip, 6), TensorRole::Other, {}, {});
        }
        if (n.kind == Kind::Array) {
            // An item tuple that holds a pending-gradients record or an optimizer map declares a
            // TrainingRecord (or its ModelState form); a tuple of another arity is not one of them.
            bool declaresTraining = false;
            m_t.forEachChild(item, [&](uint32_t c) {
                declaresTraining = declaresTraining || looksLikeOptimizerMap(c) || (m_t.isMap(c) && m_t.find(c, "gradients"));
            });
            if ((declaresTraining || n.count == 7) && !m_lenient)
                return std::unexpected(invalidAt(m_t, item, ip, std::string("expected a TrainingRecord (a tuple of 5: module, optimizer, scheduler, "
                    "pending gradients, caller state) or a ModelStateTrainingRecord (a tuple of 7 starting with the u32 version), found a tuple of ")
                    + std::to_string(n.count) + (n.count == 7 ? " whose first element is a " + std::string(kindName(m_t[item + 1].kind)) : std::string())));
            if (declaresTraining || n.count == 7)
                m_r.damage = "at item: the item is a tuple of " + std::to_string(n.count) + ", not a TrainingRecord's 5 or a ModelStateTrainingRecord's 7: shown as a plain tuple";
            m_r.kind = RecordKind::ModuleRecord; // a tuple module (M1, M2, ...)
            m_r.moduleNode = item;
            return walk(item, ip, TensorRole::Param, {}, {});
        }
        if (looksLikeOptimizerMap(item) || (m_t.isMap(item) && n.count == 0 && m_r.file.find("optim") != std::string::npos)) {
            m_r.kind = RecordKind::OptimizerRecord;
            return indexOptimizer(item, ip);
        }
        if (n.kind == Kind::Map && !(n.count == 1 && m_t.find(item, "schedulers"))) {
            m_r.kind = RecordKind::ModuleRecord;
            m_r.moduleNode = item;
            return walk(item, ip, TensorRole::Param, {}, {});
        }
        m_r.kind = RecordKind::SchedulerRecord;
        m_r.schedulerNode = item;
        describeScheduler(item);
        return {};
    }

private:
    Record& m_r;
    const Tape& m_t;
    bool m_lenient;
    std::unordered_map<std::string, std::string> m_seenParamIds;
};

} // namespace

/// Reads the envelope's metadata and item, then indexes; used by every decoder.
Result<void> indexEnvelope(Record& r, bool lenient)
{
    const Tape& t = r.tape;
    if (t.empty() || !t.isMap(0))
        return std::unexpected(invalidAt(t, 0, "", std::string("expected a record envelope {metadata, item, _b}, found a ")
            + (t.empty() ? "nothing" : kindName(t[0].kind))));
    auto meta = t.find(0, "metadata");
    auto item = t.find(0, "item");
    if (!meta)
        return std::unexpected(invalidAt(t, 0, "", "missing field `metadata` in the record envelope"));
    if (!item)
        return std::unexpected(invalidAt(t, 0, "", "missing field `item` in the record envelope"));
    if (!t.find(0, "_b"))
        r.warnings.emplace_back("the envelope has no `_b` field; Burn's deserializer requires it (the file will not load in Burn)");
    if (!t.isMap(*meta))
        return std::unexpected(invalidAt(t, *meta, "metadata", std::string("expected the metadata struct, found a ") + kindName(t[*meta].kind)));
    auto field = [&](const char* name, std::string& out) -> Result<void> {
        auto f = t.find(*meta, name);
        if (!f)
            return std::unexpected(invalidAt(t, *meta, "metadata", std::string("missing field `") + name + "`"));
        // serde's String also accepts bytes that are UTF-8 (rmp-serde hands a bin over as bytes)
        if (!t.isStr(*f) && !(t[*f].kind == Kind::Bin && firstInvalidUtf8(t.bin(*f).data(), t.bin(*f).size()) == t.bin(*f).size()))
            return std::unexpected(invalidAt(t, *f, appendKeyToPath("metadata", name), std::string("expected a string, found a ") + kindName(t[*f].kind)));
        const auto bytes = t.bin(*f);
        out = std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return {};
    };
    for (auto [name, out] : {std::pair{"float", &r.metadata.floatType}, {"int", &r.metadata.intType}, {"format", &r.metadata.format},
             {"version", &r.metadata.version}, {"settings", &r.metadata.settings}})
        if (auto res = field(name, *out); !res)
            return res;
    if (auto p = precisionFromMetadata(r.metadata))
        r.precision = *p;
    else
        r.warnings.push_back("unknown precision settings \"" + r.metadata.settings + "\"; assuming full precision");
    r.itemNode = *item;
    return Indexer(r, lenient).run();
}

} // namespace ckpt
