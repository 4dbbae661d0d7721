// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The schema deriver: the Rust type layout a self-describing record (MessagePack, JSON) implies, with
// every reading it cannot settle kept as a choice (schema.h's schemaFromRecord). The schema model and
// its JSON form are in schema.cpp.
#include "core/codec/schema.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ckpt {

// ---------------------------------------------------------------------------------------------
// Deriving a schema from a self-describing record

namespace {

bool isIdentifier(std::string_view k)
{
    if (k.empty() || (k[0] >= '0' && k[0] <= '9'))
        return false;
    return std::all_of(k.begin(), k.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

/** An enum variant's name as serde writes it: a Rust identifier in UpperCamelCase (fields are snake_case). */
bool isVariantName(std::string_view k)
{
    return isIdentifier(k) && k[0] >= 'A' && k[0] <= 'Z';
}

/** The range and signs of the integers a twin shows for one Rust type (a Vec's elements, a map's keys). */
struct IntegerRange {
    bool onlyIntegers = true, anySigned = false, anyUnsigned = false;
    bool anyWide = false; ///< a value beyond 64 bits (serde_json's digits of a u128/i128): lo/hi leave it out
    int64_t lo = 0;  ///< the least value, 0 when none is negative
    uint64_t hi = 0; ///< the greatest value, 0 when none is positive

    void add(const Tape& t, uint32_t node)
    {
        if ((t[node].kind == Kind::UInt || t[node].kind == Kind::Int) && t.isWide(node)) {
            anyWide = true;
            (t[node].kind == Kind::UInt ? anyUnsigned : anySigned) = true;
        } else if (t[node].kind == Kind::UInt) {
            anyUnsigned = true;
            hi = std::max(hi, t.u64(node));
        } else if (t[node].kind == Kind::Int) {
            anySigned = true;
            lo = std::min(lo, t.i64(node));
            hi = std::max<uint64_t>(hi, t.i64(node) < 0 ? 0 : uint64_t(t.i64(node)));
        } else {
            onlyIntegers = false;
        }
    }
};

class Deriver {
public:
    Deriver(const Tape& t, const SchemaFromRecordOptions& o)
        : m_t(t)
        , m_opt(o)
    {
    }

    Result<SchemaFromRecordResult> run()
    {
        const uint32_t root = m_t.root();
        if (m_t.empty() || !m_t.isMap(root))
            return fail(ErrorCode::Invalid, "expected a Burn record envelope (a map with metadata, item, _b)");
        auto meta = m_t.find(root, "metadata");
        auto item = m_t.find(root, "item");
        if (!meta || !item || !m_t.isMap(*meta))
            return fail(ErrorCode::Invalid, "expected a Burn record envelope: missing \"metadata\" or \"item\"");
        std::string version;
        if (auto v = m_t.find(*meta, "version"); v && m_t.isStr(*v))
            version = std::string(m_t.str(*v));
        m_table = dtypeTableForVersion(version);
        if (version.empty())
            note("metadata", "no version: assuming the DType table of Burn 0.17-0.20");
        if (auto f = m_t.find(*meta, "float"); f && m_t.isStr(*f))
            m_halfFloat = m_t.str(*f).find("f16") != std::string_view::npos;

        const uint32_t str = prim(SchemaKind::Str);
        const uint32_t metadata =
            intern(SchemaNode::structure("BurnMetadata", {{"float", str}, {"int", str}, {"format", str}, {"version", str}, {"settings", str}}));
        auto itemType = derivItem(*item);
        if (!itemType)
            return std::unexpected(itemType.error());
        const uint32_t root2 = intern(SchemaNode::structure("BurnRecord", {{"metadata", metadata}, {"item", *itemType}, {"_b", prim(SchemaKind::UnitStruct)}}));
        m_s.root = root2;
        if (auto v = m_s.validate(); !v)
            return std::unexpected(v.error());
        if (!m_signTakenFromTwin.empty()) {
            std::string paths;
            for (size_t k = 0; k < m_signTakenFromTwin.size(); ++k)
                paths += (k ? ", " : "") + m_signTakenFromTwin[k];
            if (m_signsTakenFromTwin > m_signTakenFromTwin.size())
                paths += ", … (" + std::to_string(m_signsTakenFromTwin) + " in all)";
            note("item", "integers taken as signed or unsigned as the twin shows them (" + paths
                + "): MessagePack writes a non-negative i64 like a u64, and bincode's bytes read both ways (a zigzag varint as twice the value)");
        }
        return SchemaFromRecordResult{std::move(m_s), std::move(m_notes)};
    }

private:
    void note(const std::string& path, const std::string& what) { m_notes.push_back((path.empty() ? "item" : path) + ": " + what); }

    /** Hash-consing: structurally identical nodes share one index, so the JSON stays small. */
    uint32_t intern(SchemaNode n)
    {
        std::string key = std::to_string(int(n.kind)) + "|" + n.name + "|" + std::to_string(int(n.dtypeTable)) + "|"
            + std::to_string(n.maybeBare) + std::to_string(n.maybeTuple) + std::to_string(n.preferAlternative) + "|"
            + std::to_string(n.tupleArity) + "|";
        for (uint32_t e : n.elements)
            key += std::to_string(e) + ",";
        key += "|";
        for (const auto& f : n.fields)
            key += f.name + ":" + std::to_string(f.type) + ",";
        key += "|";
        for (const auto& v : n.variants)
            key += v.name + ":" + std::to_string(int(v.kind)) + ":" + std::to_string(v.payload) + ",";
        key += "|" + std::to_string(n.indicesFromTwin);
        for (const auto& seen : n.twinSeen)
            key += "|" + seen;
        if (auto it = m_interned.find(key); it != m_interned.end())
            return it->second;
        const uint32_t i = m_s.add(std::move(n));
        m_interned.emplace(std::move(key), i);
        return i;
    }
    uint32_t prim(SchemaKind k) { return intern(SchemaNode::of(k)); }
    uint32_t option(uint32_t inner, bool maybeBare = false, bool preferBare = false) { return intern(SchemaNode::option(inner, maybeBare, preferBare)); }
    uint32_t seq(uint32_t element, bool maybeTuple = false, uint32_t arity = 0, bool preferTuple = false)
    {
        return intern(SchemaNode::seq(element, maybeTuple, arity, preferTuple));
    }
    uint32_t tuple(std::vector<uint32_t> elements) { return intern(SchemaNode::of(SchemaKind::Tuple, std::move(elements))); }
    uint32_t map(uint32_t k, uint32_t v) { return intern(SchemaNode::of(SchemaKind::Map, {k, v})); }
    uint32_t dtype() { return intern(SchemaNode::dtype(m_table)); }
    uint32_t tensorData()
    {
        return intern(SchemaNode::structure("TensorData", {{"bytes", prim(SchemaKind::Bytes)}, {"shape", seq(prim(SchemaKind::Usize))}, {"dtype", dtype()}}));
    }

    bool hasExactKeys(uint32_t v, std::initializer_list<std::string_view> keys) const
    {
        if (!m_t.isMap(v) || m_t[v].count != keys.size())
            return false;
        return std::all_of(keys.begin(), keys.end(), [&](std::string_view k) { return m_t.find(v, k).has_value(); });
    }
    bool isTensorData(uint32_t v) const { return hasExactKeys(v, {"bytes", "shape", "dtype"}); }
    bool isLegacyData(uint32_t v) const { return hasExactKeys(v, {"value", "shape"}); }
    bool isParam(uint32_t v) const { return hasExactKeys(v, {"id", "param"}); }
    bool isGradients(uint32_t v) const { return hasExactKeys(v, {"gradients"}); }
    bool isAdaptorEntry(uint32_t v) const
    {
        if (!hasExactKeys(v, {"V1"}))
            return false;
        const uint32_t inner = *m_t.find(v, "V1");
        if (!m_t.isMap(inner) || m_t[inner].count != 1)
            return false;
        const uint32_t key = inner + 1;
        return m_t.isStr(key) && m_t.str(key).starts_with("Rank");
    }
    bool isOptimizerMap(uint32_t v) const
    {
        if (!m_t.isMap(v) || m_t[v].count == 0)
            return false;
        bool all = true;
        m_t.forEachEntry(v, [&](uint32_t, uint32_t val) { all = all && isAdaptorEntry(val); });
        return all;
    }

    Result<uint32_t> derivItem(uint32_t item)
    {
        RecordRole role = m_opt.role;
        if (role == RecordRole::Auto) {
            const Node& n = m_t[item];
            if (n.kind == Kind::Array && n.count == 5 && isGradients(*m_t.element(item, 3)))
                role = RecordRole::Training;
            else if (n.kind == Kind::Array && n.count == 7 && m_t[item + 1].kind == Kind::UInt && isGradients(*m_t.element(item, 5)))
                role = RecordRole::ModelStateTraining;
            else if (isOptimizerMap(item))
                role = RecordRole::Optimizer;
            else if (n.kind == Kind::Nil || n.kind == Kind::UInt || n.kind == Kind::Int || n.kind == Kind::F64
                || hasExactKeys(item, {"schedulers"}))
                role = RecordRole::Scheduler;
            else
                role = RecordRole::Module;
        }
        switch (role) {
        case RecordRole::Training: {
            if (m_t[item].kind != Kind::Array || m_t[item].count != 5)
                return fail(ErrorCode::Invalid, "a TrainingRecord item must be an array of 5, found a " + std::string(kindName(m_t[item].kind)));
            std::vector<uint32_t> parts;
            parts.push_back(module(*m_t.element(item, 0), "item[0]", ""));
            parts.push_back(optimizer(*m_t.element(item, 1), "item[1]"));
            parts.push_back(scheduler(*m_t.element(item, 2), "item[2]"));
            parts.push_back(gradients());
            parts.push_back(generic(*m_t.element(item, 4), "item[4]"));
            return tuple(std::move(parts));
        }
        case RecordRole::ModelStateTraining: {
            // format-burn-record.md §9.6: (version: u32, module, TrainableParameterContract, optimizer,
            // scheduler, GradientsParamsRecord, caller state).
            if (m_t[item].kind != Kind::Array || m_t[item].count != 7)
                return fail(ErrorCode::Invalid, "a ModelStateTrainingRecord item must be an array of 7, found a " + std::string(kindName(m_t[item].kind)));
            std::vector<uint32_t> parts;
            parts.push_back(prim(SchemaKind::U32));
            parts.push_back(module(*m_t.element(item, 1), "item[1]", ""));
            parts.push_back(parameterContract());
            parts.push_back(optimizer(*m_t.element(item, 3), "item[3]"));
            parts.push_back(scheduler(*m_t.element(item, 4), "item[4]"));
            parts.push_back(gradients());
            parts.push_back(generic(*m_t.element(item, 6), "item[6]"));
            return tuple(std::move(parts));
        }
        case RecordRole::Optimizer: return optimizer(item, "item");
        case RecordRole::Scheduler: return scheduler(item, "item");
        default: return module(item, "item", "");
        }
    }

    /** TrainableParameterContract { entries: Vec<(u64, Vec<usize>, DType)> } (§9.6). */
    uint32_t parameterContract()
    {
        const uint32_t entry = tuple({prim(SchemaKind::U64), seq(prim(SchemaKind::Usize)), dtype()});
        return intern(SchemaNode::structure("TrainableParameterContract", {{"entries", seq(entry)}}));
    }

    uint32_t gradients()
    {
        const uint32_t entry = tuple({prim(SchemaKind::U64), dtype(), tensorData()});
        return intern(SchemaNode::structure("GradientsParamsRecord", {{"gradients", seq(entry)}}));
    }

    uint32_t scheduler(uint32_t v, const std::string& path)
    {
        const std::string& forced = m_opt.schedulerType;
        if (forced == "usize")
            return prim(SchemaKind::Usize);
        if (forced == "i32")
            return prim(SchemaKind::I32);
        if (forced == "f64")
            return prim(SchemaKind::F64);
        if (forced == "unit")
            return prim(SchemaKind::Unit);
        if (hasExactKeys(v, {"schedulers"})) {
            const uint32_t usize = prim(SchemaKind::Usize);
            const uint32_t e = intern(SchemaNode::enumeration("LrSchedulerRecord",
                {{"Linear", VariantKind::Newtype, usize}, {"Cosine", VariantKind::Newtype, usize}, {"Exponential", VariantKind::Newtype, prim(SchemaKind::F64)},
                    {"Noam", VariantKind::Newtype, usize}}));
            return intern(SchemaNode::structure("ComposedLrSchedulerRecord", {{"schedulers", seq(e)}}));
        }
        switch (m_t[v].kind) {
        case Kind::Nil: note(path, "nil scheduler record taken as () (ConstantLr: zero bytes in bincode)"); return prim(SchemaKind::Unit);
        case Kind::Int: note(path, "signed scheduler record taken as i32 (StepLr)"); return prim(SchemaKind::I32);
        case Kind::F64: return prim(SchemaKind::F64);
        case Kind::UInt:
            note(path, "unsigned scheduler record taken as usize (Linear/Noam/Cosine); a StepLr i32 >= 0 looks the same (use the scheduler type option)");
            return prim(SchemaKind::Usize);
        default: return generic(v, path);
        }
    }

    uint32_t optimizer(uint32_t v, const std::string& path)
    {
        uint32_t state = prim(SchemaKind::Empty);
        if (m_t.isMap(v) && m_t[v].count > 0 && isOptimizerMap(v)) {
            const uint32_t firstVal = m_t[v + 1].end;
            const uint32_t ranks = *m_t.find(firstVal, "V1");
            const std::string key = m_t.keyText(v + 1);
            state = optimState(m_t[ranks + 1].end, appendKeyToPath(appendKeyToPath(appendKeyToPath(path, key), "V1"), m_t.keyText(ranks + 1)), "");
        } else if (m_t.isMap(v) && m_t[v].count == 0) {
            note(path, "empty optimizer map: the state layout is unknown (only an empty map decodes)");
        } else {
            note(path, "not an optimizer adaptor map: layout inferred from the values");
            return generic(v, path);
        }
        std::vector<SchemaVariant> ranks;
        for (int r = 0; r <= 8; ++r)
            ranks.push_back({"Rank" + std::to_string(r), VariantKind::Newtype, state});
        SchemaNode v1;
        v1.kind = SchemaKind::Enum;
        v1.name = "AdaptorRecordItemV1";
        v1.variants = std::move(ranks);
        const uint32_t v1i = intern(std::move(v1));
        SchemaNode item;
        item.kind = SchemaKind::Enum;
        item.name = "AdaptorRecordItem";
        item.variants = {{"V1", VariantKind::Newtype, v1i}};
        return map(prim(SchemaKind::Str), intern(std::move(item)));
    }

    /** Optimizer state structs (§6.2): which fields are Option is known per field name. */
    uint32_t optimState(uint32_t v, const std::string& path, std::string_view fieldName)
    {
        const Node& n = m_t[v];
        if (isTensorData(v)) {
            static const std::set<std::string_view> optionalTensors = {"max_moment_2", "grad_avg", "d", "prev_flat_grad"};
            return optionalTensors.count(fieldName) ? option(tensorData()) : tensorData();
        }
        if (n.kind == Kind::Nil) {
            if (fieldName == "momentum") {
                // SgdState.momentum: Option<MomentumState{velocity}> (RmsProp's would be {buf}).
                return option(intern(SchemaNode::structure("MomentumState", {{"velocity", tensorData()}})));
            }
            if (fieldName == "t" || fieldName == "prev_loss")
                return option(prim(SchemaKind::F64));
            if (fieldName != "max_moment_2" && fieldName != "grad_avg" && fieldName != "d" && fieldName != "prev_flat_grad")
                note(path, "nil optimizer field taken as Option<TensorData> None");
            return option(tensorData());
        }
        if (n.kind == Kind::Array && n.count == 2 && isTensorData(v + 1)) {
            // Ruda Fp32MasterState = (master tensor, Option<inner state>)
            const uint32_t second = m_t[v + 1].end;
            const uint32_t inner = m_t[second].kind == Kind::Nil ? prim(SchemaKind::Empty) : optimState(second, appendIndexToPath(path, 1), "");
            return tuple({tensorData(), option(inner)});
        }
        if (n.kind == Kind::Array)
            return seq(n.count ? optimState(v + 1, appendIndexToPath(path, 0), "") : tensorData());
        if (n.kind == Kind::UInt)
            return prim(SchemaKind::Usize);
        if (n.kind == Kind::F64)
            return (fieldName == "t" || fieldName == "prev_loss") ? option(prim(SchemaKind::F64), true, true) : prim(SchemaKind::F64);
        if (n.kind == Kind::Map) {
            std::vector<SchemaField> fields;
            m_t.forEachEntry(v, [&](uint32_t k, uint32_t val) {
                const std::string name = m_t.keyText(k);
                fields.push_back({name, optimState(val, appendKeyToPath(path, name), name)});
            });
            std::string structName;
            if (hasExactKeys(v, {"momentum"}))
                structName = "State";
            const uint32_t st = intern(SchemaNode::structure(structName, std::move(fields)));
            if (fieldName == "momentum" && m_t.find(v, "buf"))
                return option(st); // RmsProp momentum: Option<RmsPropMomentumState>
            if (fieldName == "momentum" && hasExactKeys(v, {"velocity"})) {
                note(path, "momentum {velocity}: Option in SGD, plain in Muon; settled on the bytes");
                return option(st, true, false);
            }
            return st;
        }
        return generic(v, path);
    }

    uint32_t legacyData(uint32_t v, const std::string& path)
    {
        const uint32_t values = *m_t.find(v, "value");
        SchemaKind elem = m_halfFloat ? SchemaKind::U16 : SchemaKind::F32;
        if (m_t[values].count > 0) {
            switch (m_t[values + 1].kind) {
            case Kind::F32: elem = SchemaKind::F32; break;
            case Kind::F64: elem = SchemaKind::F64; break;
            case Kind::Int: elem = SchemaKind::I32; break;
            case Kind::Bool: elem = SchemaKind::Bool; break;
            default: break;
            }
        }
        if (elem == SchemaKind::U16)
            note(path, "legacy integer tensor values taken as half-precision floats (u16 bits)");
        return intern(SchemaNode::structure("DataSerialize", {{"value", seq(prim(elem))}, {"shape", seq(prim(SchemaKind::Usize))}}));
    }

    uint32_t tensorPayload(uint32_t v, const std::string& path)
    {
        if (isTensorData(v))
            return tensorData();
        if (isLegacyData(v))
            return legacyData(v, path);
        return generic(v, path);
    }

    /** Module record items (§5): structs of sub-records, ParamSerde, nil for non-module fields. */
    uint32_t module(uint32_t v, const std::string& path, std::string_view fieldName)
    {
        const Node& n = m_t[v];
        switch (n.kind) {
        case Kind::Nil: return prim(SchemaKind::Empty);
        case Kind::Array: {
            bool allNil = true;
            m_t.forEachChild(v, [&](uint32_t c) { allNil = allNil && m_t[c].kind == Kind::Nil; });
            if (allNil && n.count > 0) // [ConstantRecord; N] of a primitive array (Burn <= 0.21.0-pre.2)
                return tuple(std::vector<uint32_t>(n.count, prim(SchemaKind::Empty)));
            if (n.count == 0) {
                note(path, "empty array in a module record taken as an empty Vec");
                return seq(prim(SchemaKind::Empty));
            }
            // Every element typed: a Vec or array of one module type (an enum module's elements may
            // show different variants), or a tuple of different modules ((Linear, LayerNorm)).
            std::vector<uint32_t> elems;
            uint64_t i = 0;
            m_t.forEachChild(v, [&](uint32_t c) { elems.push_back(module(c, appendIndexToPath(path, i++), "")); });
            std::optional<uint32_t> common = elems[0];
            for (size_t k = 1; k < elems.size() && common; ++k)
                common = unify(*common, elems[k], path);
            if (!common)
                return tuple(std::move(elems));
            return seq(*common, true, static_cast<uint32_t>(n.count), false);
        }
        case Kind::Map: {
            if (isParam(v)) {
                const uint32_t param = tensorPayload(*m_t.find(v, "param"), appendKeyToPath(path, "param"));
                const uint32_t ps = intern(SchemaNode::structure("ParamSerde", {{"id", prim(SchemaKind::Str)}, {"param", param}}));
                // A ParamSerde starts with the id length (0a/0d/24), never 00/01, so Option-or-not is
                // settled by the first byte for free; `bias` is an Option in every Burn layer.
                return optionAt(path, ps, fieldName != "bias");
            }
            if (isTensorData(v) || isLegacyData(v))
                return tensorPayload(v, path);
            bool identifiers = true;
            m_t.forEachEntry(v, [&](uint32_t k, uint32_t) { identifiers = identifiers && m_t.isStr(k) && isIdentifier(m_t.str(k)); });
            if (!identifiers)
                return generic(v, path);
            if (n.count == 1 && isVariantName(m_t.str(v + 1))) {
                // {"Dense": {...}}: a variant of a #[derive(Module)] enum (its index first in bincode), or
                // a struct whose one field has a capitalised name; the bytes settle it.
                const std::string name(m_t.str(v + 1));
                const uint32_t payload = module(m_t[v + 1].end, appendKeyToPath(path, name), "");
                const uint32_t st = intern(SchemaNode::structure("", {{name, payload}}));
                return eitherAt(path, twinEnum(path, name, payload), optionAt(path + "{struct}", st, true));
            }
            std::vector<SchemaField> fields;
            m_t.forEachEntry(v, [&](uint32_t k, uint32_t val) {
                const std::string name(m_t.str(k));
                fields.push_back({name, module(val, appendKeyToPath(path, name), name)});
            });
            const uint32_t st = intern(SchemaNode::structure("", std::move(fields)));
            if (path == "item" || path == "item[0]" || path == "item[1]")
                return st;
            // A sub-module may be an Option<M>; Some(M) looks exactly like M in MessagePack. Each field
            // decides on its own (`extra: Option<Linear>` beside `head: Linear` share the Linear layout).
            return optionAt(path, st, true);
        }
        default: return generic(v, path);
        }
    }

    /**
     * An Option that may be a bare T, decided where it occurs: the node is named after the record path
     * so that nodes of the same shape at other paths are settled separately (the decoder pins a node to
     * one reading for all its occurrences, which is right for the elements of one Vec or array only).
     */
    uint32_t optionAt(const std::string& path, uint32_t inner, bool preferBare)
    {
        SchemaNode n = SchemaNode::option(inner, true, preferBare);
        n.name = path;
        return intern(std::move(n));
    }
    /** Two readings of one value, the first tried first; named after its path like optionAt. */
    uint32_t eitherAt(const std::string& path, uint32_t preferred, uint32_t other)
    {
        SchemaNode n = SchemaNode::of(SchemaKind::Either, {preferred, other});
        n.name = path;
        return intern(std::move(n));
    }
    /**
     * An enum value the twin shows as {Name: payload} (or a unit variant as "Name"): the one variant
     * known here, its bincode index read from the bytes (values of one Rust type merge in unify).
     */
    uint32_t twinEnum(const std::string& path, const std::string& name, std::optional<uint32_t> payload)
    {
        SchemaVariant variant{name, payload ? VariantKind::Newtype : VariantKind::Unit, payload.value_or(kNoSchemaNode)};
        SchemaNode n = SchemaNode::enumeration(path, {std::move(variant)});
        n.indicesFromTwin = true;
        n.twinSeen = {name};
        return intern(std::move(n));
    }
    /** Two enums the twin showed where Rust has one type: the variants of both, the occurrences in order. */
    std::optional<uint32_t> unifyTwinEnums(const SchemaNode& A, const SchemaNode& B, const std::string& path)
    {
        SchemaNode n = A;
        for (const SchemaVariant& b : B.variants) {
            auto same = std::find_if(n.variants.begin(), n.variants.end(), [&](const SchemaVariant& a) { return a.name == b.name; });
            if (same == n.variants.end()) {
                n.variants.push_back(b);
                continue;
            }
            if (same->kind != b.kind)
                return std::nullopt;
            if (b.kind != VariantKind::Unit) {
                auto payload = unify(same->payload, b.payload, path);
                if (!payload)
                    return std::nullopt;
                same->payload = *payload;
            }
        }
        n.twinSeen.insert(n.twinSeen.end(), B.twinSeen.begin(), B.twinSeen.end());
        return intern(std::move(n));
    }
    /**
     * A string the twin shows: a String first; "Warmup" may also be a unit variant (its index alone in
     * bincode), and one Unicode scalar a char (its UTF-8 bytes alone). The bytes settle it.
     */
    uint32_t text(uint32_t v, const std::string& path)
    {
        const std::string_view s = m_t.str(v);
        const bool oneScalar = !s.empty() && utf8SequenceLength(uint8_t(s[0])) == s.size();
        std::optional<uint32_t> other;
        if (isVariantName(s))
            other = twinEnum(path, std::string(s), std::nullopt);
        if (oneScalar)
            other = other ? eitherAt(path + "{char}", prim(SchemaKind::Char), *other) : prim(SchemaKind::Char);
        return other ? eitherAt(path, prim(SchemaKind::Str), *other) : prim(SchemaKind::Str);
    }

    /** A value the twin shows as 16 bytes: a u128 or an i128 (rmp-serde's spelling), else serde_bytes. */
    uint32_t sixteenBytes(uint32_t v, const std::string& path)
    {
        SchemaNode wide = SchemaNode::of(SchemaKind::Either, {prim(SchemaKind::U128), prim(SchemaKind::I128)});
        wide.name = path + "{int}";
        const auto bytes = m_t.bin(v);
        wide.twinSeen = {std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())};
        return eitherAt(path, intern(std::move(wide)), prim(SchemaKind::Bytes));
    }

    /**
     * An integer the twin shows: unsigned values as usize (u16/u32/u64 are the same varint), signed
     * ones as i64 (zigzag); values a u8/i8 can hold may also be that raw byte, which only differs on the
     * wire from 251 (u8) or beyond ±63 (i8), so the bytes settle it where it matters.
     */
    uint32_t integer(const IntegerRange& r, const std::string& path)
    {
        // A non-negative value reads from bincode both ways (a varint, or a zigzag varint of twice
        // the value): nothing the bytes could settle, so the twin's sign is taken and said.
        if (r.lo >= 0 && r.hi <= uint64_t(std::numeric_limits<int64_t>::max())) {
            if (m_signTakenFromTwin.size() < kNamedInNotes)
                m_signTakenFromTwin.push_back(path);
            ++m_signsTakenFromTwin;
        }
        if (r.anyWide) // beyond 64 bits: only a u128/i128 holds it (same varint as u64 below 2^64)
            return prim(r.anySigned ? SchemaKind::I128 : SchemaKind::U128);
        if (!r.anySigned)
            return r.hi <= 0xff ? eitherAt(path, prim(SchemaKind::Usize), prim(SchemaKind::U8)) : prim(SchemaKind::Usize);
        return r.lo >= -128 && r.hi <= 127 ? eitherAt(path, prim(SchemaKind::I64), prim(SchemaKind::I8)) : prim(SchemaKind::I64);
    }
    uint32_t integer(uint32_t node, const std::string& path)
    {
        IntegerRange r;
        r.add(m_t, node);
        return integer(r, path);
    }
    /** What a nil can be: None of an Option (00) or `()` (nothing at all); None first. */
    uint32_t nilAt(const std::string& path) { return optionAt(path, prim(SchemaKind::Unit), false); }
    bool isNil(uint32_t i) const
    {
        const SchemaNode& n = m_s.nodes[i];
        return n.kind == SchemaKind::Option && n.maybeBare && !n.preferAlternative && m_s.nodes[n.elements[0]].kind == SchemaKind::Unit;
    }
    bool isIntegerNode(uint32_t i) const
    {
        const SchemaNode& n = m_s.nodes[i];
        if (n.kind == SchemaKind::Either)
            return isIntegerNode(n.elements[0]);
        return n.kind == SchemaKind::Usize || n.kind == SchemaKind::I64;
    }
    bool isSignedNode(uint32_t i) const
    {
        const SchemaNode& n = m_s.nodes[i];
        return n.kind == SchemaKind::Either ? isSignedNode(n.elements[0]) : n.kind == SchemaKind::I64;
    }

    /**
     * One type for two values the twin shows where Rust has one type (elements of a Vec, values of a
     * map): an empty array's unknown element type takes the other's, a nil and a value make an
     * Option, integers widen to the type that holds both, arrays of other lengths are Vecs, structs
     * with the same fields unify field by field. nullopt when no one type holds both.
     */
    std::optional<uint32_t> unify(uint32_t a, uint32_t b, const std::string& path)
    {
        if (a == b || sameShape(a, b))
            return a;
        if (m_unknownElement.count(a) && m_s.nodes[b].kind == SchemaKind::Seq)
            return b;
        if (m_unknownElement.count(b) && m_s.nodes[a].kind == SchemaKind::Seq)
            return a;
        // Copies: every unify below may intern new nodes, which moves m_s.nodes.
        const SchemaNode A = m_s.nodes[a];
        const SchemaNode B = m_s.nodes[b];
        if (isNil(a) || isNil(b)) {
            const uint32_t value = isNil(a) ? b : a;
            const SchemaNode& V = m_s.nodes[value];
            if (V.kind == SchemaKind::Option && !V.maybeBare)
                return value;
            // Some(x) is x in MessagePack: the value's own node, made an Option.
            return option(V.kind == SchemaKind::Option ? V.elements[0] : value);
        }
        if (isIntegerNode(a) && isIntegerNode(b)) {
            const bool wideA = m_s.nodes[a].kind != SchemaKind::Either, wideB = m_s.nodes[b].kind != SchemaKind::Either;
            if (isSignedNode(a) == isSignedNode(b))
                return wideA ? a : wideB ? b : a;
            return prim(SchemaKind::I64);
        }
        if (A.kind == SchemaKind::Enum && B.kind == SchemaKind::Enum && A.indicesFromTwin && B.indicesFromTwin)
            return unifyTwinEnums(A, B, path);
        if ((A.kind == SchemaKind::Empty && B.kind == SchemaKind::Option) || (B.kind == SchemaKind::Empty && A.kind == SchemaKind::Option))
            return A.kind == SchemaKind::Option ? a : b; // an EmptyRecord is written as None (00)
        if (A.kind == SchemaKind::Either && B.kind == SchemaKind::Either) {
            // The same two readings on both sides (an enum or a struct in each element): kept apart.
            auto first = unify(A.elements[0], B.elements[0], path);
            auto second = first ? unify(A.elements[1], B.elements[1], path) : std::nullopt;
            if (first && second) {
                SchemaNode n = SchemaNode::of(SchemaKind::Either, {*first, *second});
                n.name = A.name;
                n.twinSeen = A.twinSeen;
                return intern(std::move(n));
            }
        }
        if (A.kind == SchemaKind::Either || B.kind == SchemaKind::Either) {
            // Two readings on one side: the first that also fits the other side (a Vec of 5 beside a
            // Vec of 3 is no tuple). `a` stays first: the occurrences of a twin's enums are in order.
            const SchemaNode& E = A.kind == SchemaKind::Either ? A : B;
            for (uint32_t alt : E.elements)
                if (auto u = A.kind == SchemaKind::Either ? unify(alt, b, path) : unify(a, alt, path))
                    return u;
            return std::nullopt;
        }
        if ((A.kind == SchemaKind::F32 || A.kind == SchemaKind::F64) && (B.kind == SchemaKind::F32 || B.kind == SchemaKind::F64))
            return prim(SchemaKind::F64);
        if (A.kind == SchemaKind::Seq && B.kind == SchemaKind::Seq) {
            auto e = unify(A.elements[0], B.elements[0], path);
            if (!e)
                return std::nullopt;
            const bool sameArity = A.maybeTuple && B.maybeTuple && A.tupleArity == B.tupleArity;
            return seq(*e, sameArity, sameArity ? A.tupleArity : 0, false);
        }
        if (A.kind == SchemaKind::Struct && B.kind == SchemaKind::Struct && A.fields.size() == B.fields.size()) {
            std::vector<SchemaField> fields = A.fields;
            for (size_t k = 0; k < fields.size(); ++k) {
                if (fields[k].name != B.fields[k].name)
                    return std::nullopt;
                auto f = unify(A.fields[k].type, B.fields[k].type, path);
                if (!f)
                    return std::nullopt;
                fields[k].type = *f;
            }
            return intern(SchemaNode::structure(A.name, std::move(fields)));
        }
        if (A.kind == SchemaKind::Tuple && B.kind == SchemaKind::Tuple && A.elements.size() == B.elements.size()) {
            std::vector<uint32_t> elems = A.elements;
            for (size_t k = 0; k < elems.size(); ++k) {
                auto e = unify(A.elements[k], B.elements[k], path);
                if (!e)
                    return std::nullopt;
                elems[k] = *e;
            }
            return tuple(std::move(elems));
        }
        if (A.kind == SchemaKind::Option || B.kind == SchemaKind::Option) {
            // Some(x) is written as x: an Option's value unifies with the other side (or its value).
            const SchemaNode& O = A.kind == SchemaKind::Option ? A : B;
            const uint32_t other = A.kind == SchemaKind::Option ? b : a;
            const SchemaNode X = m_s.nodes[other];
            const uint32_t otherValue = X.kind == SchemaKind::Option ? X.elements[0] : other;
            auto e = A.kind == SchemaKind::Option ? unify(O.elements[0], otherValue, path) : unify(otherValue, O.elements[0], path);
            if (!e)
                return std::nullopt;
            const bool uncertain = O.maybeBare && (X.kind != SchemaKind::Option || X.maybeBare);
            return uncertain ? optionAt(path, *e, O.preferAlternative) : option(*e);
        }
        return std::nullopt;
    }
    /** The same layout apart from the path names of ambiguous nodes. */
    bool sameShape(uint32_t a, uint32_t b) const
    {
        if (a == b)
            return true;
        const SchemaNode& A = m_s.nodes[a];
        const SchemaNode& B = m_s.nodes[b];
        const bool pathNamed = A.kind == SchemaKind::Option || A.kind == SchemaKind::Either;
        if (A.kind != B.kind || (!pathNamed && A.name != B.name) || A.maybeBare != B.maybeBare || A.maybeTuple != B.maybeTuple
            || A.tupleArity != B.tupleArity || A.preferAlternative != B.preferAlternative || A.dtypeTable != B.dtypeTable
            || A.elements.size() != B.elements.size() || A.fields.size() != B.fields.size() || A.variants.size() != B.variants.size())
            return false;
        for (size_t k = 0; k < A.elements.size(); ++k)
            if (!sameShape(A.elements[k], B.elements[k]))
                return false;
        for (size_t k = 0; k < A.fields.size(); ++k)
            if (A.fields[k].name != B.fields[k].name || !sameShape(A.fields[k].type, B.fields[k].type))
                return false;
        for (size_t k = 0; k < A.variants.size(); ++k)
            if (A.variants[k].name != B.variants[k].name || A.variants[k].kind != B.variants[k].kind
                || (A.variants[k].kind != VariantKind::Unit && !sameShape(A.variants[k].payload, B.variants[k].payload)))
                return false;
        return true;
    }

    /**
     * A scalar field of a caller-state struct may be an `Option<T>`: MessagePack and JSON write Some(x)
     * exactly like x, bincode adds a 01 tag. The field becomes a maybe-bare Option (bare first) that
     * the decoder settles on the bytes. Its node is named after the record path so that two fields of
     * the same type are settled separately (a node is pinned to one reading for all its occurrences).
     */
    uint32_t maybeOptionalField(uint32_t v, uint32_t type, const std::string& path)
    {
        switch (m_t[v].kind) {
        case Kind::Bool:
        case Kind::UInt:
        case Kind::Int:
        case Kind::F32:
        case Kind::F64:
        case Kind::Str: return optionAt(path, type, true);
        default: return type;
        }
    }

    /**
     * Caller state and unknown structures, typed the way serde could have written them. Where the
     * twin cannot tell (a struct or a string-keyed map, a u8 or a usize, `()` or None, Some(x) or x,
     * a Vec or a tuple), the node holds both readings and the bincode bytes settle it.
     */
    uint32_t generic(uint32_t v, const std::string& path)
    {
        const Node& n = m_t[v];
        switch (n.kind) {
        case Kind::Nil: return nilAt(path);
        case Kind::Bool: return prim(SchemaKind::Bool);
        case Kind::UInt:
        case Kind::Int: return integer(v, path);
        case Kind::F32: return prim(SchemaKind::F32);
        case Kind::F64: return m_opt.floatWidthUnknown ? eitherAt(path, prim(SchemaKind::F64), prim(SchemaKind::F32)) : prim(SchemaKind::F64);
        case Kind::Str: return text(v, path);
        case Kind::Bin: return n.count == 16 ? sixteenBytes(v, path) : prim(SchemaKind::Bytes);
        case Kind::Array: {
            if (n.count == 2 && hasExactKeys(v + 1, {"entries"})) { // (ModuleDTypeRecord, U)
                const uint32_t entry = tuple({prim(SchemaKind::U64), prim(SchemaKind::Bool), dtype()});
                const uint32_t rec = intern(SchemaNode::structure("ModuleDTypeRecord", {{"entries", seq(entry)}}));
                return tuple({rec, generic(m_t[v + 1].end, appendIndexToPath(path, 1))});
            }
            if (n.count == 0) {
                // No element to type: any Vec reads as one 00; a sibling with elements says more (unify).
                const uint32_t empty = seq(prim(SchemaKind::Empty));
                m_unknownElement.insert(empty);
                return empty;
            }
            // A run of integers (a Vec<u64> of indices, a list of signed deltas) is typed at once from its
            // range: one node instead of one path-named node per element. Only a short array of mixed
            // signs may be a tuple of different widths ((u8, i16, i64)): that one takes the path below.
            constexpr uint64_t kTupleArityAtMost = 16;
            IntegerRange range;
            m_t.forEachChild(v, [&](uint32_t c) { range.add(m_t, c); });
            if (range.onlyIntegers && (!(range.anySigned && range.anyUnsigned) || n.count > kTupleArityAtMost))
                return seq(integer(range, appendIndexToPath(path, 0)), true, static_cast<uint32_t>(n.count), false);
            std::vector<uint32_t> elems;
            uint64_t i = 0;
            m_t.forEachChild(v, [&](uint32_t c) { elems.push_back(generic(c, appendIndexToPath(path, i++))); });
            // One element type for all (a Vec or a fixed array), else a tuple of different types.
            std::optional<uint32_t> common = elems[0];
            for (size_t k = 1; k < elems.size() && common; ++k)
                common = unify(*common, elems[k], path);
            if (!common)
                return tuple(std::move(elems));
            // Integers of one signedness are alike whatever their size ([3, 70000] is a Vec<u64>, not a tuple).
            const bool alike = std::all_of(elems.begin(), elems.end(), [&](uint32_t e) {
                return sameShape(e, elems[0]) || (isIntegerNode(e) && isIntegerNode(elems[0]) && isSignedNode(e) == isSignedNode(elems[0]));
            });
            if (alike)
                return seq(*common, true, static_cast<uint32_t>(n.count), false);
            // Elements the twin shows differently (a u8-sized value beside a negative one): a tuple of
            // those types first, a Vec of the type that holds them all second.
            return eitherAt(path, tuple(std::move(elems)), seq(*common));
        }
        case Kind::Map: {
            if (isTensorData(v))
                return tensorData();
            if (hasExactKeys(v, {"dtype", "loss_scale", "total_weight", "microbatches"}))
                return intern(SchemaNode::structure("WeightedAccumulationState",
                    {{"dtype", dtype()}, {"loss_scale", prim(SchemaKind::F64)}, {"total_weight", prim(SchemaKind::F64)},
                        {"microbatches", prim(SchemaKind::U64)}}));
            if (n.count == 1 && m_t.isStr(v + 1) && isVariantName(m_t.str(v + 1))) {
                // {"Name": value}: a newtype, tuple or struct variant (its index first in bincode), or a
                // struct or map of one entry; the bytes settle it.
                const std::string name(m_t.str(v + 1));
                const uint32_t payload = generic(m_t[v + 1].end, appendKeyToPath(path, name));
                return eitherAt(path, twinEnum(path, name, payload), genericMap(v, path + "{map}"));
            }
            return genericMap(v, path);
        }
        }
        return prim(SchemaKind::Empty);
    }

    uint32_t genericMap(uint32_t v, const std::string& path)
    {
        const Node& n = m_t[v];
        bool strKeys = true, identifiers = n.count > 0, boolKeys = true;
        IntegerRange keyRange;
        m_t.forEachEntry(v, [&](uint32_t k, uint32_t) {
            strKeys = strKeys && m_t.isStr(k);
            identifiers = identifiers && m_t.isStr(k) && isIdentifier(m_t.str(k));
            boolKeys = boolKeys && m_t[k].kind == Kind::Bool;
            keyRange.add(m_t, k);
        });
        const std::string keyPath = path + "{key}", valuePath = path + "{value}";
        if (n.count == 0) {
            note(path, "empty map taken as a map of strings (any map with no entries reads the same: one 00)");
            return map(prim(SchemaKind::Str), prim(SchemaKind::Empty));
        }
        // Field by field (a struct) and one value type for all (a map), if there is one.
        std::vector<SchemaField> fields;
        std::optional<uint32_t> value;
        bool firstEntry = true;
        m_t.forEachEntry(v, [&](uint32_t k, uint32_t val) {
            const std::string name = m_t.keyText(k);
            const std::string fieldPath = appendKeyToPath(path, name);
            const uint32_t t = generic(val, fieldPath);
            if (strKeys)
                fields.push_back({name, maybeOptionalField(val, t, fieldPath)});
            value = firstEntry ? std::optional(t) : value ? unify(*value, t, valuePath) : std::nullopt;
            firstEntry = false;
        });
        if (!strKeys) {
            // bool keys, else integer keys; mixed with other kinds (the twin is no map serde wrote) signed
            keyRange.anySigned = keyRange.anySigned || !keyRange.onlyIntegers;
            const uint32_t key = boolKeys ? prim(SchemaKind::Bool) : integer(keyRange, keyPath);
            return map(key, value ? *value : prim(SchemaKind::Empty));
        }
        const uint32_t st = intern(SchemaNode::structure("", std::move(fields)));
        if (!value) // values of different types: only a struct (maybe with renamed or non-ASCII field names)
            return st;
        const uint32_t m = map(prim(SchemaKind::Str), *value);
        // Field names that are Rust identifiers suggest a struct, any other keys a map; serde renames and
        // non-ASCII identifiers make either possible, and only the bincode bytes (names or none) can tell.
        return identifiers ? eitherAt(path, st, m) : eitherAt(path, m, st);
    }

    const Tape& m_t;
    const SchemaFromRecordOptions& m_opt;
    BincodeSchema m_s;
    std::vector<std::string> m_notes;
    std::unordered_map<std::string, uint32_t> m_interned;
    std::set<uint32_t> m_unknownElement; ///< Vec nodes derived from empty arrays: their element type is unknown
    static constexpr size_t kNamedInNotes = 8;    ///< paths a note names before it only counts
    std::vector<std::string> m_signTakenFromTwin; ///< the first paths of non-negative integers whose sign only the twin gives
    size_t m_signsTakenFromTwin = 0;              ///< how many there are
    DTypeTable m_table = DTypeTable::Burn017;
    bool m_halfFloat = false;
};

} // namespace

std::optional<std::string> schedulerRecordType(std::string_view scheduler)
{
    if (scheduler == "step" || scheduler == "i32")
        return "i32";
    if (scheduler == "linear" || scheduler == "cosine" || scheduler == "noam" || scheduler == "usize")
        return "usize";
    if (scheduler == "exponential" || scheduler == "f64")
        return "f64";
    if (scheduler == "constant" || scheduler == "unit")
        return "unit";
    return std::nullopt;
}

Result<SchemaFromRecordResult> schemaFromRecord(const Tape& record, const SchemaFromRecordOptions& options)
{
    Deriver d(record, options);
    return d.run();
}

} // namespace ckpt
