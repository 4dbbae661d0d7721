// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/runcommands.h"
#include "app/cli/commands.h"

#include "app/cli/args.h"
#include "app/cli/diffcommands.h"
#include "app/cli/exits.h"
#include "app/cli/exportcommands.h"
#include "app/cli/graphcommands.h"
#include "app/cli/patchcommand.h"
#include "app/cli/verifyresume.h"
#include "app/workers/parallelfor.h"
#include "core/codec/schema.h"
#include "core/diff/diff.h"
#include "core/edit/edit.h"
#include "core/edit/partialmodule.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/open/saveas.h"
#include "core/optim/forensics.h"
#include "core/record/bincoderecord.h"
#include "core/record/record.h"
#include "core/report/diffjson.h"
#include "core/report/optimizerjson.h"
#include "core/report/recordjson.h"
#include "core/report/runjson.h"
#include "core/run/run.h"
#include "core/util/text.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace ckpt::cli {

namespace {

/// Reading commands also take --lenient: a damaged record is still shown, marked partial.
std::set<std::string> readFlags(std::set<std::string> s)
{
    s.insert("--lenient");
    return s;
}

/// A run directory, not a directory that is one record (a Distributed Checkpoint).
bool isDirectory(const std::string& p)
{
    std::error_code ec;
    return std::filesystem::is_directory(p, ec) && !isRecordDirectory(p);
}

Result<std::shared_ptr<const Record>> open(const std::string& path, const Args& a)
{
    // FILE may be a run directory (cli-contract.md): its newest record, as ckpt.open picks it
    if (isDirectory(path)) {
        auto pick = recordOfRunDirectory(path);
        if (!pick)
            return std::unexpected(pick.error());
        OpenOptions options = openOptions(a);
        options.wholeCheckpoint = true; // a burn-train 0.22 epoch: model, optimizer and scheduler as one record
        return openRecord(pick->path, options);
    }
    return openRecord(path, openOptions(a));
}

/// Colours only on a terminal, as the contract says.
const char* bold() { return isatty(1) ? "\033[1m" : ""; }
const char* reset() { return isatty(1) ? "\033[0m" : ""; }

// ------------------------------------------------------------------------------------------------

int cmdInfo(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({}), readFlags({"--json"}));
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("info takes one FILE");
    const std::string& path = a.positional()[0];
    if (isDirectory(path)) {
        auto run = openRunDirectory(path);
        if (!run)
            return failWith(run.error());
        if (a.flag("--json")) {
            printDocument(runInfoJson(*run));
            return 0;
        }
        std::printf("%s%s%s: burn-train run directory\n", bold(), path.c_str(), reset());
        std::printf("  checkpoints: %zu\n", run->checkpoints.size());
        for (const auto& c : run->checkpoints)
            std::printf("    %-9s %6llu  %s\n", c.kind.c_str(), static_cast<unsigned long long>(c.index), c.path.c_str());
        std::printf("  metric logs: %zu series\n", run->series.size());
        for (const auto& s : run->series)
            std::printf("    %-6s %-24s %zu points\n", s.split.c_str(), s.metric.c_str(), s.points.size());
        for (const auto& w : run->warnings)
            std::printf("  warning: %s\n", w.c_str());
        return 0;
    }
    if (auto g = gradientCheckpointCommand("info", path, argv))
        return *g;
    auto r = open(path, a);
    if (!r)
        return failWith(r.error());
    // One verdict: what validate rejects (optimizer state or pending gradients that do not fit their
    // parameters, which loading rejects too), info does not describe as a record, unless --lenient.
    std::string mismatch;
    if (auto v = validateRecord(**r); !v) {
        if (!a.flag("--lenient"))
            return failWith(Error(v.error()).withFile(path));
        mismatch = v.error().message();
    }
    const Record& rec = **r;
    if (a.flag("--json")) {
        printDocument(infoJson(rec));
        return 0;
    }
    std::printf("%s%s%s\n", bold(), rec.file.c_str(), reset());
    std::printf("  kind        %s\n", std::string(recordKindName(rec.kind)).c_str());
    std::printf("  recorder    %s\n", std::string(recorderName(rec.recorder)).c_str());
    std::printf("  precision   %s\n", std::string(rec.precisionText()).c_str());
    if (rec.parts.empty()) {
        std::printf("  metadata    float=%s int=%s version=%s settings=%s\n", rec.metadata.floatType.c_str(), rec.metadata.intType.c_str(),
            rec.metadata.version.c_str(), rec.metadata.settings.c_str());
        std::printf("              format=%s\n", rec.metadata.format.c_str());
    }
    std::fputs(formatOf(rec).infoText(rec).c_str(), stdout); // the format's own containers, if any
    if (rec.epoch)
        std::printf("  epoch       %llu\n", static_cast<unsigned long long>(*rec.epoch));
    std::printf("  params      %zu\n", rec.params.size());
    if (auto partial = partialModuleOf(rec))
        std::printf("  partial     %s\n", partialModuleDetail(*partial).c_str());
    std::printf("  optimizer   %zu entries\n", rec.optimizer.size());
    std::printf("  gradients   %zu pending\n", rec.gradients.size());
    if (rec.scheduler)
        std::printf("  scheduler   %s\n", rec.scheduler->description.c_str());
    std::printf("  tensors     %zu (%s)\n", rec.tensors.size(), humanBytes(rec.tensorBytes()).c_str());
    std::printf("  file        %s on disk, %s decoded\n", humanBytes(rec.fileSize).c_str(), humanBytes(rec.decodedSize).c_str());
    if (!rec.schemaSource.empty())
        std::printf("  layout      %s\n", rec.schemaSource.c_str());
    if (!rec.damage.empty())
        std::printf("  %sDAMAGED%s     partial view (--lenient): %s\n", bold(), reset(), rec.damage.c_str());
    if (!mismatch.empty())
        std::printf("  %sDAMAGED%s     (--lenient): %s\n", bold(), reset(), mismatch.c_str());
    for (const auto& w : rec.warnings)
        std::printf("  warning: %s\n", w.c_str());
    return 0;
}

