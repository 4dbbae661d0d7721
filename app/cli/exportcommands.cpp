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

#include <algorithm>
#include <cstdio>

namespace ckpt::cli {

int cmdExport(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--what", "--map"}), {"--lenient"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("export takes FILE and OUT.safetensors, OUT.npz or OUT.pt");
    const std::string& in = a.positional()[0];
    const std::string& outPath = a.positional()[1];
    const auto format = exportFormatFromPath(outPath);
    if (!format)
        return usageError("cannot tell the format from '" + outPath + "': the output ends in .safetensors, .npz, .pt or .pth");
    ExportSelection what;
    TorchExportOptions torch;
    if (*format == ExportFormat::PyTorch) {
        const auto w = parseTorchExportWhat(a.value("--what").value_or("params"));
        if (!w)
            return usageError("--what takes params or all for a .pt file, got '" + a.value("--what").value_or("") + "'");
        torch.what = *w;
        auto rewrites = parseNameRewrites(a.values("--map"));
        if (!rewrites)
            return failWith(rewrites.error());
        torch.rewrites = std::move(*rewrites);
    } else if (!a.values("--map").empty()) {
        return usageError("--map renames for PyTorch: it goes with an OUT.pt");
    } else if (auto w = a.value("--what")) {
        auto s = parseExportSelection(*w);
        if (!s)
            return usageError(s.error().what);
        what = *s;
    }
    auto r = openRecord(in, openOptions(a));
    if (!r)
        return failWith(r.error());
    auto res = *format == ExportFormat::PyTorch ? exportTorch(**r, torch, outPath)
        : *format == ExportFormat::Safetensors  ? exportSafetensors(**r, what, outPath)
                                                : exportNpz(**r, what, outPath);
    if (!res)
        return failWith(Error(res.error()).withFile(in));
    for (const auto& n : res->notes)
        std::fprintf(stderr, "ckpt: note: %s: %s\n", outPath.c_str(), n.c_str());
    std::printf("%s: %llu tensors, %s\n", outPath.c_str(), static_cast<unsigned long long>(res->tensors), humanBytes(res->payloadBytes).c_str());
    return 0;
}

namespace {
int importReport(const ImportSummary& res, const std::string& sourcePath, const std::string& outPath)
{
    for (const auto& w : res.warnings)
        std::fprintf(stderr, "ckpt: warning: %s: %s\n", sourcePath.c_str(), w.c_str());
    std::printf("%s: %llu tensors replaced, %llu unchanged, %llu not in %s\n", outPath.c_str(), static_cast<unsigned long long>(res.replaced),
        static_cast<unsigned long long>(res.unchanged), static_cast<unsigned long long>(res.untouched), sourcePath.c_str());
    return 0;
}
} // namespace

int cmdImport(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"-o", "--output", "--map"}), {"--optimizer"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("import takes FILE, SOURCE (.safetensors, .pt, .pth, .bin) and -o OUT");
    auto outPath = a.value("-o") ? a.value("-o") : a.value("--output");
    if (!outPath)
        return usageError("import needs -o OUT");
    CrossImportOptions cross;
    cross.optimizer = a.flag("--optimizer");
    auto rewrites = parseNameRewrites(a.values("--map"));
    if (!rewrites)
        return failWith(rewrites.error());
    cross.rewrites = std::move(*rewrites);
    auto r = openRecord(a.positional()[0], openOptions(a));
    if (!r)
        return failWith(r.error());
    const std::string& sourcePath = a.positional()[1];
    // A safetensors file that speaks the record's own paths (what `ckpt export` wrote) goes back by
    // path, byte for byte; any other PyTorch or safetensors checkpoint by Burn's PyTorch rules.
    if (!cross.optimizer && cross.rewrites.empty() && asciiLower(sourcePath).ends_with(".safetensors")) {
        auto file = openSafetensors(sourcePath);
        if (!file)
            return failWith(file.error());
        if (std::ranges::any_of(file->tensors, [&](const SafetensorsTensor& t) { return (*r)->findTensor(t.name).has_value(); })) {
            auto res = importSafetensors(**r, *file, *outPath);
            return res ? importReport(*res, sourcePath, *outPath) : failWith(res.error());
        }
    }
    auto source = openRecord(sourcePath, OpenOptions{});
    if (!source)
        return failWith(source.error());
    auto res = importAcrossFrameworks(**r, **source, cross, *outPath);
    return res ? importReport(*res, sourcePath, *outPath) : failWith(res.error());
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
