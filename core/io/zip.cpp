// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/zip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace ckpt {

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndRecord = 0x06054b50;
constexpr uint32_t kZip64EndRecord = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kMaxComment = 0xffff;

uint16_t le16(const uint8_t* p)
{
    return uint16_t(p[0] | (p[1] << 8));
}
uint32_t le32(const uint8_t* p)
{
    return uint32_t(le16(p)) | (uint32_t(le16(p + 2)) << 16);
}
uint64_t le64(const uint8_t* p)
{
    return uint64_t(le32(p)) | (uint64_t(le32(p + 4)) << 32);
}

/** A stored entry: a view that keeps the whole mapping alive, no copy. */
class SubBytes final : public Bytes {
public:
    SubBytes(BytesPtr parent, std::span<const uint8_t> view)
        : m_parent(std::move(parent))
        , m_view(view)
    { }
    std::span<const uint8_t> span() const override { return m_view; }
    bool truncatedWhileMapped() const override { return m_parent->truncatedWhileMapped(); }

private:
    BytesPtr m_parent;
    std::span<const uint8_t> m_view;
};

std::unexpected<Error> bad(std::string what, uint64_t offset)
{
    return fail(ErrorCode::Malformed, "zip: " + std::move(what), offset);
}

/** The end-of-central-directory record: searched backwards over the largest comment zip allows. */
Result<uint64_t> findEndRecord(std::span<const uint8_t> d)
{
    if (d.size() < kEndRecordSize)
        return fail(ErrorCode::Truncated, "zip: " + std::to_string(d.size()) + " bytes cannot hold an end-of-central-directory record", 0);
    const uint64_t lowest = d.size() > kEndRecordSize + kMaxComment ? d.size() - kEndRecordSize - kMaxComment : 0;
    for (uint64_t at = d.size() - kEndRecordSize + 1; at-- > lowest;)
        if (le32(d.data() + at) == kEndRecord && at + kEndRecordSize + le16(d.data() + at + 20) == d.size())
            return at;
    return bad("no end-of-central-directory record (the archive is cut short or not a zip)", d.size());
}

struct Directory {
    uint64_t count = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
};

/** The directory's place, from the end record or, when it says 0xffff..., from the zip64 records before it. */
Result<Directory> directoryOf(std::span<const uint8_t> d, uint64_t end)
{
    const uint8_t* e = d.data() + end;
    Directory dir{le16(e + 10), le32(e + 16), le32(e + 12)};
    const bool zip64 = dir.count == 0xffff || dir.offset == 0xffffffff || dir.size == 0xffffffff;
    if (zip64) {
        if (end < 20 || le32(d.data() + end - 20) != kZip64Locator)
            return bad("the end record asks for zip64 but no zip64 locator precedes it", end);
        const uint64_t at = le64(d.data() + end - 20 + 8);
        if (at > d.size() || d.size() - at < 56 || le32(d.data() + at) != kZip64EndRecord)
            return bad("the zip64 locator points to " + std::to_string(at) + ", where no zip64 end record is", end - 20);
        dir = {le64(d.data() + at + 32), le64(d.data() + at + 48), le64(d.data() + at + 40)};
    }
    if (dir.offset > end || dir.size > end - dir.offset)
        return bad("the central directory (" + std::to_string(dir.size) + " bytes at " + std::to_string(dir.offset) + ") does not fit before the end record",
            end);
    // 46 bytes is the smallest central header: a count the directory cannot hold is a lie, not an allocation
    if (dir.count > dir.size / 46)
        return bad("the end record claims " + std::to_string(dir.count) + " entries in a " + std::to_string(dir.size) + "-byte directory", end);
    return dir;
}

