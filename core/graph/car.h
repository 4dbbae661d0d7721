// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/cid.h"
#include "core/io/bytes.h"

#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ckpt {

/** The CARv1 header, and how it was spelled (ipfrs writes a non-standard variant, §3.2). */
struct CarHeader {
    uint64_t version = 1;
    std::vector<Cid> roots;
    bool rootsWithZeroPrefix = true; ///< spec CARs put 0x00 before the CID bytes inside tag 42; ipfrs does not
    bool versionKeyFirst = false;    ///< ipfrs writes {version, roots}; go-car writes {roots, version}
};

/** One block section of a CAR file; offsets are absolute in the file. */
struct CarBlock {
    Cid cid;
    uint64_t sectionOffset = 0; ///< where the section's length varint starts
    uint64_t dataOffset = 0;    ///< where the block bytes start
    uint64_t dataSize = 0;
};

/** Result of checking one block's bytes against its CID. */
enum class BlockCheck { Ok, Corrupted, Unverifiable };
const char* blockCheckName(BlockCheck c);

/**
 * A read-only block store over a CARv1 file (kept mapped; block data are zero-copy spans into it).
 * Reading accepts both header layouts (with or without the 0x00 prefix inside tag 42, either key
 * order). Every section length is checked against the remaining bytes before use; a CID appearing
 * twice keeps its first block (later ones are counted in duplicateBlocks()).
 */
class CarStore {
public:
    static Result<CarStore> open(const BytesPtr& bytes);

    const CarHeader& header() const { return m_header; }
    const std::vector<CarBlock>& blocks() const { return m_blocks; }
    size_t duplicateBlocks() const { return m_duplicates; }

    std::span<const uint8_t> data(const CarBlock& b) const;
    /** Index of the block with this CID (binary comparison), if present. */
    std::optional<size_t> find(const Cid& cid) const;
    /** Resolves CID text (any spelling parseCid accepts) to block bytes; errors say "not a CID" or "not in the CAR". */
    Result<std::span<const uint8_t>> resolve(std::string_view cidText) const;
    /** Hash check of one block. */
    BlockCheck verify(size_t index) const;
    /** The file's bytes the blocks are views of (to share with a caller's zero-copy views). */
    const BytesPtr& bytes() const { return m_bytes; }

private:
    BytesPtr m_bytes;
    CarHeader m_header;
    std::vector<CarBlock> m_blocks;
    std::unordered_map<std::string, size_t> m_index;
    size_t m_duplicates = 0;
};

/** A block to write: its CID and bytes. */
struct CarEntry {
    Cid cid;
    std::vector<uint8_t> data;
};

enum class CarHeaderStyle {
    Spec,   ///< {"roots": [tag42(0x00 ‖ cid)], "version": 1}, as go-car writes
    Ipfrs,  ///< {"version": 1, "roots": [tag42(cid)]}, as ipfrs_storage::CarWriter writes
};

/** Serialises a CARv1 file. The reference trainer uses it to ship the tensors a checkpoint names. */
std::vector<uint8_t> writeCar(const std::vector<Cid>& roots, const std::vector<CarEntry>& blocks,
    CarHeaderStyle style = CarHeaderStyle::Spec);

} // namespace ckpt
