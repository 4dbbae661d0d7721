// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The strict verdict: would the typed serde decoder of the record's declared type (Burn/Ruda's
// derive(Deserialize) types, format-burn-record.md §1, §5 - §9) and Ruda's restore checks accept
// this tape? The structural index (index.cpp) finds things; this file says whether the Rust side
// would load them. Parts whose Rust type the file does not declare (a module's own struct fields,
// the caller state, the scheduler's scalar) are accepted as they are; every value of a type the
// record kind fixes (envelope, metadata, TensorData, ParamSerde, adaptor enums, optimizer states,
// GradientsParamsRecord, the parameter contract) is checked as serde would check it.
#include "core/record/typecheck.h"

#include "core/codec/msgpack.h"
#include "core/record/errors.h"
#include "core/record/record.h"
#include "core/tensor/shape.h"

#include <set>
#include <unordered_set>

namespace ckpt {

namespace {

std::string found(const Tape& t, uint32_t node)
{
    if (t.isWide(node)) // the only integers asU64 refuses without their kind being wrong
        return "found " + t.integerText(node) + ", beyond 64 bits";
    return std::string("found a ") + kindName(t[node].kind);
}

class TypeChecker {
public:
    TypeChecker(const Record& r)
        : m_r(r)
        , m_t(r.tape)
        , m_dtypes021(dtypeTableForVersion(r.metadata.version) == DTypeTable::Burn021)
    {
    }

    /**
     * The fields of a serde-derived struct read from a map: every \a required field exactly once
     * (serde: "missing field", "duplicate field"), \a optional ones (Option fields, which serde
     * fills with None when absent) at most once; other keys are ignored, as serde ignores them.
     */
    Result<std::vector<std::optional<uint32_t>>> fields(uint32_t map, const std::string& path, const std::string& what,
        std::initializer_list<std::string_view> required, std::initializer_list<std::string_view> optional = {})
    {
        if (!m_t.isMap(map))
            return std::unexpected(invalidAt(m_t, map, path, "expected " + what + ", " + found(m_t, map)));
        std::vector<std::string_view> names(required);
        names.insert(names.end(), optional.begin(), optional.end());
        std::vector<std::optional<uint32_t>> out(names.size());
        std::optional<Error> err;
        m_t.forEachEntry(map, [&](uint32_t k, uint32_t v) {
            if (err || !m_t.isStr(k))
                return;
            for (size_t i = 0; i < names.size(); ++i) {
                if (m_t.str(k) != names[i])
                    continue;
                if (out[i])
                    err = invalidAt(m_t, k, path, "duplicate field `" + std::string(names[i]) + "` in " + what);
                out[i] = v;
            }
        });
        if (err)
            return std::unexpected(*err);
        for (size_t i = 0; i < required.size(); ++i)
            if (!out[i])
                return std::unexpected(invalidAt(m_t, map, path, "missing field `" + std::string(names[i]) + "` in " + what));
        return out;
    }

    Result<void> string(uint32_t node, const std::string& path)
    {
        // a MessagePack bin is handed to String's visitor as bytes, which it takes when they are UTF-8
        if (m_t[node].kind == Kind::Bin && firstInvalidUtf8(m_t.bin(node).data(), m_t.bin(node).size()) == m_t.bin(node).size())
            return {};
        if (!m_t.isStr(node))
            return std::unexpected(invalidAt(m_t, node, path, "expected a string, " + found(m_t, node)));
        return {};
    }

    Result<uint64_t> unsignedInt(uint32_t node, const std::string& path, const char* type, uint64_t max = UINT64_MAX)
    {
        auto v = m_t.asU64(node);
        if (!v || *v > max)
            return std::unexpected(invalidAt(m_t, node, path, std::string("expected a ") + type + ", "
                + (v ? "found " + std::to_string(*v) : found(m_t, node))));
        return *v;
    }

