// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/codec/schema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace ckpt {

namespace {

struct KindSpelling {
    SchemaKind kind;
    const char* json;
};
// Primitive kinds have a plain string spelling in JSON.
constexpr std::array<KindSpelling, 20> kPrimitives = {{
    {SchemaKind::Bool, "bool"},
    {SchemaKind::U8, "u8"},
    {SchemaKind::U16, "u16"},
    {SchemaKind::U32, "u32"},
    {SchemaKind::U64, "u64"},
    {SchemaKind::Usize, "usize"},
    {SchemaKind::I8, "i8"},
    {SchemaKind::I16, "i16"},
    {SchemaKind::I32, "i32"},
    {SchemaKind::I64, "i64"},
    {SchemaKind::U128, "u128"},
    {SchemaKind::I128, "i128"},
    {SchemaKind::Char, "char"},
    {SchemaKind::F32, "f32"},
    {SchemaKind::F64, "f64"},
    {SchemaKind::Str, "str"},
    {SchemaKind::Bytes, "bytes"},
    {SchemaKind::Unit, "unit"},
    {SchemaKind::UnitStruct, "unit_struct"},
    {SchemaKind::Empty, "empty"},
}};

bool isPrimitive(SchemaKind k)
{
    return std::any_of(kPrimitives.begin(), kPrimitives.end(), [k](const KindSpelling& s) { return s.kind == k; });
}

const char* variantKindName(VariantKind k)
{
    switch (k) {
    case VariantKind::Unit: return "unit";
    case VariantKind::Newtype: return "newtype";
    case VariantKind::Tuple: return "tuple";
    case VariantKind::Struct: return "struct";
    }
    return "?";
}

} // namespace

const char* schemaKindName(SchemaKind k)
{
    for (const auto& s : kPrimitives)
        if (s.kind == k)
            return s.json;
    switch (k) {
    case SchemaKind::Option: return "option";
    case SchemaKind::Seq: return "seq";
    case SchemaKind::Map: return "map";
    case SchemaKind::Tuple: return "tuple";
    case SchemaKind::Struct: return "struct";
    case SchemaKind::Enum: return "enum";
    case SchemaKind::DType: return "dtype";
    case SchemaKind::Either: return "either";
    default: return "?";
    }
}

uint32_t variantIndex(const SchemaVariant& v, size_t position)
{
    return v.index == kIndexByPosition ? static_cast<uint32_t>(position) : v.index;
}

std::string_view dtypeTableName(DTypeTable t)
{
    switch (t) {
    case DTypeTable::Burn014: return "burn-0.14";
    case DTypeTable::Burn016: return "burn-0.16";
    case DTypeTable::Burn017: return "burn-0.17";
    case DTypeTable::Burn021: return "burn-0.21";
    }
    return "burn-0.17";
}

