// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/crossframework.h"

#include "core/model/statedict.h"
#include "core/util/text.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace ckpt {

Result<NameRewrite> parseNameRewrite(std::string_view spec)
{
    const size_t eq = spec.find('=');
    if (eq == std::string_view::npos || eq == 0)
        return fail(ErrorCode::Usage, "--map takes FROM=TO (a regular expression and its replacement), got '" + std::string(spec) + "'");
    NameRewrite r{std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1)), nullptr};
    try {
        r.pattern = std::make_shared<const std::regex>(r.from, std::regex::ECMAScript);
    } catch (const std::exception& e) { // std::regex_error: the only way std::regex reports a bad pattern
        return fail(ErrorCode::Usage, "--map " + std::string(spec) + ": '" + r.from + "' is not a regular expression (" + e.what() + ")");
    }
    return r;
}

Result<std::vector<NameRewrite>> parseNameRewrites(const std::vector<std::string>& specs)
{
    std::vector<NameRewrite> out;
    for (const auto& s : specs) {
        auto r = parseNameRewrite(s);
        if (!r)
            return std::unexpected(std::move(r.error()));
        out.push_back(std::move(*r));
    }
    return out;
}

Result<std::string> applyNameRewrites(const std::vector<NameRewrite>& rewrites, std::string name)
{
    for (const auto& r : rewrites) {
        try {
            name = std::regex_replace(name, *r.pattern, r.to);
        } catch (const std::exception& e) { // error_complexity / error_stack on a pathological pattern
            return fail(ErrorCode::Limit, "--map " + r.from + "=" + r.to + " could not be applied to '" + name + "' (" + e.what() + ")");
        }
    }
    return name;
}

bool followsPyTorchConventions(const Record& r)
{
    switch (r.kind) {
    case RecordKind::TorchStateDict:
    case RecordKind::TorchOptimizerState:
    case RecordKind::TorchCheckpoint:
    case RecordKind::Safetensors:
    case RecordKind::TorchDcp: return true;
    default: return false;
    }
}

bool acrossFrameworks(const Record& a, const Record& b)
{
    return followsPyTorchConventions(a) != followsPyTorchConventions(b);
}

std::string pytorchNameOfBurnPath(std::string_view path)
{
    // the record's root: a TrainingRecord's model is item[0], a module record's is item (core/record's paths)
    for (std::string_view root : {"item[0].", "item."})
        if (path.starts_with(root)) {
            path.remove_prefix(root.size());
            break;
        }
    std::string out;
    out.reserve(path.size());
    for (const char c : path) {
        if (c == '[') // a Vec<Module>'s element: layers[3] -> layers.3
            out += '.';
        else if (c != ']')
            out += c;
    }
    const size_t dot = out.rfind('.');
    const std::string_view last = std::string_view(out).substr(dot == std::string::npos ? 0 : dot + 1);
    const std::string stem = out.substr(0, out.size() - last.size());
    if (last == "gamma")
        return stem + "weight";
    if (last == "beta")
        return stem + "bias";
    return out;
}

namespace {
constexpr std::pair<std::string_view, std::string_view> kStateNames[] = {{"moment_1", "exp_avg"}, {"moment_2", "exp_avg_sq"},
    {"max_moment_2", "max_exp_avg_sq"}, {"velocity", "momentum_buffer"}};
} // namespace

std::string_view burnStateName(std::string_view torchState)
{
    for (const auto& [burn, torch] : kStateNames)
        if (torch == torchState)
            return burn;
    return torchState;
}

std::string_view pytorchStateName(std::string_view burnState)
{
    for (const auto& [burn, torch] : kStateNames)
        if (burn == burnState)
            return torch;
    return burnState;
}

std::string_view crossLayoutName(CrossLayout l)
{
    return l == CrossLayout::Transposed ? "transposed" : "same";
}

bool isLinearWeight(std::string_view name, size_t rank)
{
    if (rank != 2 || !(name == "weight" || name.ends_with(".weight")))
        return false;
    return asciiLower(name).find("embed") == std::string::npos;
}

std::optional<CrossLayout> layoutAcross(std::string_view name, const std::vector<uint64_t>& torchShape, const std::vector<uint64_t>& burnShape)
{
    const bool reversed = torchShape.size() == 2 && burnShape.size() == 2 && torchShape[0] == burnShape[1] && torchShape[1] == burnShape[0];
    if (reversed && isLinearWeight(name, 2))
        return CrossLayout::Transposed;
    if (torchShape == burnShape)
        return CrossLayout::Same;
    if (reversed)
        return CrossLayout::Transposed;
    return std::nullopt;
}

