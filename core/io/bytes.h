// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include <functional>

namespace ckpt {

/**
 * An immutable run of bytes that stays alive as long as anyone holds it: a read-only memory mapping
 * of a file, an inflated gzip payload, or a plain vector. Decoders keep offsets into it instead of
 * copying tensor payloads, so a 1 GiB record costs one mapping, not one copy.
 */
class Bytes {
public:
    virtual ~Bytes() = default;
    virtual std::span<const uint8_t> span() const = 0;
    size_t size() const { return span().size(); }
    const uint8_t* data() const { return span().data(); }
    /**
     * A mapping whose file shrank while it was mapped: reads past the file's new end gave zeros instead
     * of killing the process (guardMappedFiles). Whatever was decoded from there is not the file.
     */
    virtual bool truncatedWhileMapped() const { return false; }
};

using BytesPtr = std::shared_ptr<const Bytes>;

/** Bytes owned in a std::vector (test data, decompressed payloads, generated records). */
class VectorBytes final : public Bytes {
public:
    explicit VectorBytes(std::vector<uint8_t> v)
        : m_data(std::move(v))
    {
    }
    std::span<const uint8_t> span() const override { return m_data; }

private:
    std::vector<uint8_t> m_data;
};

inline BytesPtr makeBytes(std::vector<uint8_t> v)
{
    return std::make_shared<VectorBytes>(std::move(v));
}
inline BytesPtr makeBytes(std::string_view s)
{
    return makeBytes(std::vector<uint8_t>(s.begin(), s.end()));
}

/**
 * Maps \a path read-only (MAP_PRIVATE, with MADV_SEQUENTIAL hints left to callers). An empty file
 * gives an empty span; pipes and devices are read into memory. Errors name the file and the OS reason.
 */
Result<BytesPtr> mapFile(const std::string& path);

/**
 * Keeps the process alive when a mapped file is truncated by someone else (a training run rewriting
 * its checkpoint, a copy still in progress): reading a mapped page past the file's new end raises
 * SIGBUS, which would kill a program holding a 1 GiB record open. After this call, mapFile registers
 * every mapping, and a SIGBUS inside one of them replaces the mapping from the faulting page to its
 * end with zero pages and marks it (Bytes::truncatedWhileMapped); the read then completes with
 * zeros. A SIGBUS anywhere else puts back the handler that was there before and goes to it (or kills
 * the process as it would have); the guard is off from then on. Programs (ckpt, the app, the Python module) call it once at start; the core installs
 * no handler by itself. When all guard slots are taken, mapFile reads the file instead of mapping
 * it. Returns false when the handler could not be installed (mappings then stay unguarded).
 */
bool guardMappedFiles();

/** Reads all of standard input into memory (for `-` arguments). */
Result<BytesPtr> readStdin();

/**
 * Writes \a data to \a path atomically: a temporary file in the same directory, fsync, rename over the
 * target, fsync of the directory. On any failure the temporary file is removed and an existing
 * \a path is left exactly as it was. The temporary file is unnamed (O_TMPFILE) until it is complete,
 * so a process killed while writing leaves nothing behind, except when the kill falls between naming
 * the complete file and the rename; where the file system has no O_TMPFILE it is a uniquely named
 * hidden file beside the target (".NAME.ckpt-HOST-PID-N-RANDOM.tmp") from the start. A stale one never
 * blocks a later save, and the next successful save of the same target removes those whose writing
 * process is gone.
 */
Result<void> writeFileAtomic(const std::string& path, std::span<const uint8_t> data);

/** Streaming variant: \a produce is called with a sink that appends to the temporary file. */
Result<void> writeFileAtomic(const std::string& path,
    const std::function<Result<void>(const std::function<Result<void>(std::span<const uint8_t>)>& sink)>& produce);

/**
 * True when \a head (a file's first KiB) is plain text: no byte below 0x20 but tab, newline and
 * carriage return, no DEL. No bincode record is: it starts with its metadata's first string, whose
 * one-byte length (3 for "f32", 19 for "half::binary16::f16") is a control byte; a text that is not
 * JSON is therefore not a checkpoint at all (/etc/passwd, a log, a README).
 */
bool looksLikeText(std::span<const uint8_t> head);

} // namespace ckpt
