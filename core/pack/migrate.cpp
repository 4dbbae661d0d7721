// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/pack/migrate.h"

#include "core/model/schedule.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>

namespace ckpt {

namespace fs = std::filesystem;
using pack::BurnpackContent;
using pack::BurnpackDType;
using pack::BurnpackEntry;
using pack::BurnpackScalar;

namespace {

std::string joined(const std::string& base, std::string_view segment)
{
    return base.empty() ? std::string(segment) : base + "." + std::string(segment);
}

/// Builds one file's content from 0.21 tensors, widening F16 (half-precision records) to F32 exactly.
struct ContentBuilder {
    const Record& record;
    MigratedTriple& out;
    std::unordered_map<uint32_t, size_t> tensorAtNode;
    uint64_t widened = 0, legacy = 0, quantized = 0;

    explicit ContentBuilder(const Record& r, MigratedTriple& o) : record(r), out(o)
    {
        for (size_t i = 0; i < r.tensors.size(); ++i)
            tensorAtNode.emplace(r.tensors[i].node, i);
    }

    std::optional<size_t> tensorAt(uint32_t node) const
    {
        auto it = tensorAtNode.find(node);
        return it == tensorAtNode.end() ? std::nullopt : std::optional(it->second);
    }

    /// The entry for tensor \a index named \a name, or nothing (with a count for the report) when 0.22 cannot hold it.
    std::optional<BurnpackEntry> entry(size_t index, std::string name, std::optional<uint64_t> paramId)
    {
        const TensorEntry& t = record.tensors[index];
        if (t.legacy) {
            ++legacy;
            return std::nullopt;
        }
        auto dtype = BurnpackDType::of(t.dtype);
        if (!dtype) {
            ++quantized;
            return std::nullopt;
        }
        std::span<const uint8_t> data = record.payload(t);
        if (t.dtype == DType::F16 && record.precision == Precision::Half) {
            // 0.21 widened a half record's floats to the backend's while loading; 0.22 loads the dtype as stored
            std::vector<uint8_t> wide(data.size() * 2);
            for (size_t k = 0; k + 1 < data.size(); k += 2) {
                uint16_t h = 0;
                std::memcpy(&h, data.data() + k, 2);
                const float f = halfToFloat(h);
                std::memcpy(wide.data() + k * 2, &f, 4);
            }
            out.owned->push_back(std::move(wide));
            data = out.owned->back();
            dtype->kind = BurnpackDType::Kind::F32;
            ++widened;
        }
        return BurnpackEntry{std::move(name), *dtype, t.shape, paramId, data};
    }

