// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/gzip.h"

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

/// A growable output buffer handed out as Bytes without a copy at the end.
class GrowBytes final : public Bytes {
public:
    std::vector<uint8_t> v;
    std::span<const uint8_t> span() const override { return v; }
};

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
        out->v.resize(isize);
        std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> dec(
            libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
        size_t inUsed = 0, outUsed = 0;
        if (dec) {
            auto r = libdeflate_gzip_decompress_ex(dec.get(), in.data(), in.size(), out->v.data(), out->v.size(), &inUsed, &outUsed);
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
    const size_t chunk = 1 << 20;
    size_t inPos = *header;
    int rc = Z_OK;
    uLong crc = crc32(0L, Z_NULL, 0);
    while (rc != Z_STREAM_END) {
        if (progress.cancelled()) {
            inflateEnd(&zs);
            return fail(ErrorCode::Cancelled, "inflation cancelled");
        }
        const size_t before = out->v.size();
        if (before + chunk > limits.maxOutputBytes + chunk) {
            inflateEnd(&zs);
            return fail(ErrorCode::Limit,
                "gzip payload inflates beyond the limit of " + std::to_string(limits.maxOutputBytes)
                    + " bytes (a gzip bomb, or a record larger than this tool is allowed to inflate)",
                inPos);
        }
        out->v.resize(before + chunk);
        zs.next_in = const_cast<Bytef*>(in.data() + inPos);
        zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size() - inPos, 1u << 30));
        zs.next_out = out->v.data() + before;
        zs.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&zs, Z_NO_FLUSH);
        const size_t consumed = static_cast<size_t>(zs.next_in - (in.data() + inPos));
        const size_t produced = chunk - zs.avail_out;
        crc = crc32(crc, out->v.data() + before, static_cast<uInt>(produced));
        out->v.resize(before + produced);
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
        if (out->v.size() > limits.maxOutputBytes) {
            inflateEnd(&zs);
            return fail(ErrorCode::Limit,
                "gzip payload inflates beyond the limit of " + std::to_string(limits.maxOutputBytes) + " bytes", inPos);
        }
        progress.report(double(inPos) / double(in.size()));
    }
    inflateEnd(&zs);
    if (inPos + 8 > in.size())
        return fail(ErrorCode::Truncated, "gzip trailer (CRC32 and ISIZE) is cut short", in.size());
    uint32_t storedCrc = 0, storedSize = 0;
    std::memcpy(&storedCrc, in.data() + inPos, 4);
    std::memcpy(&storedSize, in.data() + inPos + 4, 4);
    if (storedCrc != static_cast<uint32_t>(crc))
        return fail(ErrorCode::Malformed, "gzip CRC32 mismatch: the payload is corrupt", inPos);
    if (storedSize != static_cast<uint32_t>(out->v.size()))
        return fail(ErrorCode::Malformed, "gzip ISIZE does not match the inflated length", inPos + 4);
    out->v.shrink_to_fit();
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