    /// A 1-entry map {variant: payload}: an externally tagged enum's newtype variant.
    Result<std::pair<std::string, uint32_t>> variant(uint32_t node, const std::string& path, const std::string& what)
    {
        if (!m_t.isMap(node) || m_t[node].count != 1 || !m_t.isStr(node + 1))
            return std::unexpected(invalidAt(m_t, node, path, "expected " + what + " as a one-entry map {variant: value}, "
                + (m_t.isMap(node) ? "found a map of " + std::to_string(m_t[node].count) + " entries" : found(m_t, node))));
        return std::pair{std::string(m_t.str(node + 1)), m_t[node + 1].end};
    }

    /// DType of the record's Burn version: unit variants by name, 0.21's Bool(BoolStore), QFloat(scheme).
    Result<DType> dtype(uint32_t node, const std::string& path)
    {
        // rmp-serde also reads a unit variant from its index (a newtype variant needs its payload); serde_json does not.
        if (m_t[node].kind == Kind::UInt && !m_t.isWide(node) && (m_r.recorder == Recorder::NamedMpk || m_r.recorder == Recorder::NamedMpkGz)) {
            const DTypeTable table = dtypeTableForVersion(m_r.metadata.version);
            const auto d = m_t.u64(node) <= UINT32_MAX ? dtypeFromIndex(table, uint32_t(m_t.u64(node))) : std::nullopt;
            if (d && *d != DType::QFloat && !(*d == DType::Bool && table == DTypeTable::Burn021))
                return *d;
        }
        static const std::set<std::string_view> kUnit = {"F64", "F32", "Flex32", "F16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8"};
        if (auto text = serdeText(m_t, node)) { // a unit variant's name, matched by bytes (a MessagePack bin too)
            const std::string_view name = *text;
            if (kUnit.contains(name) || (name == "Bool" && !m_dtypes021))
                return *dtypeFromName(name);
            return std::unexpected(invalidAt(m_t, node, path, "expected a DType (F64 F32 Flex32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 "
                + std::string(m_dtypes021 ? "{Bool: store} {QFloat: scheme}" : "Bool QFloat") + "), found \"" + std::string(name) + "\""));
        }
        if (m_t.isMap(node) && m_t[node].count == 1 && m_t.isStr(node + 1)) {
            const std::string_view name = m_t.str(node + 1);
            const uint32_t payload = m_t[node + 1].end;
            if (name == "QFloat")
                return DType::QFloat;
            // {"F32": nil}: serde reads a unit variant from a one-entry map with a unit payload too.
            if (name != "Bool" && m_t[payload].kind == Kind::Nil)
                if (auto d = dtypeFromName(name); d && *d != DType::QFloat)
                    return *d;
            if (name == "Bool" && m_dtypes021) {
                if (auto store = serdeText(m_t, payload); store && boolStoreFromName(*store))
                    return DType::Bool;
                return std::unexpected(invalidAt(m_t, payload, appendKeyToPath(path, "Bool"), "expected a BoolStore (Native, U8, U32)"));
            }
        }
        return std::unexpected(invalidAt(m_t, node, path, "expected a DType, " + found(m_t, node)));
    }

