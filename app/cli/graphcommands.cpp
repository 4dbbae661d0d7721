// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/graphcommands.h"

#include "app/cli/args.h"
#include "app/cli/exits.h"
#include "core/codec/json.h"
#include "core/graph/analysis.h"
#include "core/graph/car.h"
#include "core/graph/checkpoint.h"
#include "core/graph/layout.h"
#include "core/io/bytes.h"
#include "core/open/sniff.h"
#include "core/report/graphreport.h"

#include <cstdio>
#include <filesystem>

namespace ckpt::cli {

namespace {

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

Result<BytesPtr> read(const std::string& path) { return path == "-" ? readStdin() : mapFile(path); }

Result<GradientCheckpoint> loadCheckpoint(const std::string& path)
{
    auto bytes = read(path);
    if (!bytes)
        return std::unexpected(bytes.error());
    return loadGradientCheckpoint(*bytes, true);
}

size_t parseLimit(const Args& a, bool& ok)
{
    ok = true;
    if (auto l = a.value("--limit")) {
        if (const auto n = parseNumber<uint64_t>(*l))
            return size_t(*n);
        ok = false;
    }
    return 16;
}

/** `show` of one block of a CAR file, from the file's mapping when the caller has it already. */
int showBlock(const std::string& carPath, const BytesPtr* mapped, const std::string& cidText, bool json, size_t limit)
{
    Result<BytesPtr> bytes = mapped ? Result<BytesPtr>(*mapped) : read(carPath);
    if (!bytes)
        return inputError(carPath, bytes.error());
    auto store = CarStore::open(*bytes);
    if (!store)
        return inputError(carPath, store.error());
    auto cid = parseCid(cidText);
    if (!cid)
        return inputError(carPath, Error{ErrorCode::Invalid, cidText + " is " + cid.error().what});
    auto index = store->find(*cid);
    if (!index)
        return inputError(carPath, Error{ErrorCode::Invalid, "block " + cidText + " is not in the CAR file"});
    const auto& block = store->blocks()[*index];
    const BlockCheck check = store->verify(*index);
    print(json ? blockJson(block.cid, store->data(block), check, limit) : blockText(block.cid, store->data(block), check, limit));
    return check == BlockCheck::Corrupted ? 1 : 0;
}

} // namespace

int cmdGraph(const std::vector<std::string>& argv)
{
    Args a(argv, {}, {"--json", "--dot", "--layout"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("graph takes one FILE");
    if (a.flag("--json") && a.flag("--dot"))
        return usageError("--json and --dot exclude each other");
    const std::string& file = a.positional()[0];
    auto c = loadCheckpoint(file);
    if (!c)
        return inputError(file, c.error());
    const GraphAnalysis analysis = analyzeGraph(*c);
    if (a.flag("--dot")) {
        print(graphDot(*c, analysis));
        return 0;
    }
    if (a.flag("--json")) {
        if (a.flag("--layout")) {
            std::vector<std::string> names;
            auto layout = layoutGraph(layoutInputFor(c->graph, &names));
            if (!layout)
                return inputError(file, layout.error());
            print(graphJson(*c, analysis, &*layout, &names));
        } else {
            print(graphJson(*c, analysis));
        }
        return 0;
    }
    print(graphText(*c, analysis));
    if (a.flag("--layout")) {
        auto layout = layoutGraph(layoutInputFor(c->graph));
        if (!layout)
            return inputError(file, layout.error());
        std::printf("  layout: %u layers, %.0f x %.0f, %llu bends, %llu crossings, %zu back edges, %zu chain groups\n",
            layout->layerCount, layout->width, layout->height, static_cast<unsigned long long>(layout->dummyCount),
            static_cast<unsigned long long>(layout->crossings), layout->backEdges.size(), layout->groups.size());
    }
    return 0;
}

int cmdBlocks(const std::vector<std::string>& argv)
{
    Args a(argv, {}, {"--json"});
    if (!a.error().empty())
        return usageError(a.error());
    if (a.positional().size() != 1)
        return usageError("blocks takes one FILE.car");
    const std::string& file = a.positional()[0];
    auto bytes = read(file);
    if (!bytes)
        return inputError(file, bytes.error());
    auto store = CarStore::open(*bytes);
    if (!store)
        return inputError(file, store.error());
    print(a.flag("--json") ? blocksJson(*store) : blocksText(file, *store));
    for (size_t i = 0; i < store->blocks().size(); ++i)
        if (store->verify(i) == BlockCheck::Corrupted) {
            const auto& b = store->blocks()[i];
            Error e{ErrorCode::Invalid, "block " + b.cid.toString() + " does not hash to its CID"};
            e.offset = b.dataOffset;
            return inputError(file, std::move(e));
        }
    return 0;
}

std::optional<int> gradientCheckpointCommand(const std::string& command, const std::string& path, const std::vector<std::string>& argv)
{
    // The sniff reads the first KiB; only a GradientCheckpoint or a CAR file is mapped here, once,
    // and the CAR index or the checkpoint decoder reads that mapping. A record is left to the record
    // commands, which map it (or read stdin) themselves.
    const FileFamily family = sniffFile(path);
    const bool ours = family == FileFamily::GradientCheckpoint || (family == FileFamily::CarFile && command == "show");
    Result<BytesPtr> bytes = ours ? mapFile(path) : Result<BytesPtr>(BytesPtr{});
    if (!bytes)
        return inputError(path, bytes.error());
    auto checkpoint = [&]() -> Result<GradientCheckpoint> { return loadGradientCheckpoint(*bytes, true); };
    if (command == "show") {
        Args a(argv, {"--limit", "--blocks", "--view", "--schema", "--schema-from"}, {"--json"});
        bool limitOk = true;
        const size_t limit = parseLimit(a, limitOk);
        if (!limitOk)
            return usageError("--limit takes a number");
        if (a.positional().size() != 2)
            return std::nullopt;
        const std::string& what = a.positional()[1];
        const bool json = a.flag("--json");
        if (family == FileFamily::CarFile)
            return showBlock(path, &*bytes, what, json, limit);
        if (family != FileFamily::GradientCheckpoint) {
            if (auto car = a.value("--blocks"); car && classifyCid(what).cid)
                return showBlock(*car, nullptr, what, json, limit);
            return std::nullopt;
        }
        auto c = checkpoint();
        if (!c)
            return inputError(path, c.error());
        for (const auto& [key, n] : c->graph.nodes)
            if (key == what || n.id == what) {
                print(json ? nodeJson(n, c->graph) : nodeText(n, c->graph));
                return 0;
            }
        for (const auto& blob : c->optimizerState)
            if (blob.key == what || "optimizer_state." + blob.key == what) {
                BlobView view = inferBlobView(blob.key, blob.bytes.size());
                if (auto v = a.value("--view")) {
                    auto parsed = blobViewFromName(*v);
                    if (!parsed)
                        return usageError("--view takes u8, f32, f64, f16, bf16, u64, i64, u32 or i32");
                    view = *parsed;
                }
                print(json ? blobJson(blob, view, limit) : blobText(blob, view, limit));
                return 0;
            }
        if (auto car = a.value("--blocks"))
            return showBlock(*car, nullptr, what, json, limit);
        return inputError(path, Error{ErrorCode::Invalid, what + " is neither a node id nor an optimizer_state key (give --blocks FILE.car to resolve a CID)"});
    }
    if (family != FileFamily::GradientCheckpoint)
        return std::nullopt;
    if (command == "info") {
        Args a(argv, {"--schema", "--schema-from"}, {"--json"});
        auto c = checkpoint();
        if (!c)
            return inputError(path, c.error());
        const auto analysis = analyzeGraph(*c);
        print(a.flag("--json") ? checkpointInfoJson(*c, analysis) : checkpointInfoText(path, *c, analysis));
        return 0;
    }
    if (command == "validate") {
        auto c = checkpoint();
        if (!c)
            return inputError(path, c.error());
        const auto analysis = analyzeGraph(*c);
        std::printf("%s: valid GradientCheckpoint (%zu nodes, %zu edges)\n", path.c_str(), c->graph.nodes.size(), c->graph.edges.size());
        for (const auto& w : checkpointWarnings(*c, analysis))
            std::printf("  warning: %s\n", w.c_str());
        return 0;
    }
    if (command == "resave") {
        Args a(argv, {"--schema", "--schema-from"}, {});
        if (a.positional().size() != 2)
            return usageError("resave takes IN and OUT");
        auto tape = readJson(*bytes, JsonReadOptions{UINT32_MAX, true, true});
        if (!tape)
            return inputError(path, tape.error());
        std::vector<uint8_t> out;
        if (sniffGraphFile(*tape) == GraphFileKind::GraphStoreOnly) {
            auto g = decodeGraphStore(*tape);
            if (!g)
                return inputError(path, g.error());
            out = graphStoreCheckpointBytes(*g);
        } else {
            auto c = decodeGradientCheckpoint(*tape);
            if (!c)
                return inputError(path, c.error());
            out = saveGradientCheckpoint(*c);
        }
        if (auto w = writeFileAtomic(a.positional()[1], out); !w)
            return inputError(a.positional()[1], w.error());
        return 0;
    }
    return std::nullopt;
}

} // namespace ckpt::cli