int cmdTree(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--depth"}), readFlags({"--json"}));
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("tree takes one FILE");
    int depth = -1;
    if (auto d = a.value("--depth")) {
        const auto n = parseNumber<int>(*d);
        if (!n)
            return usageError("--depth takes a whole number, found '" + *d + "'");
        depth = *n;
    }
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    printDocument(a.flag("--json") ? treeJson(**r, depth) : treeText(**r, depth));
    return 0;
}

int cmdTensors(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--filter"}), readFlags({"--json"}));
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("tensors takes one FILE");
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    const auto rows = tensorRows(**r, a.value("--filter").value_or(""), Progress::none(), workers::threadedFor());
    if (a.flag("--json")) {
        printDocument(tensorsJson(**r, rows));
        return 0;
    }
    std::printf("%s%-60s %-9s %-5s %-16s %10s %10s %11s %11s %11s %11s%s\n", bold(), "path", "role", "dtype", "shape", "numel", "bytes", "min",
        "max", "mean", "std", reset());
    for (const auto& row : rows) {
        const auto& t = *row.entry;
        std::string p = t.path.size() > 60 ? "..." + t.path.substr(t.path.size() - 57) : t.path;
        std::printf("%-60s %-9s %-5s %-16s %10llu %10s %11s %11s %11s %11s", p.c_str(), std::string(tensorRoleName(t.role)).c_str(), t.dtypeLabel().c_str(),
            shapeString(t.shape).c_str(), static_cast<unsigned long long>(t.numel), humanBytes(t.bytes).c_str(), fmt(row.stats.min).c_str(),
            fmt(row.stats.max).c_str(), fmt(row.stats.mean).c_str(), fmt(row.stats.std).c_str());
        if (row.stats.nan || row.stats.inf)
            std::printf("  nan=%llu inf=%llu", static_cast<unsigned long long>(row.stats.nan), static_cast<unsigned long long>(row.stats.inf));
        std::printf("\n");
    }
    std::printf("%zu tensors, %s\n", rows.size(), humanBytes((*r)->tensorBytes()).c_str());
    if ((*r)->partial)
        std::printf("partial: %s\n", (*r)->damage.empty() ? (*r)->schemaSource.c_str() : ("damaged, " + (*r)->damage).c_str());
    return 0;
}

