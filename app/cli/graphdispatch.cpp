// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/graphdispatch.h"

#include <cstdio>

namespace ckpt::cli {

std::optional<int> graphCommandFor(const std::string&, const std::string&, const std::vector<std::string>&)
{
    return std::nullopt;
}

int runGraphCommand(const std::string& command, const std::vector<std::string>&)
{
    std::fprintf(stderr, "ckpt: %s: GradientCheckpoint support is being integrated\n", command.c_str());
    return 1;
}

} // namespace ckpt::cli
