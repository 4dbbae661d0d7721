// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/timelineslurm.h"

#include "app/cli/childprocess.h"
#include "app/cli/exits.h"
#include "core/io/bytes.h"
#include "core/run/placeholders.h"
#include "core/run/resumeprofiles.h"
#include "core/run/slurmjob.h"
#include "core/run/timeline.h"
#include "core/util/paths.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

namespace ckpt::cli {

namespace {

namespace fs = std::filesystem;

std::string ownExecutable()
{
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("ckpt") : p.string();
}

/// The ckpt the nodes run: a path made absolute (the tasks run in the submitter's directory anyway, but the
/// scripts say exactly what runs); a bare name is left to the node's PATH; none given: this ckpt.
std::string nodeExecutable(const std::string& given)
{
    if (given.empty())
        return ownExecutable();
    return given.find('/') == std::string::npos ? given : absoluteNormalPath(given);
}

std::string partialPath(const std::string& work, unsigned task)
{
    return work + "/partial-" + std::to_string(task) + ".timeline-partial";
}

/// Everything the two jobs run and how they are submitted.
struct ScanPlan {
    std::string ckpt, run, work;
    unsigned tasks = 1;
    std::vector<std::string> sbatchCommon; ///< --partition, --time
    std::string filter;
    bool json = false;

    std::string shardScript() const
    {
        // The task's number comes from Slurm; every other word is literal.
        return "#!/bin/sh\n"
               "# Written by ckpt timeline --slurm: one share of the run's timeline per array task. Every path is one\n"
               "# single-quoted word, so nothing in it is expanded by the shell.\n"
               "exec "
            + shellWord(ckpt) + " timeline " + shellWord(run) + " --shard \"$SLURM_ARRAY_TASK_ID\"/" + std::to_string(tasks) + " --partial "
            + shellWord(work + "/partial-") + "\"$SLURM_ARRAY_TASK_ID\"" + shellWord(".timeline-partial") + "\n";
    }
    std::string mergeScript() const
    {
        std::string s = "#!/bin/sh\n"
                        "# Written by ckpt timeline --slurm: the timeline of the run from the shares' partial files.\n"
                        "exec "
            + shellWord(ckpt) + " timeline " + shellWord(run) + " --merge";
        for (unsigned t = 1; t <= tasks; ++t) {
            s += ' ';
            s += shellWord(partialPath(work, t));
        }
        if (!filter.empty()) {
            s += " --filter ";
            s += shellWord(filter);
        }
        if (json)
            s += " --json";
        return s + "\n";
    }
    std::vector<std::string> shardSubmit(const std::string& array) const
    {
        std::vector<std::string> a = {"sbatch", "--parsable", "--job-name=ckpt-timeline", "--array=" + array, "--output=" + work + "/task-%a.log"};
        a.insert(a.end(), sbatchCommon.begin(), sbatchCommon.end());
        a.push_back(work + "/shards.sh");
        return a;
    }
    /** The merge, after the array job \a dependency has succeeded; none: at once (every partial is there already). */
    std::vector<std::string> mergeSubmit(const std::string& dependency) const
    {
        std::vector<std::string> a = {"sbatch", "--parsable", "--job-name=ckpt-timeline-merge"};
        if (!dependency.empty())
            a.push_back("--dependency=afterok:" + dependency);
        a.insert(a.end(), {"--output=" + work + "/timeline.out", "--error=" + work + "/merge.log"});
        a.insert(a.end(), sbatchCommon.begin(), sbatchCommon.end());
        a.push_back(work + "/merge.sh");
        return a;
    }
};

std::string joined(const std::vector<std::string>& argv)
{
    std::string s;
    for (const auto& a : argv) {
        if (!s.empty())
            s += ' ';
        s += shellWord(a);
    }
    return s;
}

/// What a failure message quotes of a log or of sbatch's output.
std::string lastLine(const std::string& text)
{
    return lastLines(text, 1);
}

/// \a tool with \a arguments: its standard output, or nothing when it failed (or could not start).
std::string toolOutput(const char* tool, std::vector<std::string> arguments)
{
    arguments.insert(arguments.begin(), tool);
    std::string out;
    return captureChild(arguments, out).ok() ? out : std::string();
}

/// Submits \a argv (sbatch --parsable ...); the job id, or nothing with \a why.
std::optional<std::string> submit(const std::vector<std::string>& argv, std::string& why)
{
    std::string out;
    const ChildResult r = captureChild(argv, out);
    if (!r.ok()) {
        why = "sbatch " + (r.started ? "failed: " + lastLine(out) : "could not be started: " + r.startError);
        return std::nullopt;
    }
    auto id = sbatchJobId(out);
    if (!id)
        why = "sbatch printed no job id: " + lastLine(out);
    return id;
}

/// What squeue says of \a job: one call (core/run/slurmjob decides what it means).
SlurmQueueState queueState(const std::string& job)
{
    std::vector<std::string> argv = squeueArguments(job);
    argv.insert(argv.begin(), "squeue");
    std::string out;
    const ChildResult r = captureChild(argv, out);
    return parseSqueue(r.ok(), out);
}

/// The state of each task of an array job that has left the queue (accounting, else the controller).
std::map<unsigned, std::string> taskStates(const std::string& job)
{
    return arrayTaskStates(toolOutput("sacct", sacctArguments(job)), toolOutput("scontrol", scontrolArguments(job)), job);
}

/// How \a job ended: accounting, else the controller; empty when neither knows.
std::string jobState(const std::string& job)
{
    if (auto end = jobEndFromSacct(toolOutput("sacct", sacctArguments(job)), job))
        return end->state;
    const auto end = jobEndFromScontrol(toolOutput("scontrol", scontrolArguments(job)));
    return end ? end->state : std::string();
}

void cancel(const std::vector<std::string>& jobs)
{
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), jobs.begin(), jobs.end());
    std::string ignored;
    captureChild(argv, ignored);
}

