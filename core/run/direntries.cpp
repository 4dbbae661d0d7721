// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/direntries.h"

#include "core/model/recorder.h"

#include <algorithm>

namespace fs = std::filesystem;

namespace ckpt::run_detail {

std::vector<fs::directory_entry> entriesOf(const fs::path& dir)
{
    std::vector<fs::directory_entry> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        out.push_back(*it);
    return out;
}

namespace {
/** The record extensions as regex alternatives, dots escaped: "json\.gz|mpk\.gz|...". */
std::string extensionAlternatives()
{
    std::string out;
    for (std::string_view ext : recordExtensions()) {
        if (!out.empty())
            out += '|';
        for (char c : ext) {
            if (c == '.')
                out += '\\';
            out += c;
        }
    }
    return out;
}
} // namespace

std::string checkpointNamePattern()
{
    return R"(^(model|optim|scheduler|record)-(\d+)\.()" + extensionAlternatives() + ")$";
}

std::string recordExtensionPattern()
{
    return R"(\.()" + extensionAlternatives() + ")$";
}

std::string recordExtensionList()
{
    std::vector<std::string_view> sorted = recordExtensions();
    std::ranges::sort(sorted); // a reader looks for .mpk.gz beside .mpk
    std::string out;
    for (std::string_view ext : sorted) {
        out += out.empty() ? "." : ", .";
        out += ext;
    }
    return out;
}

} // namespace ckpt::run_detail
