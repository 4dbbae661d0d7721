// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/pack/burnpackrecord.h"

#include "core/io/bytes.h"
#include "core/model/tensorprecision.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <regex>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace ckpt {

namespace fs = std::filesystem;
using pack::BurnpackDType;
using pack::BurnpackFile;
using pack::BurnpackScalar;

namespace {

using Role = RecordPart::Role;

/// `{id}.{field path}` of an optimizer record (§8.3): the decimal id, if the name has one.
std::optional<std::pair<uint64_t, std::string_view>> splitOptimizerName(std::string_view name)
{
    const size_t dot = name.find('.');
    if (dot == 0 || dot == std::string_view::npos)
        return std::nullopt;
    uint64_t id = 0;
    // NOLINTNEXTLINE(bugprone-suspicious-stringview-data-usage): from_chars reads [first, last), no terminator
    const auto r = std::from_chars(name.data(), name.data() + dot, id);
    if (r.ec != std::errc() || r.ptr != name.data() + dot)
        return std::nullopt;
    return std::pair{id, name.substr(dot + 1)};
}

/// The role of a file alone: by burn-train's file name where it says so, else by what it holds.
Role roleOf(const BurnpackFile& f, const std::string& name)
{
    const std::string stem = fs::path(name).filename().string();
    if (stem.starts_with("model-"))
        return Role::Model;
    if (stem.starts_with("optim-"))
        return Role::Optimizer;
    if (stem.starts_with("scheduler-"))
        return Role::Scheduler;
    for (const auto& [k, v] : f.scalars)
        if (k.ends_with(".__rank") && splitOptimizerName(k))
            return Role::Optimizer;
    if (f.tensors.empty())
        return Role::Scheduler; // scalars only (or nothing: a constant scheduler)
    return Role::Model;
}

void putScalar(TapeBuilder& b, const BurnpackScalar& s)
{
    b.beginMap();
    switch (s.kind) {
    case BurnpackScalar::Kind::Int: b.key("Int"); b.integer(s.i); break;
    case BurnpackScalar::Kind::UInt: b.key("UInt"); b.uinteger(s.u); break;
    case BurnpackScalar::Kind::Float: b.key("Float"); b.f64(s.f); break;
    case BurnpackScalar::Kind::Bool: b.key("Bool"); b.boolean(s.b); break;
    }
    b.end();
}

void putDType(TapeBuilder& b, const BurnpackDType& d)
{
    if (d.kind == BurnpackDType::Kind::Bool && !d.legacyBool) {
        b.beginMap();
        b.key("Bool");
        b.str(boolStoreName(d.boolStore));
        b.end();
        return;
    }
    b.str(d.kind == BurnpackDType::Kind::Bool ? std::string("Bool") : d.name());
}

/// Where a part's tensors landed on the tape.
struct PartNodes {
    uint32_t node = 0;
    std::vector<uint32_t> descriptor;       ///< per tensor (file's name order): its descriptor map
    std::vector<uint32_t> offsets;          ///< per tensor: its data_offsets array
    std::optional<uint32_t> scalars;
    std::vector<uint32_t> scalarValue;      ///< per scalar: its {Variant: value} map
};

/// The file as its CBOR metadata says it: {tensors: {name: {dtype, shape, data_offsets, param_id}}, metadata, scalars}.
PartNodes putPart(TapeBuilder& b, const BurnpackFile& f)
{
    PartNodes out;
    out.node = b.beginMap();
    b.key("tensors");
    b.beginMap();
    for (const auto& t : f.tensors) {
        b.key(t.name);
        out.descriptor.push_back(b.beginMap());
        b.key("dtype");
        putDType(b, t.dtype);
        b.key("shape");
        b.beginArray();
        for (uint64_t d : t.shape)
            b.uinteger(d);
        b.end();
        b.key("data_offsets");
        out.offsets.push_back(b.beginArray());
        b.uinteger(t.start);
        b.uinteger(t.end);
        b.end();
        if (t.paramId) {
            b.key("param_id");
            b.uinteger(*t.paramId);
        }
        b.end();
    }
    b.end();
    if (!f.metadata.empty()) {
        b.key("metadata");
        b.beginMap();
        for (const auto& [k, v] : f.metadata) {
            b.key(k);
            b.str(v);
        }
        b.end();
    }
    if (!f.scalars.empty()) {
        b.key("scalars");
        out.scalars = b.beginMap();
        for (const auto& [k, v] : f.scalars) {
            b.key(k);
            out.scalarValue.push_back(b.size());
            putScalar(b, v);
        }
        b.end();
    }
    b.end();
    return out;
}

/**
 * A QFloat's stored scheme as compact JSON in its stored key order, for showing it: both spellings
 * (QuantLevel/QuantParam up to 0.21, BlockScale/ScaleDtype since burn PR 5262) and whatever a later
 * cubecl writes, since the payload stays opaque either way. The reader has already walked these
 * bytes within ciborium's recursion limit, so nlohmann's recursive parser meets no depth bomb here;
 * "" for a scheme JSON cannot spell (a tag, a non-text key).
 */
std::string schemeJson(const std::vector<uint8_t>& cbor)
{
    const auto j = nlohmann::ordered_json::from_cbor(cbor.begin(), cbor.end(), true, false);
    return j.is_discarded() ? std::string() : j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

TensorEntry entryOf(const BurnpackFile& f, size_t i, const PartNodes& nodes)
{
    const auto& t = f.tensors[i];
    TensorEntry e;
    e.path = t.name;
    e.dtype = t.dtype.dtype();
    e.boolStore = t.dtype.store();
    if (t.dtype.kind == BurnpackDType::Kind::QFloat)
        e.quant = schemeJson(t.dtype.qfloatScheme);
    e.shape = t.shape;
    e.numel = 1;
    for (uint64_t d : t.shape)
        e.numel = (e.numel != 0 && d > UINT64_MAX / e.numel) ? UINT64_MAX : e.numel * d;
    e.bytes = t.end - t.start;
    e.offset = f.dataStart + t.start; // absolute in the file (cli-contract.md "burnpack")
    e.node = nodes.descriptor[i];
    e.dataNode = nodes.offsets[i];
    e.view = t.data;
    if (t.paramId)
        e.paramId = paramIdFromU64(*t.paramId);
    return e;
}

std::optional<BurnpackScalar> scalarNamed(const BurnpackFile& f, const std::string& name)
{
    for (const auto& [k, v] : f.scalars)
        if (k == name)
            return v;
    return std::nullopt;
}

std::optional<uint64_t> unsignedOf(const BurnpackScalar& s)
{
    if (s.kind == BurnpackScalar::Kind::UInt)
        return s.u;
    if (s.kind == BurnpackScalar::Kind::Int && s.i >= 0)
        return uint64_t(s.i);
    return std::nullopt;
}

/// The optimizer from the state's field names (burn-optim 0.22, §8.3).
std::string classifyOptimizer(const std::vector<std::string>& fields)
{
    auto has = [&](std::string_view f) { return std::ranges::find(fields, f) != fields.end(); };
    if (has("momentum.moment_1"))
        return "Adam/AdamW";
    if (has("momentum.exp_avg"))
        return "Adan";
    if (has("square_avg.square_avg"))
        return "RmsProp";
    if (has("lr_decay.sum"))
        return "AdaGrad";
    if (has("momentum.velocity"))
        return "SGD/Muon";
    if (fields.empty())
        return "SGD"; // state without tensors: SGD without momentum writes only its rank
    return "unknown";
}

/// What a scheduler's scalars say (§8.4): the kind of scheduler, and its position in words.
SchedulerInfo schedulerOf(const BurnpackFile& f, uint32_t node)
{
    SchedulerInfo s;
    s.node = node;
    if (f.scalars.empty()) {
        s.kind = "constant";
        s.description = "no scalars: a constant learning rate (or a scheduler without state)";
        return s;
    }
    static const std::pair<std::string_view, std::string_view> kFields[] = {{"remaining_iters", "linear"},
        {"current_iter", "cosine"}, {"previous_lr", "exponential"}, {"step", "noam"}, {"iter_idx", "step"}};
    std::vector<std::string> kinds, parts;
    for (const auto& [name, value] : f.scalars) {
        const std::string_view field = std::string_view(name).substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
        for (const auto& [k, kind] : kFields)
            if (field == k)
                kinds.emplace_back(kind);
        std::string v;
        switch (value.kind) {
        case BurnpackScalar::Kind::Int: v = std::to_string(value.i); break;
        case BurnpackScalar::Kind::UInt: v = std::to_string(value.u); break;
        case BurnpackScalar::Kind::Float: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.17g", value.f);
            v = buf;
            break;
        }
        case BurnpackScalar::Kind::Bool: v = value.b ? "true" : "false"; break;
        }
        parts.push_back(name);
        parts.back().append("=").append(v);
    }
    std::ranges::sort(kinds);
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    s.kind = kinds.size() == 1 && f.scalars.size() == 1 ? kinds.front() : "composed";
    s.description = "LrSchedulerRecord scalars";
    for (size_t i = 0; i < parts.size(); ++i)
        s.description += (i == 0 ? ": " : ", ") + parts[i];
    return s;
}

/// Indexes a part's tensors into \a r, and its optimizer state or scheduler position.
void indexPart(Record& r, const RecordPart& part, const PartNodes& nodes, const std::vector<size_t>& physicalOrder)
{
    const BurnpackFile& f = burnpackFileOf(part);
    // a refused tensor (its bytes are not its shape's) stays in the tree, but no view reads it
    std::vector<size_t> order;
    for (size_t i : physicalOrder)
        if (f.tensors[i].refused.empty())
            order.push_back(i);
    switch (part.role) {
    case Role::Model:
        r.moduleNode = part.node;
        for (size_t i : order) {
            TensorEntry e = entryOf(f, i, nodes);
            e.role = TensorRole::Param;
            if (f.tensors[i].paramId) {
                ParamEntry p;
                p.id = e.paramId;
                p.numericId = f.tensors[i].paramId;
                p.modulePath = e.path;
                p.tensor = r.tensors.size();
                r.params.push_back(std::move(p));
            }
            r.tensors.push_back(std::move(e));
        }
        break;
    case Role::Optimizer: {
        r.optimizerNode = part.node;
        // one entry per parameter id, in the decimal names' order (the file's)
        std::map<uint64_t, size_t> entryOfId;
        std::vector<std::vector<std::string>> fields;
        auto entryFor = [&](uint64_t id) -> OptimizerEntry& {
            auto [it, added] = entryOfId.try_emplace(id, r.optimizer.size());
            if (added) {
                OptimizerEntry oe;
                oe.paramId = paramIdFromU64(id);
                oe.path = std::to_string(id);
                oe.node = part.node;
                oe.stateNode = part.node;
                if (auto rank = scalarNamed(f, oe.path + ".__rank"))
                    oe.rank = uint32_t(unsignedOf(*rank).value_or(0));
                for (const char* counter : {".momentum.time", ".lr_decay.time"})
                    if (auto t = scalarNamed(f, oe.path + counter))
                        oe.time = unsignedOf(*t);
                r.optimizer.push_back(std::move(oe));
                fields.emplace_back();
            }
            return r.optimizer[it->second];
        };
        for (size_t i : order) {
            TensorEntry e = entryOf(f, i, nodes);
            e.role = TensorRole::Optimizer;
            if (auto split = splitOptimizerName(e.path)) {
                const std::string field(split->second);
                e.stateName = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
                if (e.paramId.empty())
                    e.paramId = paramIdFromU64(split->first);
                OptimizerEntry& oe = entryFor(split->first);
                oe.tensors.push_back(r.tensors.size());
                oe.amsgrad = oe.amsgrad || field == "momentum.max_moment_2";
                fields[entryOfId[split->first]].push_back(field);
            }
            r.tensors.push_back(std::move(e));
        }
        for (const auto& [name, value] : f.scalars)
            if (auto split = splitOptimizerName(name))
                entryFor(split->first);
        for (const auto& [id, index] : entryOfId)
            r.optimizer[index].optimizer = classifyOptimizer(fields[index]);
        break;
    }
    case Role::Scheduler:
        for (size_t i : order) { // a scheduler record has no tensors; anything else is still listed
            TensorEntry e = entryOf(f, i, nodes);
            r.tensors.push_back(std::move(e));
        }
        // a constant scheduler writes no scalars: the file itself is its (empty) record
        r.scheduler = schedulerOf(f, nodes.scalars.value_or(part.node));
        r.schedulerNode = nodes.scalars.value_or(part.node);
        break;
    }
}

void addWarnings(Record& r, const BurnpackFile& f, const std::string& file, bool named)
{
    for (const auto& w : f.warnings)
        r.warnings.push_back((named ? file + ": " : std::string()) + "offset " + std::to_string(w.offset) + ": " + w.what);
    // read leniently although Burn rejects it: a partial record, as a damaged envelope record is
    if (!f.damage.empty() && r.damage.empty()) {
        r.partial = true;
        r.damage = file + ": " + f.damage;
    }
}

RecordKind kindOf(Role role)
{
    switch (role) {
    case Role::Model: return RecordKind::ModuleRecord;
    case Role::Optimizer: return RecordKind::OptimizerRecord;
    case Role::Scheduler: return RecordKind::SchedulerRecord;
    }
    return RecordKind::ModuleRecord;
}

} // namespace

