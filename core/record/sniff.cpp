// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/record/sniff.h"

#include "core/run/run.h"

#include <cstdio>
#include <cstring>
#include <string_view>

namespace ckpt {

FileFamily sniffBytes(std::span<const uint8_t> d)
{
    size_t i = 0;
    while (i < d.size() && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        ++i;
    if (i < d.size() && d[i] == '{') {
        ++i;
        while (i < d.size() && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
            ++i;
        const std::string_view rest(reinterpret_cast<const char*>(d.data() + i), d.size() - i);
        if (rest.starts_with("\"graph\""))
            return FileFamily::GradientCheckpoint;
        return FileFamily::BurnRecord;
    }
    // CARv1: varint header length, then a DAG-CBOR map (a1/a2) holding "roots" and/or "version".
    if (d.size() > 8 && d[0] < 0x80 && (d[1] == 0xa1 || d[1] == 0xa2)) {
        const std::string_view head(reinterpret_cast<const char*>(d.data()), std::min<size_t>(d.size(), 64));
        if (head.find("roots") != std::string_view::npos || head.find("version") != std::string_view::npos)
            return FileFamily::CarFile;
    }
    return FileFamily::BurnRecord;
}

FileFamily sniffFile(const std::string& path)
{
    if (isRunDirectory(path))
        return FileFamily::RunDirectory;
    if (path == "-")
        return FileFamily::BurnRecord;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return FileFamily::Unknown;
    uint8_t buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    return sniffBytes({buf, n});
}

} // namespace ckpt
