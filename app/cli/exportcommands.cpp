// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/exportcommands.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "core/export/export.h"
#include "core/pack/migrate.h"
#include "core/util/text.h"
#include "core/open/formats.h"
#include "core/open/migrate.h"
#include "core/run/migratesources.h"

#include <cstdio>

namespace ckpt::cli {

int cmdExport(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--what"}), {"--lenient"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("export takes FILE and OUT.safetensors or OUT.npz");
    const std::string& in = a.positional()[0];
    const std::string& outPath = a.positional()[1];
    const auto format = exportFormatFromPath(outPath);
    if (!format)
        return usageError("cannot tell the format from '" + outPath + "': the output ends in .safetensors or .npz");
    ExportSelection what;
    if (auto w = a.value("--what")) {
        auto s = parseExportSelection(*w);
        if (!s)
            return usageError(s.error().what);
        what = *s;
    }
    auto r = openRecord(in, openOptions(a));
    if (!r)
        return failWith(r.error());
    auto res = *format == ExportFormat::Safetensors ? exportSafetensors(**r, what, outPath) : exportNpz(**r, what, outPath);
    if (!res)
        return failWith(Error(res.error()).withFile(in));
    for (const auto& n : res->notes)
        std::fprintf(stderr, "ckpt: note: %s: %s\n", outPath.c_str(), n.c_str());
    std::printf("%s: %llu tensors, %s\n", outPath.c_str(), static_cast<unsigned long long>(res->tensors), humanBytes(res->payloadBytes).c_str());
    return 0;
}

int cmdImport(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"-o", "--output"}), {});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("import takes FILE, IN.safetensors and -o OUT");
    auto outPath = a.value("-o") ? a.value("-o") : a.value("--output");
    if (!outPath)
        return usageError("import needs -o OUT");
    auto r = openRecord(a.positional()[0], openOptions(a));
    if (!r)
        return failWith(r.error());
    auto file = openSafetensors(a.positional()[1]);
    if (!file)
        return failWith(file.error());
    auto res = importSafetensors(**r, *file, *outPath);
    if (!res)
        return failWith(res.error());
    for (const auto& w : res->warnings)
        std::fprintf(stderr, "ckpt: warning: %s: %s\n", a.positional()[1].c_str(), w.c_str());
    std::printf("%s: %llu tensors replaced, %llu unchanged, %llu not in %s\n", outPath->c_str(), static_cast<unsigned long long>(res->replaced),
        static_cast<unsigned long long>(res->unchanged), static_cast<unsigned long long>(res->untouched), a.positional()[1].c_str());
    return 0;
}

int cmdMigrate(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--epoch"}), {});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("migrate takes IN (a Burn <= 0.21 record or run directory) and OUT_DIR");
    MigrateCheckpointOptions options;
    if (auto e = a.value("--epoch")) {
        options.epoch = parseNumber<uint64_t>(*e);
        if (!options.epoch)
            return usageError("--epoch takes a non-negative integer, got '" + *e + "'");
    }
    const OpenOptions open = openOptions(a);
    options.scheduler = open.scheduler;
    // --epoch picks the epoch of a run directory, and numbers the files written
    auto sources = migrateSourcesOf(a.positional()[0], open, options.epoch);
    if (!sources)
        return failWith(sources.error());
    auto res = migrateCheckpoint(*sources, a.positional()[1], options);
    if (!res)
        return failWith(res.error());
    for (const auto& line : res->lost)
        std::fprintf(stderr, "ckpt: not carried over: %s\n", line.c_str());
    for (const auto& f : res->written)
        std::printf("%s\n", f.c_str());
    return 0;
}

} // namespace ckpt::cli