const pack::BurnpackFile& burnpackFileOf(const RecordPart& part)
{
    return *static_cast<const BurnpackFile*>(part.container.get());
}

std::string_view burnpackRoleName(RecordPart::Role role)
{
    switch (role) {
    case Role::Model: return "model";
    case Role::Optimizer: return "optim";
    case Role::Scheduler: return "scheduler";
    }
    return "model";
}

Result<std::shared_ptr<const Record>> openBurnpackRecord(const BytesPtr& bytes, const std::string& name, const OpenOptions& options)
{
    if (options.wholeCheckpoint)
        if (auto triple = burnpackTripleOf(name); triple && (!triple->optim.empty() || !triple->scheduler.empty()))
            return openBurnpackTriple(*triple, options);
    // A scheduler record never reads its tensors (LrSchedulerRecord ignores them): read it as Burn does.
    pack::BurnpackReadOptions ro;
    ro.checkTensorRanges = !fs::path(name).filename().string().starts_with("scheduler-");
    ro.lenient = options.lenient;
    auto parsed = pack::readBurnpack(bytes, ro);
    if (!parsed)
        return std::unexpected(std::move(parsed.error()).withFile(name));
    auto file = std::make_shared<const BurnpackFile>(std::move(*parsed));
    auto rec = std::make_shared<Record>();
    rec->file = name;
    rec->fileSize = bytes->size();
    rec->decodedSize = bytes->size();
    rec->recorder = Recorder::Burnpack;
    RecordPart part;
    part.role = roleOf(*file, name);
    part.file = name;
    part.container = file;
    rec->kind = kindOf(part.role);
    TapeBuilder b(bytes); // the tape's source is the file: its Buffer in Python is the mapping
    const PartNodes nodes = putPart(b, *file);
    rec->tape = std::move(b).finish();
    part.node = nodes.node;
    part.scalarsNode = nodes.scalars;
    indexPart(*rec, part, nodes, file->physicalOrder());
    rec->parts.push_back(std::move(part));
    settleTensorPrecision(*rec);
    addWarnings(*rec, *file, name, false);
    return std::shared_ptr<const Record>(std::move(rec));
}

