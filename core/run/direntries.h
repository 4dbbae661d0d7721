// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Listing a directory inside core/run (run.cpp's metric logs, checkpoints.cpp's checkpoints); not
// part of the public interface.

#include <filesystem>
#include <vector>

namespace ckpt::run_detail {

/**
 * The entries of a directory, none if it cannot be read. Not a range-for over directory_iterator:
 * its operator++ throws filesystem_error (a directory removed or unreadable while it is listed), and
 * no exception may leave core; increment(ec) stops instead.
 */
std::vector<std::filesystem::directory_entry> entriesOf(const std::filesystem::path& dir);

} // namespace ckpt::run_detail