    void report(const std::string& what)
    {
        if (widened)
            out.lost.push_back(what + ": " + std::to_string(widened)
                + " half-precision tensors widened to F32 (exact, as 0.21 loading did; the f16 rounding of the original stays)");
        if (legacy)
            out.lost.push_back(what + ": " + std::to_string(legacy) + " Burn <= 0.13 {value, shape} tensors not carried (no byte payload)");
        if (quantized)
            out.lost.push_back(what + ": " + std::to_string(quantized) + " QFloat tensors not carried (their scheme encoding differs between Burn versions)");
        widened = legacy = quantized = 0;
    }
};

/// §10.1: the module tree to ModuleRecord names; ParamSerde {id, param} leaves become tensors.
void walkModule(ContentBuilder& cb, const Tape& t, uint32_t node, const std::string& name, BurnpackContent& content,
    std::unordered_map<std::string, std::string>& nameOfId, uint64_t& badIds)
{
    if (t.isMap(node)) {
        auto id = t.find(node, "id");
        auto param = t.find(node, "param");
        if (id && param && t.isStr(*id)) {
            if (auto index = cb.tensorAt(*param)) {
                const std::string idText(t.str(*id));
                const auto u = paramIdToU64(idText);
                if (!u)
                    ++badIds;
                if (auto e = cb.entry(*index, name, u)) {
                    nameOfId[idText] = name;
                    content.tensors.push_back(std::move(*e));
                }
                return;
            }
        }
        if (auto index = cb.tensorAt(node)) { // a tensor without ParamSerde (Ruda's running state, ...)
            if (auto e = cb.entry(*index, name, std::nullopt))
                content.tensors.push_back(std::move(*e));
            return;
        }
        t.forEachEntry(node, [&](uint32_t k, uint32_t v) { walkModule(cb, t, v, joined(name, t.keyText(k)), content, nameOfId, badIds); });
    } else if (t.isArray(node)) {
        uint64_t i = 0;
        t.forEachChild(node, [&](uint32_t c) { walkModule(cb, t, c, joined(name, std::to_string(i++)), content, nameOfId, badIds); });
    }
}

/// §10.2: one optimizer state item to `{u}.{field path}` tensors and scalars.
void walkState(ContentBuilder& cb, const Tape& t, uint32_t node, const std::string& name, uint64_t u, BurnpackContent& content, std::vector<std::string>& lost)
{
    if (auto index = cb.tensorAt(node)) {
        if (auto e = cb.entry(*index, name, u))
            content.tensors.push_back(std::move(*e));
        return;
    }
    switch (t[node].kind) {
    case Kind::Map: t.forEachEntry(node, [&](uint32_t k, uint32_t v) { walkState(cb, t, v, joined(name, t.keyText(k)), u, content, lost); }); break;
    case Kind::Array: {
        uint64_t i = 0;
        t.forEachChild(node, [&](uint32_t c) { walkState(cb, t, c, joined(name, std::to_string(i++)), u, content, lost); });
        content.scalars.emplace_back(joined(name, "len"), BurnpackScalar::makeUInt(i));
        break;
    }
    case Kind::UInt:
    case Kind::Int:
        if (t.isWide(node)) // rounding it into a scalar would change the value
            lost.push_back(name + ": the 128-bit integer " + t.integerText(node) + " has no burnpack scalar (64 bits at most)");
        else if (t[node].kind == Kind::UInt)
            content.scalars.emplace_back(name, BurnpackScalar::makeUInt(t.u64(node)));
        else
            content.scalars.emplace_back(name, BurnpackScalar::makeInt(t.i64(node)));
        break;
    case Kind::F32:
    case Kind::F64: content.scalars.emplace_back(name, BurnpackScalar::makeFloat(t.f64(node))); break;
    case Kind::Bool: content.scalars.emplace_back(name, BurnpackScalar::makeBool(t.boolean(node))); break;
    default: break; // nil: an Option that is None writes nothing
    }
}

/// §10.3: a scheduler item to scalars under \a prefix ("0." for the learner's scheduler).
void schedulerScalars(const Tape& t, uint32_t node, const std::string& prefix, const std::string& usizeKind, BurnpackContent& content,
    std::vector<std::string>& lost)
{
    if (t.isWide(node)) {
        lost.push_back("scheduler: a 128-bit integer " + t.integerText(node) + " is no scheduler's record and is not carried");
        return;
    }
    switch (t[node].kind) {
    case Kind::Nil: return; // constant
    case Kind::Int: content.scalars.emplace_back(prefix + "iter_idx", BurnpackScalar::makeInt(t.i64(node))); return;
    case Kind::F32:
    case Kind::F64: content.scalars.emplace_back(prefix + "previous_lr", BurnpackScalar::makeFloat(t.f64(node))); return;
    case Kind::UInt: {
        const uint64_t v = t.u64(node);
        if (usizeKind == "linear")
            content.scalars.emplace_back(prefix + "remaining_iters", BurnpackScalar::makeUInt(v));
        else if (usizeKind == "cosine")
            content.scalars.emplace_back(prefix + "current_iter", BurnpackScalar::makeUInt(v));
        else if (usizeKind == "noam")
            content.scalars.emplace_back(prefix + "step", BurnpackScalar::makeFloat(double(v)));
        else if (usizeKind == "step" && v <= uint64_t(INT64_MAX)) // StepLr's i32 written as a non-negative integer
            content.scalars.emplace_back(prefix + "iter_idx", BurnpackScalar::makeInt(int64_t(v)));
        else
            lost.push_back("scheduler: the position " + std::to_string(v)
                + " is a usize of a linear, cosine or noam scheduler and the record does not say which: pass --scheduler linear|cosine|noam");
        if (usizeKind == "cosine")
            lost.emplace_back("scheduler: a cosine schedule past num_iters restarts in 0.21 and keeps decaying in 0.22 (format-burnpack.md §10.4)");
        if (usizeKind == "noam")
            lost.emplace_back("scheduler: noam's step was truncated to an integer by 0.21; 0.22 keeps the float");
        return;
    }
    case Kind::Map: {
        // Composed {schedulers: [{"Linear": n}, ...]}: child index = position; a variant map names its kind
        if (auto list = t.find(node, "schedulers"); list && t.isArray(*list)) {
            uint64_t i = 0;
            t.forEachChild(*list, [&](uint32_t c) { schedulerScalars(t, c, prefix + std::to_string(i++) + ".", usizeKind, content, lost); });
            return;
        }
        if (t[node].count == 1) {
            std::string variant = t.keyText(node + 1);
            std::ranges::transform(variant, variant.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            schedulerScalars(t, t[node + 1].end, prefix, variant, content, lost);
            return;
        }
        break;
    }
    default: break;
    }
    lost.push_back("scheduler: a record of an unknown scheduler (" + std::string(kindName(t[node].kind)) + ") is not carried");
}

} // namespace

Result<MigratedTriple> migrateContent(const MigrateSources& sources, const MigrateOptions& options)
{
    MigratedTriple out;
    // spans point into its buffers, which stay where they are when the outer vector grows (moves keep them)
    out.owned = std::make_shared<std::vector<std::vector<uint8_t>>>();
    std::unordered_map<std::string, std::string> nameOfId; // base32 id -> 0.22 module path
    const Record* training = sources.model && (sources.model->kind == RecordKind::TrainingRecord
                                                  || sources.model->kind == RecordKind::ModelStateTrainingRecord)
        ? sources.model.get()
        : nullptr;

    for (const Record* r : {sources.model.get(), sources.optim.get(), sources.scheduler.get()})
        if (r)
            out.lost.push_back(r->file + ": recorder " + std::string(recorderName(r->recorder)) + ", " + std::string(r->precisionText())
                + " precision settings and the metadata (format " + r->metadata.format + ", version " + r->metadata.version
                + "): Burn 0.22 keeps no recorder, no precision settings and no version in its files");

    if (sources.model) {
        const Record& r = *sources.model;
        ContentBuilder cb(r, out);
        BurnpackContent c;
        uint64_t badIds = 0;
        const uint32_t root = r.moduleNode.value_or(r.itemNode);
        walkModule(cb, r.tape, root, "", c, nameOfId, badIds);
        if (badIds)
            out.lost.push_back(r.file + ": " + std::to_string(badIds)
                + " parameter ids are not 13-character base32 (UUIDs of Burn <= 0.13): written without a param_id, Burn 0.22 gives them new ones");
        cb.report(r.file + " (model)");
        out.model = std::move(c);
        if (training) {
            if (r.stateNode)
                out.lost.push_back(r.file + ": the caller-defined continuation state (item[4]) has no place in Burn 0.22's files");
            if (!r.gradients.empty())
                out.lost.push_back(r.file + ": " + std::to_string(r.gradients.size())
                    + " pending gradients (GradientsParamsRecord) are not kept by Burn 0.22's checkpointer: the next step starts a new accumulation");
        }
    }

    const Record* optimRecord = training ? training : sources.optim.get();
    if (optimRecord && optimRecord->optimizerNode) {
        const Record& r = *optimRecord;
        ContentBuilder cb(r, out);
        BurnpackContent c;
        uint64_t skipped = 0;
        for (const auto& oe : r.optimizer) {
            const auto u = paramIdToU64(oe.paramId);
            if (!u || oe.optimizer == "Fp32Master") {
                ++skipped;
                continue;
            }
            const std::string prefix = std::to_string(*u);
            c.scalars.emplace_back(prefix + ".__rank", BurnpackScalar::makeUInt(oe.rank));
            walkState(cb, r.tape, oe.stateNode, prefix, *u, c, out.lost);
            if (auto it = nameOfId.find(oe.paramId); it != nameOfId.end())
                c.metadata.emplace_back(prefix, it->second);
        }
        if (skipped)
            out.lost.push_back(r.file + ": " + std::to_string(skipped)
                + " optimizer entries with an id that is not base32, or Ruda's Fp32Master state, are not carried (Burn 0.22 re-initialises them)");
        cb.report(r.file + " (optimizer)");
        out.optim = std::move(c);
    } else if (sources.model) {
        out.lost.emplace_back("no optimizer record: no optim file is written (Burn 0.22 starts the optimizer from scratch)");
    }

    const Record* schedRecord = training ? training : sources.scheduler.get();
    if (schedRecord && schedRecord->schedulerNode) {
        BurnpackContent c;
        std::string usize = options.scheduler.empty() ? schedulerNamedByCallerState(*schedRecord) : options.scheduler;
        schedulerScalars(schedRecord->tape, *schedRecord->schedulerNode, "0.", usize, c, out.lost);
        out.scheduler = std::move(c);
    } else if (sources.model) {
        out.lost.emplace_back("no scheduler record: no scheduler file is written (Burn 0.22 starts the scheduler from scratch)");
    }
    return out;
}

Result<MigrateResult> migrateToBurnpack(const MigrateSources& sources, const std::string& outDir, const MigrateOptions& options)
{
    auto content = migrateContent(sources, options);
    if (!content)
        return std::unexpected(content.error());
    MigrateResult result;
    result.epoch = options.epoch.value_or(sources.epoch.value_or(1));
    result.lost = std::move(content->lost);
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec)
        return std::unexpected(Error{ErrorCode::Io, "cannot create the output directory: " + ec.message(), outDir});
    const std::string n = std::to_string(result.epoch);
    for (auto [kind, part, slot] : {std::tuple{"model", &content->model, &result.written.model},
             std::tuple{"optim", &content->optim, &result.written.optim}, std::tuple{"scheduler", &content->scheduler, &result.written.scheduler}}) {
        if (!*part)
            continue;
        const std::string path = (fs::path(outDir) / (std::string(kind) + "-" + n + ".bpk")).string();
        if (auto w = pack::writeBurnpack(path, **part); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        *slot = path;
    }
    result.written.epoch = result.epoch;
    return result;
}

// ------------------------------------------------------------------------------------------------
// Burn 0.22 -> 0.21

namespace {

/// Names joined by '.' back into an insertion-ordered tree (a run of index segments 0..n-1 is an array).
struct NameTree {
    std::vector<std::pair<std::string, std::unique_ptr<NameTree>>> children;
    std::optional<size_t> tensor;                 ///< a leaf tensor (index into Record::tensors)
    std::optional<BurnpackScalar> scalar;         ///< or a leaf scalar
    bool nil = false;                             ///< or an Option that is None

