// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/sniff.h"

#include "core/pack/burnpack.h"
#include "core/run/run.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace ckpt {

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

bool looksLikeText(std::span<const uint8_t> head)
{
    if (head.empty())
        return false;
    for (const uint8_t c : head.first(std::min<size_t>(head.size(), kHead)))
        if ((c < 0x20 && !isSpace(c)) || c == 0x7f)
            return false;
    return true;
}

RecordWire sniffRecordWire(std::span<const uint8_t> d)
{
    if (d.empty())
        return RecordWire::Bincode;
    // "NRUB" (format-burnpack.md §2): neither a msgpack map nor JSON, and no bincode record's metadata
    // starts with a 78-byte float type name spelt "RUB..."
    if (pack::hasBurnpackMagic(d))
        return RecordWire::Burnpack;
    const uint8_t b = d[0];
    if ((b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf)
        return RecordWire::Msgpack;
    size_t i = 0;
    while (i < d.size() && isSpace(d[i]))
        ++i;
    if (i < d.size() && (d[i] == '{' || d[i] == '['))
        return RecordWire::Json;
    if (d.size() >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
        return RecordWire::Json; // a BOM: let the JSON reader reject it with serde_json's message
    return RecordWire::Bincode;
}

Recorder recorderOf(RecordWire wire, bool gzip)
{
    switch (wire) {
    case RecordWire::Msgpack: return gzip ? Recorder::NamedMpkGz : Recorder::NamedMpk;
    case RecordWire::Json: return gzip ? Recorder::JsonGz : Recorder::PrettyJson;
    case RecordWire::Bincode: return gzip ? Recorder::BinGz : Recorder::Bin;
    case RecordWire::Burnpack: return Recorder::Burnpack;
    }
    return Recorder::NamedMpk;
}

RecordWire wireOf(Recorder r)
{
    switch (r) {
    case Recorder::NamedMpk:
    case Recorder::NamedMpkGz: return RecordWire::Msgpack;
    case Recorder::PrettyJson:
    case Recorder::JsonGz: return RecordWire::Json;
    case Recorder::Bin:
    case Recorder::BinGz: return RecordWire::Bincode;
    case Recorder::Burnpack: return RecordWire::Burnpack;
    }
    return RecordWire::Msgpack;
}

} // namespace ckpt
