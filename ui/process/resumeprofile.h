// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/run/resumeprofiles.h"

#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <optional>

class QSettings;

namespace ckpt::ui {

/**
 * How a resumption is launched: a program and an argument list with placeholders, extra environment
 * and a working directory. It is always run as an argument list through QProcess, never through a
 * shell, so a placeholder's value reaches the program as one argument, byte for byte, whatever it
 * contains (spaces, quotes, `;`, `$()`, newlines).
 *
 * Placeholders (in arguments, environment values and the working directory), expanded in one pass so
 * that a value containing "{out}" is never expanded again:
 *   {record} the checkpoint to resume (TrainingRecord or GradientCheckpoint JSON)
 *   {dir}    the folder holding it
 *   {step}   the step it was written at
 *   {out}    the run directory chosen in the Resume panel
 */
struct ResumeProfile {
    /** Where the command runs: here, as a child process, or as a Slurm batch job (sbatch). */
    enum class Launcher { Local, Slurm };
    /** sbatch options of a Slurm profile (each given to sbatch as its own argument). */
    struct Slurm {
        QString partition;  ///< empty: the cluster's default
        int nodes = 1;
        int gpus = 0;       ///< --gres=gpu:N when > 0
        QString time;       ///< --time, e.g. 02:00:00; empty: the partition's default
        friend bool operator==(const Slurm&, const Slurm&) = default;
    };

    QString name;
    Launcher launcher = Launcher::Local;
    Slurm slurm;
    /** The program; kBundledTrainer stands for the ckpt-train installed beside the app. */
    QString program;
    QStringList arguments;
    QStringList environment;    ///< KEY=VALUE entries added to the app's environment
    QString workingDirectory;   ///< empty: the app's
    bool passSteps = true;      ///< append `--steps N` when the panel sets a step target

    static constexpr const char* kBundledTrainer = ckpt::kBundledTrainer.data(); // core/run/resumeprofiles.h
    /** core's first default (core/run/resumeprofiles.h): `ckpt-train --resume {record} --out {out}` (plus --steps when set). */
    static ResumeProfile defaultProfile();
    /** core's second default: the same command as a Slurm batch job on the default partition, one node. */
    static ResumeProfile slurmProfile();
    /** What a fresh installation offers: the local default, then the Slurm one. */
    static QList<ResumeProfile> defaultProfiles() { return {defaultProfile(), slurmProfile()}; }
    friend bool operator==(const ResumeProfile&, const ResumeProfile&) = default;
};

struct PlaceholderValues {
    QString record;
    QString dir;
    QString step;
    QString out;
};

/** Replaces {record}, {dir}, {step}, {out} in one left-to-right pass; other braces stay as they are. */
QString expandPlaceholders(const QString& text, const PlaceholderValues& values);

/** A profile with its placeholders filled in: what QProcess gets. */
struct ResolvedCommand {
    QString program;
    QStringList arguments;
    QProcessEnvironment environment;
    QString workingDirectory;
    /** Environment entries without '=' or with an empty name (the dialog refuses them; settings may hold them). */
    QStringList badEnvironment;
};

/**
 * Fills in \a profile. \a bundledTrainer replaces kBundledTrainer as the program; \a steps appends
 * `--steps N` when the profile passes steps.
 */
ResolvedCommand resolveProfile(const ResumeProfile& profile, const PlaceholderValues& values, const QString& bundledTrainer,
    std::optional<quint64> steps);

/** \a s as one POSIX shell word: single-quoted, embedded ' as '\''. Safe for any byte but NUL. */
QString shellQuote(const QString& s);
/** The batch script of a Slurm job running \a command: `exec` of the quoted argument list, nothing else. */
QString slurmScript(const ResolvedCommand& command);
/** sbatch's argument list: --parsable, job name, output and error files, the profile's options, the working directory, the script. */
QStringList sbatchArguments(const ResumeProfile& profile, const ResolvedCommand& command, const QString& scriptPath, const QString& outputPath,
    const QString& errorPath);

/** The profile as core's store keeps it, and back (the two carry the same fields). */
ResumeProfile fromSpec(const ckpt::ResumeProfileSpec& spec);
ckpt::ResumeProfileSpec toSpec(const ResumeProfile& profile);

/**
 * Resume profiles in core's store (core/run/resumeprofiles.h), the JSON file `ckpt` reads too, kept
 * beside \a settings' file (for the app: $XDG_CONFIG_HOME/CheckpointInspector/resume-profiles.json);
 * the chosen name stays in \a settings ("resume/current"). A list an older version kept in QSettings
 * ("resume/profiles") is moved into the store on the first load. Loading never returns an empty
 * list: the default profiles are there when nothing is stored.
 */
namespace ResumeProfiles {
/** The store's file beside \a settings' file. */
QString storePath(const QSettings& settings);
QList<ResumeProfile> load(QSettings& settings);
void save(QSettings& settings, const QList<ResumeProfile>& profiles);
QString current(QSettings& settings);
void setCurrent(QSettings& settings, const QString& name);
/** \a base, or "base (2)", "base (3)"… : a name no profile in \a profiles has. */
QString uniqueName(const QList<ResumeProfile>& profiles, const QString& base);
} // namespace ResumeProfiles

} // namespace ckpt::ui
