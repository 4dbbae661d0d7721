// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The burnpack family behind the format interface: a record is the file's tensor list, metadata and
// scalars; every verb rebuilds the file's content (pack::BurnpackContent) and encodes it again.
#include "core/pack/burnpackrecord.h"

#include "core/codec/json.h"
#include "core/model/paramid.h"
#include "core/pack/migrate.h"

#include <algorithm>
#include <cstdio>
#include <deque>

namespace ckpt {

namespace {

/// The file's content with \a patch applied (payload spans borrowed from the patch).
Result<pack::BurnpackContent> patchedContent(const Record& r, const TensorPatch& patch, TensorPatchReport& report)
{
    if (r.parts.size() != 1)
        return fail(ErrorCode::Unsupported, "an epoch's model/optim/scheduler triple is three files: change one of them");
    pack::BurnpackContent content = pack::contentOf(burnpackFileOf(r.parts.front()));
    if (!patch.dropOptimizerOf.empty()) {
        // A parameter's state is every tensor and scalar under its decimal id (format-burnpack.md §8.2).
        std::set<std::string> prefixes;
        for (const auto& oe : r.optimizer)
            if (patch.dropOptimizerOf.contains(oe.paramId))
                if (auto id = paramIdToU64(oe.paramId); id && prefixes.insert(std::to_string(*id) + ".").second)
                    report.removed.push_back(oe.paramId);
        auto selected = [&](const std::string& name) {
            return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return name.starts_with(p); });
        };
        std::erase_if(content.tensors, [&](const pack::BurnpackEntry& e) { return selected(e.name); });
        std::erase_if(content.scalars, [&](const auto& s) { return selected(s.first); });
    }
    for (const auto& change : patch.payloads) {
        const std::string& name = r.tensors[change.tensor].path;
        auto entry = std::find_if(content.tensors.begin(), content.tensors.end(), [&](const pack::BurnpackEntry& e) { return e.name == name; });
        if (entry == content.tensors.end() || change.legacyTape) {
            Error e{ErrorCode::Invalid, "the file's tensor list has no " + name};
            e.recordPath = name;
            return std::unexpected(std::move(e));
        }
        entry->data = change.bytes;
    }
    return content;
}

/// One file's members of `info --json` (cli-contract.md "burnpack"): the metadata and scalars as the
/// file's CBOR holds them (`{"UInt": 7}`), the layout, the reader's tolerances.
void partJson(TapeBuilder& b, const Record& r, const RecordPart& part)
{
    const pack::BurnpackFile& f = burnpackFileOf(part);
    putStr(b, "layout", f.layout == pack::BurnpackLayout::Aligned256 ? "aligned-256" : "unaligned");
    for (const char* section : {"metadata", "scalars"}) {
        b.key(section);
        if (auto node = r.tape.find(part.node, section))
            b.copy(r.tape, *node);
        else {
            b.beginMap();
            b.end();
        }
    }
    std::vector<std::string> warnings;
    warnings.reserve(f.warnings.size());
    for (const auto& w : f.warnings)
        warnings.push_back("offset " + std::to_string(w.offset) + ": " + w.what);
    putStrings(b, "warnings", warnings);
}

/** A file read leniently although Burn rejects it is shown, not written again: its refused tensors have no bytes to write. */
Result<void> refuseDamaged(const Record& record)
{
    if (record.damage.empty())
        return {};
    return fail(ErrorCode::Unsupported, "opened as a damaged file (" + record.damage + "): it is shown, not saved again");
}

class BurnpackFormat final : public RecordFormat {
public:
    std::string_view description() const override { return "a burnpack file (Burn >= 0.19)"; }

    // "NRUB" (format-burnpack.md §2): neither a msgpack map nor JSON, and no bincode record's metadata
    // starts with a 78-byte float type name spelt "RUB..."
    bool reads(std::span<const uint8_t> decoded) const override { return pack::hasBurnpackMagic(decoded); }

    bool writes(Recorder recorder) const override { return recorder == Recorder::Burnpack; }

    Result<RecordPtr> open(const RecordInput& input, const OpenOptions& options, const Progress& /*progress*/) const override
    {
        return openBurnpackRecord(input.decoded, input.name, options);
    }

    bool opensWhole(const std::string& path) const override { return burnpackTripleOf(path).has_value(); }

