// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <utility>

// SHA-256 goes through OpenSSL's libcrypto (issue 32): it hashes CAR-sized blocks faster than our
// portable code at every size measured; that code stays below as the fallback (the figures:
// docs/benchmarks.md, from tests/bench/results/latest.json, rows sha256.*).
//
// Failures. libcrypto can refuse in two places only, both before any byte is hashed: the fetch of
// SHA2-256 from its providers (a broken OPENSSL_CONF that loads no provider offering it; the default
// and the FIPS provider both do) and the allocation of a context. In both cases the hash is computed
// by detail::PortableSha256 - the same digest, only slower - so no caller sees a difference, nothing
// throws and nothing aborts; the error queue of the thread is cleared so that no other user of
// libcrypto in the process finds our entries. After a successful init, OpenSSL 3's SHA-256 update and
// final return 1 unconditionally; should they report a failure anyway, the one-shot sha256() hashes
// the same bytes again with the fallback, and the incremental Sha256 (whose earlier bytes are gone)
// returns the all-zero digest described in the header.

namespace ckpt {

namespace {

/**
 * SHA2-256, fetched once from libcrypto's providers; null if they refuse. EVP_Digest with
 * EVP_sha256() fetches it again on every call, which at 64-byte blocks costs more than the hash
 * itself (the bench's rows sha256.evp and sha256.core at 64 B). Thread-safe: a function-local
 * static, and a fetched method is immutable and reference-counted. Never freed: it lives as long as
 * the process, and this pointer keeps it reachable (LeakSanitizer does not count it).
 */
const EVP_MD* fetchedSha256()
{
    static EVP_MD* const md = [] {
        EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
        if (!fetched)
            ERR_clear_error();
        return fetched;
    }();
    return md;
}

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

} // namespace

namespace detail {

void PortableSha256::block(const uint8_t* p)
{
    uint32_t w[64];
    for (size_t i = 0; i < 16; ++i)
        w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 | uint32_t(p[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
        const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = m_h[0], b = m_h[1], c = m_h[2], d = m_h[3], e = m_h[4], f = m_h[5], g = m_h[6], h = m_h[7];
    for (int i = 0; i < 64; ++i) {
        const uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        const uint32_t ch = (e & f) ^ (~e & g);
        const uint32_t t1 = h + s1 + ch + kRound[i] + w[i];
        const uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        const uint32_t t2 = s0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    m_h[0] += a;
    m_h[1] += b;
    m_h[2] += c;
    m_h[3] += d;
    m_h[4] += e;
    m_h[5] += f;
    m_h[6] += g;
    m_h[7] += h;
}

void PortableSha256::update(std::span<const uint8_t> data)
{
    const uint8_t* p = data.data();
    size_t n = data.size();
    m_total += n;
    if (m_bufLen) {
        const size_t take = std::min(n, 64 - m_bufLen);
        std::memcpy(m_buf + m_bufLen, p, take);
        m_bufLen += take;
        p += take;
        n -= take;
        if (m_bufLen < 64)
            return;
        block(m_buf);
        m_bufLen = 0;
    }
    for (; n >= 64; n -= 64, p += 64)
        block(p);
    if (n) {
        std::memcpy(m_buf, p, n);
        m_bufLen = n;
    }
}

Sha256Digest PortableSha256::finish()
{
    const uint64_t bits = m_total * 8;
    uint8_t pad[72] = {0x80};
    const size_t padLen = (m_bufLen < 56) ? 56 - m_bufLen : 120 - m_bufLen;
    for (int i = 0; i < 8; ++i)
        pad[padLen + i] = uint8_t(bits >> (56 - 8 * i));
    const uint64_t total = m_total;
    update(std::span<const uint8_t>(pad, padLen + 8));
    m_total = total;
    Sha256Digest out;
    for (size_t i = 0; i < 8; ++i) {
        out[4 * i] = uint8_t(m_h[i] >> 24);
        out[4 * i + 1] = uint8_t(m_h[i] >> 16);
        out[4 * i + 2] = uint8_t(m_h[i] >> 8);
        out[4 * i + 3] = uint8_t(m_h[i]);
    }
    return out;
}

Sha256Digest portableSha256(std::span<const uint8_t> data)
{
    PortableSha256 h;
    h.update(data);
    return h.finish();
}

} // namespace detail

Sha256::Sha256()
{
    const EVP_MD* md = fetchedSha256();
    m_ctx = md ? EVP_MD_CTX_new() : nullptr;
    if (m_ctx && EVP_DigestInit_ex2(m_ctx, md, nullptr) != 1) {
        EVP_MD_CTX_free(m_ctx);
        m_ctx = nullptr;
    }
    if (!m_ctx)
        ERR_clear_error(); // hashed by m_fallback from here on
}

Sha256::~Sha256()
{
    EVP_MD_CTX_free(m_ctx); // null is a no-op
}

Sha256::Sha256(Sha256&& other) noexcept
    : m_ctx(std::exchange(other.m_ctx, nullptr))
    , m_failed(other.m_failed)
    , m_fallback(other.m_fallback)
{
}

Sha256& Sha256::operator=(Sha256&& other) noexcept
{
    if (this != &other) {
        EVP_MD_CTX_free(m_ctx);
        m_ctx = std::exchange(other.m_ctx, nullptr);
        m_failed = other.m_failed;
        m_fallback = other.m_fallback;
    }
    return *this;
}

void Sha256::update(std::span<const uint8_t> data)
{
    if (!m_ctx)
        m_fallback.update(data);
    else if (!m_failed && EVP_DigestUpdate(m_ctx, data.data(), data.size()) != 1)
        m_failed = true;
}

Sha256Digest Sha256::finish()
{
    if (!m_ctx)
        return m_fallback.finish();
    Sha256Digest out{};
    unsigned int len = 0;
    if (m_failed || EVP_DigestFinal_ex(m_ctx, out.data(), &len) != 1 || len != out.size()) {
        ERR_clear_error();
        return Sha256Digest{};
    }
    return out;
}

Sha256Digest sha256(std::span<const uint8_t> data)
{
    Sha256Digest out;
    unsigned int len = 0;
    if (const EVP_MD* md = fetchedSha256();
        md && EVP_Digest(data.data(), data.size(), out.data(), &len, md, nullptr) == 1 && len == out.size())
        return out;
    ERR_clear_error();
    return detail::portableSha256(data);
}

std::string toHex(std::span<const uint8_t> data)
{
    static const char* digits = "0123456789abcdef";
    std::string s;
    s.reserve(data.size() * 2);
    for (uint8_t b : data) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

} // namespace ckpt
