// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/run/resumeprofiles.h"

#include "core/io/bytes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ckpt {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int kStoreVersion = 1;

std::unexpected<Error> invalid(const std::string& what)
{
    return fail(ErrorCode::Invalid, "resume profiles: " + what);
}

/// \a key of \a o as a string into \a out; absent keeps \a out. False when present with another type.
bool readString(const json& o, const char* key, std::string& out)
{
    auto it = o.find(key);
    if (it == o.end())
        return true;
    if (!it->is_string())
        return false;
    out = it->get<std::string>();
    return true;
}

bool readStrings(const json& o, const char* key, std::vector<std::string>& out)
{
    auto it = o.find(key);
    if (it == o.end())
        return true;
    if (!it->is_array())
        return false;
    out.clear();
    for (const auto& s : *it) {
        if (!s.is_string())
            return false;
        out.push_back(s.get<std::string>());
    }
    return true;
}

bool readInt(const json& o, const char* key, int& out)
{
    auto it = o.find(key);
    if (it == o.end())
        return true;
    if (!it->is_number_integer())
        return false;
    out = int(std::clamp<int64_t>(it->get<int64_t>(), -1'000'000, 1'000'000));
    return true;
}

bool readBool(const json& o, const char* key, bool& out)
{
    auto it = o.find(key);
    if (it == o.end())
        return true;
    if (!it->is_boolean())
        return false;
    out = it->get<bool>();
    return true;
}

Result<ResumeProfileSpec> profileFrom(const json& o, size_t index)
{
    const std::string where = "profile " + std::to_string(index + 1);
    if (!o.is_object())
        return invalid(where + " is not an object");
    ResumeProfileSpec p;
    std::string launcher = "local";
    const json none = json::object();
    auto slurm = o.find("slurm");
    const json& s = slurm == o.end() ? none : *slurm;
    const bool ok = readString(o, "name", p.name) && readString(o, "launcher", launcher) && readString(o, "program", p.program)
        && readStrings(o, "arguments", p.arguments) && readStrings(o, "environment", p.environment) && readString(o, "working_directory", p.workingDirectory)
        && readBool(o, "pass_steps", p.passSteps) && s.is_object() && readString(s, "partition", p.slurm.partition) && readInt(s, "nodes", p.slurm.nodes)
        && readInt(s, "gpus", p.slurm.gpus) && readString(s, "time", p.slurm.time);
    if (!ok)
        return invalid(where + " has a field of the wrong type");
    if (launcher != "local" && launcher != "slurm")
        return invalid(where + ": launcher is \"local\" or \"slurm\", not \"" + launcher + "\"");
    p.launcher = launcher == "slurm" ? ResumeProfileSpec::Launcher::Slurm : ResumeProfileSpec::Launcher::Local;
    p.slurm.nodes = std::max(1, p.slurm.nodes);
    p.slurm.gpus = std::max(0, p.slurm.gpus);
    return p;
}

} // namespace

std::vector<ResumeProfileSpec> defaultResumeProfiles()
{
    ResumeProfileSpec local;
    local.name = "ckpt-train (local)";
    local.program = std::string(kBundledTrainer);
    local.arguments = {"--resume", "{record}", "--out", "{out}"};
    ResumeProfileSpec slurm = local;
    slurm.name = "ckpt-train on Slurm (sbatch)";
    slurm.launcher = ResumeProfileSpec::Launcher::Slurm;
    return {local, slurm};
}

std::string resumeProfilesPath()
{
    // As QSettings places the app's own settings: an absolute XDG_CONFIG_HOME, else ~/.config.
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    std::string base;
    if (xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"))
        base = std::string(home) + "/.config";
    else
        base = ".config";
    return base + "/CheckpointInspector/" + std::string(kResumeProfilesFileName);
}

std::string resumeProfilesJson(const std::vector<ResumeProfileSpec>& profiles)
{
    ordered_json list = ordered_json::array();
    for (const auto& p : profiles) {
        ordered_json o;
        o["name"] = p.name;
        o["launcher"] = p.launcher == ResumeProfileSpec::Launcher::Slurm ? "slurm" : "local";
        o["program"] = p.program;
        o["arguments"] = p.arguments;
        o["environment"] = p.environment;
        o["working_directory"] = p.workingDirectory;
        o["pass_steps"] = p.passSteps;
        o["slurm"] = ordered_json{{"partition", p.slurm.partition}, {"nodes", p.slurm.nodes}, {"gpus", p.slurm.gpus}, {"time", p.slurm.time}};
        list.push_back(std::move(o));
    }
    const ordered_json doc{{"version", kStoreVersion}, {"profiles", std::move(list)}};
    // Invalid UTF-8 (never from the app, whose strings are Unicode) is replaced rather than thrown on.
    return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

Result<std::vector<ResumeProfileSpec>> parseResumeProfiles(std::string_view text)
{
    const json doc = json::parse(text.begin(), text.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return invalid("not a JSON object");
    auto version = doc.find("version");
    if (version != doc.end() && (!version->is_number_integer() || version->get<int64_t>() > kStoreVersion))
        return invalid("version " + version->dump() + " is newer than this program reads (" + std::to_string(kStoreVersion) + ")");
    auto list = doc.find("profiles");
    if (list == doc.end())
        return std::vector<ResumeProfileSpec>{};
    if (!list->is_array())
        return invalid("\"profiles\" is not a list");
    std::vector<ResumeProfileSpec> profiles;
    for (size_t i = 0; i < list->size(); ++i) {
        auto p = profileFrom((*list)[i], i);
        if (!p)
            return std::unexpected(p.error());
        if (!p->name.empty() && !p->program.empty())
            profiles.push_back(std::move(*p));
    }
    return profiles;
}

Result<std::vector<ResumeProfileSpec>> loadResumeProfiles(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return defaultResumeProfiles();
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(bytes.error());
    const auto* data = reinterpret_cast<const char*>((*bytes)->data());
    auto profiles = parseResumeProfiles(std::string_view(data, (*bytes)->size()));
    if (!profiles)
        return std::unexpected(Error(profiles.error()).withFile(path));
    if (profiles->empty())
        return defaultResumeProfiles();
    return profiles;
}

Result<void> saveResumeProfiles(const std::string& path, const std::vector<ResumeProfileSpec>& profiles)
{
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    if (ec) {
        Error e{ErrorCode::Io, "cannot create the directory " + dir.string() + ": " + ec.message()};
        return std::unexpected(std::move(e).withFile(path));
    }
    const std::string text = resumeProfilesJson(profiles);
    return writeFileAtomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

} // namespace ckpt