    /// TensorData {bytes (serde_bytes), shape: Vec<usize>, dtype: DType}, and len == numel * size.
    Result<DType> tensorData(uint32_t node, const std::string& path)
    {
        if (isLegacyTensor(node))
            return DType::F32; // Burn <= 0.13 DataSerialize: checked by the indexer (value count vs shape)
        auto f = fields(node, path, "a TensorData {bytes, shape, dtype}", {"bytes", "shape", "dtype"});
        if (!f)
            return std::unexpected(f.error());
        const uint32_t bytes = *(*f)[0], shape = *(*f)[1], dt = *(*f)[2];
        if (m_t[bytes].kind != Kind::Bin && m_t[bytes].kind != Kind::Str) // serde_bytes also takes a string's bytes
            return std::unexpected(invalidAt(m_t, bytes, appendKeyToPath(path, "bytes"), "expected the tensor's bytes, " + found(m_t, bytes)));
        if (!m_t.isArray(shape))
            return std::unexpected(invalidAt(m_t, shape, appendKeyToPath(path, "shape"), "expected the shape as a sequence of usize, " + found(m_t, shape)));
        uint64_t numel = 1;
        bool overflow = false;
        uint64_t i = 0;
        std::optional<Error> err;
        m_t.forEachChild(shape, [&](uint32_t c) {
            if (err)
                return;
            auto d = unsignedInt(c, appendIndexToPath(appendKeyToPath(path, "shape"), i++), "usize dimension");
            if (!d) {
                err = d.error();
                return;
            }
            if (*d != 0 && numel > UINT64_MAX / *d)
                overflow = true;
            numel *= *d;
        });
        if (err)
            return std::unexpected(*err);
        auto d = dtype(dt, appendKeyToPath(path, "dtype"));
        if (!d)
            return d;
        // {"Bool": store}: dtype() has checked the store's name
        const auto store = *d == DType::Bool && m_t.isMap(dt) && m_t.isStr(m_t[dt + 1].end) ? boolStoreFromName(m_t.str(m_t[dt + 1].end)) : std::nullopt;
        const uint64_t size = dtypeSize(*d, store.value_or(BoolStore::Native));
        if (size != 0 && (overflow || numel > UINT64_MAX / size || numel * size != m_t[bytes].count))
            return std::unexpected(invalidAt(m_t, bytes, appendKeyToPath(path, "bytes"), "tensor of shape " + shapeString(shapeOf(shape))
                + " and dtype " + std::string(dtypeName(*d)) + " needs " + (overflow ? std::string("more than 2^64") : std::to_string(numel * size))
                + " bytes, found " + std::to_string(m_t[bytes].count)));
        return *d;
    }

    /// tensorData where only the verdict matters, not the dtype.
    Result<void> tensor(uint32_t node, const std::string& path)
    {
        auto d = tensorData(node, path);
        return d ? Result<void>{} : std::unexpected(d.error());
    }

    std::vector<uint64_t> shapeOf(uint32_t shape)
    {
        std::vector<uint64_t> out;
        m_t.forEachChild(shape, [&](uint32_t c) { out.push_back(m_t.asU64(c).value_or(0)); });
        return out;
    }

    bool isLegacyTensor(uint32_t node)
    {
        return m_t.isMap(node) && m_t[node].count == 2 && m_t.find(node, "value") && m_t.find(node, "shape") && m_t.isArray(*m_t.find(node, "value"));
    }

    /// Two of TensorData's three field names: the map can only be a TensorData whatever the module's type.
    bool looksLikeTensorData(uint32_t node)
    {
        if (!m_t.isMap(node))
            return false;
        int known = 0;
        for (const char* k : {"bytes", "shape", "dtype"})
            known += m_t.find(node, k) ? 1 : 0;
        return known >= 2;
    }

    /**
     * {id, param: TensorData} (or one of the two names with a TensorData beside it): a ParamSerde. In a
     * module record every non-module field is an EmptyRecord (nil, §5.1), so there a string `id` or a
     * `param` key can only be a ParamSerde's.
     */
    bool looksLikeParamSerde(uint32_t node, bool inModule)
    {
        if (!m_t.isMap(node) || looksLikeTensorData(node))
            return false;
        if (inModule) {
            auto id = m_t.find(node, "id");
            if ((id && m_t.isStr(*id)) || m_t.find(node, "param"))
                return true;
        }
        const bool hasId = m_t.find(node, "id").has_value();
        const auto param = m_t.find(node, "param");
        if (param && (looksLikeTensorData(*param) || isLegacyTensor(*param)))
            return true;
        bool tensorBeside = false;
        if (hasId)
            m_t.forEachEntry(node, [&](uint32_t, uint32_t v) { tensorBeside = tensorBeside || looksLikeTensorData(v); });
        return hasId && tensorBeside;
    }

    Result<void> paramSerde(uint32_t node, const std::string& path)
    {
        auto f = fields(node, path, "a parameter {id, param}", {"id", "param"});
        if (!f)
            return std::unexpected(f.error());
        if (auto s = string(*(*f)[0], appendKeyToPath(path, "id")); !s)
            return s;
        return tensor(*(*f)[1], appendKeyToPath(path, "param"));
    }