std::optional<DTypeTable> dtypeTableFromName(std::string_view name)
{
    for (DTypeTable t : {DTypeTable::Burn014, DTypeTable::Burn016, DTypeTable::Burn017, DTypeTable::Burn021})
        if (dtypeTableName(t) == name)
            return t;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Building

SchemaNode SchemaNode::of(SchemaKind kind, std::vector<uint32_t> elements)
{
    SchemaNode n;
    n.kind = kind;
    n.elements = std::move(elements);
    return n;
}

SchemaNode SchemaNode::option(uint32_t inner, bool maybeBare, bool preferBare)
{
    SchemaNode n = of(SchemaKind::Option, {inner});
    n.maybeBare = maybeBare;
    n.preferAlternative = maybeBare && preferBare;
    return n;
}

SchemaNode SchemaNode::seq(uint32_t element, bool maybeTuple, uint32_t arity, bool preferTuple)
{
    SchemaNode n = of(SchemaKind::Seq, {element});
    n.maybeTuple = maybeTuple;
    n.tupleArity = maybeTuple ? arity : 0;
    n.preferAlternative = maybeTuple && preferTuple;
    return n;
}

SchemaNode SchemaNode::structure(std::string name, std::vector<SchemaField> fields)
{
    SchemaNode n = of(SchemaKind::Struct);
    n.name = std::move(name);
    n.fields = std::move(fields);
    return n;
}

SchemaNode SchemaNode::enumeration(std::string name, std::vector<SchemaVariant> variants)
{
    SchemaNode n = of(SchemaKind::Enum);
    n.name = std::move(name);
    n.variants = std::move(variants);
    return n;
}

SchemaNode SchemaNode::dtype(DTypeTable table)
{
    SchemaNode n = of(SchemaKind::DType);
    n.dtypeTable = table;
    return n;
}

uint32_t BincodeSchema::add(SchemaNode n)
{
    nodes.push_back(std::move(n));
    return static_cast<uint32_t>(nodes.size() - 1);
}

uint32_t BincodeSchema::primitive(SchemaKind k)
{
    return add(SchemaNode::of(k));
}
uint32_t BincodeSchema::option(uint32_t inner, bool maybeBare, bool preferBare)
{
    return add(SchemaNode::option(inner, maybeBare, preferBare));
}
uint32_t BincodeSchema::seq(uint32_t element)
{
    return add(SchemaNode::seq(element));
}
uint32_t BincodeSchema::map(uint32_t key, uint32_t value)
{
    return add(SchemaNode::of(SchemaKind::Map, {key, value}));
}
uint32_t BincodeSchema::tuple(std::vector<uint32_t> elements)
{
    return add(SchemaNode::of(SchemaKind::Tuple, std::move(elements)));
}
uint32_t BincodeSchema::dtype(DTypeTable table)
{
    return add(SchemaNode::dtype(table));
}

uint32_t BincodeSchema::structure(std::string name, std::vector<SchemaField> fields)
{
    return add(SchemaNode::structure(std::move(name), std::move(fields)));
}

uint32_t BincodeSchema::enumeration(std::string name, std::vector<SchemaVariant> variants)
{
    return add(SchemaNode::enumeration(std::move(name), std::move(variants)));
}

// ---------------------------------------------------------------------------------------------
// Validation and sizes

namespace {
template<class F>
void forEachChild(const SchemaNode& n, F&& f)
{
    for (uint32_t c : n.elements)
        f(c);
    for (const auto& fd : n.fields)
        f(fd.type);
    for (const auto& v : n.variants)
        if (v.kind != VariantKind::Unit)
            f(v.payload);
}
} // namespace

Result<void> BincodeSchema::validate() const
{
    if (root >= nodes.size())
        return fail(ErrorCode::Invalid, "schema has no root node");
    // 0 = unvisited, 1 = on the current path, 2 = done. Depth-first with an explicit bound: the depth
    // limit also bounds the recursion of every decoder/encoder walking this schema.
    std::vector<uint8_t> state(nodes.size(), 0);
    std::vector<uint32_t> depthSeen(nodes.size(), 0);
    std::function<Result<void>(uint32_t, uint32_t)> visit = [&](uint32_t i, uint32_t depth) -> Result<void> {
        if (depth > kMaxDepth)
            return fail(ErrorCode::Limit, "schema nesting deeper than " + std::to_string(kMaxDepth));
        if (i >= nodes.size())
            return fail(ErrorCode::Invalid, "schema refers to node " + std::to_string(i) + " of " + std::to_string(nodes.size()));
        if (state[i] == 1)
            return fail(ErrorCode::Invalid, "schema is recursive (node " + std::to_string(i) + " contains itself)");
        if (state[i] == 2 && depthSeen[i] >= depth)
            return {};
        const SchemaNode& n = nodes[i];
        const size_t need = n.kind == SchemaKind::Option || n.kind == SchemaKind::Seq ? 1
            : n.kind == SchemaKind::Map || n.kind == SchemaKind::Either        ? 2
                                                                               : 0;
        if (need && n.elements.size() != need)
            return fail(ErrorCode::Invalid, std::string("schema ") + schemaKindName(n.kind) + " node " + std::to_string(i) + " needs "
                    + std::to_string(need) + " element type(s)");
        for (const auto& v : n.variants)
            if (v.kind != VariantKind::Unit && v.payload == kNoSchemaNode)
                return fail(ErrorCode::Invalid, "schema enum variant '" + v.name + "' has no payload type");
        if (n.kind == SchemaKind::Enum && n.variants.empty())
            return fail(ErrorCode::Invalid, "schema enum '" + n.name + "' has no variants");
        std::set<uint32_t> indices;
        for (size_t k = 0; k < n.variants.size(); ++k)
            if (!n.indicesFromTwin && !indices.insert(variantIndex(n.variants[k], k)).second)
                return fail(ErrorCode::Invalid, "schema enum '" + n.name + "' has two variants of index " + std::to_string(variantIndex(n.variants[k], k)));
        state[i] = 1;
        Result<void> r;
        forEachChild(n, [&](uint32_t c) {
            if (r)
                r = visit(c, depth + 1);
        });
        state[i] = 2;
        depthSeen[i] = std::max(depthSeen[i], depth);
        return r;
    };
    return visit(root, 0);
}

uint64_t BincodeSchema::minEncodedSize(uint32_t i) const
{
    const SchemaNode& n = nodes[i];
    switch (n.kind) {
    case SchemaKind::Unit:
    case SchemaKind::UnitStruct: return 0;
    case SchemaKind::F32: return 4;
    case SchemaKind::F64: return 8;
    case SchemaKind::Option: return n.maybeBare ? std::min<uint64_t>(1, minEncodedSize(n.elements[0])) : 1;
    case SchemaKind::Seq: return n.maybeTuple ? std::min<uint64_t>(1, n.tupleArity * minEncodedSize(n.elements[0])) : 1;
    case SchemaKind::Tuple: {
        uint64_t s = 0;
        for (uint32_t c : n.elements)
            s += minEncodedSize(c);
        return s;
    }
    case SchemaKind::Either: return std::min(minEncodedSize(n.elements[0]), minEncodedSize(n.elements[1]));
    case SchemaKind::Struct: {
        uint64_t s = 0;
        for (const auto& f : n.fields)
            s += minEncodedSize(f.type);
        return s;
    }
    default: return 1; // every other kind starts with at least one byte (tag, varint or raw byte)
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

std::string BincodeSchema::toJson() const
{
    using nlohmann::ordered_json;
    // Named structs/enums used more than once go to "types" so the file stays readable.
    std::vector<uint32_t> uses(nodes.size(), 0);
    std::function<void(uint32_t)> count = [&](uint32_t i) {
        if (uses[i]++ > 0)
            return;
        forEachChild(nodes[i], count);
    };
    if (root < nodes.size())
        count(root);
    std::map<uint32_t, std::string> typeName;
    std::set<std::string> taken;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        const SchemaNode& n = nodes[i];
        if (uses[i] > 1 && !n.name.empty() && (n.kind == SchemaKind::Struct || n.kind == SchemaKind::Enum)) {
            std::string name = n.name;
            for (int k = 2; taken.count(name); ++k)
                name = n.name + "#" + std::to_string(k);
            taken.insert(name);
            typeName[i] = name;
        }
    }
    std::function<ordered_json(uint32_t, bool)> emit = [&](uint32_t i, bool inlineNamed) -> ordered_json {
        const SchemaNode& n = nodes[i];
        if (!inlineNamed) {
            auto it = typeName.find(i);
            if (it != typeName.end())
                return ordered_json{{"ref", it->second}};
        }
        if (isPrimitive(n.kind))
            return schemaKindName(n.kind);
        ordered_json j = ordered_json::object();
        switch (n.kind) {
        case SchemaKind::Option:
            j["option"] = emit(n.elements[0], false);
            if (n.maybeBare) {
                j["maybe_bare"] = true;
                j["prefer_bare"] = n.preferAlternative;
            }
            break;
        case SchemaKind::Seq:
            j["seq"] = emit(n.elements[0], false);
            if (n.maybeTuple) {
                j["maybe_tuple"] = n.tupleArity;
                j["prefer_tuple"] = n.preferAlternative;
            }
            break;
        case SchemaKind::Map: j["map"] = ordered_json::array({emit(n.elements[0], false), emit(n.elements[1], false)}); break;
        case SchemaKind::Tuple: {
            auto a = ordered_json::array();
            for (uint32_t c : n.elements)
                a.push_back(emit(c, false));
            j["tuple"] = std::move(a);
            break;
        }
        case SchemaKind::Struct: {
            j["struct"] = n.name;
            auto a = ordered_json::array();
            for (const auto& f : n.fields)
                a.push_back(ordered_json::array({f.name, emit(f.type, false)}));
            j["fields"] = std::move(a);
            break;
        }
        case SchemaKind::Enum: {
            j["enum"] = n.name;
            auto a = ordered_json::array();
            for (const auto& v : n.variants) {
                auto e = ordered_json::array({v.name});
                if (v.kind == VariantKind::Tuple || v.kind == VariantKind::Struct)
                    e.push_back(variantKindName(v.kind));
                if (v.kind != VariantKind::Unit)
                    e.push_back(emit(v.payload, false));
                a.push_back(std::move(e));
            }
            j["variants"] = std::move(a);
            const bool byPosition = std::all_of(n.variants.begin(), n.variants.end(), [](const SchemaVariant& v) { return v.index == kIndexByPosition; });
            if (n.indicesFromTwin) {
                // A twin names the variants, not their indices: said, so that no edit reads them by position.
                j["indices"] = "unknown";
            } else if (!byPosition) {
                auto indices = ordered_json::array();
                for (size_t k = 0; k < n.variants.size(); ++k)
                    indices.push_back(variantIndex(n.variants[k], k));
                j["indices"] = std::move(indices);
            }
            break;
        }
        case SchemaKind::DType: j["dtype"] = std::string(dtypeTableName(n.dtypeTable)); break;
        case SchemaKind::Either: j["either"] = ordered_json::array({emit(n.elements[0], false), emit(n.elements[1], false)}); break;
        default: break;
        }
        return j;
    };
    ordered_json doc = ordered_json::object();
    doc["format"] = "ckpt-bincode-schema";
    doc["version"] = 1;
    doc["root"] = root < nodes.size() ? emit(root, false) : ordered_json();
    ordered_json types = ordered_json::object();
    for (const auto& [i, name] : typeName)
        types[name] = emit(i, true);
    if (!types.empty())
        doc["types"] = std::move(types);
    // Pretty, but short values stay on one line: a module schema remains readable in a diff.
    std::string out;
    std::function<void(const ordered_json&, int)> print = [&](const ordered_json& j, int indent) {
        const std::string flat = j.dump();
        if (flat.size() + size_t(indent) <= 100 || !j.is_structured() || j.empty()) {
            out += flat;
            return;
        }
        const std::string pad(size_t(indent + 1), '\t');
        out += j.is_object() ? "{\n" : "[\n";
        bool first = true;
        if (j.is_object()) {
            for (auto it = j.begin(); it != j.end(); ++it) {
                out += (first ? "" : ",\n") + pad + ordered_json(it.key()).dump() + ": ";
                print(it.value(), indent + 1);
                first = false;
            }
        } else {
            for (const auto& e : j) {
                out += (first ? "" : ",\n") + pad;
                print(e, indent + 1);
                first = false;
            }
        }
        out += "\n" + std::string(size_t(indent), '\t') + (j.is_object() ? "}" : "]");
    };
    print(doc, 0);
    return out + "\n";
}

namespace {
Result<BincodeSchema> schemaFromJson(std::string_view text);
}

Result<BincodeSchema> BincodeSchema::fromJson(std::string_view text)
{
    // Every access below checks its types first; this catch is the last resort that keeps a
    // nlohmann exception from leaving core if one was missed (a schema file is user input).
    try {
        return schemaFromJson(text);
    } catch (const std::exception& e) {
        return fail(ErrorCode::Invalid, std::string("schema: ") + e.what());
    }
}

namespace {

using nlohmann::json;

/** Reads a schema's JSON form: one function per type object ("option", "seq", ..., "dtype"). */
class SchemaJsonReader {
public:
    explicit SchemaJsonReader(const json* types)
        : m_types(types)
    { }

    /** The type \a j at \a where (a dotted path, for messages), added to the schema; its index. */
    Result<uint32_t> parse(const json& j, const std::string& where, uint32_t depth)
    {
        if (depth > BincodeSchema::kMaxDepth)
            return fail(ErrorCode::Limit, "schema nesting deeper than " + std::to_string(BincodeSchema::kMaxDepth));
        if (j.is_string()) {
            const auto& name = j.get_ref<const std::string&>();
            for (const auto& p : kPrimitives)
                if (name == p.json)
                    return m_s.primitive(p.kind);
            return bad(where, "unknown type '" + name + "'");
        }
        if (!j.is_object())
            return bad(where, "expected a type name or an object");
        if (j.contains("ref"))
            return reference(j, where, depth);
        SchemaNode n;
        Result<void> r;
        if (j.contains("option"))
            r = option(j, where, depth, n);
        else if (j.contains("seq"))
            r = seq(j, where, depth, n);
        else if (j.contains("map"))
            r = pair(j, "map", SchemaKind::Map, where, depth, n);
        else if (j.contains("tuple"))
            r = tuple(j, where, depth, n);
        else if (j.contains("struct"))
            r = structure(j, where, depth, n);
        else if (j.contains("enum"))
            r = enumeration(j, where, depth, n);
        else if (j.contains("either"))
            r = pair(j, "either", SchemaKind::Either, where, depth, n);
        else if (j.contains("dtype"))
            r = dtype(j, where, n);
        else
            return bad(where, "unknown type object");
        if (!r)
            return std::unexpected(r.error());
        return m_s.add(std::move(n));
    }

    BincodeSchema& schema() { return m_s; }

private:
    static std::unexpected<Error> bad(const std::string& where, const std::string& what)
    {
        return fail(ErrorCode::Invalid, "schema at " + (where.empty() ? std::string("root") : where) + ": " + what);
    }

    /** An optional boolean member: absent is false, anything but true/false is an error. */
    static Result<bool> flag(const json& j, const char* key, const std::string& where)
    {
        if (!j.contains(key))
            return false;
        if (!j[key].is_boolean())
            return bad(where, std::string("\"") + key + "\" must be true or false");
        return j[key].get<bool>();
    }

    Result<uint32_t> child(const json& c, const std::string& where, const std::string& sub, uint32_t depth) { return parse(c, where + sub, depth + 1); }

    /** {"ref": name}: a type of "types", read once and shared by every reference to it. */
    Result<uint32_t> reference(const json& j, const std::string& where, uint32_t depth)
    {
        if (!j["ref"].is_string())
            return bad(where, "\"ref\" must be a string");
        const std::string name = j["ref"];
        if (auto it = m_refDone.find(name); it != m_refDone.end())
            return it->second;
        if (!m_types || !m_types->contains(name))
            return bad(where, "unknown type reference '" + name + "'");
        if (m_refBusy.count(name))
            return bad(where, "type '" + name + "' contains itself");
        m_refBusy.insert(name);
        auto r = parse((*m_types)[name], "types." + name, depth + 1);
        m_refBusy.erase(name);
        if (r)
            m_refDone[name] = *r;
        return r;
    }

    Result<void> option(const json& j, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = SchemaKind::Option;
        auto c = child(j["option"], where, ".option", depth);
        if (!c)
            return std::unexpected(c.error());
        n.elements = {*c};
        auto bare = flag(j, "maybe_bare", where);
        auto preferBare = flag(j, "prefer_bare", where);
        if (!bare || !preferBare)
            return std::unexpected(!bare ? bare.error() : preferBare.error());
        n.maybeBare = *bare;
        n.preferAlternative = n.maybeBare && *preferBare;
        return {};
    }

    Result<void> seq(const json& j, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = SchemaKind::Seq;
        auto c = child(j["seq"], where, ".seq", depth);
        if (!c)
            return std::unexpected(c.error());
        n.elements = {*c};
        if (j.contains("maybe_tuple")) {
            if (!j["maybe_tuple"].is_number_unsigned() || j["maybe_tuple"].get<uint64_t>() > 0xffffffffu)
                return bad(where, "\"maybe_tuple\" must be an arity");
            n.maybeTuple = true;
            n.tupleArity = j["maybe_tuple"].get<uint32_t>();
            auto preferTuple = flag(j, "prefer_tuple", where);
            if (!preferTuple)
                return std::unexpected(preferTuple.error());
            n.preferAlternative = *preferTuple;
        }
        return {};
    }

    /** "map": [key, value] and "either": [preferred, other], two types each. */
    Result<void> pair(const json& j, const char* key, SchemaKind kind, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = kind;
        const bool isMap = kind == SchemaKind::Map;
        if (!j[key].is_array() || j[key].size() != 2)
            return bad(where, isMap ? "\"map\" must be [key type, value type]" : "\"either\" must be [preferred type, other type]");
        for (int k = 0; k < 2; ++k) {
            auto c = child(j[key][k], where, isMap ? (k ? ".map.value" : ".map.key") : ".either[" + std::to_string(k) + "]", depth);
            if (!c)
                return std::unexpected(c.error());
            n.elements.push_back(*c);
        }
        return {};
    }

    Result<void> tuple(const json& j, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = SchemaKind::Tuple;
        if (!j["tuple"].is_array())
            return bad(where, "\"tuple\" must be an array of types");
        for (size_t k = 0; k < j["tuple"].size(); ++k) {
            auto c = child(j["tuple"][k], where, "[" + std::to_string(k) + "]", depth);
            if (!c)
                return std::unexpected(c.error());
            n.elements.push_back(*c);
        }
        return {};
    }

    Result<void> structure(const json& j, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = SchemaKind::Struct;
        n.name = j["struct"].is_string() ? j["struct"].get<std::string>() : std::string();
        if (!j.contains("fields") || !j["fields"].is_array())
            return bad(where, "\"struct\" needs \"fields\": [[name, type], ...]");
        for (const auto& f : j["fields"]) {
            if (!f.is_array() || f.size() != 2 || !f[0].is_string())
                return bad(where, "a struct field must be [\"name\", type]");
            auto c = child(f[1], where, "." + f[0].get<std::string>(), depth);
            if (!c)
                return std::unexpected(c.error());
            n.fields.push_back({f[0].get<std::string>(), *c});
        }
        return {};
    }

    Result<void> enumeration(const json& j, const std::string& where, uint32_t depth, SchemaNode& n)
    {
        n.kind = SchemaKind::Enum;
        n.name = j["enum"].is_string() ? j["enum"].get<std::string>() : std::string();
        if (!j.contains("variants") || !j["variants"].is_array() || j["variants"].empty())
            return bad(where, "\"enum\" needs a non-empty \"variants\" array");
        for (const auto& v : j["variants"]) {
            if (!v.is_array() || v.empty() || v.size() > 3 || !v[0].is_string())
                return bad(where, "an enum variant must be [\"Name\"], [\"Name\", type] or [\"Name\", \"tuple\"|\"struct\", type]");
            SchemaVariant sv;
            sv.name = v[0];
            if (v.size() == 1) {
                sv.kind = VariantKind::Unit;
            } else {
                sv.kind = VariantKind::Newtype;
                if (v.size() == 3) {
                    if (v[1] == "tuple")
                        sv.kind = VariantKind::Tuple;
                    else if (v[1] == "struct")
                        sv.kind = VariantKind::Struct;
                    else
                        return bad(where, "variant kind must be \"tuple\" or \"struct\"");
                }
                auto c = child(v.back(), where, "." + sv.name, depth);
                if (!c)
                    return std::unexpected(c.error());
                sv.payload = *c;
            }
            n.variants.push_back(std::move(sv));
        }
        if (j.contains("indices")) {
            const json& ix = j["indices"];
            if (ix == "unknown") {
                // Read like a twin's enum without the twin: no index is known, so the enum reading fails
                // where it is tried (an Either's other reading may still fit) instead of going by position.
                n.indicesFromTwin = true;
                return {};
            }
            if (!ix.is_array() || ix.size() != n.variants.size())
                return bad(where, "\"indices\" must be an array with one bincode index per variant");
            for (size_t k = 0; k < ix.size(); ++k) {
                if (!ix[k].is_number_unsigned() || ix[k].get<uint64_t>() >= kIndexByPosition)
                    return bad(where, "a variant index must be an integer from 0 to 4294967294");
                n.variants[k].index = ix[k].get<uint32_t>();
            }
        }
        return {};
    }

    static Result<void> dtype(const json& j, const std::string& where, SchemaNode& n)
    {
        n.kind = SchemaKind::DType;
        auto t = j["dtype"].is_string() ? dtypeTableFromName(j["dtype"].get<std::string>()) : std::nullopt;
        if (!t)
            return bad(where, "\"dtype\" must be one of burn-0.14, burn-0.16, burn-0.17, burn-0.21");
        n.dtypeTable = *t;
        return {};
    }

    const json* m_types;
    BincodeSchema m_s;
    std::unordered_map<std::string, uint32_t> m_refDone;
    std::set<std::string> m_refBusy;
};

Result<BincodeSchema> schemaFromJson(std::string_view text)
{
    json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded())
        return fail(ErrorCode::Malformed, "schema is not valid JSON");
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != "ckpt-bincode-schema")
        return fail(ErrorCode::Invalid, "not a schema: expected an object with \"format\": \"ckpt-bincode-schema\"");
    if (!doc.contains("root"))
        return fail(ErrorCode::Invalid, "schema has no \"root\"");
    const json* types = doc.contains("types") && doc["types"].is_object() ? &doc["types"] : nullptr;
    SchemaJsonReader reader(types);
    auto r = reader.parse(doc["root"], "", 0);
    if (!r)
        return std::unexpected(r.error());
    BincodeSchema& s = reader.schema();
    s.root = *r;
    if (auto v = s.validate(); !v)
        return std::unexpected(v.error());
    return std::move(s);
}
} // namespace

} // namespace ckpt
