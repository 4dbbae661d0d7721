// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt verify-resume`: the only ckpt command that starts another program. The child process lives
// here, in the app layer (core starts nothing); the judgement and the JSON are core's.
#include "app/cli/verifyresume.h"

#include "app/cli/args.h"
#include "app/cli/childprocess.h"
#include "app/cli/exits.h"
#include "app/workers/parallelfor.h"
#include "core/diff/diff.h"
#include "core/run/resumeverify.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/report/verifyresumejson.h"
#include "core/run/placeholders.h"
#include "core/run/resumeprofiles.h"
#include "core/run/timeline.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <unistd.h>

extern char** environ;

namespace ckpt::cli {

namespace {

namespace fs = std::filesystem;

/// The default resumption (cli-contract.md): ckpt-train continues RECORD up to LATER's step.
/// ckpt-train's --steps is the total step to stop at, not a number of further steps.
const std::vector<std::string> kDefaultArguments = {"--resume", "{record}", "--out", "{out}", "--steps", "{step}"};

/// ckpt-train beside this executable (an installed or built tree keeps them together), else the
/// bare name for a PATH lookup.
std::string trainerPath()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path beside = self.parent_path() / kBundledTrainer;
        if (::access(beside.c_str(), X_OK) == 0)
            return beside.string();
    }
    return std::string(kBundledTrainer);
}

/// A fresh private directory under $TMPDIR (/tmp when unset): never next to the user's files.
std::optional<std::string> makeTempDir(std::string& why)
{
    const char* env = std::getenv("TMPDIR");
    std::string templ = std::string(env && *env ? env : "/tmp") + "/ckpt-verify-resume-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
        why = "cannot create a temporary directory " + templ + ": " + std::strerror(errno);
        return std::nullopt;
    }
    std::error_code ec;
    const fs::path abs = fs::absolute(templ, ec); // the child may run in another working directory
    return ec ? templ : abs.string();
}

/// Removes the temporary directory unless asked to keep it.
struct TempDirGuard {
    std::string dir;
    bool keep = false;
    TempDirGuard() = default;
    TempDirGuard(const TempDirGuard&) = delete;
    TempDirGuard& operator=(const TempDirGuard&) = delete;
    ~TempDirGuard() { finish(); }
    /** Removes (or reports, with keep) the directory now; nothing is left for the destructor. */
    void finish()
    {
        if (dir.empty())
            return;
        if (keep) {
            std::fprintf(stderr, "ckpt: kept the resumption's directory %s\n", dir.c_str());
        } else {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
        dir.clear();
    }
};

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& a : v)
        s += (s.empty() ? "" : " ") + a;
    return s;
}

/** The resume command as it will run: program and arguments, environment entries, working directory. */
struct ResumeInvocation {
    std::vector<std::string> command;
    std::vector<std::string> environment;
    std::string workingDirectory;
};

/** The command of a profile, of `-- PROGRAM ARGS`, or (neither) the bundled trainer's default arguments, placeholders filled. */
ResumeInvocation resumeInvocation(const std::optional<ResumeProfileSpec>& profile, const std::optional<std::vector<std::string>>& program,
    const PlaceholderValues& values)
{
    ResumeInvocation r;
    if (profile) {
        // As the app resolves a profile (ui/process/resumeprofile.cpp resolveProfile), {step} being LATER's step.
        r.command.push_back(profile->program == kBundledTrainer ? trainerPath() : profile->program);
        for (const auto& t : profile->arguments)
            r.command.push_back(expandPlaceholders(t, values));
        if (profile->passSteps) {
            r.command.emplace_back("--steps");
            r.command.push_back(values.step);
        }
        for (const auto& e : profile->environment) {
            const auto eq = e.find('=');
            r.environment.push_back(e.substr(0, eq + 1) + expandPlaceholders(e.substr(eq + 1), values));
        }
        r.workingDirectory = expandPlaceholders(profile->workingDirectory, values);
    } else if (program) {
        // `ckpt-train` means the trainer installed beside ckpt, as in the app's profiles.
        r.command.push_back((*program)[0] == kBundledTrainer ? trainerPath() : expandPlaceholders((*program)[0], values));
        for (size_t i = 1; i < program->size(); ++i)
            r.command.push_back(expandPlaceholders((*program)[i], values));
    } else {
        r.command.push_back(trainerPath());
        for (const auto& t : kDefaultArguments)
            r.command.push_back(expandPlaceholders(t, values));
    }
    return r;
}

