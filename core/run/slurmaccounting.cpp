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

/// "0:15" is exit code 0 (15 is the signal); nothing when the text does not start with a number.
std::optional<int> exitCodeOf(std::string_view code)
{
    int value = 0;
    const auto [ptr, ec] = std::from_chars(code.data(), code.data() + code.size(), value);
    if (ec == std::errc() && ptr != code.data() && (ptr == code.data() + code.size() || *ptr == ':'))
        return value;
    return std::nullopt;
}

/// A whole number, and nothing else.
std::optional<unsigned> numberOf(std::string_view text)
{
    unsigned value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

/// Calls \a f with each line of \a text, without its line break.
template<class F>
void forEachLine(std::string_view text, F&& f)
{
    while (!text.empty()) {
        const size_t end = text.find('\n');
        f(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
}

} // namespace

std::vector<SacctRecord> parseSacct(std::string_view text)
{
    std::vector<SacctRecord> records;
    forEachLine(text, [&](std::string_view line) {
        if (line.find('|') == std::string_view::npos)
            return;
        SacctRecord r;
        r.jobId = std::string(trimmed(field(line, 0)));
        const std::string_view state = trimmed(field(line, 1));
        r.state = std::string(state.substr(0, state.find(' ')));
        if (r.jobId.empty() || r.state.empty())
            return;
        r.exitCode = exitCodeOf(trimmed(field(line, 2)));
        records.push_back(std::move(r));
    });
    return records;
}

std::optional<unsigned> sacctArrayTask(std::string_view jobId, std::string_view job)
{
    if (job.empty() || jobId.size() <= job.size() + 1 || !jobId.starts_with(job) || jobId[job.size()] != '_')
        return std::nullopt;
    return numberOf(jobId.substr(job.size() + 1));
}

std::vector<ScontrolJob> parseScontrolJobs(std::string_view text)
{
    std::vector<ScontrolJob> jobs;
    forEachLine(text, [&](std::string_view line) {
        std::optional<std::string_view> task, state, code;
        while (!line.empty()) {
            const size_t start = line.find_first_not_of(" \t\r");
            if (start == std::string_view::npos)
                break;
            line.remove_prefix(start);
            const std::string_view word = line.substr(0, line.find_first_of(" \t\r"));
            line.remove_prefix(word.size());
            for (auto [key, value] : {std::pair{std::string_view("ArrayTaskId="), &task}, {std::string_view("JobState="), &state},
                     {std::string_view("ExitCode="), &code}})
                if (word.starts_with(key) && !*value)
                    *value = word.substr(key.size());
        }
        if (!task && !state && !code)
            return; // not a job record (a blank line, an error)
        ScontrolJob j;
        j.arrayTask = task ? numberOf(*task) : std::nullopt;
        j.state = std::string(state.value_or(std::string_view()));
        j.exitCode = code ? exitCodeOf(*code) : std::nullopt;
        jobs.push_back(std::move(j));
    });
    return jobs;
}

} // namespace ckpt
