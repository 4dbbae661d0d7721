// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/record/bincoderecord.h"

#include "core/codec/bincode.h"
#include "core/codec/schema.h"

namespace ckpt {

Result<void> indexEnvelope(Record& r); // index.cpp

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

BincodeSchema withItem(const std::function<uint32_t(BincodeSchema&)>& item)
{
    BincodeSchema s;
    s.root = envelope(s, item(s));
    return s;
}

} // namespace

std::vector<std::pair<std::string, BincodeSchema>> builtinBincodeLayouts(DTypeTable table)
{
    std::vector<std::pair<std::string, BincodeSchema>> out;
    auto adam = [table](bool amsgrad) {
        return withItem([=](BincodeSchema& s) {
            const uint32_t td = tensorData(s, table);
            std::vector<SchemaField> f = {{"time", s.primitive(SchemaKind::Usize)}, {"moment_1", td}, {"moment_2", td}};
            if (amsgrad)
                f.push_back({"max_moment_2", s.option(td)});
            const uint32_t ams = s.structure("AdaptiveMomentumState", std::move(f));
            return adaptorMap(s, s.structure("AdamState", {{"momentum", ams}}));
        });
    };
    out.emplace_back("built-in Adam/AdamW optimizer record (Burn 0.21 / Ruda, with max_moment_2)", adam(true));
    out.emplace_back("built-in Adam/AdamW optimizer record (Burn <= 0.20)", adam(false));
    out.emplace_back("built-in SGD optimizer record", withItem([=](BincodeSchema& s) {
        const uint32_t td = tensorData(s, table);
        const uint32_t mom = s.structure("MomentumState", {{"velocity", td}});
        return adaptorMap(s, s.structure("SgdState", {{"momentum", s.option(mom)}}));
    }));
    out.emplace_back("built-in scheduler record: usize (Linear remaining_iters, Cosine current_iter or Noam step)",
        withItem([](BincodeSchema& s) { return s.primitive(SchemaKind::Usize); }));
    out.emplace_back("built-in scheduler record: i32 (StepLr iter_idx)", withItem([](BincodeSchema& s) { return s.primitive(SchemaKind::I32); }));
    out.emplace_back("built-in scheduler record: f64 (ExponentialLr previous_lr)", withItem([](BincodeSchema& s) { return s.primitive(SchemaKind::F64); }));
    out.emplace_back("built-in scheduler record: () (ConstantLr)", withItem([](BincodeSchema& s) { return s.primitive(SchemaKind::Unit); }));
    return out;
}

namespace {

Result<void> decodeWith(const BytesPtr& decoded, const BincodeSchema& schema, Record& record, bool requireAllBytes)
{
    auto r = readBincode(decoded, schema);
    if (!r)
        return std::unexpected(r.error());
    if (requireAllBytes && r->consumed != decoded->size())
        return fail(ErrorCode::Invalid, "the layout leaves " + std::to_string(decoded->size() - r->consumed) + " bytes undecoded", r->consumed);
    if (r->consumed < decoded->size())
        record.warnings.push_back(std::to_string(decoded->size() - r->consumed) + " trailing bytes after the record at offset "
            + std::to_string(r->consumed) + " (bincode ignores them)");
    if (r->nonCanonicalVarints)
        record.warnings.push_back(std::to_string(r->nonCanonicalVarints) + " varints are longer than bincode writes them; a re-save shortens them");
    record.tape = std::move(r->tape);
    record.bincodeSchema = std::make_shared<BincodeSchema>(std::move(r->resolved));
    return {};
}

} // namespace

Result<void> decodeBincodeRecord(const BytesPtr& decoded, const OpenOptions& options, Record& record)
{
    if (!options.schemaFile.empty()) {
        auto bytes = mapFile(options.schemaFile);
        if (!bytes)
            return std::unexpected(bytes.error());
        auto schema = BincodeSchema::fromJson(std::string_view(reinterpret_cast<const char*>((*bytes)->data()), (*bytes)->size()));
        if (!schema)
            return std::unexpected(std::move(schema.error()).withFile(options.schemaFile));
        record.schemaSource = "schema file " + options.schemaFile;
        return decodeWith(decoded, *schema, record, false);
    }
    if (!options.schemaFrom.empty()) {
        OpenOptions o;
        o.limits = options.limits;
        auto other = openRecord(options.schemaFrom, o);
        if (!other)
            return std::unexpected(other.error());
        if ((*other)->recorder == Recorder::Bin || (*other)->recorder == Recorder::BinGz)
            return fail(ErrorCode::Usage, "--schema-from needs a self-describing record (.mpk or .json), not bincode: " + options.schemaFrom);
        auto derived = schemaFromRecord((*other)->tape);
        if (!derived)
            return std::unexpected(std::move(derived.error()).withFile(options.schemaFrom));
        record.schemaSource = "derived from " + options.schemaFrom;
        for (const auto& n : derived->notes)
            record.warnings.push_back("schema: " + n);
        return decodeWith(decoded, derived->schema, record, false);
    }

    auto meta = readBincodeMetadata(decoded->span());
    const DTypeTable table = meta ? dtypeTableForVersion(meta->version) : DTypeTable::Burn017;
    if (meta) {
        for (auto& [name, schema] : builtinBincodeLayouts(table)) {
            Record attempt;
            attempt.file = record.file;
            if (!decodeWith(decoded, schema, attempt, true))
                continue;
            if (!indexEnvelope(attempt))
                continue;
            record.tape = std::move(attempt.tape);
            record.bincodeSchema = std::move(attempt.bincodeSchema);
            record.warnings = std::move(attempt.warnings);
            record.schemaSource = name;
            if (name.find("scheduler record: usize") != std::string::npos)
                record.warnings.push_back("a bincode scheduler record of one varint could also be StepLr's i32; pass --schema to be sure");
            return {};
        }
    }

    // No layout fits: list what can be proven, and say that the view is partial.
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
