// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/sha256.h"
#include "core/util/error.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** Multicodec codes that matter for ipfrs blocks. */
namespace multicodec {
inline constexpr uint64_t Raw = 0x55;
inline constexpr uint64_t DagPb = 0x70;
inline constexpr uint64_t DagCbor = 0x71;
inline constexpr uint64_t DagJson = 0x0129;
inline constexpr uint64_t Sha2_256 = 0x12;
inline constexpr uint64_t Identity = 0x00;
} // namespace multicodec

/** Human name of a content codec ("raw", "dag-cbor", ...), or "0x.." for unknown codes. */
std::string codecName(uint64_t codec);
/** Human name of a multihash function ("sha2-256", ...), or "0x.." for unknown codes. */
std::string hashName(uint64_t code);

/**
 * A parsed content identifier. `bytes` is the binary form (what CAR sections and block stores use as
 * the key); for CIDv0 it is the bare multihash (0x12 0x20 digest) and codec is dag-pb.
 */
struct Cid {
    uint64_t version = 1;
    uint64_t codec = multicodec::Raw;
    uint64_t hashCode = multicodec::Sha2_256;
    std::vector<uint8_t> digest;
    std::vector<uint8_t> bytes;

    /** Canonical text: CIDv1 as multibase base32 lower ("b..."), CIDv0 as bare base58btc ("Qm..."). */
    std::string toString() const;
    /** True when this CID's hash can be checked here (sha2-256 or identity). */
    bool verifiable() const;
    /** True when \a data hashes to this CID's digest (false for unverifiable hash functions). */
    bool matches(std::span<const uint8_t> data) const;
    bool operator==(const Cid& o) const { return bytes == o.bytes; }
};

/** Unsigned LEB128 varint as multiformats uses it (at most 9 bytes, i.e. 63 bits). */
void appendVarint(std::vector<uint8_t>& out, uint64_t v);
/** Reads a varint at \a pos (advanced on success); errors carry the byte offset \a base + pos. */
Result<uint64_t> readVarint(std::span<const uint8_t> in, size_t& pos, uint64_t base = 0);

/**
 * Parses a binary CID at the start of \a in (CIDv1: varint version, varint codec, multihash; CIDv0:
 * a bare sha2-256 multihash starting 0x12 0x20). \a consumed receives its length. The multihash
 * length is checked against the remaining bytes before anything is copied.
 */
Result<Cid> parseCidBytes(std::span<const uint8_t> in, size_t& consumed, uint64_t base = 0);

/**
 * Parses CID text: CIDv0 (`Qm` + 44 base58btc characters) or CIDv1 in a multibase spelling
 * (`b` base32 lower — the form ipfrs prints —, `B` base32 upper, `z` base58btc, `f` base16,
 * `m` base64, `u` base64url). The error's `what` says why the text is not a CID.
 */
Result<Cid> parseCid(std::string_view text);

/** The CIDv1 (sha2-256) of \a data with \a codec: what ipfrs_core::CidBuilder builds by default. */
Cid computeCid(std::span<const uint8_t> data, uint64_t codec = multicodec::Raw);

/** How a CID-holding string of a checkpoint is to be understood (the crate accepts any string). */
enum class CidClass { V1, V0, GarwPseudo, Opaque };

struct CidClassification {
    CidClass kind = CidClass::Opaque;
    std::optional<Cid> cid;   ///< set for V1 / V0
    std::string note;         ///< for Opaque: why it is not a CID; otherwise "codec/hash" summary
};

/**
 * Classifies a string found in a checkpoint: a real CID, the `grad-%016x` pseudo-CID of
 * GradientArrowBlock, or an opaque label. Never an error: invalid CID text is simply "not a CID".
 */
CidClassification classifyCid(std::string_view text);
const char* cidClassName(CidClass c);

/** RFC 4648 base32 lower-case without padding (the multibase `b` alphabet). */
std::string base32Lower(std::span<const uint8_t> data);
/** Bitcoin base58 alphabet. */
std::string base58btc(std::span<const uint8_t> data);

} // namespace ckpt