    /// A value of a type the file does not declare (module struct, caller state): only the Burn types inside it are checked.
    Result<void> anyValue(uint32_t node, const std::string& path, bool inModule = false)
    {
        if (looksLikeTensorData(node) || isLegacyTensor(node))
            return tensor(node, path);
        if (looksLikeParamSerde(node, inModule))
            return paramSerde(node, path);
        Result<void> res;
        if (m_t.isMap(node)) {
            // A module record's maps are the record items #[derive(Module)] makes: structs, whose
            // derived Deserialize rejects a field given twice (a caller-state map may be a HashMap,
            // where the last value wins, so only the module is judged).
            std::set<std::string_view> seen;
            m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
                if (res && inModule && m_t.isStr(k) && !seen.insert(m_t.str(k)).second)
                    res = std::unexpected(invalidAt(m_t, k, path, "duplicate field `" + std::string(m_t.str(k)) + "` in a module record (serde's derived structs reject it)"));
                if (res)
                    res = anyValue(v, appendKeyToPath(path, m_t.keyText(k)), inModule);
            });
        } else if (m_t.isArray(node) && m_t[node].end != node + 1 + m_t[node].count) {
            uint64_t i = 0;
            m_t.forEachChild(node, [&](uint32_t c) {
                if (res)
                    res = anyValue(c, appendIndexToPath(path, i++), inModule);
            });
        }
        return res;
    }

    Result<void> optionalTensor(uint32_t node, const std::string& path)
    {
        if (m_t[node].kind == Kind::Nil)
            return {};
        return tensor(node, path);
    }

    Result<void> tensorField(const std::vector<std::optional<uint32_t>>& f, size_t i, const std::string& path, std::string_view name, bool optional = false)
    {
        if (!f[i])
            return {};
        const std::string p = appendKeyToPath(path, name);
        if (optional)
            return optionalTensor(*f[i], p);
        return tensor(*f[i], p);
    }

    /// The optimizer families of §6.2, told apart by their field names; "" for a state we do not know.
    std::string familyOf(uint32_t state)
    {
        if (m_t.isArray(state))
            return "Fp32Master";
        if (!m_t.isMap(state))
            return "";
        if (m_t.find(state, "square_avg") || m_t.find(state, "centered"))
            return "RmsProp";
        if (m_t.find(state, "lr_decay"))
            return "AdaGrad";
        auto mom = m_t.find(state, "momentum");
        if (!mom)
            return "";
        if (m_t[*mom].kind == Kind::Nil)
            return "SGD";
        if (!m_t.isMap(*mom))
            return "momentum";
        for (const char* k : {"exp_avg", "exp_avg_sq", "exp_avg_diff", "neg_pre_grad"})
            if (m_t.find(*mom, k))
                return "Adan";
        for (const char* k : {"time", "moment_1", "moment_2", "max_moment_2"})
            if (m_t.find(*mom, k))
                return "Adam/AdamW";
        return "SGD/Muon";
    }

    bool compatible(const std::string& a, const std::string& b)
    {
        // SGD's momentum is an Option: None fits SGD, Some({velocity}) too; Muon's is not optional.
        auto norm = [](const std::string& f) { return f == "SGD" ? std::string("SGD/Muon") : f; };
        return norm(a) == norm(b) || a == "momentum" || b == "momentum";
    }

