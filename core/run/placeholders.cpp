// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/placeholders.h"

#include <array>
#include <utility>

namespace ckpt {

std::string shellWord(std::string_view s)
{
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

std::string expandPlaceholders(std::string_view text, const PlaceholderValues& values)
{
    const std::array<std::pair<std::string_view, const std::string*>, 4> names = {{
        {"{record}", &values.record},
        {"{dir}", &values.dir},
        {"{step}", &values.step},
        {"{out}", &values.out},
    }};
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        bool replaced = false;
        if (text[i] == '{') {
            for (const auto& [name, value] : names) {
                if (text.substr(i).starts_with(name)) {
                    out += *value;
                    i += name.size();
                    replaced = true;
                    break;
                }
            }
        }
        if (!replaced)
            out += text[i++];
    }
    return out;
}

} // namespace ckpt