std::optional<BurnpackTriple> burnpackTripleOf(const std::string& modelPath)
{
    static const std::regex kModel(R"(^model-(\d+)\.bpk$)");
    const fs::path p(modelPath);
    const std::string name = p.filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, kModel))
        return std::nullopt;
    BurnpackTriple t;
    t.model = modelPath;
    uint64_t epoch = 0;
    if (std::from_chars(name.data() + m.position(1), name.data() + m.position(1) + m.length(1), epoch).ec == std::errc())
        t.epoch = epoch;
    std::error_code ec;
    for (auto [kind, out] : {std::pair{"optim-", &t.optim}, std::pair{"scheduler-", &t.scheduler}}) {
        const fs::path sibling = p.parent_path() / (std::string(kind) + m[1].str() + ".bpk");
        if (fs::is_regular_file(sibling, ec))
            *out = sibling.string();
    }
    return t;
}

Result<std::shared_ptr<const Record>> openBurnpackTriple(const BurnpackTriple& triple, const OpenOptions& options)
{
    struct Loaded {
        Role role;
        std::string file;
        std::shared_ptr<const BurnpackFile> pack;
    };
    std::vector<Loaded> loaded;
    auto rec = std::make_shared<Record>();
    rec->file = triple.model;
    rec->kind = RecordKind::BurnTrainCheckpoint;
    rec->recorder = Recorder::Burnpack;
    rec->epoch = triple.epoch;
    for (const auto& [role, path] : {std::pair{Role::Model, &triple.model}, std::pair{Role::Optimizer, &triple.optim},
             std::pair{Role::Scheduler, &triple.scheduler}}) {
        if (path->empty()) {
            rec->warnings.push_back("no " + std::string(burnpackRoleName(role)) + " file beside " + triple.model
                + (role == Role::Optimizer ? ": Burn 0.22 starts the optimizer from scratch" : ": Burn 0.22 starts the scheduler from scratch"));
            continue;
        }
        pack::BurnpackReadOptions ro;
        ro.checkTensorRanges = role != Role::Scheduler;
        ro.lenient = options.lenient;
        auto parsed = pack::readBurnpackFile(*path, ro);
        if (!parsed)
            return std::unexpected(std::move(parsed.error()));
        rec->fileSize += parsed->source ? parsed->source->size() : 0;
        loaded.push_back({role, *path, std::make_shared<const BurnpackFile>(std::move(*parsed))});
    }
    rec->decodedSize = rec->fileSize;

    TapeBuilder b(loaded.empty() ? BytesPtr() : loaded.front().pack->source);
    b.beginMap();
    std::vector<PartNodes> nodes;
    for (const auto& l : loaded) {
        b.key(burnpackRoleName(l.role));
        nodes.push_back(putPart(b, *l.pack));
    }
    b.end();
    rec->tape = std::move(b).finish();

    Record optimizer; // the optimizer part indexed on its own, then merged beside the parameters
    for (size_t i = 0; i < loaded.size(); ++i) {
        RecordPart part{loaded[i].role, loaded[i].file, loaded[i].pack, nodes[i].node, nodes[i].scalars};
        const BurnpackFile& f = *loaded[i].pack;
        if (part.role == Role::Optimizer)
            indexPart(optimizer, part, nodes[i], f.physicalOrder());
        else
            indexPart(*rec, part, nodes[i], f.physicalOrder());
        addWarnings(*rec, f, part.file, true);
        rec->parts.push_back(std::move(part));
    }
    rec->optimizerNode = optimizer.optimizerNode;

    // Merge: each parameter followed by its optimizer tensors; what has no parameter comes last.
    std::unordered_map<std::string, std::vector<size_t>> stateOf;
    for (size_t i = 0; i < optimizer.tensors.size(); ++i)
        stateOf[optimizer.tensors[i].paramId].push_back(i);
    std::vector<size_t> newIndex(optimizer.tensors.size(), SIZE_MAX), newModelIndex(rec->tensors.size());
    std::vector<TensorEntry> merged;
    merged.reserve(rec->tensors.size() + optimizer.tensors.size());
    for (size_t i = 0; i < rec->tensors.size(); ++i) {
        const std::string id = rec->tensors[i].paramId;
        newModelIndex[i] = merged.size();
        merged.push_back(std::move(rec->tensors[i]));
        if (auto it = stateOf.find(id); !id.empty() && it != stateOf.end()) {
            for (size_t k : it->second) {
                newIndex[k] = merged.size();
                merged.push_back(optimizer.tensors[k]);
            }
            stateOf.erase(it);
        }
    }
    for (size_t k = 0; k < optimizer.tensors.size(); ++k)
        if (newIndex[k] == SIZE_MAX) {
            newIndex[k] = merged.size();
            merged.push_back(optimizer.tensors[k]);
        }
    rec->tensors = std::move(merged);
    for (auto& p : rec->params)
        p.tensor = newModelIndex[p.tensor];
    for (auto& oe : optimizer.optimizer) {
        for (size_t& t : oe.tensors)
            t = newIndex[t];
        rec->optimizer.push_back(std::move(oe));
    }
    // Names of the two files cannot meet in practice (an optimizer name starts with a 20-digit id),
    // but a path must name one tensor.
    std::unordered_map<std::string_view, size_t> seen;
    for (const auto& t : rec->tensors)
        if (!seen.try_emplace(t.path, 0).second)
            rec->warnings.push_back("the model and the optimizer both hold a tensor named " + t.path + ": `show` finds the model's");
    settleTensorPrecision(*rec);
    return std::shared_ptr<const Record>(std::move(rec));
}

