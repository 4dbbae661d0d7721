// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/migratesources.h"

#include "core/open/formats.h"
#include "core/open/migrate.h"
#include "core/run/run.h"

#include <charconv>
#include <filesystem>
#include <regex>

namespace ckpt {

namespace fs = std::filesystem;

namespace {

/// A burn-train or ckpt-train checkpoint name: `model-3.mpk` -> {model, 3, "3", ".mpk"}.
struct CheckpointName {
    std::string kind;   ///< model, optim, scheduler or record
    uint64_t number = 0;
    std::string digits; ///< as written (siblings are named with the same digits)
    std::string ext;    ///< ".mpk", ".mpk.gz", ...
};

std::optional<CheckpointName> checkpointName(const std::string& path)
{
    static const std::regex kName(R"(^(model|optim|scheduler|record)-(\d+)(\.[A-Za-z.]+)$)");
    const std::string name = fs::path(path).filename().string();
    std::smatch m;
    uint64_t n = 0;
    if (!std::regex_match(name, m, kName)
        || std::from_chars(name.data() + m.position(2), name.data() + m.position(2) + m.length(2), n).ec != std::errc())
        return std::nullopt;
    return CheckpointName{m[1].str(), n, m[2].str(), m[3].str()};
}

} // namespace

Result<MigrateSources> migrateSourcesOf(const std::string& in, const OpenOptions& options, std::optional<uint64_t> epoch)
{
    MigrateSources s;
    std::error_code ec;
    std::string first = in;
    if (fs::is_directory(in, ec)) {
        auto run = openRunDirectory(in);
        if (!run)
            return std::unexpected(run.error());
        std::optional<RunCheckpoint> pick;
        for (const auto& c : run->checkpoints)
            if ((c.kind == "model" || c.kind == "record") && isMigrationSource(c.path) && (!epoch || c.index == *epoch)
                && (!pick || c.index >= pick->index))
                pick = c;
        if (!pick)
            return std::unexpected(Error{ErrorCode::Invalid,
                epoch ? "the run directory holds no Burn <= 0.21 checkpoint of epoch " + std::to_string(*epoch)
                      : std::string("the run directory holds no Burn <= 0.21 model-EPOCH or record-STEP checkpoint"),
                in});
        first = pick->path;
    }
    auto opened = openRecord(first, options);
    if (!opened)
        return std::unexpected(opened.error());
    const Record& r = **opened;
    if (!isMigrationSource(formatOf(r)))
        return std::unexpected(Error{ErrorCode::Invalid, "already " + std::string(formatOf(r).description()) + ": nothing to migrate", first});
    if (r.partial)
        return std::unexpected(Error{ErrorCode::Unsupported, "the record was only partly decoded (bincode without a schema, or --lenient): pass --schema-from", first});
    const auto name = checkpointName(first);
    if (name)
        s.epoch = name->number;
    switch (r.kind) {
    case RecordKind::TrainingRecord:
    case RecordKind::ModelStateTrainingRecord: s.model = *opened; return s;
    case RecordKind::ModuleRecord: s.model = *opened; break;
    case RecordKind::OptimizerRecord: s.optim = *opened; break;
    case RecordKind::SchedulerRecord: s.scheduler = *opened; break;
    default: return std::unexpected(Error{ErrorCode::Invalid, "not a Burn record to migrate", first});
    }
    // burn-train's siblings of the same epoch, in any recorder
    if (name && name->kind != "record") {
        const fs::path dir = fs::path(first).parent_path();
        for (auto [kind, slot] : {std::pair{"model", &s.model}, std::pair{"optim", &s.optim}, std::pair{"scheduler", &s.scheduler}}) {
            if (*slot)
                continue;
            const fs::path sibling = dir / (std::string(kind) + "-" + name->digits + name->ext);
            if (!fs::is_regular_file(sibling, ec))
                continue;
            auto rec = openRecord(sibling.string(), options);
            if (!rec)
                return std::unexpected(rec.error());
            *slot = *rec;
        }
    }
    return s;
}

} // namespace ckpt
