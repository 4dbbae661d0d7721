// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The resume profiles, stored once for the app and `ckpt` (verify-resume --profile, timeline --slurm
// --profile): a JSON file, $XDG_CONFIG_HOME/CheckpointInspector/resume-profiles.json (else
// $HOME/.config/...), beside the app's own settings. The default profiles live here and nowhere else.

#include "core/util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/**
 * How a resumption is launched: a program and an argument list with placeholders ({record} {dir}
 * {step} {out}, core/run/placeholders.h), extra environment and a working directory; run here or
 * submitted to Slurm with sbatch.
 */
struct ResumeProfileSpec {
    enum class Launcher { Local, Slurm };
    /** sbatch options of a Slurm profile. */
    struct Slurm {
        std::string partition; ///< empty: the cluster's default
        int nodes = 1;
        int gpus = 0;          ///< --gres=gpu:N when > 0
        std::string time;      ///< --time, e.g. 02:00:00; empty: the partition's default
        friend bool operator==(const Slurm&, const Slurm&) = default;
    };

    std::string name;
    Launcher launcher = Launcher::Local;
    Slurm slurm;
    std::string program;                  ///< kBundledTrainer: the ckpt-train installed beside the app and ckpt
    std::vector<std::string> arguments;   ///< with placeholders
    std::vector<std::string> environment; ///< NAME=VALUE, placeholders in VALUE
    std::string workingDirectory;         ///< placeholders allowed; empty: the caller's own
    bool passSteps = true;                ///< append `--steps N` when a step target is set

    friend bool operator==(const ResumeProfileSpec&, const ResumeProfileSpec&) = default;
};

/** The program name that stands for the trainer installed beside the app and ckpt. */
inline constexpr std::string_view kBundledTrainer = "ckpt-train";

/**
 * What a fresh installation offers: `ckpt-train --resume {record} --out {out}` here ("ckpt-train
 * (local)"), then the same command as a Slurm batch job ("ckpt-train on Slurm (sbatch)").
 */
std::vector<ResumeProfileSpec> defaultResumeProfiles();

/** The file name of the store inside its directory: "resume-profiles.json". */
inline constexpr std::string_view kResumeProfilesFileName = "resume-profiles.json";

/** $XDG_CONFIG_HOME (else $HOME/.config)/CheckpointInspector/resume-profiles.json. */
std::string resumeProfilesPath();

/** The store's text: {"version": 1, "profiles": [{"name": ..., "launcher": "local"|"slurm", ...}]}. */
std::string resumeProfilesJson(const std::vector<ResumeProfileSpec>& profiles);

/**
 * The profiles of a store's text, in their order; entries without a name or a program are skipped
 * (as the app never saves them). Errors name what is wrong, not the file.
 */
Result<std::vector<ResumeProfileSpec>> parseResumeProfiles(std::string_view json);

/**
 * The profiles stored at \a path; the defaults when the file does not exist or holds none. An error
 * when the file exists but cannot be read or parsed.
 */
Result<std::vector<ResumeProfileSpec>> loadResumeProfiles(const std::string& path);

/** Writes \a profiles to \a path atomically, creating its directory. */
Result<void> saveResumeProfiles(const std::string& path, const std::vector<ResumeProfileSpec>& profiles);

} // namespace ckpt
