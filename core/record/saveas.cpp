// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/record/saveas.h"

#include "core/pack/migrate.h"

#include "core/codec/schema.h"
#include "core/record/bincoderecord.h"

namespace ckpt {

namespace {
/// Across the Burn 0.22 line: one file of a 0.21 record's checkpoint to burnpack, or a burnpack file back to 0.21.
Result<SaveAsResult> saveBurnpackAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions)
{
    SaveAsResult result;
    if (record.recorder == Recorder::Burnpack && recorder == Recorder::Burnpack) {
        if (auto w = resaveBurnpack(record, path); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        result.notes.emplace_back("burnpack keeps each tensor's own dtype: --precision does not apply");
        return result;
    }
    if (recorder == Recorder::Burnpack) {
        // 0.21 -> 0.22, one file: the file of the same kind (a TrainingRecord makes three: ckpt migrate)
        MigrateSources sources;
        auto shared = std::shared_ptr<const Record>(std::shared_ptr<const Record>(), &record); // not owned
        switch (record.kind) {
        case RecordKind::ModuleRecord: sources.model = shared; break;
        case RecordKind::OptimizerRecord: sources.optim = shared; break;
        case RecordKind::SchedulerRecord: sources.scheduler = shared; break;
        default:
            return fail(ErrorCode::Unsupported, std::string(recordKindName(record.kind))
                    + " becomes Burn 0.22's model, optim and scheduler files: use `ckpt migrate IN OUT_DIR`");
        }
        MigrateOptions mo;
        mo.scheduler = layoutOptions.scheduler;
        auto content = migrateContent(sources, mo);
        if (!content)
            return std::unexpected(content.error());
        result.warnings = std::move(content->lost);
        const auto& file = content->model ? content->model : content->optim ? content->optim : content->scheduler;
        if (!file)
            return fail(ErrorCode::Invalid, "nothing of the record maps onto a burnpack file");
        if (auto w = pack::writeBurnpack(path, *file); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        return result;
    }
    // 0.22 -> 0.21: the envelope in 0.21's tree, then the usual conversion to the recorder and precision asked for
    std::vector<std::string> lost;
    auto envelope = burnpackToEnvelope(record, Recorder::NamedMpk, Precision::Full, lost);
    if (!envelope)
        return std::unexpected(Error(envelope.error()).withFile(record.file));
    auto indexed = indexRecord(std::move(*envelope), Recorder::NamedMpk, record.file);
    if (!indexed)
        return std::unexpected(indexed.error());
    auto res = saveRecordAs(**indexed, recorder, precision, path, layoutOptions);
    if (!res)
        return res;
    lost.insert(lost.end(), res->warnings.begin(), res->warnings.end());
    res->warnings = std::move(lost);
    return res;
}
} // namespace

Result<SaveAsResult> saveRecordAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions)
{
    SaveAsResult result;
    if (recorder == Recorder::Burnpack || record.recorder == Recorder::Burnpack)
        return saveBurnpackAs(record, recorder, precision, path, layoutOptions);
    // Writing bincode needs the exact Rust layout: the input's own, or the one --schema /
    // --schema-from / --scheduler name (tuples stay tuples, i32 stays i32), else derived from the input.
    std::optional<BincodeLayout> target;
    if (recorder == Recorder::Bin || recorder == Recorder::BinGz) {
        auto layout = bincodeTargetLayout(record, layoutOptions);
        if (!layout)
            return std::unexpected(std::move(layout.error()));
        result.notes = layout->notes;
        target = std::move(*layout);
    } else if ((recorder == Recorder::NamedMpk || recorder == Recorder::NamedMpkGz)
        && (record.recorder == Recorder::PrettyJson || record.recorder == Recorder::JsonGz)) {
        // JSON floats are all f64; the record's layout (named, or ckpt-train's own) says which are f32.
        auto layout = jsonFloatLayout(record, layoutOptions);
        if (!layout)
            return std::unexpected(std::move(layout.error()));
        if (*layout)
            target = std::move(**layout);
    }
    auto res = convertRecord(record, recorder, precision, path, target ? &target->schema : nullptr);
    if (!res)
        return std::unexpected(Error(res.error()).withFile(path));
    result.warnings = std::move(res->warnings);
    return result;
}

} // namespace ckpt
