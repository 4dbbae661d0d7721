// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

// OpenSSL's EVP_MD_CTX; only core/graph/sha256.cpp includes OpenSSL's headers (ckpt_core links
// libcrypto privately).
struct evp_md_ctx_st;

namespace ckpt {

using Sha256Digest = std::array<uint8_t, 32>;

namespace detail {

/**
 * SHA-256 (FIPS 180-4) in portable C++, no library. Not for callers: Sha256 and sha256() hash through
 * libcrypto and fall back to this only when libcrypto refuses (sha256.cpp says when); the benchmark
 * also measures libcrypto against it (tests/bench, section sha256, issue 32), and tst_cid checks it
 * with the same known-answer vectors.
 */
class PortableSha256 {
public:
    void update(std::span<const uint8_t> data);
    /** Finishes the hash; the object must not be updated afterwards. */
    Sha256Digest finish();

private:
    void block(const uint8_t* p);
    uint32_t m_h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint8_t m_buf[64] = {};
    size_t m_bufLen = 0;
    uint64_t m_total = 0;
};

/** One-shot PortableSha256. */
Sha256Digest portableSha256(std::span<const uint8_t> data);

} // namespace detail

/**
 * SHA-256, incremental, through OpenSSL's libcrypto (its SHA-NI / AVX2 code is faster than our own
 * portable code at every block size measured: docs/benchmarks.md, SHA-256). Used to verify and
 * compute CIDs of blocks. Move-only. Never throws and never aborts: if libcrypto refuses the context,
 * the object hashes with detail::PortableSha256 (the same digest).
 */
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&& other) noexcept;
    Sha256& operator=(Sha256&& other) noexcept;
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(std::span<const uint8_t> data);
    /**
     * Finishes the hash; the object must not be updated afterwards. All 32 bytes are zero if libcrypto
     * failed after accepting the context, which OpenSSL's SHA-256 does not do (sha256.cpp): such a
     * digest is a value no data is known to hash to, so a CID check fails instead of passing.
     */
    Sha256Digest finish();

private:
    evp_md_ctx_st* m_ctx = nullptr; // null: libcrypto refused, m_fallback hashes
    bool m_failed = false;          // libcrypto failed after accepting the context (see finish())
    detail::PortableSha256 m_fallback;
};

/** One-shot SHA-256 of \a data (libcrypto; detail::portableSha256 if libcrypto refuses). */
Sha256Digest sha256(std::span<const uint8_t> data);

/** Lowercase hex of any byte run (used for digests in messages and tests). */
std::string toHex(std::span<const uint8_t> data);

} // namespace ckpt