/** The verdict as text: one line, then the differences (the first 20). */
void printVerifyResumeText(const VerifyResumeReport& report, const ResumeJudgement& j)
{
    std::printf("%s resumed to step %llu (%llu steps) and compared with %s: %s (tolerance %s)\n", report.record.c_str(),
        static_cast<unsigned long long>(report.step), static_cast<unsigned long long>(report.steps), report.against.c_str(),
        std::string(resumeVerdictName(j.verdict)).c_str(), std::string(resumeToleranceName(report.tolerance)).c_str());
    constexpr size_t kShown = 20;
    for (size_t i = 0; i < j.differences.size() && i < kShown; ++i) {
        const auto& x = j.differences[i];
        if (x.isState)
            std::printf("  %-14s %-50s %s -> %s", x.status.c_str(), x.path.c_str(), x.later.value_or("(absent)").c_str(),
                x.resumed.value_or("(absent)").c_str());
        else
            std::printf("  %-14s %-50s max_abs=%s rel_l2=%s", x.status.c_str(), x.path.c_str(), x.maxAbs ? fmt(*x.maxAbs).c_str() : "-",
                x.relL2 ? fmt(*x.relL2).c_str() : "-");
        std::printf("%s\n", x.aboveTolerance ? "" : " (within tolerance)");
    }
    if (j.differences.size() > kShown)
        std::printf("  ... and %zu more\n", j.differences.size() - kShown);
}

/// The profile called \a name from the store into \a profile; the exit code when there is none or it cannot run here.
std::optional<int> namedProfile(const std::string& name, std::optional<ResumeProfileSpec>& profile)
{
    const std::string settings = resumeProfilesPath();
    auto stored = loadResumeProfiles(settings);
    if (!stored)
        return inputError(settings, stored.error());
    std::string names;
    for (auto& p : *stored) {
        names += (names.empty() ? "\"" : ", \"") + p.name + "\"";
        if (p.name == name)
            profile = std::move(p);
    }
    if (!profile)
        return usageError("no resume profile \"" + name + "\" in " + settings + " (there are: " + names + ")");
    if (profile->launcher == ResumeProfileSpec::Launcher::Slurm)
        return usageError("resume profile \"" + name + "\" submits to Slurm; verify-resume runs the resumption here: use a local profile");
    for (const auto& e : profile->environment)
        if (e.find('=') == std::string::npos || e.front() == '=')
            return usageError("resume profile \"" + name + "\" has an environment entry that is not NAME=VALUE: \"" + e + "\"");
    return std::nullopt;
}

/// Says how the resumption failed, with the last lines of its output; the exit code (1).
int reportFailedResumption(const ChildResult& child, const std::vector<std::string>& command, const std::string& logPath)
{
    std::string how = !child.started ? "could not be started: " + child.startError
        : child.signal               ? "was killed by signal " + std::to_string(child.signal)
                                     : "exited with code " + std::to_string(child.exitCode);
    std::fprintf(stderr, "ckpt: the resumption failed: %s %s\n  command: %s\n", command[0].c_str(), how.c_str(), joined(command).c_str());
    if (child.started) {
        const std::string tail = lastLines(readChildLog(logPath), 40);
        if (!tail.empty())
            std::fprintf(stderr, "  its output (last lines):\n%s%s", tail.c_str(), tail.back() == '\n' ? "" : "\n");
    }
    return 1;
}

/// The file name of the checkpoint the resumption wrote into \a outDir at \a step, as the run timeline lists a run's
/// checkpoints; nothing (said on stderr) when it wrote none there.
std::optional<std::string> producedCheckpoint(const std::string& outDir, uint64_t step, const std::vector<std::string>& command)
{
    auto run = listRunCheckpoints(outDir);
    if (!run) {
        std::fprintf(stderr, "ckpt: the resumption wrote no checkpoint into {out}: %s\n  command: %s\n", run.error().message().c_str(),
            joined(command).c_str());
        return std::nullopt;
    }
    const RunPoint* point = nullptr;
    for (const auto& p : run->points)
        if (p.step == step)
            point = &p; // the last one at that step
    if (point)
        return point->file;
    std::string have;
    for (const auto& p : run->points)
        have += (have.empty() ? "" : ", ") + p.file;
    std::fprintf(stderr, "ckpt: the resumption wrote no checkpoint at step %llu (it wrote: %s)\n  command: %s\n", static_cast<unsigned long long>(step),
        have.empty() ? "none" : have.c_str(), joined(command).c_str());
    return std::nullopt;
}

} // namespace

