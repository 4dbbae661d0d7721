// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The spelling of one float: ryu's layout (serde_json) and nlohmann::json::dump's.
#include "core/codec/json.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

#include <nlohmann/detail/conversions/to_chars.hpp>

namespace ckpt {

namespace {

/**
 * Lays out shortest digits as ryu does. \a digits without sign or point; \a kk is the decimal
 * exponent such that 10^(kk-1) <= |v| < 10^kk. \a maxPlain is 16 for f64 and 13 for f32;
 * \a minKK is -5 for f64 and -6 for f32 (plain "0.000ddd" when minKK < kk <= 0).
 */
std::string ryuLayout(bool negative, std::string_view digits, int kk, int maxPlain, int minKK)
{
    const int length = static_cast<int>(digits.size());
    const int k = kk - length;
    std::string out;
    out.reserve(32);
    if (negative)
        out += '-';
    if (k >= 0 && kk <= maxPlain) {
        out += digits;
        out.append(static_cast<size_t>(k), '0');
        out += ".0";
    } else if (kk > 0 && kk <= maxPlain) {
        out += digits.substr(0, static_cast<size_t>(kk));
        out += '.';
        out += digits.substr(static_cast<size_t>(kk));
    } else if (kk > minKK && kk <= 0) {
        out += "0.";
        out.append(static_cast<size_t>(-kk), '0');
        out += digits;
    } else {
        out += digits[0];
        if (length > 1) {
            out += '.';
            out += digits.substr(1);
        }
        out += 'e';
        out += std::to_string(kk - 1);
    }
    return out;
}

/** Splits std::to_chars scientific output ("-1.2345e+20") into digits and ryu's kk. */
template<class F>
std::string formatShortest(F v, int maxPlain, int minKK)
{
    if (!std::isfinite(v))
        return "null";
    if (v == 0)
        return std::signbit(v) ? "-0.0" : "0.0";
    char buf[64];
    // No precision argument: the shortest digits that round-trip (GCC >= 11).
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view text(buf, static_cast<size_t>(res.ptr - buf));
    const bool negative = text.front() == '-';
    if (negative)
        text.remove_prefix(1);
    const size_t ePos = text.find('e');
    std::string digits;
    digits.reserve(20);
    for (char c : text.substr(0, ePos))
        if (c != '.')
            digits += c;
    int exponent = 0;
    std::string_view expText = text.substr(ePos + 1);
    if (!expText.empty() && expText.front() == '+')
        expText.remove_prefix(1);
    std::from_chars(expText.data(), expText.data() + expText.size(), exponent);
    return ryuLayout(negative, digits, exponent + 1, maxPlain, minKK);
}

} // namespace

std::string formatJsonF32(float v) { return formatShortest(v, 13, -6); }
std::string formatJsonF64(double v) { return formatShortest(v, 16, -5); }

std::string formatNlohmannF64(double v)
{
    if (!std::isfinite(v))
        return "null";
    // nlohmann's own conversion, not a re-implementation: the reports' digits stay theirs exactly.
    std::array<char, 64> buf{}; // the size of nlohmann's serializer::number_buffer
    char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), end);
}

} // namespace ckpt