namespace {

/// The state dict's prefix in the checkpoint dict (`model.`): a parameter's path is the prefix and its name.
std::string modelPrefixOf(const Record& r)
{
    for (const auto& t : r.tensors)
        if (t.role == TensorRole::Param && !t.paramId.empty() && t.path.ends_with(t.paramId))
            return t.path.substr(0, t.path.size() - t.paramId.size());
    return {};
}

/// The keys of a PyTorch-convention record's tensors, before rewrites; whether each has a Burn counterpart by rule.
std::vector<CrossKey> torchKeysOf(const Record& r, std::vector<bool>& noCounterpart)
{
    const std::string prefix = modelPrefixOf(r);
    std::vector<CrossKey> keys(r.tensors.size());
    noCounterpart.assign(r.tensors.size(), false);
    for (size_t i = 0; i < r.tensors.size(); ++i) {
        const TensorEntry& t = r.tensors[i];
        CrossKey& k = keys[i];
        if (t.role == TensorRole::Param) {
            k = {t.paramId, "", !t.paramId.empty()};
        } else if (t.role == TensorRole::Optimizer) {
            noCounterpart[i] = t.stateName == "step"; // Burn keeps the step count as the state's `time`, no tensor
            k = {t.paramId, std::string(burnStateName(t.stateName)), !t.paramId.empty() && !noCounterpart[i]};
        } else if (t.path.starts_with(prefix) && isStateDictBuffer(t.path)) {
            k = {t.path.substr(prefix.size()), "", true};
            noCounterpart[i] = t.path.ends_with("num_batches_tracked");
            k.matchable = !noCounterpart[i];
        }
    }
    return keys;
}

/// The keys of a Burn record's tensors: parameters and their optimizer moments by the parameter's PyTorch name.
std::vector<CrossKey> burnKeysOf(const Record& r)
{
    std::vector<CrossKey> keys(r.tensors.size());
    const auto nameOfParam = [&](std::string_view id, const TensorEntry& t) -> std::optional<std::string> {
        if (auto p = r.findParam(id))
            return pytorchNameOfBurnPath(r.params[*p].modulePath);
        if (t.role == TensorRole::Param) // a parameter without its entry: its tensor's path names it
            return pytorchNameOfBurnPath(t.path.ends_with(".param") ? std::string_view(t.path).substr(0, t.path.size() - 6) : t.path);
        return std::nullopt;
    };
    for (size_t i = 0; i < r.tensors.size(); ++i) {
        const TensorEntry& t = r.tensors[i];
        if (t.role != TensorRole::Param && t.role != TensorRole::Optimizer)
            continue;
        if (auto name = nameOfParam(t.paramId, t))
            keys[i] = {*name, t.role == TensorRole::Optimizer ? t.stateName : "", true};
    }
    return keys;
}

std::string joinKey(const CrossKey& k)
{
    return k.state + "|" + k.name;
}

} // namespace

Result<CrossMatch> matchAcrossFrameworks(const Record& torchSide, const Record& burnSide, const std::vector<NameRewrite>& rewrites)
{
    CrossMatch m;
    m.torchKeys = torchKeysOf(torchSide, m.noCounterpart);
    m.burnKeys = burnKeysOf(burnSide);
    for (auto& k : m.torchKeys)
        if (k.matchable) {
            auto name = applyNameRewrites(rewrites, k.name);
            if (!name)
                return std::unexpected(std::move(name.error()));
            k.name = std::move(*name);
        }
    m.burnOf.assign(torchSide.tensors.size(), std::nullopt);
    std::vector<bool> taken(burnSide.tensors.size(), false);
    // A file ckpt exported from a Burn record keeps the record's paths (`item[0].fc.weight.param`) and
    // layouts. A path that is also its PyTorch name (burnpack's `fc.weight`) is left to the rules: a
    // square Linear weight has the same shape either way but is transposed.
    std::unordered_map<std::string_view, size_t> byPath;
    for (size_t j = 0; j < burnSide.tensors.size(); ++j)
        if (burnSide.tensors[j].path != m.burnKeys[j].name)
            byPath.emplace(burnSide.tensors[j].path, j);
    for (size_t i = 0; i < torchSide.tensors.size(); ++i)
        if (auto it = byPath.find(torchSide.tensors[i].path);
            it != byPath.end() && !taken[it->second] && torchSide.tensors[i].shape == burnSide.tensors[it->second].shape) {
            m.burnOf[i] = std::pair{it->second, std::optional{CrossLayout::Same}};
            taken[it->second] = true;
        }
    std::unordered_map<std::string, size_t> byKey;
    for (size_t j = 0; j < burnSide.tensors.size(); ++j)
        if (!taken[j] && m.burnKeys[j].matchable)
            byKey.emplace(joinKey(m.burnKeys[j]), j);
    for (size_t i = 0; i < torchSide.tensors.size(); ++i) {
        if (m.burnOf[i] || !m.torchKeys[i].matchable)
            continue;
        auto it = byKey.find(joinKey(m.torchKeys[i]));
        if (it == byKey.end() || taken[it->second])
            continue;
        taken[it->second] = true;
        m.burnOf[i] = std::pair{it->second, layoutAcross(m.torchKeys[i].name, torchSide.tensors[i].shape, burnSide.tensors[it->second].shape)};
    }
    return m;
}

std::vector<uint8_t> transposedMatrix(std::span<const uint8_t> bytes, uint64_t rows, uint64_t cols, size_t elementSize)
{
    std::vector<uint8_t> out(bytes.size());
    if (rows * cols * elementSize != bytes.size())
        return out;
    // in tiles of 32 x 32 elements, so that both the strided reads and the writes stay in cache lines
    // already loaded (a Linear weight of 4096 x 4096 would otherwise miss on every element)
    constexpr uint64_t Tile = 32;
    for (uint64_t r0 = 0; r0 < rows; r0 += Tile)
        for (uint64_t c0 = 0; c0 < cols; c0 += Tile)
            for (uint64_t c = c0; c < std::min(cols, c0 + Tile); ++c)
                for (uint64_t r = r0; r < std::min(rows, r0 + Tile); ++r)
                    std::memcpy(out.data() + (c * rows + r) * elementSize, bytes.data() + (r * cols + c) * elementSize, elementSize);
    return out;
}

} // namespace ckpt