int cmdShow(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--limit", "--blocks"}), readFlags({"--json"}));
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("show takes FILE and PATH");
    if (auto g = gradientCheckpointCommand("show", a.positional()[0], argv))
        return *g;
    uint64_t limit = 16;
    if (auto l = a.value("--limit")) {
        const auto n = parseNumber<uint64_t>(*l);
        if (!n)
            return usageError("--limit takes a whole number, found '" + *l + "'");
        limit = *n;
    }
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    auto res = a.flag("--json") ? showJson(**r, a.positional()[1], limit) : showText(**r, a.positional()[1], limit);
    if (!res)
        return failWith(Error(res.error()).withFile(a.positional()[0]));
    printDocument(*res);
    return 0;
}

int cmdState(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({}), readFlags({"--json"}));
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("state takes one FILE");
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    auto s = stateJson(**r);
    if (!s)
        return failWith(Error(s.error()).withFile(a.positional()[0]));
    printDocument(*s);
    return 0;
}

int cmdValidate(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({}), {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().empty())
        return usageError("validate takes one or more FILEs");
    std::string json = "[";
    int status = 0;
    for (const auto& path : a.positional()) {
        std::optional<Error> err;
        if (auto g = gradientCheckpointCommand("validate", path, {path})) {
            if (*g != 0)
                status = *g;
            if (status)
                break;
            continue;
        }
        auto r = open(path, a);
        if (!r)
            err = r.error();
        else if (auto v = validateRecord(**r); !v)
            err = Error(v.error()).withFile(path);
        if (a.flag("--json")) {
            json += std::string(json.size() > 1 ? ",\n" : "\n") + "  {\"file\": \"" + path + "\", \"valid\": " + (err ? "false" : "true");
            if (auto partial = r ? partialModuleOf(**r) : std::nullopt) // valid: a partial module record is not damage
                json += ", \"partial_module\": {\"held\": " + std::to_string(partial->held) + ", \"of\": " + std::to_string(partial->whole) + "}";
            if (err) {
                std::string msg;
                for (char c : err->message()) {
                    if (c == '"' || c == '\\')
                        msg += '\\';
                    msg += c;
                }
                json += ", \"error\": \"" + msg + "\"";
            }
            json += "}";
        } else if (!err) {
            const auto partial = partialModuleOf(**r);
            std::printf("%s: valid (%s, %s, %zu tensors)%s%s\n", path.c_str(), std::string(recordKindName((*r)->kind)).c_str(),
                std::string(recorderName((*r)->recorder)).c_str(), (*r)->tensors.size(),
                (*r)->partial ? " as far as a structural scan proves: no layout of its types (partial; pass --schema-from or --schema)" : "",
                partial ? ("; " + partialModuleSummary(*partial)).c_str() : "");
        }
        if (err) {
            std::fprintf(stderr, "ckpt: %s\n", err->message().c_str());
            status = 1;
            break;
        }
    }
    if (a.flag("--json"))
        printDocument(json + "\n]");
    return status;
}

int cmdResave(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({}), {});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("resave takes IN and OUT");
    if (auto g = gradientCheckpointCommand("resave", a.positional()[0], argv))
        return *g;
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    if (auto w = resaveRecord(**r, a.positional()[1]); !w)
        return failWith(Error(w.error()).withFile(a.positional()[1]));
    return 0;
}

int cmdConvert(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--recorder", "--precision"}), {});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("convert takes IN and OUT");
    const std::string& outPath = a.positional()[1];
    std::optional<Recorder> recorder;
    if (auto n = a.value("--recorder")) {
        recorder = recorderFromName(*n);
        if (!recorder)
            return usageError("unknown recorder '" + *n + "' (NamedMpk, NamedMpkGz, PrettyJson, JsonGz, Bin, BinGz)");
    } else {
        recorder = recorderFromPath(outPath);
        if (!recorder)
            return usageError("cannot tell the recorder from '" + outPath + "': use --recorder or an extension .mpk .mpk.gz .json .json.gz .bin .bin.gz");
    }
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    Precision precision = (*r)->precision;
    if (auto p = a.value("--precision")) {
        auto pp = precisionFromName(*p);
        if (!pp)
            return usageError("unknown precision '" + *p + "' (full, half, double)");
        precision = *pp;
    }
    auto res = saveRecordAs(**r, *recorder, precision, outPath, openOptions(a));
    if (!res)
        return failWith(res.error());
    for (const auto& n : res->notes)
        std::fprintf(stderr, "ckpt: note: %s\n", n.c_str());
    for (const auto& w : res->warnings)
        std::fprintf(stderr, "ckpt: warning: %s: %s\n", outPath.c_str(), w.c_str());
    return 0;
}

