// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/gzip.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <libdeflate.h>
#include <memory>
#include <zlib.h>

namespace ckpt {

bool isGzip(std::span<const uint8_t> d)
{
    return d.size() >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

namespace {

/// Parses the gzip member header (RFC 1952) and returns the offset of the deflate stream.
Result<size_t> gzipHeaderLength(std::span<const uint8_t> d)
{
    if (d.size() < 10)
        return fail(ErrorCode::Truncated, "gzip header is cut short: expected 10 bytes, found " + std::to_string(d.size()), d.size());
    if (d[0] != 0x1f || d[1] != 0x8b)
        return fail(ErrorCode::Malformed, "expected the gzip magic 1f 8b", 0);
    if (d[2] != 8)
        return fail(ErrorCode::Unsupported, "gzip compression method " + std::to_string(d[2]) + " is not deflate (8)", 2);
    const uint8_t flg = d[3];
    if (flg & 0xe0)
        return fail(ErrorCode::Malformed, "reserved gzip header flags are set", 3);
    size_t pos = 10;
    if (flg & 0x04) { // FEXTRA
        if (pos + 2 > d.size())
            return fail(ErrorCode::Truncated, "gzip extra field length is cut short", pos);
        size_t xlen = d[pos] | (d[pos + 1] << 8);
        pos += 2 + xlen;
    }
    for (uint8_t bit : {uint8_t(0x08), uint8_t(0x10)}) { // FNAME, FCOMMENT: zero-terminated
        if (flg & bit) {
            while (pos < d.size() && d[pos] != 0)
                ++pos;
            ++pos;
        }
    }
    if (flg & 0x02)
        pos += 2; // FHCRC
    if (pos > d.size())
        return fail(ErrorCode::Truncated, "gzip header is cut short", d.size());
    return pos;
}

/**
 * A growable output buffer handed out as Bytes without a copy at the end. Growth leaves the new
 * bytes uninitialised (realloc, not std::vector's zero fill): inflation overwrites them at once, and
 * zero-filling a GiB before inflating into it cost a tenth of a second. Failure to grow is a value.
 */
class GrowBytes final : public Bytes {
public:
    std::span<const uint8_t> span() const override { return {m_data.get(), m_size}; }
    uint8_t* data() { return m_data.get(); }
    size_t size() const { return m_size; }

    /// Sets the size to \a n (new bytes uninitialised); false when memory is exhausted.
    [[nodiscard]] bool resize(size_t n)
    {
        if (n > m_capacity) {
            const size_t capacity = std::max(n, m_capacity + m_capacity / 2);
            void* grown = std::realloc(m_data.get(), capacity);
            if (!grown)
                return false;
            (void)m_data.release(); // realloc has taken the old block: it must not be freed again
            m_data.reset(static_cast<uint8_t*>(grown));
            m_capacity = capacity;
        }
        m_size = n;
        return true;
    }

    /// Gives back the capacity beyond the size (the last chunk's unused room).
    void shrinkToFit()
    {
        if (m_size == m_capacity || m_size == 0)
            return;
        if (void* shrunk = std::realloc(m_data.get(), m_size)) {
            (void)m_data.release(); // as in resize: the old block is realloc's now
            m_data.reset(static_cast<uint8_t*>(shrunk));
            m_capacity = m_size;
        }
    }

private:
    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<uint8_t, Free> m_data;
    size_t m_size = 0;
    size_t m_capacity = 0;
};

Error outOfMemory(size_t bytes, size_t offset)
{
    return fail(ErrorCode::Limit, "not enough memory to inflate the gzip payload to " + std::to_string(bytes) + " bytes", offset).error();
}

} // namespace

Result<BytesPtr> gunzip(std::span<const uint8_t> in, const InflateLimits& limits, const Progress& progress)
{
    auto header = gzipHeaderLength(in);
    if (!header)
        return std::unexpected(header.error());
    if (in.size() < *header + 8)
        return fail(ErrorCode::Truncated, "gzip member is cut short: no room for the deflate stream and its 8-byte trailer", in.size());

    // Fast path: the trailer's ISIZE (size mod 2^32) is a plausible exact size -> one libdeflate call.
    uint32_t isize = 0;
    std::memcpy(&isize, in.data() + in.size() - 4, 4);
    const uint64_t maxExpand = uint64_t(in.size()) * 1032 + 1024;
    if (isize <= maxExpand && isize <= limits.maxOutputBytes) {
        auto out = std::make_shared<GrowBytes>();
        if (!out->resize(isize))
            return std::unexpected(outOfMemory(isize, 0));
        std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> dec(
            libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
        size_t inUsed = 0, outUsed = 0;
        if (dec) {
            auto r = libdeflate_gzip_decompress_ex(dec.get(), in.data(), in.size(), out->data(), out->size(), &inUsed, &outUsed);
            if (r == LIBDEFLATE_SUCCESS && outUsed == isize) {
                progress.report(1.0);
                return out;
            }
            // Anything else (a lying trailer, >4 GiB, or corruption) goes through zlib, which names the offset.
        }
    }

    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK)
        return fail(ErrorCode::Io, "zlib could not be initialised");
    auto out = std::make_shared<GrowBytes>();
    // Output grows in steps that start near what a typical ratio predicts and double up to 1 MiB:
    // a small or corrupt member does not pay for zero-filling a whole MiB it never uses.
    constexpr size_t maxChunk = size_t(1) << 20;
    size_t chunk = std::clamp<size_t>(in.size() * 4, size_t(64) << 10, maxChunk);
    size_t inPos = *header;
    int rc = Z_OK;
    uLong crc = crc32(0L, Z_NULL, 0);
    while (rc != Z_STREAM_END) {
        if (progress.cancelled()) {
            inflateEnd(&zs);
            return fail(ErrorCode::Cancelled, "inflation cancelled");
        }
        const size_t before = out->size();
        if (before + chunk > limits.maxOutputBytes + chunk) {
            inflateEnd(&zs);
            return fail(ErrorCode::Limit,
                "gzip payload inflates beyond the limit of " + std::to_string(limits.maxOutputBytes)
                    + " bytes (a gzip bomb, or a record larger than this tool is allowed to inflate)",
                inPos);
        }
        if (!out->resize(before + chunk)) {
            inflateEnd(&zs);
            return std::unexpected(outOfMemory(before + chunk, inPos));
        }
        zs.next_in = const_cast<Bytef*>(in.data() + inPos);
        zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size() - inPos, 1u << 30));
        zs.next_out = out->data() + before;
        zs.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&zs, Z_NO_FLUSH);
        const size_t consumed = static_cast<size_t>(zs.next_in - (in.data() + inPos));
        const size_t produced = chunk - zs.avail_out;
        crc = crc32(crc, out->data() + before, static_cast<uInt>(produced));
        (void)out->resize(before + produced); // shrinking never allocates
        inPos += consumed;
        if (rc == Z_STREAM_END)
            break;
        if (rc == Z_BUF_ERROR && inPos >= in.size()) {
            inflateEnd(&zs);
            return fail(ErrorCode::Truncated, "gzip stream ends before its final deflate block", in.size());
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            std::string why = zs.msg ? zs.msg : "corrupt deflate data";
            inflateEnd(&zs);
            return fail(ErrorCode::Malformed, "gzip deflate stream is corrupt: " + why, inPos);
        }
        if (out->size() > limits.maxOutputBytes) {
            inflateEnd(&zs);
            return fail(ErrorCode::Limit,
                "gzip payload inflates beyond the limit of " + std::to_string(limits.maxOutputBytes) + " bytes", inPos);
        }
        progress.report(double(inPos) / double(in.size()));
        chunk = std::min(chunk * 2, maxChunk);
    }
    inflateEnd(&zs);
    if (inPos + 8 > in.size())
        return fail(ErrorCode::Truncated, "gzip trailer (CRC32 and ISIZE) is cut short", in.size());
    uint32_t storedCrc = 0, storedSize = 0;
    std::memcpy(&storedCrc, in.data() + inPos, 4);
    std::memcpy(&storedSize, in.data() + inPos + 4, 4);
    if (storedCrc != static_cast<uint32_t>(crc))
        return fail(ErrorCode::Malformed, "gzip CRC32 mismatch: the payload is corrupt", inPos);
    if (storedSize != static_cast<uint32_t>(out->size()))
        return fail(ErrorCode::Malformed, "gzip ISIZE does not match the inflated length", inPos + 4);
    out->shrinkToFit();
    return out;
}

Result<std::vector<uint8_t>> gzip(std::span<const uint8_t> payload, int level)
{
    std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> comp(
        libdeflate_alloc_compressor(level), &libdeflate_free_compressor);
    if (!comp)
        return fail(ErrorCode::Io, "libdeflate could not allocate a compressor");
    static constexpr uint8_t kHeader[10] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff};
    const size_t bound = libdeflate_deflate_compress_bound(comp.get(), payload.size());
    std::vector<uint8_t> out(sizeof kHeader + bound + 8);
    std::memcpy(out.data(), kHeader, sizeof kHeader);
    size_t n = libdeflate_deflate_compress(comp.get(), payload.data(), payload.size(), out.data() + sizeof kHeader, bound);
    if (n == 0)
        return fail(ErrorCode::Io, "deflate failed");
    const uint32_t crc = libdeflate_crc32(0, payload.data(), payload.size());
    const auto isize = static_cast<uint32_t>(payload.size());
    size_t pos = sizeof kHeader + n;
    std::memcpy(out.data() + pos, &crc, 4);
    std::memcpy(out.data() + pos + 4, &isize, 4);
    out.resize(pos + 8);
    return out;
}

} // namespace ckpt
