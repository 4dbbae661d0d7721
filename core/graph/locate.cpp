// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/locate.h"

#include "core/io/bytes.h"

#include <filesystem>

namespace ckpt {

bool looksLikeGradientCheckpointFile(const std::string& path)
{
    std::error_code ec;
    if (path == "-" || !std::filesystem::is_regular_file(path, ec))
        return false;
    auto bytes = mapFile(path);
    if (!bytes)
        return false;
    const auto s = (*bytes)->span();
    size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
            ++i;
    };
    ws();
    if (i >= s.size() || s[i] != '{')
        return false;
    ++i;
    ws();
    if (i >= s.size() || s[i] != '"')
        return false;
    const size_t start = ++i;
    while (i < s.size() && s[i] != '"' && i - start < 32)
        ++i;
    const std::string key(reinterpret_cast<const char*>(s.data()) + start, i - start);
    for (const char* k : {"graph", "step", "loss_cid", "optimizer_state", "timestamp", "nodes", "edges"})
        if (key == k)
            return true;
    return false;
}

std::optional<std::string> carBeside(const std::string& checkpointPath)
{
    std::filesystem::path p(checkpointPath);
    p.replace_extension(".car");
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec))
        return p.string();
    return std::nullopt;
}

} // namespace ckpt
