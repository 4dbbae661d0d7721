// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>

namespace ckpt {

/**
 * \a path made absolute against the working directory and lexically normalised ("a/./b/../c" is
 * "a/c"), without touching the file system beyond the working directory: the spelling the patch
 * sidecar and the Slurm scripts use for files. \a path itself when the working directory is gone.
 */
inline std::string absoluteNormalPath(const std::string& path)
{
    std::error_code ec;
    const auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

} // namespace ckpt
