// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt {

struct ResumeJudgement;
enum class ResumeTolerance;
enum class StepSource;

/** What `ckpt verify-resume` ran and found, for its --json document. */
struct VerifyResumeReport {
    std::string record, against;     ///< as given
    std::string produced;            ///< the resumed checkpoint's name inside the output directory (relative)
    uint64_t steps = 0;              ///< steps the resumption trained: LATER's step - RECORD's step
    uint64_t step = 0;               ///< LATER's step ({step})
    StepSource stepSource{};         ///< where LATER's step came from
    ResumeTolerance tolerance{};
    std::vector<std::string> command; ///< the program and its expanded arguments
};

/**
 * `ckpt verify-resume --json` (cli-contract.md, "Repair and verify"): record, against, steps,
 * tolerance, verdict, differences (path, max_abs, rel_l2; state fields with path only), in the
 * contract's order; the keys after them (status, above_tolerance, later/resumed for state fields,
 * step, step_source, produced, command) only extend it.
 */
std::string verifyResumeJson(const VerifyResumeReport& r, const ResumeJudgement& j);

} // namespace ckpt