    NameTree& at(std::string_view dotted)
    {
        NameTree* n = this;
        size_t pos = 0;
        while (true) {
            const size_t dot = dotted.find('.', pos);
            const std::string seg(dotted.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos));
            auto it = std::ranges::find_if(n->children, [&](const auto& c) { return c.first == seg; });
            if (it == n->children.end()) {
                n->children.emplace_back(seg, std::make_unique<NameTree>());
                it = std::prev(n->children.end());
            }
            n = it->second.get();
            if (dot == std::string_view::npos)
                return *n;
            pos = dot + 1;
        }
    }

    bool isArray() const
    {
        if (children.empty())
            return false;
        for (size_t i = 0; i < children.size(); ++i)
            if (children[i].first != std::to_string(i))
                return false;
        return true;
    }

    /// 0.21's struct field order where 0.22's names lose it (format-burn-record.md's optimizer states).
    void orderFields()
    {
        static const std::vector<std::string_view> kOrder = {"time", "moment_1", "moment_2", "max_moment_2", "sum", "exp_avg",
            "exp_avg_sq", "exp_avg_diff", "neg_pre_grad", "square_avg", "centered", "grad_avg", "avg", "momentum", "buf", "velocity"};
        auto rank = [&](const std::string& k) {
            auto it = std::ranges::find(kOrder, k);
            return it == kOrder.end() ? kOrder.size() : size_t(it - kOrder.begin());
        };
        std::ranges::stable_sort(children, {}, [&](const auto& c) { return rank(c.first); });
        for (auto& [k, c] : children)
            c->orderFields();
    }
};

void writeTree(TapeBuilder& b, const Record& r, const NameTree& n, const std::function<void(TapeBuilder&, const TensorEntry&)>& leaf)
{
    if (n.tensor) {
        leaf(b, r.tensors[*n.tensor]);
    } else if (n.scalar) {
        switch (n.scalar->kind) {
        case BurnpackScalar::Kind::Int: b.integer(n.scalar->i); break;
        case BurnpackScalar::Kind::UInt: b.uinteger(n.scalar->u); break;
        case BurnpackScalar::Kind::Float: b.f64(n.scalar->f); break;
        case BurnpackScalar::Kind::Bool: b.boolean(n.scalar->b); break;
        }
    } else if (n.nil) {
        b.nil();
    } else if (n.isArray()) {
        b.beginArray();
        for (const auto& [k, c] : n.children)
            writeTree(b, r, *c, leaf);
        b.end();
    } else {
        b.beginMap();
        for (const auto& [k, c] : n.children) {
            b.key(k);
            writeTree(b, r, *c, leaf);
        }
        b.end();
    }
}

void writeTensor(TapeBuilder& b, const Record& r, const TensorEntry& t)
{
    writeTensorData(b, t, r.payload(t)); // Burn 0.21: a Bool keeps its store
}

} // namespace

Result<Tape> burnpackToEnvelope(const Record& r, Recorder recorder, Precision precision, std::vector<std::string>& lost)
{
    if (r.parts.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: convert each of them");
    const RecordPart& part = r.parts.front();
    const pack::BurnpackFile& f = burnpackFileOf(part);
    for (const auto& t : r.tensors)
        if (t.dtype == DType::QFloat)
            return fail(ErrorCode::Unsupported, "the QFloat tensor " + t.path + " has no Burn 0.21 encoding this tool can write");
    if (!f.metadata.empty() && part.role != RecordPart::Role::Optimizer)
        lost.push_back(std::to_string(f.metadata.size()) + " metadata strings: a Burn 0.21 record has no place for them");

    TapeBuilder b;
    beginEnvelope(b, makeMetadata(recorder, precision)); // ends with the key "item"
    switch (part.role) {
    case RecordPart::Role::Model: {
        NameTree tree;
        for (size_t i = 0; i < r.tensors.size(); ++i)
            tree.at(r.tensors[i].path).tensor = i;
        writeTree(b, r, tree, [&](TapeBuilder& tb, const TensorEntry& t) {
            tb.beginMap(); // ParamSerde {id, param}
            tb.key("id");
            tb.str(t.paramId);
            tb.key("param");
            writeTensor(tb, r, t);
            tb.end();
        });
        if (std::ranges::any_of(r.tensors, [](const TensorEntry& t) { return t.paramId.empty(); }))
            lost.emplace_back("tensors without a param_id get an empty id: Burn 0.21 would give them new ones");
        break;
    }
    case RecordPart::Role::Optimizer: {
        b.beginMap();
        for (const auto& oe : r.optimizer) {
            NameTree state;
            for (size_t ti : oe.tensors) {
                const std::string& name = r.tensors[ti].path;
                state.at(std::string_view(name).substr(oe.path.size() + 1)).tensor = ti;
            }
            for (const auto& [name, value] : f.scalars)
                if (name.starts_with(oe.path + ".") && name != oe.path + ".__rank")
                    state.at(std::string_view(name).substr(oe.path.size() + 1)).scalar = value;
            // Options that are None: Adam's max_moment_2 without amsgrad, SGD without momentum
            if (oe.optimizer == "Adam/AdamW" && !oe.amsgrad)
                state.at("momentum.max_moment_2").nil = true;
            if (state.children.empty())
                state.at("momentum").nil = true;
            state.orderFields();
            b.key(oe.paramId);
            b.beginMap();
            b.key("V1");
            b.beginMap();
            b.key("Rank" + std::to_string(oe.rank));
            writeTree(b, r, state, [&](TapeBuilder& tb, const TensorEntry& t) { writeTensor(tb, r, t); });
            b.end();
            b.end();
        }
        b.end();
        break;
    }
    case RecordPart::Role::Scheduler: {
        // the learner's scheduler is group 0 (§8.4); other groups and Sequential have no 0.21 form
        std::vector<std::pair<std::string, BurnpackScalar>> own;
        for (const auto& [name, value] : f.scalars) {
            if (name.starts_with("0."))
                own.emplace_back(name.substr(2), value);
            else
                lost.push_back("scheduler scalar " + name + ": parameter-group schedulers have no Burn 0.21 form");
        }
        if (own.empty()) {
            b.nil();
        } else if (own.size() == 1 && own.front().first.find('.') == std::string::npos) {
            const auto& [field, v] = own.front();
            if (field == "iter_idx" && v.kind == BurnpackScalar::Kind::Int)
                b.integer(v.i);
            else if (field == "previous_lr" && v.kind == BurnpackScalar::Kind::Float)
                b.f64(v.f);
            else if (field == "step" && v.kind == BurnpackScalar::Kind::Float) {
                b.uinteger(v.f > 0 ? uint64_t(v.f) : 0); // 0.21's Noam recorded `step as usize`
                if (v.f != std::floor(v.f))
                    lost.push_back("scheduler: noam's fractional step " + std::to_string(v.f) + " is truncated (0.21 records a usize)");
            } else if (v.kind == BurnpackScalar::Kind::UInt)
                b.uinteger(v.u);
            else
                return fail(ErrorCode::Unsupported, "scheduler scalar 0." + field + " has no Burn 0.21 form");
        } else {
            return fail(ErrorCode::Unsupported,
                "a composed or sequential scheduler (" + std::to_string(own.size()) + " scalars under 0.) has no Burn 0.21 form this tool writes");
        }
        break;
    }
    }
    endEnvelope(b);
    return std::move(b).finish();
}

} // namespace ckpt