int verifyResumeCommand(const std::vector<std::string>& argvIn)
{
    // Everything after the first `--` is the resume program and its arguments, untouched.
    std::vector<std::string> argv = argvIn;
    std::optional<std::vector<std::string>> program;
    if (auto dd = std::find(argv.begin(), argv.end(), "--"); dd != argv.end()) {
        program.emplace(dd + 1, argv.end());
        argv.erase(dd, argv.end());
        if (program->empty())
            return usageError("verify-resume: `--` must be followed by the resume PROGRAM and its arguments");
    }
    Args a(argv, withSchemaOptions({"--against", "--profile", "--tolerance"}), {"--json", "--keep"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("verify-resume takes one RECORD");
    const auto against = a.value("--against");
    if (!against)
        return usageError("verify-resume needs --against LATER");
    ResumeTolerance tolerance = ResumeTolerance::Exact;
    if (auto t = a.value("--tolerance")) {
        auto parsed = resumeToleranceFromName(*t);
        if (!parsed)
            return usageError("--tolerance takes exact, strict or relaxed, got \"" + *t + "\"");
        tolerance = *parsed;
    }
    // A resume profile of the store the app edits (core/run/resumeprofiles): program, arguments, environment, working directory.
    std::optional<ResumeProfileSpec> profile;
    if (auto name = a.value("--profile")) {
        if (program)
            return usageError("verify-resume takes --profile NAME or -- PROGRAM ARGS, not both");
        if (const auto failed = namedProfile(*name, profile))
            return *failed;
    }
    const std::string& recordArg = a.positional()[0];
    std::error_code ec;
    if (!fs::exists(recordArg, ec))
        return inputError(recordArg, Error{ErrorCode::Io, "no such file"});

    // LATER: its step is where the resumption stops, and what it is compared with.
    const OpenOptions options = openOptions(a);
    auto later = openRecord(*against, options);
    if (!later)
        return inputError(*against, later.error());
    auto laterStep = stepOfCheckpoint(**later, *against);
    if (!laterStep)
        return failWith(laterStep.error());
    // RECORD's step (for `steps`): the record's own when it opens (a GradientCheckpoint need not), else its name.
    std::optional<uint64_t> recordStep;
    if (auto rec = openRecord(recordArg, options)) {
        if (auto s = stepOfCheckpoint(**rec, recordArg))
            recordStep = s->step;
    } else if (auto place = checkpointPlaceOf(recordArg); place.step) {
        recordStep = place.step;
    }
    if (recordStep && *recordStep > laterStep->step)
        return usageError("RECORD is at step " + std::to_string(*recordStep) + ", beyond LATER's step " + std::to_string(laterStep->step));

    std::string why;
    // From before the directory exists until the resumption has ended: a stop signal in between must not
    // kill ckpt with the directory left behind.
    std::optional<StopSignals> stopSignals;
    stopSignals.emplace();
    TempDirGuard guard;
    guard.keep = a.flag("--keep");
    auto tmp = makeTempDir(why);
    if (!tmp) {
        std::fprintf(stderr, "ckpt: %s\n", why.c_str());
        return 1;
    }
    guard.dir = *tmp;
    const std::string outDir = *tmp + "/out";
    const std::string logPath = *tmp + "/resume.log";

    PlaceholderValues values;
    const fs::path recordAbs = fs::absolute(recordArg, ec);
    values.record = recordAbs.string();
    values.dir = recordAbs.parent_path().string();
    values.step = std::to_string(laterStep->step);
    values.out = outDir;
    const ResumeInvocation invocation = resumeInvocation(profile, program, values);
    const std::vector<std::string>& command = invocation.command;

    ChildResult child;
    if (stopSignalReceived() == 0)
        child = runChild(command, logPath, invocation.environment, invocation.workingDirectory);
    stopSignals.reset();
    if (const int sig = stopSignalReceived(); sig != 0) {
        std::fprintf(stderr, "ckpt: verify-resume interrupted by signal %d\n", sig);
        guard.finish(); // now: dying of the signal runs no destructors
        dieOfSignal(sig);
    }
    if (!child.started || child.exitCode != 0)
        return reportFailedResumption(child, command, logPath);

    const auto producedFile = producedCheckpoint(outDir, laterStep->step, command);
    if (!producedFile)
        return 1;
    const std::string producedPath = outDir + "/" + *producedFile;
    auto produced = openRecord(producedPath, options);
    if (!produced) {
        std::fprintf(stderr, "ckpt: the resumed checkpoint %s cannot be read: %s\n", producedFile->c_str(), produced.error().message().c_str());
        return 1;
    }
    auto d = diffRecords(**later, **produced, resumeDiffOptions(), Progress::none(), workers::threadedFor());
    if (!d)
        return failWith(d.error());
    const ResumeJudgement j = judgeResume(*d, tolerance);

    VerifyResumeReport report;
    report.record = recordArg;
    report.against = *against;
    report.produced = *producedFile;
    report.step = laterStep->step;
    report.steps = laterStep->step - recordStep.value_or(0);
    report.stepSource = laterStep->source;
    report.tolerance = tolerance;
    report.command = command;
    if (a.flag("--json")) {
        printDocument(verifyResumeJson(report, j));
        return 0;
    }
    printVerifyResumeText(report, j);
    return 0;
}

} // namespace ckpt::cli
