// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace ckpt::cli {

/** `ckpt timeline RUN --slurm ...`: what to submit and how. */
struct ClusterScanRequest {
    std::string run;               ///< the run directory, as given
    unsigned tasks = 0;            ///< array tasks (shares); 0: one per checkpoint, at most kDefaultMaxTasks
    std::string partition, time;   ///< sbatch --partition / --time; empty: the profile's, else the cluster's default
    std::string profile;           ///< one of the app's Slurm resume profiles: its partition and time
    std::string workDir;           ///< scripts, logs and partials; empty: RUN/.ckpt-timeline-slurm/STAMP
    std::string filter;            ///< --filter, applied by the merge
    std::string nodeCkpt;          ///< --node-ckpt: the ckpt the tasks and the merge run; empty: this ckpt (its absolute path)
    unsigned retries = 1;          ///< how often a failed task is submitted again
    bool json = false;
    bool dryRun = false;           ///< print the scripts and the sbatch command lines, submit nothing
};

inline constexpr unsigned kDefaultMaxTasks = 32;

/**
 * Scans a run on a Slurm cluster: an sbatch array of `ckpt timeline RUN --shard I/N --partial` (one
 * task a share) and a merge job depending on it (`--dependency=afterok`), both scripts of single-quoted
 * words (no path is ever expanded by a shell) submitted with sbatch as argument vectors. Follows them
 * with squeue and scontrol; a task that ends without its partial is submitted again (\a retries
 * times) under a new merge job, then reported by name with its state and log. Prints the merge job's
 * output, the timeline, when done. A stop signal cancels both jobs. Exit 0, 1 when the scan failed,
 * 2 on a usage error.
 */
int timelineOnSlurm(const ClusterScanRequest& request);

} // namespace ckpt::cli