    Result<void> optimizerState(uint32_t state, const std::string& path, const std::string& family)
    {
        const std::string what = family + " optimizer state";
        if (family == "Fp32Master") {
            if (m_t[state].count != 2)
                return std::unexpected(invalidAt(m_t, state, path, "expected the Fp32Master state (master tensor, Option<inner state>), found a tuple of "
                    + std::to_string(m_t[state].count)));
            const uint32_t master = state + 1, inner = m_t[master].end;
            if (auto d = tensor(master, appendIndexToPath(path, 0)); !d)
                return d;
            if (m_t[inner].kind == Kind::Nil)
                return {};
            return optimizerState(inner, appendIndexToPath(path, 1), familyOf(inner));
        }
        if (family == "RmsProp") {
            auto f = fields(state, path, "an " + what, {"square_avg", "centered"}, {"momentum"});
            if (!f)
                return std::unexpected(f.error());
            auto sq = fields(*(*f)[0], appendKeyToPath(path, "square_avg"), "SquareAvgState", {"square_avg"});
            if (!sq)
                return std::unexpected(sq.error());
            if (auto r = tensorField(*sq, 0, appendKeyToPath(path, "square_avg"), "square_avg"); !r)
                return r;
            auto c = fields(*(*f)[1], appendKeyToPath(path, "centered"), "CenteredState", {"avg"}, {"grad_avg"});
            if (!c)
                return std::unexpected(c.error());
            if (auto r = tensorField(*c, 0, appendKeyToPath(path, "centered"), "avg"); !r)
                return r;
            if (auto r = tensorField(*c, 1, appendKeyToPath(path, "centered"), "grad_avg", true); !r)
                return r;
            if ((*f)[2] && m_t[*(*f)[2]].kind != Kind::Nil) {
                auto m = fields(*(*f)[2], appendKeyToPath(path, "momentum"), "RmsPropMomentumState", {"buf"});
                if (!m)
                    return std::unexpected(m.error());
                return tensorField(*m, 0, appendKeyToPath(path, "momentum"), "buf");
            }
            return {};
        }
        if (family == "AdaGrad") {
            auto f = fields(state, path, "an " + what, {"lr_decay"});
            if (!f)
                return std::unexpected(f.error());
            const std::string p = appendKeyToPath(path, "lr_decay");
            auto l = fields(*(*f)[0], p, "LrDecayState {time, sum}", {"time", "sum"});
            if (!l)
                return std::unexpected(l.error());
            if (auto t = unsignedInt(*(*l)[0], appendKeyToPath(p, "time"), "usize"); !t)
                return std::unexpected(t.error());
            return tensorField(*l, 1, p, "sum");
        }
        if (family.empty() && m_t.isMap(state)) {
            // No known field, but a momentum state's fields one level down (or nothing at all): the
            // state of a momentum optimizer whose `momentum` key is missing, not an unknown optimizer.
            bool momentumBelow = m_t[state].count == 0;
            m_t.forEachEntry(state, [&](uint32_t, uint32_t v) {
                if (m_t.isMap(v))
                    for (const char* k : {"time", "moment_1", "moment_2", "velocity", "exp_avg"})
                        momentumBelow = momentumBelow || m_t.find(v, k).has_value();
            });
            if (momentumBelow)
                return std::unexpected(invalidAt(m_t, state, path, "missing field `momentum` in the optimizer state"));
        }
        if (family.empty())
            return anyValue(state, path);
        auto f = fields(state, path, "an " + what, {}, {"momentum"});
        if (!f)
            return std::unexpected(f.error());
        const std::string p = appendKeyToPath(path, "momentum");
        const auto mom = (*f)[0];
        if (family == "SGD" || (family == "SGD/Muon" && (!mom || m_t[*mom].kind == Kind::Nil)))
            return {}; // SgdState { momentum: None }
        if (!mom)
            return std::unexpected(invalidAt(m_t, state, path, "missing field `momentum` in an " + what));
        if (family == "Adam/AdamW") {
            auto m = fields(*mom, p, "an AdaptiveMomentumState {time, moment_1, moment_2, max_moment_2}", {"time", "moment_1", "moment_2"}, {"max_moment_2"});
            if (!m)
                return std::unexpected(m.error());
            if (auto t = unsignedInt(*(*m)[0], appendKeyToPath(p, "time"), "usize"); !t)
                return std::unexpected(t.error());
            for (auto [i, name, opt] : {std::tuple{size_t(1), "moment_1", false}, {size_t(2), "moment_2", false}, {size_t(3), "max_moment_2", true}})
                if (auto r = tensorField(*m, i, p, name, opt); !r)
                    return r;
            return {};
        }
        if (family == "Adan") {
            auto m = fields(*mom, p, "an AdanMomentumState", {"time", "exp_avg", "exp_avg_sq", "exp_avg_diff", "neg_pre_grad"});
            if (!m)
                return std::unexpected(m.error());
            if (auto t = unsignedInt(*(*m)[0], appendKeyToPath(p, "time"), "usize"); !t)
                return std::unexpected(t.error());
            for (size_t i = 1; i < 5; ++i)
                if (auto r = tensorField(*m, i, p, std::array{"", "exp_avg", "exp_avg_sq", "exp_avg_diff", "neg_pre_grad"}[i]); !r)
                    return r;
            return {};
        }
        auto m = fields(*mom, p, "a MomentumState {velocity}", {"velocity"});
        if (!m)
            return std::unexpected(m.error());
        return tensorField(*m, 0, p, "velocity");
    }

