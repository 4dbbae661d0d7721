// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Writing a zip archive of stored (uncompressed) members, atomically: numpy's .npz and torch.save's
// zip format are both such archives. Members larger than 4 GiB, archives beyond 4 GiB or with 65,535
// members and more get ZIP64 records (APPNOTE 6.3, 4.5.3), as torch.save writes them for big models.
// Why our own and not libzip (Debian's libzip-dev): libzip takes each member as a buffer or a file of
// its own and compresses by default; here the payloads are views into a mapped checkpoint, streamed
// once to the temporary file, with a data alignment torch relies on for mmap=True.

#include "core/util/error.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ckpt {

/** One member: \a head (owned, small: a header or a whole small member) followed by \a body (a view). */
struct ZipMemberOut {
    std::string name;
    std::vector<uint8_t> head;
    std::span<const uint8_t> body;
    /** The member's data starts at a multiple of this in the file (padding in the local header's extra field). */
    uint32_t alignment = 1;
};

/** From which size, offset or count on the ZIP64 records are written: APPNOTE's limits, lower in tests. */
struct ZipLimits {
    uint64_t zip64From = 0xFFFFFFFFu;
    uint64_t zip64CountFrom = 0xFFFFu;
};

/**
 * Writes \a members in order as a stored zip archive at \a path, atomically (writeFileAtomic): the
 * same members give the same bytes (fixed timestamps). CRC-32 through zlib. Errors name \a path.
 */
Result<void> writeStoredZip(const std::string& path, const std::vector<ZipMemberOut>& members, const ZipLimits& limits = {});

} // namespace ckpt