/** A zip64 extra field's 64-bit values replace the 32-bit ones that say 0xffffffff, in APPNOTE's order. */
Result<void> applyZip64Extra(std::span<const uint8_t> extra, ZipEntry& e, bool sizeWide, bool compWide, bool offsetWide, uint64_t at)
{
    for (size_t i = 0; i + 4 <= extra.size();) {
        const uint16_t id = le16(extra.data() + i);
        const uint16_t len = le16(extra.data() + i + 2);
        if (i + 4 + len > extra.size())
            return bad("an extra field runs past its header", at + i);
        if (id == 0x0001) {
            size_t p = i + 4;
            auto take = [&](uint64_t& v) -> bool {
                if (p + 8 > i + 4 + len)
                    return false;
                v = le64(extra.data() + p);
                p += 8;
                return true;
            };
            if ((sizeWide && !take(e.size)) || (compWide && !take(e.compressedSize)) || (offsetWide && !take(e.headerOffset)))
                return bad("a zip64 extra field is shorter than the values it replaces", at + i);
        }
        i += 4 + size_t(len);
    }
    return {};
}

/** One central-directory header at \a at; \a next is where the following one starts. */
Result<ZipEntry> centralEntry(std::span<const uint8_t> d, uint64_t at, uint64_t dirEnd, uint64_t& next)
{
    if (dirEnd - at < 46 || le32(d.data() + at) != kCentralHeader)
        return bad("expected a central directory header", at);
    const uint8_t* h = d.data() + at;
    const uint16_t nameLen = le16(h + 28), extraLen = le16(h + 30), commentLen = le16(h + 32);
    if (dirEnd - at - 46 < uint64_t(nameLen) + extraLen + commentLen)
        return bad("a central directory header's name and fields run past the directory", at);
    ZipEntry e;
    e.method = le16(h + 10);
    e.compressedSize = le32(h + 20);
    e.size = le32(h + 24);
    e.headerOffset = le32(h + 42);
    e.name.assign(reinterpret_cast<const char*>(h + 46), nameLen);
    auto wide = applyZip64Extra(d.subspan(at + 46 + nameLen, extraLen), e, e.size == 0xffffffff, e.compressedSize == 0xffffffff, e.headerOffset == 0xffffffff,
        at + 46 + nameLen);
    if (!wide)
        return std::unexpected(wide.error());
    if (le16(h + 8) & 1)
        return fail(ErrorCode::Unsupported, "zip: entry " + e.name + " is encrypted", at);
    next = at + 46 + nameLen + extraLen + commentLen;
    return e;
}

/** Finds the data of \a e behind its local header, checking that it lies inside the file. */
Result<void> locateData(std::span<const uint8_t> d, ZipEntry& e)
{
    const uint64_t at = e.headerOffset;
    if (at > d.size() || d.size() - at < 30 || le32(d.data() + at) != kLocalHeader)
        return bad("entry " + e.name + ": no local header at " + std::to_string(at), at);
    const uint64_t start = at + 30 + le16(d.data() + at + 26) + le16(d.data() + at + 28);
    if (start > d.size() || e.compressedSize > d.size() - start)
        return bad("entry " + e.name + ": its " + std::to_string(e.compressedSize) + " bytes run past the end of the file", at);
    if (e.method == 0 && e.compressedSize != e.size)
        return bad("entry " + e.name + " is stored but its sizes differ", at);
    e.dataOffset = start;
    return {};
}

} // namespace

bool isZip(std::span<const uint8_t> data)
{
    return data.size() >= 4 && (le32(data.data()) == kLocalHeader || le32(data.data()) == kEndRecord);
}

Result<ZipArchive> ZipArchive::open(BytesPtr bytes)
{
    const std::span<const uint8_t> d = bytes->span();
    auto end = findEndRecord(d);
    if (!end)
        return std::unexpected(end.error());
    auto dir = directoryOf(d, *end);
    if (!dir)
        return std::unexpected(dir.error());
    ZipArchive z;
    z.m_bytes = std::move(bytes);
    z.m_entries.reserve(dir->count);
    uint64_t at = dir->offset;
    const uint64_t dirEnd = dir->offset + dir->size;
    for (uint64_t i = 0; i < dir->count; ++i) {
        auto e = centralEntry(d, at, dirEnd, at);
        if (!e)
            return std::unexpected(e.error());
        if (auto placed = locateData(d, *e); !placed)
            return std::unexpected(placed.error());
        z.m_entries.push_back(std::move(*e));
    }
    return z;
}