std::string taskList(const std::vector<unsigned>& tasks)
{
    std::string s;
    for (unsigned t : tasks) {
        if (!s.empty())
            s += ',';
        s += std::to_string(t);
    }
    return s;
}

constexpr auto kPoll = std::chrono::milliseconds(1000);

/// Waits while \a job is queued; false when a stop signal arrived (the caller cancels).
bool waitWhileQueued(const std::string& job)
{
    for (SlurmQueueState q = queueState(job); q.queued; q = queueState(job)) {
        if (q.neverRuns)
            return true; // it will not run: the caller finds out why
        if (stopSignalReceived())
            return false;
        std::this_thread::sleep_for(kPoll);
        if (stopSignalReceived())
            return false;
    }
    return true;
}

} // namespace

int timelineOnSlurm(const ClusterScanRequest& request)
{
    auto run = listRunCheckpoints(request.run);
    if (!run)
        return failWith(run.error());
    const size_t checkpoints = run->points.size();

    ScanPlan plan;
    plan.ckpt = nodeExecutable(request.nodeCkpt);
    plan.run = absoluteNormalPath(request.run);
    plan.filter = request.filter;
    plan.json = request.json;
    plan.tasks = request.tasks ? request.tasks : unsigned(std::min<size_t>(checkpoints, kDefaultMaxTasks));
    plan.tasks = std::max(1u, plan.tasks);
    std::string partition = request.partition, time = request.time;
    if (!request.profile.empty()) {
        const std::string store = resumeProfilesPath();
        const auto profiles = loadResumeProfiles(store);
        if (!profiles)
            return inputError(store, profiles.error());
        auto it = std::find_if(profiles->begin(), profiles->end(), [&](const ResumeProfileSpec& p) { return p.name == request.profile; });
        if (it == profiles->end())
            return usageError("no resume profile named \"" + request.profile + "\" in " + store);
        if (it->launcher != ResumeProfileSpec::Launcher::Slurm)
            return usageError("the resume profile \"" + request.profile + "\" runs locally, not on Slurm");
        if (partition.empty())
            partition = it->slurm.partition;
        if (time.empty())
            time = it->slurm.time;
    }
    if (!partition.empty())
        plan.sbatchCommon.push_back("--partition=" + partition);
    if (!time.empty())
        plan.sbatchCommon.push_back("--time=" + time);
    if (request.workDir.empty()) {
        char stamp[32];
        const std::time_t now = std::time(nullptr);
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
        plan.work = plan.run + "/.ckpt-timeline-slurm/" + stamp + "-" + std::to_string(::getpid());
    } else {
        plan.work = absoluteNormalPath(request.workDir);
    }
    // sbatch expands %j, %a, ... and backslashes in --output: such a directory would be written elsewhere.
    if (plan.work.find_first_of("%\\") != std::string::npos)
        return usageError("the work directory " + plan.work + " has % or \\ in its path, which sbatch takes as patterns: choose another with --work");

    const std::string array = "1-" + std::to_string(plan.tasks);
    if (request.dryRun) {
        std::printf("# %s/shards.sh\n%s\n# submitted with:\n%s\n\n", plan.work.c_str(), plan.shardScript().c_str(), joined(plan.shardSubmit(array)).c_str());
        std::printf("# %s/merge.sh\n%s\n# submitted with:\n%s\n", plan.work.c_str(), plan.mergeScript().c_str(),
            joined(plan.mergeSubmit("<job id of the shards>")).c_str());
        return 0;
    }

    std::error_code ec;
    fs::create_directories(plan.work, ec);
    if (ec)
        return failWith(Error {ErrorCode::Io, "cannot make the work directory: " + ec.message()}.withFile(plan.work));
    for (const auto& [name, text] : {std::pair {std::string("shards.sh"), plan.shardScript()}, std::pair {std::string("merge.sh"), plan.mergeScript()}}) {
        const std::string path = plan.work + "/" + name;
        if (auto w = writeFileAtomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())); !w)
            return failWith(Error(w.error()).withFile(path));
        fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add, ec);
    }

    const StopSignals stopSignals; // Ctrl-C while following: both jobs are cancelled, not left running
    std::string why;
    auto shards = submit(plan.shardSubmit(array), why);
    if (!shards)
        return failWith(Error {ErrorCode::Io, why});
    auto merge = submit(plan.mergeSubmit(*shards), why);
    if (!merge) {
        cancel({*shards});
        return failWith(Error {ErrorCode::Io, why});
    }
    std::fprintf(stderr, "ckpt: %zu checkpoints in %u shares: array job %s, merge job %s; work directory %s\n", checkpoints, plan.tasks,
        shards->c_str(), merge->c_str(), plan.work.c_str());

    unsigned retriesLeft = request.retries;
    std::string arrayJob = *shards;
    for (;;) {
        if (!waitWhileQueued(arrayJob)) {
            cancel({arrayJob, *merge});
            std::fprintf(stderr, "ckpt: interrupted: cancelled jobs %s and %s\n", arrayJob.c_str(), merge->c_str());
            dieOfSignal(stopSignalReceived());
        }
        // A share succeeded when its partial is there: written atomically as its task's last act.
        std::vector<unsigned> failed;
        for (unsigned t = 1; t <= plan.tasks; ++t)
            if (!fs::is_regular_file(partialPath(plan.work, t), ec))
                failed.push_back(t);
        if (failed.empty())
            break;
        const auto states = taskStates(arrayJob);
        cancel({*merge}); // its dependency can no longer be met
        if (retriesLeft == 0) {
            for (unsigned t : failed) {
                const std::string log = plan.work + "/task-" + std::to_string(t) + ".log";
                auto st = states.find(t);
                std::fprintf(stderr, "ckpt: task %u of %u (shard %u/%u) ended %s without its partial; log %s: %s\n", t, plan.tasks, t, plan.tasks,
                    st == states.end() ? "(state unknown)" : st->second.c_str(), log.c_str(), lastLine(readChildLog(log)).c_str());
            }
            return failWith(Error {ErrorCode::Io, std::to_string(failed.size()) + " of " + std::to_string(plan.tasks) + " shares failed; the timeline is incomplete"});
        }
        --retriesLeft;
        for (unsigned t : failed) {
            auto st = states.find(t);
            std::fprintf(stderr, "ckpt: task %u of %u ended %s without its partial: submitted again\n", t, plan.tasks,
                st == states.end() ? "(state unknown)" : st->second.c_str());
        }
        auto again = submit(plan.shardSubmit(taskList(failed)), why);
        if (!again)
            return failWith(Error {ErrorCode::Io, why});
        arrayJob = *again;
        merge = submit(plan.mergeSubmit(arrayJob), why);
        if (!merge) {
            cancel({arrayJob});
            return failWith(Error {ErrorCode::Io, why});
        }
    }

    if (!waitWhileQueued(*merge)) {
        cancel({*merge});
        dieOfSignal(stopSignalReceived());
    }
    if (queueState(*merge).neverRuns) {
        // Every partial is there, yet a task failed in Slurm's eyes: killed after its partial was
        // written (atomically, its last act), before it exited. The partials are what the merge needs,
        // and it checks each (checksum, run, files), so it runs without the dependency.
        cancel({*merge});
        std::fprintf(stderr, "ckpt: a task of %s failed after writing its partial: the merge job %s is submitted again without depending on it\n",
            arrayJob.c_str(), merge->c_str());
        merge = submit(plan.mergeSubmit({}), why);
        if (!merge)
            return failWith(Error {ErrorCode::Io, why});
        if (!waitWhileQueued(*merge)) {
            cancel({*merge});
            dieOfSignal(stopSignalReceived());
        }
    }
    const std::string state = jobState(*merge);
    const std::string output = readChildLog(plan.work + "/timeline.out");
    if ((!state.empty() && state != "COMPLETED") || output.empty())
        return failWith(Error {ErrorCode::Io, "the merge job " + *merge + " ended " + (state.empty() ? std::string("(state unknown)") : state)
                + "; log " + plan.work + "/merge.log: " + lastLine(readChildLog(plan.work + "/merge.log"))});
    std::fwrite(output.data(), 1, output.size(), stdout);
    return 0;
}

} // namespace ckpt::cli
