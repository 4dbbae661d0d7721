// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/exportcommands.h"

#include "app/cli/args.h"
#include "core/export/export.h"
#include "core/report/report.h"

#include <cstdio>

namespace ckpt::cli {

namespace {

int usage(const std::string& msg)
{
    std::fprintf(stderr, "ckpt: %s (see ckpt --help)\n", msg.c_str());
    return 2;
}

int failWith(const Error& e)
{
    std::fprintf(stderr, "ckpt: %s\n", e.message().c_str());
    return e.code == ErrorCode::Usage ? 2 : 1;
}

const std::set<std::string> kSchemaOpts = {"--schema-from", "--schema", "--scheduler"};

std::set<std::string> with(std::set<std::string> s)
{
    s.insert(kSchemaOpts.begin(), kSchemaOpts.end());
    return s;
}

OpenOptions openOptions(const Args& a, bool lenient)
{
    OpenOptions o;
    o.schemaFrom = a.value("--schema-from").value_or("");
    o.schemaFile = a.value("--schema").value_or("");
    o.scheduler = a.value("--scheduler").value_or("");
    o.lenient = lenient;
    return o;
}

} // namespace

int cmdExport(const std::vector<std::string>& argv)
{
    Args a(argv, with({"--what"}), {"--lenient"});
    if (!a.error().empty())
        return usage(a.error());
    if (a.positional().size() != 2)
        return usage("export takes FILE and OUT.safetensors or OUT.npz");
    const std::string& in = a.positional()[0];
    const std::string& outPath = a.positional()[1];
    const auto format = exportFormatFromPath(outPath);
    if (!format)
        return usage("cannot tell the format from '" + outPath + "': the output ends in .safetensors or .npz");
    ExportSelection what;
    if (auto w = a.value("--what")) {
        auto s = parseExportSelection(*w);
        if (!s)
            return usage(s.error().what);
        what = *s;
    }
    auto r = openRecord(in, openOptions(a, a.flag("--lenient")));
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
    Args a(argv, with({"-o", "--output"}), {});
    if (!a.error().empty())
        return usage(a.error());
    if (a.positional().size() != 2)
        return usage("import takes FILE, IN.safetensors and -o OUT");
    auto outPath = a.value("-o") ? a.value("-o") : a.value("--output");
    if (!outPath)
        return usage("import needs -o OUT");
    auto r = openRecord(a.positional()[0], openOptions(a, false));
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

} // namespace ckpt::cli
