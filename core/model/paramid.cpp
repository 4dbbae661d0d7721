// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Burn's ParamId text: data_encoding::BASE32_DNSSEC (RFC 4648 bit order, alphabet 0-9a-v, no padding)
// of the id's little-endian bytes (§5.3 of the format spec).
#include "core/model/paramid.h"

namespace ckpt {

namespace {
constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuv";

int digitValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'v')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'V') // data-encoding's DNSSEC spec is lowercase, but be forgiving when reading
        return c - 'A' + 10;
    return -1;
}
} // namespace

std::string paramIdFromU64(uint64_t id)
{
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
        bytes[i] = static_cast<uint8_t>(id >> (8 * i));
    std::string out;
    uint32_t buffer = 0;
    int bits = 0;
    for (uint8_t b : bytes) {
        buffer = (buffer << 8) | b;
        bits += 8;
        while (bits >= 5) {
            out += kAlphabet[(buffer >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0)
        out += kAlphabet[(buffer << (5 - bits)) & 31];
    return out; // 64 bits -> 13 characters
}

std::optional<uint64_t> paramIdToU64(std::string_view id)
{
    if (id.empty() || id.size() > 13)
        return std::nullopt;
    // Decode to bytes, MSB-first bit order; at most 8 bytes, zero-padded to 8, little endian.
    uint8_t bytes[8] = {0};
    int nbytes = 0;
    uint32_t buffer = 0;
    int bits = 0;
    for (char c : id) {
        const int v = digitValue(c);
        if (v < 0)
            return std::nullopt;
        buffer = (buffer << 5) | uint32_t(v);
        bits += 5;
        if (bits >= 8) {
            if (nbytes == 8)
                return std::nullopt;
            bytes[nbytes++] = static_cast<uint8_t>(buffer >> (bits - 8));
            bits -= 8;
        }
    }
    // Trailing bits must be zero in a canonical encoding; lengths 13 (8 bytes) and 10 (6 bytes) are Burn's.
    if (bits > 0 && (buffer & ((1u << bits) - 1)) != 0)
        return std::nullopt;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= uint64_t(bytes[i]) << (8 * i);
    return v;
}

} // namespace ckpt
