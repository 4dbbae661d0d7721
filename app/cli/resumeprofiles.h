// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The app's resume profiles (ui/process/resumeprofile.cpp, kept in QSettings under resume/profiles)
// read without Qt, for `ckpt verify-resume --profile NAME`: the CLI links only core. QSettings'
// native format on Linux is an INI file; this reads the subset QSettings writes (sections, `\`
// subkeys, quoted and escaped values, comma-separated string lists, @Invalid() for an empty list).

#include <optional>
#include <string>
#include <vector>

namespace ckpt::cli {

struct CliResumeProfile {
    std::string name;
    std::string program;                  ///< "ckpt-train" means the trainer installed beside ckpt
    std::vector<std::string> arguments;   ///< with {record} {dir} {step} {out}
    std::vector<std::string> environment; ///< NAME=VALUE, placeholders in VALUE
    std::string workingDirectory;         ///< placeholders allowed; empty: ckpt's own
    bool passSteps = true;                ///< append `--steps {step}`
    bool slurm = false;                   ///< submitted with sbatch by the app: not runnable here
    std::string slurmPartition, slurmTime; ///< a Slurm profile's sbatch --partition / --time ("" for the cluster's default)
};

/** $XDG_CONFIG_HOME (else $HOME/.config)/CheckpointInspector/checkpoint-inspector.conf, as QSettings places the app's settings. */
std::string resumeSettingsPath();

/**
 * The profiles stored in the INI file \a path, in their order; the app's default profiles
 * ("ckpt-train (local)", "ckpt-train on Slurm (sbatch)") when none is stored or the file does not
 * exist, as the app does.
 */
std::vector<CliResumeProfile> loadResumeProfiles(const std::string& path);

/** One QSettings INI value as a string list (a single value is a one-element list); exposed for tests. */
std::vector<std::string> iniStringList(const std::string& raw);

} // namespace ckpt::cli