    Result<void> resave(const Record& record, const std::string& path) const override
    {
        if (auto damaged = refuseDamaged(record); !damaged)
            return damaged;
        return resaveBurnpack(record, path);
    }

    Result<RecordPtr> edited(const Record& from, Tape edited) const override { return editedBurnpackRecord(from, edited); }

    Result<void> saveEdited(const Record& record, const Tape& edited, const std::string& path) const override
    {
        if (auto damaged = refuseDamaged(record); !damaged)
            return damaged;
        return saveEditedBurnpack(record, edited, path);
    }

    Result<RecordPtr> patched(const Record& record, const TensorPatch& patch, TensorPatchReport& report) const override
    {
        if (auto damaged = refuseDamaged(record); !damaged)
            return std::unexpected(damaged.error());
        auto content = patchedContent(record, patch, report);
        if (!content)
            return std::unexpected(content.error());
        return burnpackRecordOf(*content, record.file);
    }

    Result<void> savePatched(const Record& record, const TensorPatch& patch, const std::string& path) const override
    {
        if (auto damaged = refuseDamaged(record); !damaged)
            return damaged;
        TensorPatchReport report;
        auto content = patchedContent(record, patch, report);
        if (!content)
            return std::unexpected(content.error());
        if (auto w = pack::writeBurnpack(path, *content); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        return {};
    }

    std::optional<std::string> schedulerStepUnsupported() const override
    {
        return "a burnpack file's scheduler position is one of its scalars: use --set scalars.NAME=VALUE";
    }

    Result<SaveAsResult> saveAs(const Record& record, Recorder /*recorder*/, Precision /*precision*/, const std::string& path,
        const OpenOptions& /*layoutOptions*/) const override
    {
        if (auto damaged = refuseDamaged(record); !damaged)
            return std::unexpected(damaged.error());
        SaveAsResult result;
        if (auto w = resaveBurnpack(record, path); !w)
            return std::unexpected(Error(w.error()).withFile(path));
        result.notes.emplace_back("burnpack keeps each tensor's own dtype: --precision does not apply");
        return result;
    }

    Result<Tape> toEnvelope(const Record& record, std::vector<std::string>& lost) const override
    {
        return burnpackToEnvelope(record, Recorder::NamedMpk, Precision::Full, lost);
    }

    Result<SaveAsResult> importFrom(const RecordFormat& /*from*/, const Record& record, Recorder /*recorder*/, Precision /*precision*/,
        const std::string& path, const OpenOptions& layoutOptions) const override
    {
        // 0.21 -> 0.22, one file: the file of the same kind (a TrainingRecord makes three: ckpt migrate)
        SaveAsResult result;
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

    std::string infoText(const Record& record) const override
    {
        // Burn >= 0.22 keeps no precision settings: the dtype of each tensor is what it holds
        std::string out;
        for (const auto& part : record.parts) {
            const pack::BurnpackFile& f = burnpackFileOf(part);
            char line[256];
            std::snprintf(line, sizeof line, ": %s layout, %zu tensors, %zu metadata strings, %zu scalars\n",
                f.layout == pack::BurnpackLayout::Aligned256 ? "aligned-256" : "unaligned (Burn 0.19)", f.tensors.size(), f.metadata.size(),
                f.scalars.size());
            out += "  burnpack    " + part.file + line;
        }
        return out;
    }

    std::optional<std::pair<std::string, Tape>> infoMember(const Record& r) const override
    {
        if (r.parts.empty())
            return std::nullopt;
        TapeBuilder b(r.tape.source);
        b.beginMap();
        partJson(b, r, r.parts.front());
        if (r.parts.size() > 1) {
            // an epoch's triple: the model's members, and every file's under "files"
            putOptU(b, "epoch", r.epoch);
            b.key("files");
            b.beginArray();
            for (const auto& part : r.parts) {
                b.beginMap();
                putStr(b, "role", burnpackRoleName(part.role));
                putStr(b, "file", part.file);
                partJson(b, r, part);
                b.end();
            }
            b.end();
        }
        b.end();
        return std::pair{std::string("burnpack"), std::move(b).finish()};
    }
};

} // namespace

const RecordFormat& burnpackFormat()
{
    static const BurnpackFormat format;
    return format;
}

} // namespace ckpt
