// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/zipwriter.h"

#include "core/io/bytes.h"

#include <zlib.h>

namespace ckpt {

namespace {

constexpr uint64_t kMax32 = 0xFFFFFFFFu; ///< a 32-bit field that says "see the ZIP64 record"
constexpr uint16_t kZip64Extra = 0x0001;
/// The padding's extra-field id: any id APPNOTE does not assign is skipped by readers (torch's own writer pads so too).
constexpr uint16_t kPaddingExtra = 0x434b; // "KC"

void put(std::vector<uint8_t>& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

uint32_t crcOf(uint32_t crc, std::span<const uint8_t> s)
{
    while (!s.empty()) {
        const size_t n = std::min<size_t>(s.size(), size_t(1) << 30);
        crc = uint32_t(crc32(crc, s.data(), uInt(n)));
        s = s.subspan(n);
    }
    return crc;
}

/// Where a member lands and what its headers say.
struct Placed {
    uint32_t crc = 0;
    uint64_t size = 0;
    uint64_t offset = 0;       ///< of the local header
    std::vector<uint8_t> local; ///< the local header with name and extra fields
};

/// The fixed part both headers share after their version fields: flags, method, time, date, CRC, sizes.
void putCommon(std::vector<uint8_t>& out, const Placed& p, bool zip64Size)
{
    put(out, 0x0800, 2);                     // names are UTF-8
    put(out, 0, 2);                          // stored
    put(out, 0, 2);                          // 00:00:00, fixed so the same members give the same archive
    put(out, (0 << 9) | (1 << 5) | 1, 2);    // 1980-01-01
    put(out, p.crc, 4);
    put(out, zip64Size ? kMax32 : p.size, 4); // compressed
    put(out, zip64Size ? kMax32 : p.size, 4); // uncompressed
}

std::vector<uint8_t> localHeader(const ZipMemberOut& m, Placed& p, const ZipLimits& limits)
{
    const bool zip64 = p.size >= limits.zip64From;
    std::vector<uint8_t> extra;
    if (zip64) {
        put(extra, kZip64Extra, 2);
        put(extra, 16, 2);
        put(extra, p.size, 8);
        put(extra, p.size, 8);
    }
    const uint64_t dataStart = p.offset + 30 + m.name.size() + extra.size();
    if (m.alignment > 1 && dataStart % m.alignment) {
        uint64_t pad = m.alignment - dataStart % m.alignment;
        while (pad < 4) // an extra field is at least its 4-byte id and length
            pad += m.alignment;
        put(extra, kPaddingExtra, 2);
        put(extra, pad - 4, 2);
        extra.resize(extra.size() + pad - 4, 0);
    }
    std::vector<uint8_t> out;
    put(out, 0x04034b50, 4);
    put(out, zip64 ? 45 : 10, 2); // needed: 4.5 for ZIP64, else 1.0 (stored)
    putCommon(out, p, zip64);
    put(out, m.name.size(), 2);
    put(out, extra.size(), 2);
    out.insert(out.end(), m.name.begin(), m.name.end());
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

void centralHeader(std::vector<uint8_t>& out, const ZipMemberOut& m, const Placed& p, const ZipLimits& limits)
{
    const bool bigSize = p.size >= limits.zip64From, bigOffset = p.offset >= limits.zip64From;
    std::vector<uint8_t> extra;
    if (bigSize || bigOffset) {
        put(extra, kZip64Extra, 2);
        put(extra, (bigSize ? 16 : 0) + (bigOffset ? 8 : 0), 2);
        if (bigSize) {
            put(extra, p.size, 8);
            put(extra, p.size, 8);
        }
        if (bigOffset)
            put(extra, p.offset, 8);
    }
    put(out, 0x02014b50, 4);
    put(out, 45, 2);                         // made by: MS-DOS compatible, spec 4.5
    put(out, bigSize || bigOffset ? 45 : 10, 2);
    putCommon(out, p, bigSize);
    put(out, m.name.size(), 2);
    put(out, extra.size(), 2);
    put(out, 0, 2);                          // comment
    put(out, 0, 2);                          // disk
    put(out, 0, 2);                          // internal attributes
    put(out, 0, 4);                          // external attributes
    put(out, bigOffset ? kMax32 : p.offset, 4);
    out.insert(out.end(), m.name.begin(), m.name.end());
    out.insert(out.end(), extra.begin(), extra.end());
}

/// The end records: ZIP64's end record and locator when a count, size or offset needs them, then the classic one.
std::vector<uint8_t> endRecords(uint64_t count, uint64_t centralOffset, uint64_t centralSize, const ZipLimits& limits)
{
    std::vector<uint8_t> out;
    const bool zip64 = count >= limits.zip64CountFrom || centralOffset >= limits.zip64From || centralSize >= limits.zip64From;
    if (zip64) {
        const uint64_t zip64End = centralOffset + centralSize;
        put(out, 0x06064b50, 4);
        put(out, 44, 8);                     // the record's size after this field
        put(out, 45, 2);
        put(out, 45, 2);
        put(out, 0, 4);
        put(out, 0, 4);
        put(out, count, 8);
        put(out, count, 8);
        put(out, centralSize, 8);
        put(out, centralOffset, 8);
        put(out, 0x07064b50, 4);             // the locator
        put(out, 0, 4);
        put(out, zip64End, 8);
        put(out, 1, 4);
    }
    put(out, 0x06054b50, 4);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, zip64 ? 0xFFFF : count, 2);
    put(out, zip64 ? 0xFFFF : count, 2);
    put(out, zip64 ? kMax32 : centralSize, 4);
    put(out, zip64 ? kMax32 : centralOffset, 4);
    put(out, 0, 2);
    return out;
}

} // namespace

Result<void> writeStoredZip(const std::string& path, const std::vector<ZipMemberOut>& members, const ZipLimits& limits)
{
    std::vector<Placed> placed(members.size());
    uint64_t offset = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        const ZipMemberOut& m = members[i];
        if (m.name.size() > 0xFFFF)
            return std::unexpected(Error{ErrorCode::Limit, "a zip member's name is longer than 65,535 bytes: " + m.name.substr(0, 64) + "...", path});
        Placed& p = placed[i];
        p.crc = crcOf(crcOf(uint32_t(crc32(0, Z_NULL, 0)), m.head), m.body);
        p.size = m.head.size() + m.body.size();
        p.offset = offset;
        p.local = localHeader(m, p, limits);
        offset += p.local.size() + p.size;
    }
    std::vector<uint8_t> central;
    for (size_t i = 0; i < members.size(); ++i)
        centralHeader(central, members[i], placed[i], limits);
    const std::vector<uint8_t> end = endRecords(members.size(), offset, central.size(), limits);
    return writeFileAtomic(path, [&](const std::function<Result<void>(std::span<const uint8_t>)>& sink) -> Result<void> {
        for (size_t i = 0; i < members.size(); ++i) {
            for (std::span<const uint8_t> s : {std::span<const uint8_t>(placed[i].local), std::span<const uint8_t>(members[i].head), members[i].body})
                if (!s.empty())
                    if (auto w = sink(s); !w)
                        return w;
        }
        if (auto w = sink(central); !w)
            return w;
        return sink(end);
    });
}

} // namespace ckpt
