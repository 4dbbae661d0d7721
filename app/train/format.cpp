// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/train/format.h"

#include <charconv>
#include <cmath>

namespace ckpt::train {

std::string rustDisplayF64(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (v == 0.0)
        return std::signbit(v) ? "-0" : "0";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, res.ptr);
    // s = [-]D[.DDDD]e[+-]XX
    std::string out;
    size_t i = 0;
    if (s[0] == '-') {
        out += '-';
        i = 1;
    }
    const size_t e = s.find('e');
    std::string digits;
    for (size_t k = i; k < e; ++k)
        if (s[k] != '.')
            digits += s[k];
    const int exp = std::stoi(s.substr(e + 1));
    const int pointPos = exp + 1; // digits before the decimal point
    if (pointPos <= 0) {
        out += "0.";
        out.append(static_cast<size_t>(-pointPos), '0');
        out += digits;
    } else if (static_cast<size_t>(pointPos) >= digits.size()) {
        out += digits;
        out.append(static_cast<size_t>(pointPos) - digits.size(), '0');
    } else {
        out += digits.substr(0, static_cast<size_t>(pointPos));
        out += '.';
        out += digits.substr(static_cast<size_t>(pointPos));
    }
    return out;
}

} // namespace ckpt::train