int cmdEdit(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"-o", "--output", "--set"}), {});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("edit takes IN, -o OUT and --set PATH=JSON");
    auto outPath = a.value("-o") ? a.value("-o") : a.value("--output");
    if (!outPath)
        return usageError("edit needs -o OUT");
    std::vector<Edit> edits;
    for (const auto& s : a.values("--set")) {
        auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
            return usageError("--set takes PATH=JSONVALUE, got '" + s + "'");
        edits.push_back({s.substr(0, eq), s.substr(eq + 1)});
    }
    if (edits.empty())
        return usageError("edit needs at least one --set PATH=JSONVALUE");
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    auto tape = applyEdits(**r, edits);
    if (!tape)
        return failWith(Error(tape.error()).withFile(a.positional()[0]));
    if (auto w = saveEditedRecord(**r, *tape, *outPath); !w)
        return failWith(Error(w.error()).withFile(*outPath));
    return 0;
}

int cmdDiff(const std::vector<std::string>& argv)
{
    if (auto g = graphDiffCommand(argv))
        return *g;
    Args a(argv, withSchemaOptions({"--tolerance", "--map"}), {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 2)
        return usageError("diff takes A and B");
    DiffOptions o;
    if (auto t = toleranceArg(a))
        o.tolerance = *t;
    else
        return usageError("--tolerance takes a number");
    if (auto rewrites = parseNameRewrites(a.values("--map")))
        o.rewrites = std::move(*rewrites);
    else
        return failWith(rewrites.error());
    auto ra = open(a.positional()[0], a);
    if (!ra)
        return failWith(ra.error());
    auto rb = open(a.positional()[1], a);
    if (!rb)
        return failWith(rb.error());
    auto d = diffRecords(**ra, **rb, o, Progress::none(), workers::threadedFor());
    if (!d)
        return failWith(d.error());
    if (a.flag("--json")) {
        printDocument(diffJson(*d, **ra, **rb));
        return 0;
    }
    std::printf("%s%s%s vs %s%s%s: %llu added, %llu removed, %llu changed, %llu unchanged\n", bold(), d->a.c_str(), reset(), bold(), d->b.c_str(),
        reset(), static_cast<unsigned long long>(d->added), static_cast<unsigned long long>(d->removed),
        static_cast<unsigned long long>(d->changed), static_cast<unsigned long long>(d->unchanged));
    if (d->renamed)
        std::printf("  %llu renamed (matched by parameter id)\n", static_cast<unsigned long long>(d->renamed));
    if (d->precision)
        std::printf("  precision      %s -> %s%s\n", std::string(precisionName(d->precision->a)).c_str(), std::string(precisionName(d->precision->b)).c_str(),
            d->precision->roundingOnly ? " (every tensor difference is rounding to the narrower dtype)" : "");
    for (const auto& n : d->notes)
        std::printf("  note           %s\n", n.c_str());
    for (const auto& e : d->entries) {
        // A renamed or re-initialised pair is news even when its values did not move; across
        // frameworks every pair is: the user checks that each tensor found its counterpart.
        if (e.status == DiffStatus::Unchanged && !e.renamed() && !e.reinitialised() && !d->acrossFrameworks)
            continue;
        std::printf("  %-14s %-60s", std::string(diffStatusName(e.status)).c_str(), e.path.c_str());
        if (!e.pathB.empty())
            std::printf(" -> %s", e.pathB.c_str());
        if (e.renamed())
            std::printf(" (renamed, same parameter id)");
        else if (e.reinitialised())
            std::printf(" (re-initialised: id %s -> %s)", e.paramId.c_str(), e.paramIdB.c_str());
        if (e.precisionChange)
            std::printf(" (precision change)");
        if (e.layout == CrossLayout::Transposed)
            std::printf(" (transposed)");
        if (e.maxAbs && !e.byteEqual) {
            std::printf(" max_abs=%s mean_abs=%s rel_l2=%s", fmt(*e.maxAbs).c_str(), fmt(e.meanAbs.value_or(NAN)).c_str(), fmt(e.relL2.value_or(NAN)).c_str());
            if (e.cosine)
                std::printf(" cos=%s", fmt(*e.cosine).c_str());
            std::printf(" above_tol=%llu", static_cast<unsigned long long>(e.differing));
        }
        std::printf("\n");
    }
    for (const auto& s : d->state)
        std::printf("  %-14s %-60s %s -> %s\n", std::string(stateSectionName(s.section)).c_str(), s.path.c_str(), s.a.value_or("(absent)").c_str(),
            s.b.value_or("(absent)").c_str());
    return 0;
}

int cmdLoss(const std::vector<std::string>& argv)
{
    Args a(argv, {}, {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("loss takes one RUN_DIR");
    auto run = openRunDirectory(a.positional()[0]);
    if (!run)
        return failWith(run.error());
    if (a.flag("--json")) {
        printDocument(lossJson(*run));
        return 0;
    }
    for (const auto& s : run->series) {
        std::printf("%s%s/%s%s (%zu points)\n", bold(), s.split.c_str(), s.metric.c_str(), reset(), s.points.size());
        for (auto [e, m] : s.epochMeans())
            std::printf("  epoch %-4u mean %s\n", e, fmt(m).c_str());
    }
    for (const auto& w : run->warnings)
        std::printf("warning: %s\n", w.c_str());
    return 0;
}

int cmdSchema(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"-o", "--output"}), {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("schema takes one FILE (a self-describing .mpk or .json record, or bincode with the options that read it)");
    SchemaFromRecordOptions derive;
    if (auto sch = a.value("--scheduler")) {
        auto type = schedulerRecordType(*sch);
        if (!type)
            return usageError("unknown scheduler '" + *sch + "' (step, linear, cosine, noam, exponential, constant)");
        derive.schedulerType = *type;
    }
    // A bincode FILE read with --schema-from TWIN gives the layout its bytes settled (Option or bare,
    // tuple or Vec), which a MessagePack twin alone cannot: the schema to convert other records with.
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    std::string json;
    if ((*r)->bincodeSchema) {
        json = (*r)->bincodeSchema->toJson();
    } else {
        auto s = schemaFromRecord((*r)->tape, derive);
        if (!s)
            return failWith(Error(s.error()).withFile(a.positional()[0]));
        for (const auto& n : s->notes)
            std::fprintf(stderr, "ckpt: note: %s\n", n.c_str());
        json = s->schema.toJson();
    }
    auto o = a.value("-o") ? a.value("-o") : a.value("--output");
    if (!o) {
        printDocument(json);
        return 0;
    }
    if (auto w = writeFileAtomic(*o, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size())); !w)
        return failWith(w.error());
    return 0;
}

int cmdCheckResume(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--against"}), {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("check-resume takes one FILE");
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    // --against WHOLE: the checkpoint the resumption starts from, which says what the whole model is
    std::shared_ptr<const Record> whole;
    if (auto against = a.value("--against")) {
        auto w = open(*against, a);
        if (!w)
            return failWith(w.error());
        whole = *w;
    }
    const auto checks = checkResume(**r, whole.get());
    bool ready = true;
    for (const auto& c : checks)
        ready = ready && c.status != ResumeCheck::Status::Error;
    if (a.flag("--json")) {
        printDocument(checkResumeJson(**r, checks));
    } else {
        std::printf("%s%s%s: %s\n", bold(), (*r)->file.c_str(), reset(), ready ? "ready to resume" : "NOT ready to resume");
        for (const auto& c : checks) {
            std::printf("  [%-7s] %-20s %s\n", std::string(resumeStatusName(c.status)).c_str(), c.name.c_str(), c.detail.c_str());
            for (const auto& path : c.missing)
                std::printf("  %-30s lacks %s\n", "", path.c_str());
        }
    }
    return ready ? 0 : 1;
}

/// `--betas B1,B2`: two numbers; the range is checked by the engine, with the recorded values.
std::optional<std::pair<double, double>> parseBetas(const std::string& text)
{
    const auto comma = text.find(',');
    if (comma == std::string::npos)
        return std::nullopt;
    auto b1 = parseNumber<double>(std::string_view(text).substr(0, comma));
    auto b2 = parseNumber<double>(std::string_view(text).substr(comma + 1));
    if (!b1 || !b2)
        return std::nullopt;
    return std::pair {*b1, *b2};
}

std::string fmtOpt(const std::optional<double>& v) { return v ? fmt(*v) : "-"; }

void printForensicsRow(const ParamForensics& p)
{
    std::string flags;
    for (const auto& f : p.flags)
        flags += (flags.empty() ? "" : ",") + f;
    std::printf("%-14s %6s %11s %11s %10s %10s %9s %9s %9s %9s %10s  %s\n", p.paramId.c_str(),
        p.time ? std::to_string(*p.time).c_str() : "-", fmtOpt(p.mL2).c_str(), fmtOpt(p.vL2).c_str(),
        p.effectiveStep ? fmt(p.effectiveStep->mean).c_str() : "-", p.effectiveStep ? fmt(p.effectiveStep->max).c_str() : "-",
        p.effectiveStep ? fmt(p.effectiveStep->saturated).c_str() : "-", fmtOpt(p.vFloorFraction).c_str(),
        fmtOpt(p.deadFraction).c_str(), std::to_string(p.nonfinite).c_str(), fmtOpt(p.g2OverV).c_str(), flags.c_str());
}

int cmdOptimizer(const std::vector<std::string>& argv)
{
    Args a(argv, withSchemaOptions({"--betas", "--epsilon"}), {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("optimizer takes one FILE");
    ForensicsOptions options;
    if (auto b = a.value("--betas")) {
        auto betas = parseBetas(*b);
        if (!betas)
            return usageError("--betas takes two numbers B1,B2, got \"" + *b + "\"");
        options.beta1 = betas->first;
        options.beta2 = betas->second;
    }
    if (auto e = a.value("--epsilon")) {
        options.epsilon = parseNumber<double>(*e);
        if (!options.epsilon)
            return usageError("--epsilon takes a number, got \"" + *e + "\"");
    }
    auto r = open(a.positional()[0], a);
    if (!r)
        return failWith(r.error());
    auto f = optimizerForensics(**r, options);
    if (!f)
        return failWith(f.error());
    if (a.flag("--json")) {
        printDocument(optimizerForensicsJson(**r, *f));
        return 0;
    }
    std::printf("%s%s%s: %s, betas %s,%s, epsilon %s, lr %s; %zu parameters, %zu suspect\n", bold(), (*r)->file.c_str(), reset(),
        f->optimizer.c_str(), fmt(f->hyper.beta1).c_str(), fmt(f->hyper.beta2).c_str(), fmt(f->hyper.epsilon).c_str(),
        fmtOpt(f->learningRate).c_str(), f->parameters.size(), f->suspects.size());
    std::printf("%-14s %6s %11s %11s %10s %10s %9s %9s %9s %9s %10s  %s\n", "param", "time", "m_l2", "v_l2", "step_mean", "step_max",
        "saturated", "v_floor", "dead", "nonfinite", "g2_over_v", "flags");
    // Suspects first, worst first; then the rest in file order.
    std::vector<bool> shown(f->parameters.size(), false);
    for (size_t i : f->suspects) {
        printForensicsRow(f->parameters[i]);
        shown[i] = true;
    }
    for (size_t i = 0; i < f->parameters.size(); ++i)
        if (!shown[i])
            printForensicsRow(f->parameters[i]);
    return 0;
}

} // namespace

const std::map<std::string, Command>& commandTable()
{
    static const std::map<std::string, Command> table = {
        {"info", cmdInfo},
        {"tree", cmdTree},
        {"tensors", cmdTensors},
        {"show", cmdShow},
        {"state", cmdState},
        {"validate", cmdValidate},
        {"resave", cmdResave},
        {"convert", cmdConvert},
        {"edit", cmdEdit},
        {"diff", cmdDiff},
        {"graph", cmdGraph},
        {"blocks", cmdBlocks},
        {"loss", cmdLoss},
        {"timeline", cmdTimeline},
        {"bisect", cmdBisect},
        {"schema", cmdSchema},
        {"check-resume", cmdCheckResume},
        {"optimizer", cmdOptimizer},
        {"export", cmdExport},
        {"import", cmdImport},
        {"migrate", cmdMigrate},
        {"patch", patchCommand},
        {"verify-resume", verifyResumeCommand},
    };
    return table;
}

} // namespace ckpt::cli
