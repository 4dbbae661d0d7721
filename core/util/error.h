// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>

namespace ckpt {

/** What went wrong, as a code a caller can switch on. */
enum class ErrorCode {
    Io,            ///< the file could not be opened, read, mapped or written
    Truncated,     ///< the input ends before a value is complete
    Malformed,     ///< bytes that no encoder of the format produces
    Unsupported,   ///< a valid construct we do not handle (yet)
    Invalid,       ///< well-formed, but the meaning is wrong (dtype vs length, missing key, ...)
    Limit,         ///< a declared size or nesting exceeds what the input or a safety limit allows
    Usage,         ///< bad arguments from the caller
    Cancelled,     ///< the progress callback asked to stop
};

/**
 * One error, with everything a user needs to find it: the file, the position (a byte offset into the
 * decoded stream, or a JSON line:column), the path inside the record, and what was expected/found.
 * Rendered by message() as `FILE: offset N: at PATH: WHAT` (the CLI contract's format).
 */
struct Error {
    ErrorCode code = ErrorCode::Malformed;
    std::string what;                 ///< "expected X, found Y" in plain words
    std::string file;                 ///< may be empty until a caller fills it in
    std::optional<uint64_t> offset;   ///< byte offset (after gzip inflation for .gz files)
    std::optional<uint32_t> line;     ///< 1-based JSON line, used instead of offset when set
    std::optional<uint32_t> column;   ///< 1-based JSON column (in bytes, as serde_json counts)
    std::string recordPath;           ///< e.g. item[1]["4sf1ck61vo6m6"].V1.Rank2.momentum

    std::string message() const
    {
        std::string m = file.empty() ? std::string() : file + ": ";
        if (line)
            m += "line " + std::to_string(*line) + ":" + std::to_string(column.value_or(0)) + ": ";
        else if (offset)
            m += "offset " + std::to_string(*offset) + ": ";
        if (!recordPath.empty())
            m += "at " + recordPath + ": ";
        return m + what;
    }

    Error&& withFile(std::string f) &&
    {
        if (file.empty())
            file = std::move(f);
        return std::move(*this);
    }
    Error&& withPath(std::string p) &&
    {
        if (recordPath.empty())
            recordPath = std::move(p);
        return std::move(*this);
    }
};

template<class T>
using Result = std::expected<T, Error>;

/** Shorthand to build an unexpected value: `return fail(ErrorCode::Truncated, "...", offset);` */
inline std::unexpected<Error> fail(ErrorCode code, std::string what, std::optional<uint64_t> offset = {})
{
    Error e;
    e.code = code;
    e.what = std::move(what);
    e.offset = offset;
    return std::unexpected<Error>(std::move(e));
}

} // namespace ckpt
