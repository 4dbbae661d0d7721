// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/record/bincoderecord.h"

#include "core/codec/bincode.h"
#include "core/codec/schema.h"
#include "core/record/index.h"
#include "core/model/schedule.h"

#include <functional>

namespace ckpt {

namespace {

/// BurnRecord{metadata: BurnMetadata{5 strings}, item, _b: PhantomData}.
uint32_t envelope(BincodeSchema& s, uint32_t item)
{
    const uint32_t str = s.primitive(SchemaKind::Str);
    const uint32_t meta = s.structure("BurnMetadata", {{"float", str}, {"int", str}, {"format", str}, {"version", str}, {"settings", str}});
    return s.structure("BurnRecord", {{"metadata", meta}, {"item", item}, {"_b", s.primitive(SchemaKind::UnitStruct)}});
}

uint32_t tensorData(BincodeSchema& s, DTypeTable table)
{
    return s.structure("TensorData", {{"bytes", s.primitive(SchemaKind::Bytes)}, {"shape", s.seq(s.primitive(SchemaKind::Usize))},
                                         {"dtype", s.dtype(table)}});
}

/// HashMap<String, AdaptorRecordItem<State>> with the V1 → Rank0..Rank8 nesting.
uint32_t adaptorMap(BincodeSchema& s, uint32_t state)
{
    std::vector<SchemaVariant> ranks;
    for (int r = 0; r <= 8; ++r)
        ranks.push_back({"Rank" + std::to_string(r), VariantKind::Newtype, state});
    const uint32_t v1 = s.enumeration("AdaptorRecordItemV1", std::move(ranks));
    const uint32_t item = s.enumeration("AdaptorRecordItem", {{"V1", VariantKind::Newtype, v1}});
    return s.map(s.primitive(SchemaKind::Str), item);
}

/// One optimizer's state item (format-burn-record.md §6.2), as a function of the schema being built.
using StateLayout = std::function<uint32_t(BincodeSchema&, DTypeTable)>;

struct OptimizerLayout {
    std::string name;
    StateLayout state;
};

uint32_t adamState(BincodeSchema& s, DTypeTable table, bool amsgradField)
{
    const uint32_t td = tensorData(s, table);
    std::vector<SchemaField> f = {{"time", s.primitive(SchemaKind::Usize)}, {"moment_1", td}, {"moment_2", td}};
    if (amsgradField)
        f.push_back({"max_moment_2", s.option(td)});
    return s.structure("AdamState", {{"momentum", s.structure("AdaptiveMomentumState", std::move(f))}});
}

uint32_t sgdState(BincodeSchema& s, DTypeTable table)
{
    const uint32_t mom = s.structure("MomentumState", {{"velocity", tensorData(s, table)}});
    return s.structure("SgdState", {{"momentum", s.option(mom)}});
}

/** Every optimizer whose state the engine knows, in the order tried. */
std::vector<OptimizerLayout> optimizerLayouts()
{
    std::vector<OptimizerLayout> out;
    out.push_back({"Adam/AdamW (Burn 0.21 / Ruda, with max_moment_2)", [](BincodeSchema& s, DTypeTable t) { return adamState(s, t, true); }});
    out.push_back({"Adam/AdamW (Burn <= 0.20)", [](BincodeSchema& s, DTypeTable t) { return adamState(s, t, false); }});
    out.push_back({"SGD", sgdState});
    out.push_back({"Muon", [](BincodeSchema& s, DTypeTable t) {
        return s.structure("MuonState", {{"momentum", s.structure("MomentumState", {{"velocity", tensorData(s, t)}})}});
    }});
    out.push_back({"AdaGrad", [](BincodeSchema& s, DTypeTable t) {
        const uint32_t lr = s.structure("LrDecayState", {{"time", s.primitive(SchemaKind::Usize)}, {"sum", tensorData(s, t)}});
        return s.structure("AdaGradState", {{"lr_decay", lr}});
    }});
    out.push_back({"RmsProp", [](BincodeSchema& s, DTypeTable t) {
        const uint32_t td = tensorData(s, t);
        const uint32_t sq = s.structure("SquareAvgState", {{"square_avg", td}});
        const uint32_t centered = s.structure("CenteredState", {{"grad_avg", s.option(td)}, {"avg", td}});
        const uint32_t mom = s.structure("RmsPropMomentumState", {{"buf", td}});
        return s.structure("RmsPropState", {{"square_avg", sq}, {"centered", centered}, {"momentum", s.option(mom)}});
    }});
    out.push_back({"Adan", [](BincodeSchema& s, DTypeTable t) {
        const uint32_t td = tensorData(s, t);
        const uint32_t mom = s.structure("AdanMomentumState", {{"time", s.primitive(SchemaKind::Usize)}, {"exp_avg", td}, {"exp_avg_sq", td},
                                                                 {"exp_avg_diff", td}, {"neg_pre_grad", td}});
        return s.structure("AdanState", {{"momentum", mom}});
    }});
    // Ruda's Fp32MasterOptimizer<O>: (master tensor, Option<O's state>).
    out.push_back({"Fp32Master<Adam/AdamW>", [](BincodeSchema& s, DTypeTable t) {
        return s.tuple({tensorData(s, t), s.option(adamState(s, t, true))});
    }});
    out.push_back({"Fp32Master<SGD>", [](BincodeSchema& s, DTypeTable t) { return s.tuple({tensorData(s, t), s.option(sgdState(s, t))}); }});
    return out;
}

struct SchedulerLayout {
    std::string name;
    std::string type; ///< schedulerRecordType() spelling
    std::function<uint32_t(BincodeSchema&)> record;
};

/** Scheduler records (§7). usize before i32: a varint reads as either (see BuiltinLayout::schedulerType). */
std::vector<SchedulerLayout> schedulerLayouts()
{
    return {
        {"usize (Linear remaining_iters, Cosine current_iter or Noam step)", "usize", [](BincodeSchema& s) { return s.primitive(SchemaKind::Usize); }},
        {"i32 (StepLr iter_idx)", "i32", [](BincodeSchema& s) { return s.primitive(SchemaKind::I32); }},
        {"f64 (ExponentialLr previous_lr)", "f64", [](BincodeSchema& s) { return s.primitive(SchemaKind::F64); }},
        {"() (ConstantLr)", "unit", [](BincodeSchema& s) { return s.primitive(SchemaKind::Unit); }},
    };
}

uint32_t composedScheduler(BincodeSchema& s)
{
    const uint32_t usize = s.primitive(SchemaKind::Usize);
    const uint32_t e = s.enumeration("LrSchedulerRecord", {{"Linear", VariantKind::Newtype, usize}, {"Cosine", VariantKind::Newtype, usize},
                                                              {"Exponential", VariantKind::Newtype, s.primitive(SchemaKind::F64)},
                                                              {"Noam", VariantKind::Newtype, usize}});
    return s.structure("ComposedLrSchedulerRecord", {{"schedulers", s.seq(e)}});
}

uint32_t gradientsRecord(BincodeSchema& s, DTypeTable table)
{
    const uint32_t entry = s.tuple({s.primitive(SchemaKind::U64), s.dtype(table), tensorData(s, table)});
    return s.structure("GradientsParamsRecord", {{"gradients", s.seq(entry)}});
}

/// ckpt-train's module `Mlp { input: Linear, norm: LayerNorm, activation, blocks: Vec<Block>, output: Linear }`
/// with `Block { fc1: Linear, norm: LayerNorm, fc2: Linear }` (app/train/model.h).
uint32_t ckptTrainModule(BincodeSchema& s, DTypeTable table)
{
    const uint32_t param = s.structure("ParamSerde", {{"id", s.primitive(SchemaKind::Str)}, {"param", tensorData(s, table)}});
    const uint32_t linear = s.structure("Linear", {{"weight", param}, {"bias", s.option(param)}});
    const uint32_t norm = s.structure("LayerNorm", {{"gamma", param}, {"beta", param}, {"epsilon", s.primitive(SchemaKind::Empty)}});
    const uint32_t block = s.structure("Block", {{"fc1", linear}, {"norm", norm}, {"fc2", linear}});
    return s.structure("Mlp", {{"input", linear}, {"norm", norm}, {"activation", s.primitive(SchemaKind::Empty)}, {"blocks", s.seq(block)},
                                  {"output", linear}});
}

/// ckpt-train's caller state `{config, progress}` with the widths of app/train/config.cpp writeCallerState
/// (the Rust mirror is tests/interop/src/train.rs, which the real bincode crate checks against the trainer's files).
uint32_t ckptTrainCallerState(BincodeSchema& s)
{
    const uint32_t str = s.primitive(SchemaKind::Str), usize = s.primitive(SchemaKind::Usize), u64 = s.primitive(SchemaKind::U64);
    const uint32_t f64 = s.primitive(SchemaKind::F64), f32 = s.primitive(SchemaKind::F32), boolean = s.primitive(SchemaKind::Bool);
    const uint32_t model = s.structure("TrainModelConfig", {{"input_dim", usize}, {"hidden", usize}, {"output_dim", usize}, {"activation", str},
                                                               {"blocks", usize}});
    const uint32_t optimizer = s.structure("TrainOptimizerConfig", {{"name", str}, {"lr", f64}, {"beta_1", f32}, {"beta_2", f32}, {"epsilon", f32},
                                                                      {"weight_decay", f32}, {"amsgrad", boolean}, {"momentum", f64},
                                                                      {"dampening", f64}, {"nesterov", boolean}});
    const uint32_t scheduler = s.structure("TrainSchedulerConfig", {{"name", str}, {"gamma", f64}, {"step_size", usize}, {"final_lr", f64},
                                                                      {"num_iters", usize}, {"warmup_steps", usize}, {"embedding_size", usize}});
    const uint32_t config = s.structure("TrainConfig", {{"model", model}, {"task", str}, {"dtype", str}, {"batch_size", usize},
                                                           {"dataset_size", usize}, {"valid_size", usize}, {"seed", u64},
                                                           {"optimizer", optimizer}, {"scheduler", scheduler}, {"recorder", str},
                                                           {"precision", str}, {"checkpoint_every", usize}, {"grad_accum", usize},
                                                           {"steps", usize}, {"layout", str}, {"diverge_at", s.option(u64)}});
    const uint32_t progress = s.structure("TrainProgress", {{"step", u64}, {"optimizer_steps", u64}, {"pending_micro_batches", u64},
                                                               {"epoch", usize}, {"data_cursor", usize}, {"samples_seen", u64},
                                                               {"rng_counter", u64}, {"stop_step", u64}, {"last_lr", f64},
                                                               {"loss_tail", s.seq(s.option(f64))}});
    return s.structure("TrainCallerState", {{"config", config}, {"progress", progress}});
}

BincodeSchema withItem(const std::function<uint32_t(BincodeSchema&)>& item)
{
    BincodeSchema s;
    s.root = envelope(s, item(s));
    return s;
}

/// ckpt-train's TrainingRecord (module, optimizer map of Adam/AdamW or SGD states, scheduler record,
/// pending gradients, caller state).
BincodeSchema ckptTrainTrainingRecord(DTypeTable table, bool adam, const SchedulerLayout& sched)
{
    return withItem([&](BincodeSchema& s) {
        const uint32_t state = adam ? adamState(s, table, true) : sgdState(s, table);
        return s.tuple({ckptTrainModule(s, table), adaptorMap(s, state), sched.record(s), gradientsRecord(s, table), ckptTrainCallerState(s)});
    });
}

/** ckpt-train's caller state names its scheduler: the record type it implies, or "" when it names none. */
std::string schedulerTypeNamedByState(const Record& r)
{
    const std::string name = schedulerNamedByCallerState(r);
    return name.empty() ? std::string() : schedulerRecordType(name).value_or("");
}

} // namespace

namespace {

std::vector<BuiltinLayout> makeBuiltinBincodeLayouts(DTypeTable table)
{
    std::vector<BuiltinLayout> out;
    const auto optimizers = optimizerLayouts();
    const auto schedulers = schedulerLayouts();
    // ckpt-train's TrainingRecords first: their caller state settles what the bytes cannot (the scheduler).
    for (const auto& sched : schedulers)
        for (const char* opt : {"Adam/AdamW", "SGD"}) {
            const bool adam = std::string_view(opt) == "Adam/AdamW";
            out.push_back({std::string("built-in ckpt-train TrainingRecord (") + opt + ", scheduler " + sched.name + ")",
                ckptTrainTrainingRecord(table, adam, sched), sched.type});
        }
    for (const auto& o : optimizers)
        out.push_back({"built-in " + o.name + " optimizer record", withItem([&](BincodeSchema& s) { return adaptorMap(s, o.state(s, table)); }), {}});
    for (const auto& sched : schedulers)
        out.push_back({"built-in scheduler record: " + sched.name, withItem(sched.record), sched.type});
    out.push_back({"built-in scheduler record: ComposedLrSchedulerRecord", withItem(composedScheduler), {}});
    out.push_back({"built-in GradientsParamsRecord", withItem([&](BincodeSchema& s) { return gradientsRecord(s, table); }), {}});
    out.push_back({"built-in ckpt-train module record (Mlp)", withItem([&](BincodeSchema& s) { return ckptTrainModule(s, table); }), {}});
    return out;
}

} // namespace

std::optional<BincodeSchema> ckptTrainRecordLayout(bool sgd, std::string_view schedulerType, DTypeTable table)
{
    for (const auto& sched : schedulerLayouts())
        if (sched.type == schedulerType)
            return ckptTrainTrainingRecord(table, !sgd, sched);
    return std::nullopt;
}

BincodeSchema ckptTrainModuleLayout(DTypeTable table)
{
    return withItem([&](BincodeSchema& s) { return ckptTrainModule(s, table); });
}

const std::vector<BuiltinLayout>& builtinBincodeLayouts(DTypeTable table)
{
    // Built once per table (thread-safe statics) and shared read-only: every bincode open without a
    // schema tries them all, and building their schemas was a tenth of such an open.
    static const std::vector<BuiltinLayout> burn014 = makeBuiltinBincodeLayouts(DTypeTable::Burn014),
                                            burn016 = makeBuiltinBincodeLayouts(DTypeTable::Burn016),
                                            burn017 = makeBuiltinBincodeLayouts(DTypeTable::Burn017),
                                            burn021 = makeBuiltinBincodeLayouts(DTypeTable::Burn021);
    switch (table) {
    case DTypeTable::Burn014: return burn014;
    case DTypeTable::Burn016: return burn016;
    case DTypeTable::Burn017: return burn017;
    case DTypeTable::Burn021: return burn021;
    }
    return burn021;
}

namespace {

Result<void> decodeWith(const BytesPtr& decoded, const BincodeSchema& schema, Record& record, bool requireAllBytes, const Tape* twin = nullptr)
{
    BincodeReadOptions options;
    options.twin = twin;
    auto r = readBincode(decoded, schema, options);
    if (!r)
        return std::unexpected(r.error());
    if (requireAllBytes && r->consumed != decoded->size())
        return fail(ErrorCode::Invalid, "the layout leaves " + std::to_string(decoded->size() - r->consumed) + " bytes undecoded", r->consumed);
    if (r->consumed < decoded->size())
        record.warnings.push_back(std::to_string(decoded->size() - r->consumed) + " trailing bytes after the record at offset "
            + std::to_string(r->consumed) + " (bincode ignores them)");
    // Two readings that both decode the whole record with different values: refused, never a guess.
    if (!r->ambiguities.empty())
        return fail(ErrorCode::Invalid,
            "the bytes cannot tell: " + r->ambiguities.front()
                + (r->ambiguities.size() > 1 ? " (and " + std::to_string(r->ambiguities.size() - 1) + " more)" : "")
                + "; a layout settles it: `ckpt schema TWIN -o S.json`, the \"either\" node at that path replaced by the reading meant, then `--schema "
                  "S.json`");
    if (r->nonCanonicalVarints)
        record.warnings.push_back(std::to_string(r->nonCanonicalVarints) + " varints are longer than bincode writes them; a re-save shortens them");
    record.tape = std::move(r->tape);
    record.bincodeSchema = std::make_shared<BincodeSchema>(std::move(r->resolved));
    return {};
}

} // namespace

Result<std::optional<BincodeLayout>> bincodeLayoutFromOptions(const OpenOptions& options)
{
    std::optional<std::string> schedulerType;
    if (!options.scheduler.empty()) {
        schedulerType = schedulerRecordType(options.scheduler);
        if (!schedulerType)
            return fail(ErrorCode::Usage, "unknown scheduler '" + options.scheduler + "' (step, linear, cosine, noam, exponential, constant)");
    }
    if (!options.schemaFile.empty()) {
        auto bytes = mapFile(options.schemaFile);
        if (!bytes)
            return std::unexpected(bytes.error());
        auto schema = BincodeSchema::fromJson(std::string_view(reinterpret_cast<const char*>((*bytes)->data()), (*bytes)->size()));
        if (!schema)
            return std::unexpected(std::move(schema.error()).withFile(options.schemaFile));
        return BincodeLayout{std::move(*schema), "schema file " + options.schemaFile, {}};
    }
    if (options.schemaFrom.empty())
        return std::nullopt;
    OpenOptions o;
    o.limits = options.limits;
    auto other = openEnvelopeFile(options.schemaFrom, o);
    if (!other)
        return std::unexpected(other.error());
    if ((*other)->recorder == Recorder::Bin || (*other)->recorder == Recorder::BinGz) {
        // A bincode twin lends its layout only when a built-in one read it completely.
        if ((*other)->partial || !(*other)->bincodeSchema)
            return fail(ErrorCode::Usage, "--schema-from needs a self-describing record (.mpk or .json) or a bincode record that a built-in layout reads: "
                + options.schemaFrom);
        return BincodeLayout{*(*other)->bincodeSchema, "the layout of " + options.schemaFrom + " (" + (*other)->schemaSource + ")", {}};
    }
    SchemaFromRecordOptions so;
    so.schedulerType = schedulerType.value_or("");
    so.floatWidthUnknown = (*other)->recorder == Recorder::PrettyJson || (*other)->recorder == Recorder::JsonGz;
    auto derived = schemaFromRecord((*other)->tape, so);
    if (!derived)
        return std::unexpected(std::move(derived.error()).withFile(options.schemaFrom));
    return BincodeLayout{std::move(derived->schema), "derived from " + options.schemaFrom, std::move(derived->notes), *other};
}

namespace {

/** core's built-in ckpt-train TrainingRecord layout that \a record fits (scheduler type from its caller state), if it is one of the trainer's. */
std::optional<BincodeLayout> ckptTrainLayoutOf(const Record& record)
{
    if (record.kind != RecordKind::TrainingRecord)
        return std::nullopt;
    const std::string wanted = schedulerTypeNamedByState(record);
    if (wanted.empty())
        return std::nullopt;
    for (const auto& layout : builtinBincodeLayouts(dtypeTableForVersion(record.metadata.version))) {
        if (layout.schedulerType != wanted || layout.name.find("ckpt-train TrainingRecord") == std::string::npos)
            continue;
        if (withLayoutValueKinds(record.tape, layout.schema))
            return BincodeLayout{layout.schema, layout.name, {}};
    }
    return std::nullopt;
}

} // namespace

Result<BincodeLayout> bincodeTargetLayout(const Record& record, const OpenOptions& options)
{
    if (record.bincodeSchema)
        return BincodeLayout{*record.bincodeSchema, record.schemaSource, {}};
    auto named = bincodeLayoutFromOptions(options);
    if (!named)
        return std::unexpected(named.error());
    if (*named)
        return std::move(**named);
    // One of ckpt-train's records: its own Rust types. A layout derived from the values cannot tell
    // that a caller-state value (diverge_at's Some(STEP), a loss_tail entry) is an Option.
    if (options.scheduler.empty())
        if (auto own = ckptTrainLayoutOf(record))
            return std::move(*own);
    SchemaFromRecordOptions so;
    so.schedulerType = options.scheduler.empty() ? std::string() : schedulerRecordType(options.scheduler).value_or("");
    auto derived = schemaFromRecord(record.tape, so);
    if (!derived)
        return std::unexpected(std::move(derived.error()).withFile(record.file));
    return BincodeLayout{std::move(derived->schema), "derived from the record itself", std::move(derived->notes)};
}

Result<void> decodeBincodeRecord(const BytesPtr& decoded, const OpenOptions& options, Record& record)
{
    auto named = bincodeLayoutFromOptions(options);
    if (!named)
        return std::unexpected(named.error());
    if (*named) {
        record.schemaSource = (*named)->source;
        for (const auto& n : (*named)->notes)
            record.warnings.push_back("schema: " + n);
        return decodeWith(decoded, (*named)->schema, record, false, (*named)->twin ? &(*named)->twin->tape : nullptr);
    }

    // Built-in layouts: every one that decodes all bytes into a consistent envelope is a reading of
    // the file; the bytes decide when exactly one does.
    auto meta = readBincodeMetadata(decoded->span());
    const DTypeTable table = meta ? dtypeTableForVersion(meta->version) : DTypeTable::Burn017;
    if (meta) {
        const std::string wanted = options.scheduler.empty() ? std::string() : *schedulerRecordType(options.scheduler);
        struct Fit {
            const BuiltinLayout* layout;
            Record record;
        };
        std::vector<Fit> fits;
        const auto& layouts = builtinBincodeLayouts(table);
        for (const auto& layout : layouts) {
            if (!wanted.empty() && !layout.schedulerType.empty() && layout.schedulerType != wanted)
                continue;
            Record attempt;
            attempt.file = record.file;
            if (!decodeWith(decoded, layout.schema, attempt, true) || !indexEnvelope(attempt, false) || !checkRecordTypes(attempt))
                continue;
            fits.push_back({&layout, std::move(attempt)});
        }
        if (!fits.empty()) {
            // Readings that differ only in the scheduler record (a varint is a usize or a StepLr i32):
            // ckpt-train's caller state names its scheduler; otherwise the first is taken and the others named.
            size_t chosen = 0;
            for (size_t i = 0; i < fits.size(); ++i)
                if (!fits[i].layout->schedulerType.empty() && schedulerTypeNamedByState(fits[i].record) == fits[i].layout->schedulerType) {
                    chosen = i;
                    break;
                }
            Fit& f = fits[chosen];
            const bool settledByState = !f.layout->schedulerType.empty() && schedulerTypeNamedByState(f.record) == f.layout->schedulerType;
            record.tape = std::move(f.record.tape);
            record.bincodeSchema = std::move(f.record.bincodeSchema);
            record.warnings = std::move(f.record.warnings);
            record.schemaSource = f.layout->name;
            if (fits.size() > 1 && !settledByState) {
                std::string others;
                bool schedulerOnly = !f.layout->schedulerType.empty();
                for (size_t i = 0; i < fits.size(); ++i)
                    if (i != chosen) {
                        others += (others.empty() ? "" : "; ") + fits[i].layout->name;
                        schedulerOnly = schedulerOnly && !fits[i].layout->schedulerType.empty();
                    }
                record.warnings.push_back("the bytes also decode as " + others + "; read as " + f.layout->name + ": pass "
                    + (schedulerOnly ? "--scheduler NAME (step, linear, cosine, noam, exponential, constant) or " : "") + "--schema S.json to choose");
            }
            return {};
        }
    }

    // No layout fits: no typed decoder we know accepts the bytes. Only a salvage view lists what can be proven.
    {
        std::string what = "no built-in Burn/Ruda record layout reads all " + std::to_string(decoded->size()) + " bytes";
        if (!meta)
            what = "expected a bincode record envelope (five metadata strings, then the item): " + std::string(meta.error().what);
        else if (meta->float_.empty() || meta->settings.empty())
            what = "expected a bincode record envelope: its metadata strings are empty (float \"" + meta->float_ + "\", settings \"" + meta->settings + "\")";
        Error e{ErrorCode::Invalid, what + "; pass --schema-from TWIN.mpk or --schema S.json for this record's types, or --lenient for a structural scan"};
        e.offset = 0;
        // A genuine envelope (metadata of a known precision) of a layout we do not know still opens,
        // partial, as far as the scan proves it; anything else is not a Burn record unless salvaged.
        const bool genuineEnvelope = meta && precisionFromMetadata({meta->float_, meta->int_, meta->format, meta->version, meta->settings});
        if (!genuineEnvelope) {
            if (!options.lenient)
                return std::unexpected(std::move(e));
            record.damage = "offset 0: " + what;
        }
    }
    auto scan = scanBincode(decoded->span());
    if (!scan)
        return std::unexpected(scan.error());
    record.partial = true;
    record.schemaSource = "structural scan (no schema: pass --schema-from MODEL.mpk or --schema S.json for the full record)";
    record.warnings.push_back("bincode has no field names: only the " + std::to_string(scan->tensors.size())
        + " tensors the structural scan can prove are listed; pass --schema-from or --schema for the full record");
    if (scan->metadata) {
        record.metadata = {scan->metadata->float_, scan->metadata->int_, scan->metadata->format, scan->metadata->version, scan->metadata->settings};
        if (auto p = precisionFromMetadata(record.metadata))
            record.precision = *p;
    }
    record.kind = RecordKind::ModuleRecord;
    // A tape of just the proven tensors, so that payloads and statistics work as for any record.
    TapeBuilder b(decoded);
    b.beginArray();
    for (const auto& t : scan->tensors) {
        b.beginMap(t.offset);
        b.key("bytes");
        b.binRef(t.payloadOffset, t.length, t.offset);
        b.key("shape");
        b.beginArray();
        for (auto d : t.shape)
            b.uinteger(d);
        b.end();
        b.key("dtype");
        b.str(dtypeName(t.dtype));
        b.end();
    }
    b.end();
    record.tape = std::move(b).finish();
    uint32_t node = 1;
    for (size_t i = 0; i < scan->tensors.size(); ++i) {
        const auto& t = scan->tensors[i];
        TensorEntry e;
        e.path = "scan[" + std::to_string(i) + "]@" + std::to_string(t.offset);
        e.role = t.paramId.empty() ? TensorRole::Other : TensorRole::Param;
        e.paramId = t.paramId;
        e.dtype = t.dtype;
        e.shape = t.shape;
        e.numel = 1;
        for (auto d : t.shape)
            e.numel *= d;
        e.bytes = t.length;
        e.offset = t.payloadOffset;
        e.node = node;
        e.dataNode = *record.tape.find(node, "bytes");
        node = record.tape[node].end;
        if (!t.paramId.empty())
            record.params.push_back({t.paramId, paramIdToU64(t.paramId), e.path, record.tensors.size()});
        record.tensors.push_back(std::move(e));
    }
    return {};
}

Result<Tape> withLayoutValueKinds(const Tape& envelope, const BincodeSchema& layout)
{
    Sink sink;
    if (auto w = writeBincode(envelope, envelope.root(), layout, sink); !w)
        return std::unexpected(w.error());
    auto decoded = readBincode(makeBytes(std::move(sink.buffer())), layout);
    if (!decoded)
        return std::unexpected(decoded.error());
    return std::move(decoded->tape);
}

Result<std::optional<BincodeLayout>> jsonFloatLayout(const Record& record, const OpenOptions& options)
{
    auto named = bincodeLayoutFromOptions(options);
    if (!named || *named)
        return named;
    return ckptTrainLayoutOf(record);
}

Result<void> encodeBincodeRecord(const Tape& env, Sink& out, const BincodeSchema* schema)
{
    if (schema)
        return writeBincode(env, 0, *schema, out);
    auto derived = schemaFromRecord(env);
    if (!derived)
        return std::unexpected(derived.error());
    return writeBincode(env, 0, derived->schema, out);
}

} // namespace ckpt
