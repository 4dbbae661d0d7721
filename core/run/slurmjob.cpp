// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/slurmjob.h"

namespace ckpt {

std::optional<std::string> sbatchJobId(std::string_view output)
{
    const size_t start = output.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos)
        return std::nullopt;
    output.remove_prefix(start);
    const std::string_view id = output.substr(0, output.find_first_of(";\r\n \t"));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    return std::string(id);
}

std::vector<std::string> squeueArguments(std::string_view job)
{
    return {"--noheader", "--jobs=" + std::string(job), "--format=%i %T %r"};
}

std::vector<std::string> sacctArguments(std::string_view job)
{
    return {"--noheader", "--parsable2", "--allocations", "--jobs=" + std::string(job), std::string("--format=") + kSacctFormat};
}

std::vector<std::string> scontrolArguments(std::string_view job)
{
    return {"--oneliner", "show", "job", std::string(job)};
}

SlurmQueueState parseSqueue(bool succeeded, std::string_view output)
{
    SlurmQueueState q;
    q.queued = succeeded && output.find_first_not_of(" \t\r\n") != std::string_view::npos;
    if (!q.queued)
        return q;
    // The first listed line: "ID STATE REASON".
    std::string_view line = output.substr(output.find_first_not_of(" \t\r\n"));
    line = line.substr(0, line.find('\n'));
    const size_t id = line.find_first_of(" \t");
    if (id != std::string_view::npos) {
        line.remove_prefix(id);
        const size_t start = line.find_first_not_of(" \t");
        if (start != std::string_view::npos)
            q.state = std::string(line.substr(start, line.find_first_of(" \t\r", start) - start));
    }
    q.neverRuns = output.find("DependencyNeverSatisfied") != std::string_view::npos;
    return q;
}

std::optional<SlurmJobEnd> jobEndFromSacct(std::string_view sacctOutput, std::string_view job)
{
    for (const SacctRecord& r : parseSacct(sacctOutput))
        if (r.jobId == job)
            return SlurmJobEnd{r.state, r.exitCode};
    return std::nullopt;
}

std::optional<SlurmJobEnd> jobEndFromScontrol(std::string_view scontrolOutput)
{
    const auto jobs = parseScontrolJobs(scontrolOutput);
    if (jobs.empty())
        return std::nullopt;
    return SlurmJobEnd{jobs.front().state, jobs.front().exitCode};
}

std::map<unsigned, std::string> arrayTaskStates(std::string_view sacctOutput, std::string_view scontrolOutput, std::string_view job)
{
    std::map<unsigned, std::string> states;
    for (const SacctRecord& r : parseSacct(sacctOutput))
        if (const auto task = sacctArrayTask(r.jobId, job))
            states[*task] = r.state;
    for (const ScontrolJob& j : parseScontrolJobs(scontrolOutput))
        if (j.arrayTask)
            states.try_emplace(*j.arrayTask, j.state);
    return states;
}

bool slurmJobSucceeded(std::string_view state, std::optional<int> exitCode)
{
    return state == "COMPLETED" && exitCode == 0;
}

} // namespace ckpt
