// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A read-only zip container (PKWARE APPNOTE 6.3: end of central directory, its zip64 form, the
// central directory, local headers), as torch.save (>= 1.6) and numpy write it. Every offset and size
// is checked against the file before it is used; entries torch stores uncompressed are views into the
// mapping, deflated ones are inflated on request and never beyond their declared size.
// Why our own: Debian's libzip and minizip read into buffers of their own and cannot hand out a view
// into our mapping (a 10 GiB checkpoint would be copied), and their error messages give no offsets.

#include "core/io/bytes.h"
#include "core/util/error.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

/** One member of a zip archive, as its central directory and local header describe it. */
struct ZipEntry {
    std::string name;
    uint16_t method = 0;            ///< 0 stored, 8 deflate (anything else is refused when read)
    uint64_t compressedSize = 0;
    uint64_t size = 0;              ///< uncompressed
    uint64_t headerOffset = 0;      ///< the local header
    uint64_t dataOffset = 0;        ///< the first byte of the (compressed) data in the file
};

/** A zip archive over mapped bytes; entries in central-directory order. */
class ZipArchive {
public:
    /** Reads the directory of \a bytes; errors name the offset and what was expected. */
    static Result<ZipArchive> open(BytesPtr bytes);

    const std::vector<ZipEntry>& entries() const { return m_entries; }
    const ZipEntry* find(std::string_view name) const;
    /** A stored entry's bytes as a view into the file; an error for a compressed one. */
    Result<std::span<const uint8_t>> view(const ZipEntry& e) const;
    /** The entry's bytes: a view when stored, else inflated (refused beyond \a maxBytes or its declared size). */
    Result<BytesPtr> read(const ZipEntry& e, uint64_t maxBytes) const;
    const BytesPtr& bytes() const { return m_bytes; }

private:
    BytesPtr m_bytes;
    std::vector<ZipEntry> m_entries;
};

/** True when \a data starts like a zip archive (a local header or an empty archive's end record). */
bool isZip(std::span<const uint8_t> data);

} // namespace ckpt