    /// HashMap<ParamId, AdaptorRecordItem<State>>: {id: {"V1": {"RankN": state}}}, one state type for all entries.
    Result<void> optimizer(uint32_t node, const std::string& path)
    {
        if (!m_t.isMap(node))
            return std::unexpected(invalidAt(m_t, node, path, "expected the optimizer record (a map of parameter id to adaptor state), " + found(m_t, node)));
        // One Rust type for every entry: the first entry whose field names tell the family decides.
        struct Entry {
            uint32_t state;
            std::string path, family;
        };
        std::vector<Entry> entries;
        Result<void> res;
        m_t.forEachEntry(node, [&](uint32_t k, uint32_t v) {
            if (!res)
                return;
            if (!m_t.isStr(k)) {
                res = std::unexpected(invalidAt(m_t, k, path, "expected a parameter id string as the optimizer map's key, " + found(m_t, k)));
                return;
            }
            const std::string p = appendKeyToPath(path, m_t.str(k));
            auto v1 = variant(v, p, "the adaptor record (V1)");
            if (!v1) {
                res = std::unexpected(v1.error());
                return;
            }
            if (v1->first != "V1") {
                res = std::unexpected(invalidAt(m_t, v + 1, p, "unknown variant `" + v1->first + "` of the adaptor record, expected `V1`"));
                return;
            }
            const std::string pv = appendKeyToPath(p, "V1");
            auto rank = variant(v1->second, pv, "the rank variant (Rank0 ... Rank8)");
            if (!rank) {
                res = std::unexpected(rank.error());
                return;
            }
            const std::string& rn = rank->first;
            if (rn.size() != 5 || !rn.starts_with("Rank") || rn[4] < '0' || rn[4] > '8') {
                res = std::unexpected(invalidAt(m_t, v1->second + 1, pv, "unknown variant `" + rn + "`, expected Rank0 ... Rank8"));
                return;
            }
            entries.push_back({rank->second, appendKeyToPath(pv, rn), familyOf(rank->second)});
        });
        if (!res)
            return res;
        const Entry* decider = nullptr;
        for (const auto& e : entries)
            if (!e.family.empty() && e.family != "momentum" && (!decider || decider->family == "SGD"))
                decider = &e;
        for (const auto& e : entries) {
            if (decider && !e.family.empty() && !compatible(decider->family, e.family))
                return std::unexpected(invalidAt(m_t, e.state, e.path, "expected the same optimizer state type as " + decider->path + " ("
                    + decider->family + "), found a " + e.family + " state"));
            const std::string family = decider ? (decider->family == "SGD" && e.family != "SGD" ? std::string("SGD/Muon") : decider->family)
                                               : (e.family == "momentum" ? std::string("SGD/Muon") : e.family);
            if (auto r = optimizerState(e.state, e.path, family); !r)
                return r;
        }
        return res;
    }

    /**
     * The prologue of a struct whose one field \a field is a Vec of 3-tuples (GradientsParamsRecord,
     * TrainableParameterContract): the struct, the sequence and each tuple's arity are checked here;
     * \a each(path, first, second, third) checks one tuple's three values, and the first error stops.
     */
    template<class Each>
    Result<void> tripleList(uint32_t node, const std::string& path, const std::string& what, std::string_view field, const std::string& sequenceOf,
        const std::string& tupleOf, Each&& each)
    {
        auto f = fields(node, path, what, {field});
        if (!f)
            return std::unexpected(f.error());
        const uint32_t list = *(*f)[0];
        const std::string lp = appendKeyToPath(path, field);
        if (!m_t.isArray(list))
            return std::unexpected(invalidAt(m_t, list, lp, "expected a sequence of " + sequenceOf + ", " + found(m_t, list)));
        Result<void> res;
        uint64_t i = 0;
        m_t.forEachChild(list, [&](uint32_t e) {
            if (!res)
                return;
            const std::string ep = appendIndexToPath(lp, i++);
            if (!m_t.isArray(e) || m_t[e].count != 3) {
                res = std::unexpected(invalidAt(m_t, e, ep,
                    "expected a tuple of 3 " + tupleOf + ", " + (m_t.isArray(e) ? "found a tuple of " + std::to_string(m_t[e].count) : found(m_t, e))));
                return;
            }
            const uint32_t first = e + 1, second = m_t[first].end, third = m_t[second].end;
            res = each(ep, first, second, third);
        });
        return res;
    }

