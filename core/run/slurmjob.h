// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Following a Slurm job from its submission to its end, for the app's Resume panel
// (ui/process/resumerunner.cpp) and `ckpt timeline --slurm` (app/cli/timelineslurm.cpp): which tool
// to ask, with which arguments, and what its answer means. Core runs no process: the caller runs
// the tools (QProcess, a child process) and hands their output here. The order is the same for
// both: sbatch gives the id; squeue lists the job while it is pending or running; once it has left
// the queue, accounting (sacct) tells how it ended, else the controller (scontrol), which keeps a
// finished job for MinJobAge seconds only (a cluster without accounting).

#include "core/run/slurmaccounting.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** The job id `sbatch --parsable` printed ("JOBID" or "JOBID;CLUSTER"); nothing when it printed none. */
std::optional<std::string> sbatchJobId(std::string_view output);

/** squeue's arguments (after the program name) for \a job: one line per job or array task, "ID STATE REASON". */
std::vector<std::string> squeueArguments(std::string_view job);
/** sacct's arguments for \a job and its tasks, parsable (parseSacct). */
std::vector<std::string> sacctArguments(std::string_view job);
/** scontrol's arguments for \a job, one line per job or task (parseScontrolJobs). */
std::vector<std::string> scontrolArguments(std::string_view job);

/** What squeue says of a job. */
struct SlurmQueueState {
    bool queued = false;    ///< still listed: pending or running (an array job while any task is)
    std::string state;      ///< the first listed line's state (PENDING, RUNNING, COMPLETING, ...)
    bool neverRuns = false; ///< listed, but waiting for a dependency that failed: it will never start
};

/**
 * squeue's answer to squeueArguments(); \a succeeded is false when it exited non-zero, which it
 * does for an id it no longer knows (a job that ended long enough ago): not queued.
 */
SlurmQueueState parseSqueue(bool succeeded, std::string_view output);

/** How a job that has left the queue ended. */
struct SlurmJobEnd {
    std::string state;           ///< COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
    std::optional<int> exitCode; ///< when Slurm gave one
};

/** The end of \a job itself in sacct's output (empty when sacct failed); nothing when accounting does not list it. */
std::optional<SlurmJobEnd> jobEndFromSacct(std::string_view sacctOutput, std::string_view job);
/** The end of the first job in scontrol's output; nothing when it lists none (forgotten, or scontrol failed). */
std::optional<SlurmJobEnd> jobEndFromScontrol(std::string_view scontrolOutput);

/**
 * The state of each task of array job \a job that has left the queue: from accounting, which keeps
 * it for good, and for a task accounting does not list (none kept, or not written yet) from the
 * controller. Either output may be empty (the tool failed).
 */
std::map<unsigned, std::string> arrayTaskStates(std::string_view sacctOutput, std::string_view scontrolOutput, std::string_view job);

/** Whether a job that ended did its work: COMPLETED with exit code 0. */
bool slurmJobSucceeded(std::string_view state, std::optional<int> exitCode);

} // namespace ckpt
