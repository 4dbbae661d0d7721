// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/cid.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace ckpt {

namespace {

constexpr char kBase32[] = "abcdefghijklmnopqrstuvwxyz234567";
constexpr char kBase58[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string hexCode(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

/** Generic bit-group decoder for base32/base64 family (no padding accepted except trailing '='). */
std::optional<std::vector<uint8_t>> decodeBits(std::string_view s, const char* alphabet, int bits, bool caseFold)
{
    std::array<int, 256> value;
    value.fill(-1);
    for (int i = 0; alphabet[i]; ++i) {
        value[static_cast<uint8_t>(alphabet[i])] = i;
        if (caseFold)
            value[static_cast<uint8_t>(std::toupper(static_cast<unsigned char>(alphabet[i])))] = i;
    }
    while (!s.empty() && s.back() == '=')
        s.remove_suffix(1);
    std::vector<uint8_t> out;
    out.reserve(s.size() * bits / 8 + 1);
    uint32_t acc = 0;
    int have = 0;
    for (char c : s) {
        const int v = value[static_cast<uint8_t>(c)];
        if (v < 0)
            return std::nullopt;
        acc = (acc << bits) | uint32_t(v);
        have += bits;
        if (have >= 8) {
            have -= 8;
            out.push_back(uint8_t(acc >> have));
            acc &= (1u << have) - 1;
        }
    }
    // Leftover bits must be zero padding, as RFC 4648 canonical encoders produce.
    if (acc != 0)
        return std::nullopt;
    return out;
}

std::optional<std::vector<uint8_t>> decodeBase58(std::string_view s)
{
    std::array<int, 256> value;
    value.fill(-1);
    for (int i = 0; kBase58[i]; ++i)
        value[static_cast<uint8_t>(kBase58[i])] = i;
    // Big-number conversion, quadratic in the length; CIDs are short (bounded by the caller).
    std::vector<uint8_t> bytes; // little-endian base-256
    size_t zeros = 0;
    while (zeros < s.size() && s[zeros] == '1')
        ++zeros;
    for (char c : s) {
        int carry = value[static_cast<uint8_t>(c)];
        if (carry < 0)
            return std::nullopt;
        for (auto& b : bytes) {
            carry += 58 * b;
            b = uint8_t(carry & 0xff);
            carry >>= 8;
        }
        while (carry) {
            bytes.push_back(uint8_t(carry & 0xff));
            carry >>= 8;
        }
    }
    std::vector<uint8_t> out(zeros, 0);
    out.insert(out.end(), bytes.rbegin(), bytes.rend());
    return out;
}

} // namespace

std::string codecName(uint64_t codec)
{
    switch (codec) {
    case 0x55: return "raw";
    case 0x70: return "dag-pb";
    case 0x71: return "dag-cbor";
    case 0x0129: return "dag-json";
    case 0x0200: return "json";
    case 0x51: return "cbor";
    case 0x78: return "git-raw";
    case 0x0202: return "car";
    default: return hexCode(codec);
    }
}

std::string hashName(uint64_t code)
{
    switch (code) {
    case 0x00: return "identity";
    case 0x12: return "sha2-256";
    case 0x13: return "sha2-512";
    case 0x14: return "sha3-512";
    case 0x16: return "sha3-256";
    case 0x1e: return "blake3";
    case 0xb220: return "blake2b-256";
    case 0xb240: return "blake2b-512";
    case 0xb260: return "blake2s-256";
    default: return hexCode(code);
    }
}

void appendVarint(std::vector<uint8_t>& out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(uint8_t(v | 0x80));
        v >>= 7;
    }
    out.push_back(uint8_t(v));
}

Result<uint64_t> readVarint(std::span<const uint8_t> in, size_t& pos, uint64_t base)
{
    uint64_t v = 0;
    const size_t start = pos;
    for (int i = 0; i < 9; ++i) {
        if (pos >= in.size())
            return fail(ErrorCode::Truncated, "expected a varint, found the end of the data", base + start);
        const uint8_t b = in[pos++];
        v |= uint64_t(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (b == 0 && i > 0)
                return fail(ErrorCode::Malformed, "varint is not minimally encoded", base + start);
            return v;
        }
    }
    return fail(ErrorCode::Malformed, "varint longer than 9 bytes", base + start);
}

Result<Cid> parseCidBytes(std::span<const uint8_t> in, size_t& consumed, uint64_t base)
{
    Cid cid;
    size_t pos = 0;
    if (in.size() >= 2 && in[0] == 0x12 && in[1] == 0x20) {
        // CIDv0: a bare sha2-256 multihash, implicitly dag-pb.
        if (in.size() < 34)
            return fail(ErrorCode::Truncated, "CIDv0 multihash needs 34 bytes, found " + std::to_string(in.size()), base);
        cid.version = 0;
        cid.codec = multicodec::DagPb;
        cid.hashCode = multicodec::Sha2_256;
        cid.digest.assign(in.begin() + 2, in.begin() + 34);
        cid.bytes.assign(in.begin(), in.begin() + 34);
        consumed = 34;
        return cid;
    }
    auto version = readVarint(in, pos, base);
    if (!version)
        return std::unexpected(version.error());
    if (*version != 1)
        return fail(ErrorCode::Unsupported, "CID version " + std::to_string(*version) + ", expected 1", base);
    auto codec = readVarint(in, pos, base);
    if (!codec)
        return std::unexpected(codec.error());
    auto hash = readVarint(in, pos, base);
    if (!hash)
        return std::unexpected(hash.error());
    auto len = readVarint(in, pos, base);
    if (!len)
        return std::unexpected(len.error());
    if (*len > in.size() - pos)
        return fail(ErrorCode::Truncated,
            "multihash digest of " + std::to_string(*len) + " bytes, only " + std::to_string(in.size() - pos) + " remain",
            base + pos);
    if (*hash == multicodec::Sha2_256 && *len != 32)
        return fail(ErrorCode::Malformed, "sha2-256 digest length " + std::to_string(*len) + ", expected 32", base + pos);
    cid.version = 1;
    cid.codec = *codec;
    cid.hashCode = *hash;
    const auto digest = in.subspan(pos, size_t(*len));
    cid.digest.assign(digest.begin(), digest.end());
    pos += *len;
    const auto whole = in.first(pos);
    cid.bytes.assign(whole.begin(), whole.end());
    consumed = pos;
    return cid;
}

Result<Cid> parseCid(std::string_view text)
{
    // Longest CIDs we understand are well under 200 characters; refuse huge strings early so that
    // the quadratic base58 decoder stays cheap.
    if (text.size() > 512)
        return fail(ErrorCode::Invalid, "not a CID: text of " + std::to_string(text.size()) + " characters is too long");
    if (text.size() < 2)
        return fail(ErrorCode::Invalid, "not a CID: too short");
    std::optional<std::vector<uint8_t>> raw;
    if (text.size() == 46 && text.starts_with("Qm")) {
        raw = decodeBase58(text);
        if (!raw)
            return fail(ErrorCode::Invalid, "not a CID: invalid base58btc character in CIDv0");
        if (raw->size() != 34 || (*raw)[0] != 0x12 || (*raw)[1] != 0x20)
            return fail(ErrorCode::Invalid, "not a CID: CIDv0 is not a sha2-256 multihash");
    } else {
        const std::string_view body = text.substr(1);
        switch (text[0]) {
        case 'b': raw = decodeBits(body, kBase32, 5, false); break;
        case 'B': {
            std::string lower(body);
            for (auto& c : lower)
                c = char(std::tolower(static_cast<unsigned char>(c)));
            // Only upper-case input is the 'B' spelling.
            for (char c : body)
                if (std::islower(static_cast<unsigned char>(c)))
                    return fail(ErrorCode::Invalid, "not a CID: lower-case letter in base32upper text");
            raw = decodeBits(lower, kBase32, 5, false);
            break;
        }
        case 'z': raw = decodeBase58(body); break;
        case 'f': raw = decodeBits(body, "0123456789abcdef", 4, false); break;
        case 'm': raw = decodeBits(body, kBase64, 6, false); break;
        case 'u': raw = decodeBits(body, kBase64Url, 6, false); break;
        default:
            return fail(ErrorCode::Invalid, std::string("not a CID: unknown multibase prefix '") + text[0] + "'");
        }
        if (!raw)
            return fail(ErrorCode::Invalid, std::string("not a CID: invalid character for multibase '") + text[0] + "'");
        if (!raw->empty() && (*raw)[0] == 0x12)
            return fail(ErrorCode::Invalid, "not a CID: CIDv0 bytes in a multibase spelling");
    }
    size_t consumed = 0;
    auto cid = parseCidBytes(*raw, consumed);
    if (!cid)
        return fail(ErrorCode::Invalid, "not a CID: " + cid.error().what);
    if (consumed != raw->size())
        return fail(ErrorCode::Invalid, "not a CID: " + std::to_string(raw->size() - consumed) + " bytes after the multihash");
    return cid;
}

std::string Cid::toString() const
{
    if (version == 0)
        return base58btc(bytes);
    return "b" + base32Lower(bytes);
}

bool Cid::verifiable() const
{
    return hashCode == multicodec::Sha2_256 || hashCode == multicodec::Identity;
}

bool Cid::matches(std::span<const uint8_t> data) const
{
    if (hashCode == multicodec::Sha2_256) {
        const auto d = sha256(data);
        return digest.size() == 32 && std::equal(d.begin(), d.end(), digest.begin());
    }
    if (hashCode == multicodec::Identity)
        return std::equal(data.begin(), data.end(), digest.begin(), digest.end());
    return false;
}

Cid computeCid(std::span<const uint8_t> data, uint64_t codec)
{
    Cid cid;
    cid.version = 1;
    cid.codec = codec;
    cid.hashCode = multicodec::Sha2_256;
    const auto d = sha256(data);
    cid.digest.assign(d.begin(), d.end());
    appendVarint(cid.bytes, 1);
    appendVarint(cid.bytes, codec);
    appendVarint(cid.bytes, multicodec::Sha2_256);
    appendVarint(cid.bytes, 32);
    cid.bytes.insert(cid.bytes.end(), d.begin(), d.end());
    return cid;
}

CidClassification classifyCid(std::string_view text)
{
    CidClassification c;
    if (text.size() == 21 && text.starts_with("grad-")) {
        bool hex = true;
        for (char ch : text.substr(5))
            hex = hex && ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'));
        if (hex) {
            c.kind = CidClass::GarwPseudo;
            c.note = "GradientArrowBlock pseudo-CID (FNV-1a 64 of GARW bytes), not resolvable";
            return c;
        }
    }
    auto cid = parseCid(text);
    if (!cid) {
        c.kind = CidClass::Opaque;
        c.note = cid.error().what;
        return c;
    }
    c.kind = cid->version == 0 ? CidClass::V0 : CidClass::V1;
    c.note = codecName(cid->codec) + "/" + hashName(cid->hashCode);
    c.cid = std::move(*cid);
    return c;
}

const char* cidClassName(CidClass c)
{
    switch (c) {
    case CidClass::V1: return "cidv1";
    case CidClass::V0: return "cidv0";
    case CidClass::GarwPseudo: return "garw_pseudo";
    case CidClass::Opaque: return "opaque";
    }
    return "opaque";
}

std::string base32Lower(std::span<const uint8_t> data)
{
    std::string s;
    s.reserve(data.size() * 8 / 5 + 2);
    uint32_t acc = 0;
    int have = 0;
    for (uint8_t b : data) {
        acc = (acc << 8) | b;
        have += 8;
        while (have >= 5) {
            have -= 5;
            s += kBase32[(acc >> have) & 31];
        }
        acc &= (1u << have) - 1;
    }
    if (have > 0)
        s += kBase32[(acc << (5 - have)) & 31];
    return s;
}

std::string base58btc(std::span<const uint8_t> data)
{
    size_t zeros = 0;
    while (zeros < data.size() && data[zeros] == 0)
        ++zeros;
    std::vector<uint8_t> digits; // little-endian base 58
    for (size_t i = zeros; i < data.size(); ++i) {
        int carry = data[i];
        for (auto& d : digits) {
            carry += 256 * d;
            d = uint8_t(carry % 58);
            carry /= 58;
        }
        while (carry) {
            digits.push_back(uint8_t(carry % 58));
            carry /= 58;
        }
    }
    std::string s(zeros, '1');
    for (auto it = digits.rbegin(); it != digits.rend(); ++it)
        s += kBase58[*it];
    return s;
}

} // namespace ckpt
