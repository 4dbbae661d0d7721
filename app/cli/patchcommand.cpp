// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/patchcommand.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "core/edit/patch.h"
#include "core/io/bytes.h"

#include <ckpt_version.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

namespace ckpt::cli {

namespace {

/// The command line, operations kept in the order given (Args would group them by option).
struct PatchArgs {
    std::string input, output, replay;
    std::vector<PatchOp> ops;
    std::string schemaFrom, schemaFile, scheduler;
};

std::optional<std::string> parsePatchArgs(const std::vector<std::string>& argv, PatchArgs& out)
{
    static const std::map<std::string, int> valueCount = {{"-o", 1}, {"--output", 1}, {"--replay", 1}, {"--reset-optimizer", 1},
        {"--zero-nonfinite", 0}, {"--scheduler-step", 1}, {"--transplant", 2}, {"--set", 1}, {"--schema-from", 1}, {"--schema", 1},
        {"--scheduler", 1}};
    std::vector<std::string> positional;
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string name = argv[i];
        if (name.size() < 2 || name[0] != '-') {
            positional.push_back(name);
            continue;
        }
        std::vector<std::string> values;
        if (auto eq = name.find('='); eq != std::string::npos && name.starts_with("--") && valueCount.contains(name.substr(0, eq))) {
            values.push_back(name.substr(eq + 1)); // --opt=VALUE
            name = name.substr(0, eq);
        }
        auto it = valueCount.find(name);
        if (it == valueCount.end())
            return "unknown option " + name;
        while (static_cast<int>(values.size()) < it->second) {
            if (i + 1 >= argv.size())
                return "option " + name + " needs " + (it->second == 2 ? "two values (FROM GLOB)" : "a value");
            values.push_back(argv[++i]);
        }
        if (static_cast<int>(values.size()) != it->second)
            return "option " + name + " takes " + std::to_string(it->second) + " values";
        PatchOp op;
        if (name == "-o" || name == "--output") {
            out.output = values[0];
        } else if (name == "--replay") {
            out.replay = values[0];
        } else if (name == "--schema-from") {
            out.schemaFrom = values[0];
        } else if (name == "--schema") {
            out.schemaFile = values[0];
        } else if (name == "--scheduler") {
            out.scheduler = values[0];
        } else if (name == "--reset-optimizer") {
            op.kind = PatchOp::Kind::ResetOptimizer;
            op.glob = values[0];
            out.ops.push_back(op);
        } else if (name == "--zero-nonfinite") {
            op.kind = PatchOp::Kind::ZeroNonFinite;
            out.ops.push_back(op);
        } else if (name == "--scheduler-step") {
            auto n = parseNumber<uint64_t>(values[0]);
            if (!n)
                return "--scheduler-step takes a non-negative integer, got \"" + values[0] + "\"";
            op.kind = PatchOp::Kind::SchedulerStep;
            op.step = *n;
            out.ops.push_back(op);
        } else if (name == "--transplant") {
            op.kind = PatchOp::Kind::Transplant;
            op.from = values[0];
            op.glob = values[1];
            out.ops.push_back(op);
        } else if (name == "--set") {
            const auto eq = values[0].find('=');
            if (eq == std::string::npos || eq == 0)
                return "--set takes PATH=JSONVALUE, got '" + values[0] + "'";
            op.kind = PatchOp::Kind::Set;
            op.path = values[0].substr(0, eq);
            op.json = values[0].substr(eq + 1);
            out.ops.push_back(op);
        }
    }
    if (out.output.empty())
        return std::string("patch needs -o OUT");
    if (!out.replay.empty()) {
        if (!positional.empty() || !out.ops.empty())
            return std::string("--replay takes the sidecar and -o OUT only: the input and the operations come from the sidecar");
        return std::nullopt;
    }
    if (positional.size() != 1)
        return std::string("patch takes one IN, -o OUT and at least one operation");
    if (out.ops.empty())
        return std::string("patch needs at least one operation (--reset-optimizer GLOB, --zero-nonfinite, --scheduler-step N, "
                           "--transplant FROM GLOB, --set PATH=JSONVALUE)");
    out.input = positional[0];
    return std::nullopt;
}

std::string absolute(const std::string& path)
{
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

/// Checks that \a file still hashes to \a expected (a replay must start from the same bytes).
std::optional<Error> checkDigest(const std::string& file, const std::string& expected, std::string_view role)
{
    auto digest = fileSha256(file);
    if (!digest)
        return Error(digest.error()).withFile(file);
    if (*digest != expected) {
        Error e {ErrorCode::Invalid, std::string(role) + " has changed since the patch was made: SHA-256 " + *digest + ", the sidecar records " + expected};
        return std::move(e).withFile(file);
    }
    return std::nullopt;
}

int runPatch(const PatchArgs& a)
{
    if (sameFile(a.input, a.output))
        return usageError("OUT must not be IN: the unpatched file is the patch's provenance (write OUT beside it)");
    OpenOptions options;
    options.schemaFrom = a.schemaFrom;
    options.schemaFile = a.schemaFile;
    options.scheduler = a.scheduler;
    auto in = openRecord(a.input, options);
    if (!in)
        return failWith(in.error());

    PatchProvenance prov;
    prov.source = absolute(a.input);
    prov.schemaFrom = a.schemaFrom.empty() ? "" : absolute(a.schemaFrom);
    prov.schemaFile = a.schemaFile.empty() ? "" : absolute(a.schemaFile);
    prov.scheduler = a.scheduler;
    auto sourceDigest = fileSha256(a.input);
    if (!sourceDigest)
        return failWith(Error(sourceDigest.error()).withFile(a.input));
    prov.sourceSha256 = *sourceDigest;
    // Donors are named by absolute path in the sidecar, so that a replay from elsewhere finds them.
    for (auto op : a.ops) {
        std::string donorDigest;
        if (op.kind == PatchOp::Kind::Transplant) {
            auto d = fileSha256(op.from);
            if (!d)
                return failWith(Error(d.error()).withFile(op.from));
            donorDigest = *d;
            op.from = absolute(op.from);
        }
        prov.operations.push_back(std::move(op));
        prov.donorSha256.push_back(std::move(donorDigest));
    }

    const PatchRecordSource donors = [&](const std::string& file) { return openRecord(file, options); };
    std::vector<PatchOpReport> reports;
    auto patched = applyPatch(**in, prov.operations, donors, &reports);
    if (!patched)
        return failWith(Error(patched.error()).withFile(a.input));
    for (size_t i = 0; i < reports.size(); ++i)
        std::fprintf(stderr, "ckpt: patch: %s: %s\n", describePatchOp(prov.operations[i]).c_str(), reports[i].summary.c_str());

    if (auto w = savePatchedRecord(**patched, a.output); !w)
        return failWith(Error(w.error()).withFile(a.output));
    auto outDigest = fileSha256(a.output);
    if (!outDigest)
        return failWith(Error(outDigest.error()).withFile(a.output));
    prov.output = absolute(a.output);
    prov.outputSha256 = *outDigest;
    prov.tool = "ckpt " CKPT_VERSION " (" CKPT_GIT_REVISION ")";

    // The verdict of the file as written, read back as any later reader will read it.
    auto written = openRecord(a.output, options);
    if (!written)
        return failWith(Error(written.error()).withFile(a.output));
    const auto checks = checkResume(**written);
    prov.readiness = std::string(resumeReadiness(checks));
    const std::string sidecar = patchSidecarPath(a.output);
    const std::string json = patchProvenanceJson(prov);
    if (auto w = writeFileAtomic(sidecar, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size())); !w)
        return failWith(Error(w.error()).withFile(sidecar));

    std::fprintf(stderr, "ckpt: wrote %s and %s\n", a.output.c_str(), sidecar.c_str());
    std::fprintf(stderr, "ckpt: resume readiness of %s: %s\n", a.output.c_str(), prov.readiness.c_str());
    for (const auto& c : checks)
        if (c.status != ResumeCheck::Status::Ok)
            std::fprintf(stderr, "  [%-7s] %-20s %s\n", std::string(resumeStatusName(c.status)).c_str(), c.name.c_str(), c.detail.c_str());
    return 0;
}

int replay(const PatchArgs& a)
{
    auto prov = readPatchProvenance(a.replay);
    if (!prov)
        return failWith(prov.error());
    if (auto bad = checkDigest(prov->source, prov->sourceSha256, "the patch's source"))
        return failWith(*bad);
    for (size_t i = 0; i < prov->operations.size(); ++i)
        if (prov->operations[i].kind == PatchOp::Kind::Transplant)
            if (auto bad = checkDigest(prov->operations[i].from, i < prov->donorSha256.size() ? prov->donorSha256[i] : "", "a transplant's donor"))
                return failWith(*bad);
    PatchArgs again;
    again.input = prov->source;
    again.output = a.output;
    again.ops = prov->operations;
    again.schemaFrom = prov->schemaFrom;
    again.schemaFile = prov->schemaFile;
    again.scheduler = prov->scheduler;
    return runPatch(again);
}

} // namespace

int patchCommand(const std::vector<std::string>& argv)
{
    PatchArgs a;
    if (auto e = parsePatchArgs(argv, a))
        return usageError(*e);
    return a.replay.empty() ? runPatch(a) : replay(a);
}

} // namespace ckpt::cli
