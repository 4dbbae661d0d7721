// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Rust's u128 and i128, which serde_json writes as plain digits: exact decimal text both ways, so that
// a value wider than 64 bits never passes through a double.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

// NOLINTBEGIN(modernize-use-using): only a typedef takes __extension__, which keeps -Wpedantic quiet about __int128
__extension__ typedef unsigned __int128 UInt128;
__extension__ typedef __int128 Int128;
// NOLINTEND(modernize-use-using)

inline constexpr UInt128 kUInt128Max = ~UInt128(0);
inline constexpr Int128 kInt128Max = static_cast<Int128>(kUInt128Max >> 1);
inline constexpr Int128 kInt128Min = -kInt128Max - 1;

/** Decimal digits of \a v (std::to_chars has no 128-bit overload in every standard library). */
inline std::string decimalText(UInt128 v)
{
    char digits[40];
    size_t n = 0;
    do {
        digits[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
        v /= 10;
    } while (v != 0);
    std::string out(digits, n);
    std::reverse(out.begin(), out.end());
    return out;
}

/** Decimal digits of \a v, '-' first when negative (i128::MIN included). */
inline std::string decimalText(Int128 v)
{
    if (v >= 0)
        return decimalText(static_cast<UInt128>(v));
    // The magnitude in unsigned arithmetic: negating i128::MIN as an Int128 would overflow.
    return "-" + decimalText(UInt128(0) - static_cast<UInt128>(v));
}

/**
 * The magnitude written by \a digits (decimal digits only, at least one), or nullopt for any other
 * character or a value beyond u128. Leading zeros are accepted: the callers decide about spelling.
 */
inline std::optional<UInt128> parseDecimalMagnitude(std::string_view digits)
{
    if (digits.empty())
        return std::nullopt;
    UInt128 v = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9')
            return std::nullopt;
        const auto digit = static_cast<unsigned>(c - '0');
        if (v > (kUInt128Max - digit) / 10)
            return std::nullopt;
        v = v * 10 + digit;
    }
    return v;
}

/** An integer as text, sign and magnitude apart, read exactly (nullopt: not an integer or beyond 128 bits). */
struct DecimalInteger {
    bool negative = false;
    UInt128 magnitude = 0;
};
inline std::optional<DecimalInteger> parseDecimalInteger(std::string_view text)
{
    DecimalInteger out;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        out.negative = text.front() == '-';
        text.remove_prefix(1);
    }
    const auto magnitude = parseDecimalMagnitude(text);
    if (!magnitude)
        return std::nullopt;
    out.magnitude = *magnitude;
    out.negative = out.negative && out.magnitude != 0;
    return out;
}

} // namespace ckpt
