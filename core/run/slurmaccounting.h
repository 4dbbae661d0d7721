// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How Slurm says a job ended, read from sacct's parsable output and from scontrol's one-line job
// records in one place for the app's Resume panel (ui/process/resumerunner.cpp) and `ckpt timeline
// --slurm` (app/cli/timelineslurm.cpp). Accounting (sacct) keeps a job's end for good; the controller
// (scontrol) only for MinJobAge seconds, which is what both fall back to on a cluster without accounting.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** The fields every caller asks sacct for, in this order: `--format=` + kSacctFormat. */
inline constexpr const char* kSacctFormat = "JobID,State,ExitCode";

/** One line of `sacct --noheader --parsable2 --format=JobID,State,ExitCode`. */
struct SacctRecord {
    std::string jobId;           ///< "123", "123_4" (task 4 of array job 123), "123_[5-9]" (tasks not started), "123.batch" (a step)
    std::string state;           ///< its first word: "CANCELLED by 1000" is "CANCELLED"
    std::optional<int> exitCode; ///< the code before the ':' (the signal after it is dropped), when there is one
};

/** The records of sacct's parsable output; a line without a JobID and a State (an error, a blank) is skipped. */
std::vector<SacctRecord> parseSacct(std::string_view text);

/** The task number of \a jobId when it is a task of array job \a job ("123_4" of "123"), else nothing. */
std::optional<unsigned> sacctArrayTask(std::string_view jobId, std::string_view job);

/** One line of `scontrol --oneliner show job JOB`: a job, or one task of an array job. */
struct ScontrolJob {
    std::optional<unsigned> arrayTask; ///< ArrayTaskId when it is one number (not the range of tasks not started)
    std::string state;                 ///< JobState
    std::optional<int> exitCode;       ///< ExitCode, the code before the ':'
};

/** The jobs of scontrol's one-line output (whitespace-separated KEY=VALUE words; the first of a key counts). */
std::vector<ScontrolJob> parseScontrolJobs(std::string_view text);

} // namespace ckpt
