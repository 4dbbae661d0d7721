// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Listing a directory inside core/run (run.cpp's metric logs, checkpoints.cpp's checkpoints,
// runpolicy.cpp's newest graph) and the checkpoint names they look for; not part of the public interface.

#include <filesystem>
#include <string>
#include <vector>

namespace ckpt::run_detail {

/**
 * The entries of a directory, none if it cannot be read. Not a range-for over directory_iterator:
 * its operator++ throws filesystem_error (a directory removed or unreadable while it is listed), and
 * no exception may leave core; increment(ec) stops instead.
 */
std::vector<std::filesystem::directory_entry> entriesOf(const std::filesystem::path& dir);

/**
 * A checkpoint in a run's checkpoint/ folder (std::regex ECMAScript): burn-train's
 * {model,optim,scheduler}-EPOCH or a record-STEP, with a record extension (core/model/recorder's
 * recordExtensions()). Group 1 is the kind, group 2 the number.
 */
std::string checkpointNamePattern();

/** A GradientCheckpoint in a run's graph/ folder, as ckpt-train writes it; group 1 is the step. */
inline constexpr const char* kGraphNamePattern = R"(^step-(\d+)\.json$)";

/** The extension of a record file of any format (a folder of records, no checkpoint/), as a regex. */
std::string recordExtensionPattern();

/** The record extensions as a message lists them: ".bin, .bin.gz, .bpk, .json, ...". */
std::string recordExtensionList();

} // namespace ckpt::run_detail
