// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The placeholders of a resume command line ({record} {dir} {step} {out}), in plain C++ so the CLI
// (`ckpt verify-resume`) expands them exactly as the app's resume profiles do
// (ui/process/resumeprofile.cpp expandPlaceholders is the reference behaviour).

#include <string>
#include <string_view>

namespace ckpt {

struct PlaceholderValues {
    std::string record; ///< {record}: the checkpoint resumed from
    std::string dir;    ///< {dir}: its folder
    std::string step;   ///< {step}: the step (verify-resume: the step to stop at, LATER's)
    std::string out;    ///< {out}: the output run directory
};

/**
 * \a text with every placeholder replaced in one left-to-right pass: a value is never scanned again,
 * so a record path containing "{out}" stays as it is; an unknown "{name}" is kept verbatim.
 */
std::string expandPlaceholders(std::string_view text, const PlaceholderValues& values);

/**
 * \a s as one POSIX shell word: single-quoted, an embedded ' as '\''; safe for any byte but NUL. The
 * scripts the app and `ckpt timeline --slurm` hand to sbatch quote every argument this way, so no
 * path or value is ever expanded by the shell.
 */
std::string shellWord(std::string_view s);

} // namespace ckpt