const ZipEntry* ZipArchive::find(std::string_view name) const
{
    auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const ZipEntry& e) { return e.name == name; });
    return it == m_entries.end() ? nullptr : &*it;
}

Result<std::span<const uint8_t>> ZipArchive::view(const ZipEntry& e) const
{
    if (e.method != 0)
        return fail(ErrorCode::Unsupported, "zip: entry " + e.name + " is compressed (method " + std::to_string(e.method) + ")", e.headerOffset);
    return m_bytes->span().subspan(e.dataOffset, e.size);
}

Result<BytesPtr> ZipArchive::read(const ZipEntry& e, uint64_t maxBytes) const
{
    if (e.method == 0) {
        if (e.size > maxBytes)
            return fail(ErrorCode::Limit, "zip: entry " + e.name + " is " + std::to_string(e.size) + " bytes, over the limit of " + std::to_string(maxBytes),
                e.headerOffset);
        return BytesPtr(std::make_shared<SubBytes>(m_bytes, m_bytes->span().subspan(e.dataOffset, e.size)));
    }
    if (e.method != 8)
        return fail(ErrorCode::Unsupported, "zip: entry " + e.name + " uses compression method " + std::to_string(e.method) + " (only stored and deflate)",
            e.headerOffset);
    if (e.size > maxBytes)
        return fail(ErrorCode::Limit,
            "zip: entry " + e.name + " would inflate to " + std::to_string(e.size) + " bytes, over the limit of " + std::to_string(maxBytes), e.headerOffset);
    // deflate expands at most 1032:1: a larger claim is a lie, not an allocation to make
    if (e.size / 1032 > e.compressedSize + 1)
        return bad("entry " + e.name + " claims to inflate " + std::to_string(e.compressedSize) + " bytes to " + std::to_string(e.size), e.headerOffset);
    std::vector<uint8_t> out(e.size);
    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK)
        return fail(ErrorCode::Io, "zlib could not be initialised");
    const uint8_t* in = m_bytes->data() + e.dataOffset;
    uint64_t inLeft = e.compressedSize;
    uint64_t produced = 0;
    int rc = Z_OK;
    uint8_t overflow[64];
    while (rc == Z_OK) {
        zs.next_in = const_cast<Bytef*>(in + (e.compressedSize - inLeft)); // NOLINT(cppcoreguidelines-pro-type-const-cast): zlib's API is not const-correct
        zs.avail_in = uInt(std::min<uint64_t>(inLeft, UINT_MAX));
        const bool full = produced == out.size();
        zs.next_out = full ? overflow : out.data() + produced;
        zs.avail_out = full ? uInt(sizeof overflow) : uInt(std::min<uint64_t>(out.size() - produced, UINT_MAX));
        const uInt inBefore = zs.avail_in, outBefore = zs.avail_out;
        rc = inflate(&zs, Z_NO_FLUSH);
        inLeft -= inBefore - zs.avail_in;
        if (full && zs.avail_out != outBefore) {
            inflateEnd(&zs);
            return fail(ErrorCode::Limit, "zip: entry " + e.name + " inflates beyond its declared " + std::to_string(e.size) + " bytes", e.headerOffset);
        }
        if (!full)
            produced += outBefore - zs.avail_out;
        if (rc == Z_BUF_ERROR && inLeft == 0)
            break;
        if (rc == Z_BUF_ERROR)
            rc = Z_OK;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || produced != e.size)
        return bad("entry " + e.name + " does not inflate to its declared " + std::to_string(e.size) + " bytes", e.dataOffset + (e.compressedSize - inLeft));
    return makeBytes(std::move(out));
}

} // namespace ckpt
