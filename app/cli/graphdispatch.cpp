// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/graphdispatch.h"

#include "app/cli/graphcommands.h"

namespace ckpt::cli {

std::optional<int> graphCommandFor(const std::string& command, const std::string& path, const std::vector<std::string>& argv)
{
    return gradientCheckpointCommand(command, path, argv);
}

int runGraphCommand(const std::string& command, const std::vector<std::string>& argv)
{
    return command == "blocks" ? cmdBlocks(argv) : cmdGraph(argv);
}

} // namespace ckpt::cli
