// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/locate.h"

#include <filesystem>

namespace ckpt {

std::string carPathFor(const std::string& checkpointPath)
{
    std::filesystem::path p(checkpointPath);
    p.replace_extension(".car");
    return p.string();
}

std::optional<std::string> carBeside(const std::string& checkpointPath)
{
    std::string car = carPathFor(checkpointPath);
    std::error_code ec;
    if (std::filesystem::is_regular_file(car, ec))
        return car;
    return std::nullopt;
}

} // namespace ckpt
