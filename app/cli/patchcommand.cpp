// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/patchcommand.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "core/edit/patch.h"

#include <ckpt_version.h>

#include <cstdio>
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

const std::string kTool = "ckpt " CKPT_VERSION " (" CKPT_GIT_REVISION ")";

int report(const Result<PatchFileResult>& r, const std::string& output)
{
    if (!r)
        return failWith(r.error());
    const PatchProvenance& p = r->provenance;
    for (size_t i = 0; i < r->reports.size() && i < p.operations.size(); ++i)
        std::fprintf(stderr, "ckpt: patch: %s: %s\n", describePatchOp(p.operations[i]).c_str(), r->reports[i].summary.c_str());
    std::fprintf(stderr, "ckpt: wrote %s and %s\n", output.c_str(), patchSidecarPath(output).c_str());
    std::fprintf(stderr, "ckpt: resume readiness of %s: %s\n", output.c_str(), p.readiness.c_str());
    for (const auto& c : r->checks)
        if (c.status != ResumeCheck::Status::Ok)
            std::fprintf(stderr, "  [%-7s] %-20s %s\n", std::string(resumeStatusName(c.status)).c_str(), c.name.c_str(), c.detail.c_str());
    return 0;
}

} // namespace

int patchCommand(const std::vector<std::string>& argv)
{
    PatchArgs a;
    if (auto e = parsePatchArgs(argv, a))
        return usageError(*e);
    if (!a.replay.empty())
        return report(replayPatch(a.replay, a.output, kTool), a.output);
    OpenOptions options;
    options.schemaFrom = a.schemaFrom;
    options.schemaFile = a.schemaFile;
    options.scheduler = a.scheduler;
    return report(patchFile(a.input, a.output, a.ops, options, kTool), a.output);
}

} // namespace ckpt::cli
