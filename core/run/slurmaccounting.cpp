// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/slurmaccounting.h"

#include <charconv>

namespace ckpt {

namespace {

std::string_view field(std::string_view line, size_t index)
{
    for (size_t i = 0; i < index; ++i) {
        const size_t bar = line.find('|');
        if (bar == std::string_view::npos)
            return {};
        line.remove_prefix(bar + 1);
    }
    return line.substr(0, line.find('|'));
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::vector<SacctRecord> parseSacct(std::string_view text)
{
    std::vector<SacctRecord> records;
    while (!text.empty()) {
        const size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (line.find('|') == std::string_view::npos)
            continue;
        SacctRecord r;
        r.jobId = std::string(trimmed(field(line, 0)));
        const std::string_view state = trimmed(field(line, 1));
        r.state = std::string(state.substr(0, state.find(' ')));
        if (r.jobId.empty() || r.state.empty())
            continue;
        const std::string_view code = trimmed(field(line, 2));
        int value = 0;
        const auto [ptr, ec] = std::from_chars(code.data(), code.data() + code.size(), value);
        if (ec == std::errc() && ptr != code.data() && (ptr == code.data() + code.size() || *ptr == ':'))
            r.exitCode = value;
        records.push_back(std::move(r));
    }
    return records;
}

std::optional<unsigned> sacctArrayTask(std::string_view jobId, std::string_view job)
{
    if (job.empty() || jobId.size() <= job.size() + 1 || !jobId.starts_with(job) || jobId[job.size()] != '_')
        return std::nullopt;
    const std::string_view task = jobId.substr(job.size() + 1);
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(task.data(), task.data() + task.size(), value);
    if (ec != std::errc() || ptr != task.data() + task.size())
        return std::nullopt;
    return value;
}

} // namespace ckpt
