// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/sniff.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string_view>

namespace ckpt {

namespace fs = std::filesystem;

namespace {

constexpr size_t kHead = 1024;

bool isSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/** The first key of a JSON object (up to 32 characters), empty when \a d is no object starting with a plain key. */
std::string_view firstJsonKey(std::span<const uint8_t> d)
{
    size_t i = 0;
    while (i < d.size() && isSpace(d[i]))
        ++i;
    if (i >= d.size() || d[i] != '{')
        return {};
    ++i;
    while (i < d.size() && isSpace(d[i]))
        ++i;
    if (i >= d.size() || d[i] != '"')
        return {};
    const size_t start = ++i;
    while (i < d.size() && d[i] != '"' && i - start < 32)
        ++i;
    return {reinterpret_cast<const char*>(d.data()) + start, i - start};
}

bool looksLikeCar(std::span<const uint8_t> d)
{
    // CARv1: an unsigned LEB128 header length, then a DAG-CBOR map of one or two entries (0xa1/0xa2)
    // naming "roots" and/or "version".
    uint64_t length = 0;
    size_t pos = 0;
    for (int shift = 0; pos < d.size() && shift < 63; shift += 7) {
        const uint8_t b = d[pos++];
        length |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        if (pos == d.size())
            return false;
    }
    if (pos == 0 || pos >= d.size() || (d[pos] != 0xa1 && d[pos] != 0xa2) || length == 0)
        return false;
    const size_t end = size_t(std::min<uint64_t>(d.size(), pos + length));
    const std::string_view header(reinterpret_cast<const char*>(d.data()) + pos, end - pos);
    return header.find("roots") != std::string_view::npos || header.find("version") != std::string_view::npos;
}

} // namespace

FileFamily sniffBytes(std::span<const uint8_t> d)
{
    d = d.first(std::min(d.size(), kHead));
    const std::string_view key = firstJsonKey(d);
    for (std::string_view field : {"graph", "step", "loss_cid", "optimizer_state", "timestamp", "nodes", "edges"})
        if (key == field)
            return FileFamily::GradientCheckpoint;
    if (looksLikeCar(d))
        return FileFamily::CarFile;
    return FileFamily::BurnRecord;
}

FileFamily sniffFile(const std::string& path)
{
    if (path == "-")
        return FileFamily::BurnRecord; // stdin can be read once only: by the record decoders
    if (isRunDirectory(path))
        return FileFamily::RunDirectory;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return FileFamily::Unknown;
    uint8_t buf[kHead];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    return sniffBytes({buf, n});
}

bool isRunDirectory(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    for (auto sub : {"checkpoint", "train", "valid", "test"})
        if (fs::is_directory(fs::path(path) / sub, ec))
            return true;
    // a Hugging Face Trainer's output: checkpoint-N/ folders (core/run/trainerstate lists what is in them)
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with("checkpoint-") && name.size() > 11 && name.find_first_not_of("0123456789", 11) == std::string::npos && it->is_directory(ec))
            return true;
    }
    return false;
}

} // namespace ckpt
