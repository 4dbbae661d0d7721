// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/shards.h"

#include "core/codec/json.h"
#include "core/open/formats.h"

#include <algorithm>
#include <filesystem>

#include <map>
#include <set>

namespace ckpt {

namespace {

/** The shards in order of first mention and the weight map (tensor -> shard file), read from the index. */
struct ShardIndex {
    std::vector<std::string> shards;
    std::map<std::string, std::string> weightMap;
};

Result<ShardIndex> readShardIndex(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return std::unexpected(std::move(bytes.error()).withFile(path));
    auto tape = readJson(*bytes);
    if (!tape)
        return std::unexpected(std::move(tape.error()).withFile(path));
    auto map = tape->isMap(0) ? tape->find(0, "weight_map") : std::nullopt;
    if (!map || !tape->isMap(*map))
        return std::unexpected(Error{ErrorCode::Invalid, "a shard index needs a \"weight_map\" object of tensor name -> shard file", path});
    ShardIndex index;
    Result<void> status;
    tape->forEachEntry(*map, [&](uint32_t k, uint32_t v) {
        if (!status)
            return;
        const std::string shard(tape->isStr(v) ? tape->str(v) : "");
        // a shard is a file beside the index: no folder, no way up
        if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos || shard == "." || shard == "..") {
            Error e{ErrorCode::Invalid, "weight_map's shard of " + std::string(tape->str(k)) + " must be a file name beside the index", path};
            e.offset = (*tape)[v].srcOffset;
            status = std::unexpected(std::move(e));
            return;
        }
        if (std::find(index.shards.begin(), index.shards.end(), shard) == index.shards.end())
            index.shards.push_back(shard);
        index.weightMap[std::string(tape->str(k))] = shard;
    });
    if (!status)
        return std::unexpected(std::move(status.error()));
    if (index.shards.empty())
        return std::unexpected(Error{ErrorCode::Invalid, "the weight_map names no shard", path});
    return index;
}

/** Appends \a shard to \a merged: its tape under its file name, its tensors, parameters, optimizer entries and part, renumbered. */
void appendShard(Record& merged, TapeBuilder& b, const Record& shard, const std::string& name)
{
    b.key(name);
    const uint32_t base = b.copy(shard.tape, 0);
    const size_t first = merged.tensors.size();
    for (TensorEntry t : shard.tensors) {
        t.node += base;
        t.dataNode += base;
        merged.tensors.push_back(std::move(t));
    }
    for (ParamEntry p : shard.params) {
        p.tensor += first;
        merged.params.push_back(std::move(p));
    }
    for (OptimizerEntry o : shard.optimizer) {
        for (auto& t : o.tensors)
            t += first;
        o.node += base;
        o.stateNode += base;
        merged.optimizer.push_back(std::move(o));
    }
    for (RecordPart part : shard.parts) {
        part.node += base;
        merged.parts.push_back(std::move(part));
    }
    for (const auto& w : shard.warnings)
        merged.warnings.push_back(std::string(name).append(": ").append(w));
    merged.fileSize += shard.fileSize;
    merged.decodedSize += shard.decodedSize;
    merged.mixedPrecision |= shard.mixedPrecision || (merged.tensors.size() > shard.tensors.size() && merged.precision != shard.precision);
}

} // namespace

bool isShardIndex(std::string_view path)
{
    return path.ends_with(".index.json");
}

std::vector<std::string> shardsOf(const std::string& indexPath)
{
    std::vector<std::string> out;
    if (auto index = readShardIndex(indexPath))
        for (const auto& name : index->shards)
            out.push_back((std::filesystem::path(indexPath).parent_path() / name).string());
    return out;
}

Result<RecordPtr> openShardedSet(const std::string& indexPath, const OpenOptions& options, const Progress& progress)
{
    auto index = readShardIndex(indexPath);
    if (!index)
        return std::unexpected(index.error());
    const std::filesystem::path dir = std::filesystem::path(indexPath).parent_path();
    auto merged = std::make_shared<Record>();
    merged->file = indexPath;
    TapeBuilder b;
    b.beginMap();
    std::set<std::string> seen;
    for (size_t i = 0; i < index->shards.size(); ++i) {
        const std::string& name = index->shards[i];
        auto shard = openRecord((dir / name).string(), options, progress);
        if (!shard)
            return std::unexpected(shard.error());
        const Record& s = **shard;
        if (i == 0) {
            merged->kind = s.kind;
            merged->recorder = s.recorder;
            merged->precision = s.precision;
            merged->sharedStorages = s.sharedStorages;
        } else if (&formatOf(s) != &formatOf(*merged)) {
            return std::unexpected(Error{ErrorCode::Invalid,
                "shard " + name + " is " + std::string(formatOf(s).description()) + ", the first shard " + std::string(formatOf(*merged).description()),
                indexPath});
        }
        for (const auto& t : s.tensors) {
            auto it = index->weightMap.find(t.path);
            if (it != index->weightMap.end() && it->second != name)
                return std::unexpected(
                    Error{ErrorCode::Invalid, "tensor " + t.path + " is in shard " + name + " but the weight_map puts it in " + it->second, indexPath});
            if (!seen.insert(t.path).second)
                return std::unexpected(Error{ErrorCode::Invalid, "tensor " + t.path + " is in two shards", indexPath});
        }
        appendShard(*merged, b, s, name);
    }
    for (const auto& [tensor, shard] : index->weightMap)
        if (!seen.contains(tensor)) {
            std::string what = "the weight_map puts ";
            what.append(tensor).append(" in ").append(shard).append(", which does not hold it");
            return std::unexpected(Error{ErrorCode::Invalid, std::move(what), indexPath});
        }
    b.end();
    merged->tape = std::move(b).finish();
    return RecordPtr(std::move(merged));
}

} // namespace ckpt
