// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/migrate.h"

#include "core/open/formats.h"
#include "core/pack/migrate.h"
#include "core/record/record.h"

namespace ckpt {

bool isMigrationSource(const RecordFormat& format)
{
    return &format == &envelopeFormat();
}

bool isMigrationSource(const std::string& path)
{
    const auto recorder = recorderFromPath(path);
    return recorder && isMigrationSource(formatFor(*recorder));
}

Result<MigrateCheckpointResult> migrateCheckpoint(const MigrateSources& sources, const std::string& outDir, const MigrateCheckpointOptions& options)
{
    MigrateOptions mo;
    mo.epoch = options.epoch;
    mo.scheduler = options.scheduler;
    auto res = migrateToBurnpack(sources, outDir, mo);
    if (!res)
        return std::unexpected(std::move(res.error()));
    MigrateCheckpointResult out;
    for (const std::string* f : {&res->written.model, &res->written.optim, &res->written.scheduler})
        if (!f->empty())
            out.written.push_back(*f);
    out.lost = std::move(res->lost);
    return out;
}

} // namespace ckpt