    /// GradientsParamsRecord {gradients: Vec<(u64, DType, TensorData)>} and Ruda's load_record checks.
    Result<void> gradients(uint32_t node, const std::string& path)
    {
        std::unordered_set<uint64_t> ids;
        return tripleList(node, path, "a GradientsParamsRecord {gradients}", "gradients", "(u64, DType, TensorData)", "(u64 id, DType, TensorData)",
            [&](const std::string& ep, uint32_t idNode, uint32_t dtNode, uint32_t tNode) -> Result<void> {
                auto id = unsignedInt(idNode, appendIndexToPath(ep, 0), "u64 parameter id");
                if (!id)
                    return std::unexpected(id.error());
                if (!ids.insert(*id).second)
                    return std::unexpected(invalidAt(m_t, idNode, appendIndexToPath(ep, 0),
                        "duplicate pending gradient for parameter id " + std::to_string(*id) + " (Ruda's GradientsParams::from_record rejects it)"));
                auto native = dtype(dtNode, appendIndexToPath(ep, 1));
                if (!native)
                    return std::unexpected(native.error());
                if (!isFloat(*native))
                    return std::unexpected(invalidAt(m_t, dtNode, appendIndexToPath(ep, 1),
                        "a pending gradient must have a float dtype, found " + std::string(dtypeName(*native))));
                auto stored = tensorData(tNode, appendIndexToPath(ep, 2));
                if (!stored)
                    return std::unexpected(stored.error());
                if (!isFloat(*stored))
                    return std::unexpected(invalidAt(m_t, tNode, appendIndexToPath(ep, 2),
                        "a pending gradient's data must be a float tensor, found " + std::string(dtypeName(*stored))));
                return {};
            });
    }

    /// TrainableParameterContract {entries: Vec<(u64, Vec<usize>, DType)>}.
    Result<void> contract(uint32_t node, const std::string& path)
    {
        return tripleList(node, path, "a TrainableParameterContract {entries}", "entries", "(u64, Vec<usize>, DType)", "(u64 id, shape, DType)",
            [&](const std::string& ep, uint32_t id, uint32_t shape, uint32_t dt) -> Result<void> {
                if (auto v = unsignedInt(id, appendIndexToPath(ep, 0), "u64 parameter id"); !v)
                    return std::unexpected(v.error());
                if (!m_t.isArray(shape))
                    return std::unexpected(invalidAt(m_t, shape, appendIndexToPath(ep, 1), "expected the shape as a sequence of usize, " + found(m_t, shape)));
                Result<void> res;
                uint64_t j = 0;
                m_t.forEachChild(shape, [&](uint32_t c) {
                    if (res)
                        if (auto v = unsignedInt(c, appendIndexToPath(appendIndexToPath(ep, 1), j++), "usize dimension"); !v)
                            res = std::unexpected(v.error());
                });
                if (!res)
                    return res;
                if (auto d = dtype(dt, appendIndexToPath(ep, 2)); !d)
                    return std::unexpected(d.error());
                return {};
            });
    }

    /**
     * An empty MessagePack array written with a 16- or 32-bit count (dc 00 00, dd 00 00 00 00):
     * rmp-serde's deserialize_unit_struct takes only nil and fixarray 0 (90); anything else goes to
     * deserialize_any, and PhantomData's visitor refuses a sequence.
     */
    bool wideEmptyArray(uint32_t node) const
    {
        if (!m_t.source || (m_r.recorder != Recorder::NamedMpk && m_r.recorder != Recorder::NamedMpkGz))
            return false;
        const auto bytes = m_t.source->span();
        const uint64_t at = m_t[node].srcOffset;
        auto zerosAfter = [&](uint64_t n) {
            if (at + 1 + n > bytes.size())
                return false;
            for (uint64_t k = 1; k <= n; ++k)
                if (bytes[at + k] != 0)
                    return false;
            return true;
        };
        return at < bytes.size() && ((bytes[at] == 0xdc && zerosAfter(2)) || (bytes[at] == 0xdd && zerosAfter(4)));
    }