Result<void> resaveBurnpack(const Record& record, const std::string& path)
{
    if (record.parts.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: re-save each of them");
    return pack::writeBurnpack(path, pack::contentOf(burnpackFileOf(record.parts.front())));
}

std::vector<std::pair<std::string, BurnpackScalar>> burnpackScalarsOf(const Tape& t, uint32_t scalarsMap)
{
    std::vector<std::pair<std::string, BurnpackScalar>> out;
    if (!t.isMap(scalarsMap))
        return out;
    t.forEachEntry(scalarsMap, [&](uint32_t k, uint32_t v) {
        if (!t.isMap(v) || t[v].count != 1)
            return;
        const std::string variant = t.keyText(v + 1);
        const uint32_t x = t[v + 1].end;
        const Kind kind = t[x].kind;
        BurnpackScalar s;
        if (variant == "Bool" && kind == Kind::Bool)
            s = BurnpackScalar::makeBool(t.boolean(x));
        else if (variant == "Float" && t.asNumber(x))
            s = BurnpackScalar::makeFloat(*t.asNumber(x));
        else if (variant == "UInt" && t.asU64(x))
            s = BurnpackScalar::makeUInt(*t.asU64(x));
        else if (variant == "Int" && kind == Kind::Int && !t.isWide(x)) // burnpack's Int is an i64
            s = BurnpackScalar::makeInt(t.i64(x));
        else if (variant == "Int" && kind == Kind::UInt && !t.isWide(x) && t.u64(x) <= uint64_t(INT64_MAX))
            s = BurnpackScalar::makeInt(int64_t(t.u64(x)));
        else
            return;
        out.emplace_back(t.keyText(k), s);
    });
    return out;
}

namespace {
/// The record's file with the metadata and scalars of \a edited (applyEdits' tape of that record).
Result<pack::BurnpackContent> editedContent(const Record& record, const Tape& edited)
{
    if (record.parts.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: edit one of them");
    pack::BurnpackContent content = pack::contentOf(burnpackFileOf(record.parts.front()));
    content.metadata.clear();
    if (auto m = edited.find(0, "metadata"); m && edited.isMap(*m))
        edited.forEachEntry(*m, [&](uint32_t k, uint32_t v) {
            if (edited.isStr(v))
                content.metadata.emplace_back(edited.keyText(k), std::string(edited.str(v)));
        });
    if (auto s = edited.find(0, "scalars"))
        content.scalars = burnpackScalarsOf(edited, *s);
    else
        content.scalars.clear();
    return content;
}
} // namespace

Result<void> saveEditedBurnpack(const Record& record, const Tape& edited, const std::string& path)
{
    auto content = editedContent(record, edited);
    if (!content)
        return std::unexpected(content.error());
    return pack::writeBurnpack(path, *content);
}

Result<std::shared_ptr<const Record>> burnpackRecordOf(const pack::BurnpackContent& content, const std::string& name)
{
    auto bytes = pack::encodeBurnpack(content);
    if (!bytes)
        return std::unexpected(bytes.error());
    return openBurnpackRecord(makeBytes(std::move(*bytes)), name);
}

Result<std::shared_ptr<const Record>> editedBurnpackRecord(const Record& record, const Tape& edited)
{
    auto content = editedContent(record, edited);
    if (!content)
        return std::unexpected(content.error());
    return burnpackRecordOf(*content, record.file);
}

} // namespace ckpt
