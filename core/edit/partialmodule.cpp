// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/partialmodule.h"

#include "core/model/paramid.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace ckpt {

namespace {

/// Which parameters a record holds, by id and by module path (Burn's load_record matches paths).
struct HeldParameters {
    std::set<std::string> ids;
    std::set<std::string> paths;

    explicit HeldParameters(const Record& r)
    {
        for (const auto& p : r.params) {
            ids.insert(p.id);
            paths.insert(p.modulePath);
        }
    }
    bool holds(const std::string& id, const std::string& path) const { return ids.contains(id) || paths.contains(path); }
};

std::optional<uint64_t> decimalId(std::string_view text)
{
    uint64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return id;
}

/// The optimizer parts' metadata {decimal id: module path} (burn-optim 0.22), in file order.
std::vector<std::pair<std::string, std::string>> optimizerModulePaths(const Record& r)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& part : r.parts) {
        if (part.role != RecordPart::Role::Optimizer)
            continue;
        auto metadata = r.tape.find(part.node, "metadata");
        if (!metadata || !r.tape.isMap(*metadata))
            continue;
        r.tape.forEachEntry(*metadata, [&](uint32_t key, uint32_t value) {
            // Burn ignores metadata keys that are not a u64 on load; they name no parameter
            const auto id = decimalId(r.tape.keyText(key));
            if (id && r.tape.isStr(value))
                out.emplace_back(paramIdFromU64(*id), std::string(r.tape.str(value)));
        });
    }
    return out;
}

bool holdsModule(const Record& r)
{
    return r.moduleNode.has_value() && r.kind != RecordKind::OptimizerRecord && r.kind != RecordKind::SchedulerRecord;
}

} // namespace

std::optional<PartialModule> partialModuleOf(const Record& r, const Record* whole)
{
    if (!holdsModule(r))
        return std::nullopt;
    const HeldParameters held(r);
    PartialModule out;
    out.held = r.params.size();
    std::set<std::string> listed;
    auto miss = [&](const std::string& id, const std::string& path) {
        if (held.holds(id, path) || !listed.insert(id).second)
            return false;
        out.missing.push_back(path);
        out.missingIds.push_back(id);
        return true;
    };
    std::vector<std::string> bases;
    bool fromOptimizer = false;
    // metadata keys are sorted by id, which says nothing to a reader: list these by module path
    auto named = optimizerModulePaths(r);
    std::ranges::sort(named, {}, [](const auto& idAndPath) { return idAndPath.second; });
    for (const auto& [id, path] : named)
        fromOptimizer = miss(id, path) || fromOptimizer;
    if (fromOptimizer)
        bases.emplace_back("the optimizer record's module paths");
    if (whole) {
        bool fromWhole = false;
        for (const auto& p : whole->params)
            fromWhole = miss(p.id, p.modulePath) || fromWhole;
        // the basis counts even when it shows nothing missing: the whole model is then known
        if (fromWhole || !fromOptimizer)
            bases.push_back(whole->file + " (" + std::to_string(whole->params.size()) + " parameters)");
    }
    if (out.missing.empty())
        return std::nullopt;
    out.whole = out.held + out.missing.size();
    for (size_t i = 0; i < bases.size(); ++i)
        out.basis += (i == 0 ? "" : " and ") + bases[i];
    return out;
}

std::string partialModuleSummary(const PartialModule& partial)
{
    return "a partial module record (Burn 0.22 allow_partial): " + std::to_string(partial.held) + " of " + std::to_string(partial.whole) + " parameters";
}

std::string partialModuleDetail(const PartialModule& partial, size_t shown)
{
    std::string s = partialModuleSummary(partial) + " (the whole model from " + partial.basis + "); a resumption keeps its starting module's values for the "
        + std::to_string(partial.missing.size()) + " it lacks: ";
    for (size_t i = 0; i < partial.missing.size() && i < shown; ++i)
        s += (i == 0 ? "" : ", ") + partial.missing[i];
    if (partial.missing.size() > shown)
        s += " and " + std::to_string(partial.missing.size() - shown) + " more";
    return s;
}

} // namespace ckpt