    Result<void> envelope()
    {
        auto f = fields(0, "", "the record envelope {metadata, item, _b}", {"metadata", "item", "_b"});
        if (!f)
            return std::unexpected(f.error());
        // PhantomData is a unit struct: rmp-serde reads it from [] (what it writes) or nil, serde_json from null.
        const uint32_t b = *(*f)[2];
        const bool unit = m_t[b].kind == Kind::Nil || (m_t.isArray(b) && m_t[b].count == 0 && m_r.recorder != Recorder::PrettyJson && m_r.recorder != Recorder::JsonGz);
        if (unit && m_t.isArray(b) && wideEmptyArray(b))
            return std::unexpected(invalidAt(m_t, b, "_b",
                "expected the unit struct PhantomData as [] (90) or nil: rmp-serde refuses an empty array16/array32 here"));
        if (!unit)
            return std::unexpected(invalidAt(m_t, b, "_b", "expected the unit struct PhantomData (" + std::string(
                m_r.recorder == Recorder::PrettyJson || m_r.recorder == Recorder::JsonGz ? "null" : "[]") + "), " + found(m_t, b)));
        auto m = fields(*(*f)[0], "metadata", "the metadata {float, int, format, version, settings}", {"float", "int", "format", "version", "settings"});
        if (!m)
            return std::unexpected(m.error());
        const char* names[] = {"float", "int", "format", "version", "settings"};
        for (size_t i = 0; i < 5; ++i)
            if (auto s = string(*(*m)[i], appendKeyToPath("metadata", names[i])); !s)
                return s;
        return {};
    }

    Result<void> item()
    {
        const uint32_t item = m_r.itemNode;
        auto elements = [&](uint32_t n) {
            std::vector<uint32_t> e;
            m_t.forEachChild(n, [&](uint32_t c) { e.push_back(c); });
            return e;
        };
        switch (m_r.kind) {
        case RecordKind::TrainingRecord: {
            const auto e = elements(item);
            if (auto r = anyValue(e[0], "item[0]", true); !r)
                return r;
            if (auto r = optimizer(e[1], "item[1]"); !r)
                return r;
            if (auto r = gradients(e[3], "item[3]"); !r)
                return r;
            return anyValue(e[4], "item[4]");
        }
        case RecordKind::ModelStateTrainingRecord: {
            const auto e = elements(item);
            auto version = unsignedInt(e[0], "item[0]", "u32 version", UINT32_MAX);
            if (!version)
                return std::unexpected(version.error());
            if (*version != 1)
                return std::unexpected(invalidAt(m_t, e[0], "item[0]", "ModelStateTrainingRecord version " + std::to_string(*version)
                    + ": Ruda restores only version 1"));
            if (auto r = anyValue(e[1], "item[1]", true); !r)
                return r;
            if (auto r = contract(e[2], "item[2]"); !r)
                return r;
            if (auto r = optimizer(e[3], "item[3]"); !r)
                return r;
            if (auto r = gradients(e[5], "item[5]"); !r)
                return r;
            return anyValue(e[6], "item[6]");
        }
        case RecordKind::OptimizerRecord: return optimizer(item, "item");
        case RecordKind::ModuleRecord: return anyValue(item, "item", true);
        default: return {};
        }
    }

private:
    const Record& m_r;
    const Tape& m_t;
    bool m_dtypes021;
};

} // namespace

Result<void> checkRecordTypes(const Record& r)
{
    if (r.tape.empty())
        return fail(ErrorCode::Invalid, "expected a record, found nothing", uint64_t(0));
    TypeChecker c(r);
    if (auto e = c.envelope(); !e)
        return e;
    return c.item();
}

} // namespace ckpt
