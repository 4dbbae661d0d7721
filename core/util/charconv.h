// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <charconv>
#include <system_error>

#if !defined(__cpp_lib_to_chars)
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <locale.h>
#include <string>
#endif

namespace ckpt {

/**
 * std::from_chars for a double (correctly rounded, no locale, no leading '+' or space, no hex):
 * the standard library's where it has one. libc++ 16 (the clang-16 fuzz build, tests/fuzz) lacks
 * floating-point from_chars; there glibc's correctly rounded strtod_l in the C locale stands in,
 * restricted to the same syntax and reporting out-of-range (overflow, underflow to zero) the same way.
 */
inline std::from_chars_result fromCharsDouble(const char* first, const char* last, double& value)
{
#if defined(__cpp_lib_to_chars)
    return std::from_chars(first, last, value);
#else
    const std::string text(first, last);
    if (text.empty() || text.find_first_not_of("0123456789.eE-") != std::string::npos || text[0] == 'e' || text[0] == 'E')
        return {first, std::errc::invalid_argument};
    static const locale_t c = ::newlocale(LC_ALL_MASK, "C", locale_t(0));
    char* end = nullptr;
    errno = 0;
    const double v = ::strtod_l(text.c_str(), &end, c);
    if (end == text.c_str())
        return {first, std::errc::invalid_argument};
    const char* ptr = first + (end - text.c_str());
    if (errno == ERANGE && (std::isinf(v) || v == 0))
        return {ptr, std::errc::result_out_of_range};
    value = v;
    return {ptr, std::errc()};
#endif
}

} // namespace ckpt
