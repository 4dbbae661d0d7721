// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/charconv.h"

#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ckpt::cli {

/**
 * A number given on the command line: all of \a text, in the C locale (from_chars: no sign for
 * unsigned types, no spaces, no trailing characters, nothing out of range); nullopt otherwise.
 * Not std::sto*, which accept "12abc" and "-1" for an unsigned, and throw on the rest.
 */
template<typename T>
std::optional<T> parseNumber(std::string_view text)
{
    T value{};
    std::from_chars_result r;
    if constexpr (std::is_same_v<T, double>)
        r = fromCharsDouble(text.data(), text.data() + text.size(), value); // libc++ 16 has no double from_chars
    else
        r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

/**
 * The arguments of one subcommand: positionals, `--flag`, `--opt VALUE` / `--opt=VALUE` and
 * repeatable options (`--set A=1 --set B=2`). Which options take a value is declared up front, so
 * `--json FILE` is never misread.
 */
class Args {
public:
    Args(const std::vector<std::string>& argv, const std::set<std::string>& valued, const std::set<std::string>& flags)
    {
        for (size_t i = 0; i < argv.size(); ++i) {
            const std::string& a = argv[i];
            if (a.size() > 1 && a[0] == '-' && a != "-") {
                std::string name = a;
                std::optional<std::string> inlineValue;
                if (auto eq = a.find('='); eq != std::string::npos && a.starts_with("--")) {
                    name = a.substr(0, eq);
                    inlineValue = a.substr(eq + 1);
                }
                if (valued.contains(name)) {
                    if (inlineValue) {
                        m_values[name].push_back(*inlineValue);
                    } else if (i + 1 < argv.size()) {
                        m_values[name].push_back(argv[++i]);
                    } else {
                        m_error = "option " + name + " needs a value";
                    }
                } else if (flags.contains(name) && !inlineValue) {
                    m_flags.insert(name);
                } else {
                    m_error = "unknown option " + a;
                }
            } else {
                m_positional.push_back(a);
            }
        }
    }

    const std::string& error() const { return m_error; }
    bool flag(const std::string& n) const { return m_flags.contains(n); }
    std::optional<std::string> value(const std::string& n) const
    {
        auto it = m_values.find(n);
        if (it == m_values.end() || it->second.empty())
            return std::nullopt;
        return it->second.back();
    }
    std::vector<std::string> values(const std::string& n) const
    {
        auto it = m_values.find(n);
        return it == m_values.end() ? std::vector<std::string>{} : it->second;
    }
    const std::vector<std::string>& positional() const { return m_positional; }

private:
    std::vector<std::string> m_positional;
    std::map<std::string, std::vector<std::string>> m_values;
    std::set<std::string> m_flags;
    std::string m_error;
};

} // namespace ckpt::cli
