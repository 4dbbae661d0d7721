// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/error.h"
#include "core/value/tape.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt {

/**
 * Typed reads of one struct map on a tape (the caller state ckpt-train writes into item[4], its
 * configuration and progress), with errors that name the field by its record path
 * (`item[4].config.seed: missing field `seed``). The one reader of those fields: ckpt-train's
 * continuation and core's learning-rate schedule both read through it.
 */
class FieldReader {
public:
    FieldReader(const Tape& tape, uint32_t node, std::string path);

    Result<uint32_t> get(std::string_view key) const;          ///< the value node of \a key
    Result<FieldReader> sub(std::string_view key) const;       ///< a nested struct map
    Result<uint64_t> u64(std::string_view key) const;          ///< a non-negative integer
    Result<double> f64(std::string_view key) const;            ///< any number
    Result<float> f32(std::string_view key) const;             ///< an f32 field (JSON carries its shortest digits)
    Result<bool> boolean(std::string_view key) const;
    Result<std::string> str(std::string_view key) const;

    const Tape& tape() const { return *m_tape; }
    uint32_t node() const { return m_node; }
    const std::string& path() const { return m_path; }
    /** An Invalid error at \a path (for checks the caller makes on what it read). */
    static std::unexpected<Error> failAt(std::string path, std::string what);

private:
    const Tape* m_tape;
    uint32_t m_node;
    std::string m_path;
};

} // namespace ckpt

/** `lhs = *expr`, or return its error from the enclosing function (which returns a Result). */
#define CKPT_TRY_ASSIGN(lhs, expr)                  \
    do {                                            \
        auto tryAssign_ = (expr);                   \
        if (!tryAssign_)                            \
            return std::unexpected(tryAssign_.error()); \
        (lhs) = *tryAssign_;                        \
    } while (0)
