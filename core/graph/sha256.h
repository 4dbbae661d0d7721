// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace ckpt {

using Sha256Digest = std::array<uint8_t, 32>;

/**
 * SHA-256 (FIPS 180-4), incremental. Written here because no hashing library is a dependency of
 * ckpt_core; it is only used to verify and compute CIDs of blocks, so plain portable code is enough.
 */
class Sha256 {
public:
    Sha256();
    void update(std::span<const uint8_t> data);
    /** Finishes the hash; the object must not be updated afterwards. */
    Sha256Digest finish();

private:
    void block(const uint8_t* p);
    uint32_t m_h[8];
    uint8_t m_buf[64];
    size_t m_bufLen = 0;
    uint64_t m_total = 0;
};

/** One-shot SHA-256 of \a data. */
Sha256Digest sha256(std::span<const uint8_t> data);

/** Lowercase hex of any byte run (used for digests in messages and tests). */
std::string toHex(std::span<const uint8_t> data);

} // namespace ckpt
