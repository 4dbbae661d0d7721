// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/resumeprofiles.h"

#include "core/util/utf8.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>

namespace ckpt::cli {

namespace {

/// QSettings' key unescaping: `\` separates subkeys, %XX and %UXXXX are characters.
std::string unescapeKey(const std::string& k)
{
    std::string out;
    for (size_t i = 0; i < k.size(); ++i) {
        if (k[i] == '\\') {
            out += '/';
            continue;
        }
        if (k[i] == '%' && i + 5 < k.size() && k[i + 1] == 'U') {
            uint32_t v = 0;
            bool ok = true;
            for (size_t j = i + 2; j < i + 6; ++j) {
                ok = ok && hexValue(k[j]) >= 0;
                v = v * 16 + uint32_t(ok ? hexValue(k[j]) : 0);
            }
            if (ok) {
                appendUtf8(out, v);
                i += 5;
                continue;
            }
        }
        if (k[i] == '%' && i + 2 < k.size() && hexValue(k[i + 1]) >= 0 && hexValue(k[i + 2]) >= 0) {
            out += char(hexValue(k[i + 1]) * 16 + hexValue(k[i + 2]));
            i += 2;
            continue;
        }
        out += k[i];
    }
    return out;
}

void chopTrailingSpaces(std::string& s, size_t limit)
{
    while (s.size() > limit && (s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
}

/// "@@x" is the string "@x"; "@Invalid()" an empty value (QSettings' stringToVariant, strings only).
std::optional<std::string> variantString(const std::string& s)
{
    if (s.starts_with("@@"))
        return s.substr(1);
    if (s.starts_with("@"))
        return std::nullopt;
    return s;
}

std::map<std::string, std::string> readIni(const std::string& path)
{
    std::map<std::string, std::string> values;
    std::ifstream in(path, std::ios::binary);
    std::string line, section;
    const auto trim = [](const std::string& s) {
        const auto b = s.find_first_not_of(" \t\r");
        const auto e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    while (std::getline(in, line)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == ';' || t[0] == '#')
            continue;
        if (t.front() == '[' && t.back() == ']') {
            section = unescapeKey(t.substr(1, t.size() - 2));
            if (section == "General" || section == "%General")
                section = section == "General" ? "" : "General";
            continue;
        }
        const auto eq = t.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = unescapeKey(trim(t.substr(0, eq)));
        std::string full = section;
        if (!full.empty())
            full += '/';
        full += key;
        values[full] = trim(t.substr(eq + 1));
    }
    return values;
}

/// ResumeProfile::defaultProfiles() of the app (ui/process/resumeprofile.cpp): what it offers before any profile is saved.
std::vector<CliResumeProfile> defaultProfiles()
{
    CliResumeProfile local;
    local.name = "ckpt-train (local)";
    local.program = "ckpt-train";
    local.arguments = {"--resume", "{record}", "--out", "{out}"};
    CliResumeProfile slurm = local;
    slurm.name = "ckpt-train on Slurm (sbatch)";
    slurm.slurm = true;
    return {local, slurm};
}

} // namespace

std::vector<std::string> iniStringList(const std::string& raw)
{
    // QSettingsPrivate::iniUnescapedStringList, for what QSettings writes.
    std::vector<std::string> list;
    std::string cur;
    bool inQuotes = false, quoted = false, isList = false;
    size_t i = 0, chopLimit = 0;
    const size_t n = raw.size();
    const auto skipSpaces = [&] {
        while (i < n && (raw[i] == ' ' || raw[i] == '\t'))
            ++i;
        chopLimit = cur.size();
    };
    skipSpaces();
    while (i < n) {
        const char c = raw[i];
        if (c == '\\') {
            if (++i >= n)
                break;
            const char e = raw[i++];
            static const std::pair<char, char> codes[] = {{'a', '\a'}, {'b', '\b'}, {'f', '\f'}, {'n', '\n'}, {'r', '\r'}, {'t', '\t'},
                {'v', '\v'}, {'"', '"'}, {'?', '?'}, {'\'', '\''}, {'\\', '\\'}};
            bool done = false;
            for (const auto& [from, to] : codes)
                if (e == from) {
                    cur += to;
                    done = true;
                    break;
                }
            if (!done && e == 'x') {
                uint32_t v = 0;
                while (i < n && hexValue(raw[i]) >= 0)
                    v = (v << 4) + uint32_t(hexValue(raw[i++]));
                appendUtf8(cur, v & 0xFFFF);
            } else if (!done && e >= '0' && e <= '7') {
                uint32_t v = uint32_t(e - '0');
                while (i < n && raw[i] >= '0' && raw[i] <= '7')
                    v = (v << 3) + uint32_t(raw[i++] - '0');
                appendUtf8(cur, v & 0xFFFF);
            }
            chopLimit = cur.size();
        } else if (c == '"') {
            ++i;
            quoted = true;
            inQuotes = !inQuotes;
            if (!inQuotes)
                skipSpaces();
        } else if (c == ',' && !inQuotes) {
            if (!quoted)
                chopTrailingSpaces(cur, chopLimit);
            isList = true;
            list.push_back(cur);
            cur.clear();
            quoted = false;
            ++i;
            skipSpaces();
        } else {
            size_t j = i + 1;
            while (j < n && raw[j] != '\\' && raw[j] != '"' && raw[j] != ',')
                ++j;
            cur.append(raw, i, j - i);
            i = j;
        }
    }
    if (!quoted)
        chopTrailingSpaces(cur, chopLimit);
    if (!isList) {
        auto s = variantString(cur);
        return s ? std::vector<std::string>{*s} : std::vector<std::string>{}; // @Invalid(): the empty list
    }
    list.push_back(cur);
    std::vector<std::string> out;
    out.reserve(list.size());
    for (const auto& s : list)
        out.push_back(variantString(s).value_or(std::string()));
    return out;
}

std::string resumeSettingsPath()
{
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    std::string base;
    if (xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"))
        base = std::string(home) + "/.config";
    else
        base = ".config";
    return base + "/CheckpointInspector/checkpoint-inspector.conf";
}

std::vector<CliResumeProfile> loadResumeProfiles(const std::string& path)
{
    const auto values = readIni(path);
    const auto str = [&](const std::string& key) {
        auto it = values.find(key);
        if (it == values.end())
            return std::string();
        auto l = iniStringList(it->second);
        return l.empty() ? std::string() : l.front();
    };
    const auto list = [&](const std::string& key) {
        auto it = values.find(key);
        return it == values.end() ? std::vector<std::string>{} : iniStringList(it->second);
    };
    std::vector<CliResumeProfile> profiles;
    const int size = std::atoi(str("resume/profiles/size").c_str());
    for (int i = 1; i <= size; ++i) {
        const std::string prefix = "resume/profiles/" + std::to_string(i) + "/";
        CliResumeProfile p;
        p.name = str(prefix + "name");
        p.program = str(prefix + "program");
        p.arguments = list(prefix + "arguments");
        p.environment = list(prefix + "environment");
        p.workingDirectory = str(prefix + "workingDirectory");
        p.passSteps = !values.contains(prefix + "passSteps") || str(prefix + "passSteps") == "true";
        p.slurm = str(prefix + "launcher") == "slurm";
        p.slurmPartition = str(prefix + "slurmPartition");
        p.slurmTime = str(prefix + "slurmTime");
        if (!p.name.empty() && !p.program.empty())
            profiles.push_back(std::move(p));
    }
    if (profiles.empty())
        profiles = defaultProfiles();
    return profiles;
}

} // namespace ckpt::cli
