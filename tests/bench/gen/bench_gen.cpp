// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-gen: deterministic inputs of the benchmark suite (tests/bench/README.md).
//
//   ckpt-bench-gen record BYTES SEED OUT...   one TrainingRecord, written in every OUT's recorder
//   ckpt-bench-gen gc NODES OUT.json           one GradientCheckpoint (serde_json pretty, as `save`)
//
// The record layout (mirrored by `ckpt-interop bench-load`, tests/interop/src/bench.rs) is a Ruda
// TrainingRecord (module, optimizer, scheduler, gradients, caller state):
//   module    = {blocks: [{norm: LayerNorm{gamma, beta, epsilon}, up: Linear{weight [d,4d], bias [4d]},
//                           down: Linear{weight [4d,d], bias [d]}}, ...]}
//   optimizer = SGD without momentum: {param id: {V1: {RankR: {momentum: None}}}} for every parameter
//   scheduler = usize, gradients = {gradients: []}, state = Vec<u64> [epoch, samples seen]
// i.e. a few big matrices plus many small vectors; BYTES counts the f32 parameter payloads, and
// the optimizer holds no tensors, so the file is BYTES plus a few KiB of structure (no Adam
// moments: they would triple the file without exercising anything new). d is 1024, halved until at
// least four blocks fit. The same SEED gives the same bytes; another SEED the same layout and ids
// with other values (the second record of the diff).
#include "core/graph/checkpoint.h"
#include "core/io/bytes.h"
#include "core/record/record.h"
#include "core/record/recorder.h"
#include "core/value/tape.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace ckpt;

namespace {

/// splitmix64: fast, seedable, and the same on every platform (std distributions are not).
struct SplitMix {
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [-1, 1) from 24 random bits (exact in f32).
    float symmetric() { return float(int32_t(next() >> 40) - (1 << 23)) / float(1 << 23); }
};

uint64_t blockBytes(uint64_t d) { return 4 * (2 * d * 4 * d + 4 * d + d + 2 * d); }

struct Writer {
    TapeBuilder& b;
    SplitMix values;
    uint64_t nextId;
    std::vector<std::pair<std::string, uint32_t>> params; // id, rank: the optimizer map is written after the module
    std::vector<uint8_t> scratch;

    /// {id, param: TensorData{bytes, shape, dtype}} with values center + scale * U[-1, 1).
    void param(std::vector<uint64_t> shape, float center, float scale)
    {
        uint64_t numel = 1;
        for (auto s : shape)
            numel *= s;
        scratch.resize(numel * 4);
        for (uint64_t i = 0; i < numel; ++i) {
            const float v = center + scale * values.symmetric();
            std::memcpy(scratch.data() + 4 * i, &v, 4);
        }
        const std::string id = paramIdFromU64(nextId++ * 0x2545f4914f6cdd1dull);
        params.emplace_back(id, uint32_t(shape.size()));
        b.beginMap();
        b.key("id");
        b.str(id);
        b.key("param");
        b.beginMap();
        b.key("bytes");
        b.bin(scratch);
        b.key("shape");
        b.beginArray();
        for (auto s : shape)
            b.uinteger(s);
        b.end();
        b.key("dtype");
        b.str("F32");
        b.end();
        b.end();
    }
    void linear(uint64_t in, uint64_t out)
    {
        const float bound = 1.0f / std::sqrt(float(in));
        b.beginMap();
        b.key("weight");
        param({in, out}, 0, bound);
        b.key("bias");
        param({out}, 0, bound);
        b.end();
    }
};

Tape buildRecord(uint64_t bytes, uint64_t seed, uint64_t* paramBytes, uint64_t* tensorCount)
{
    uint64_t d = 1024;
    while (d > 8 && blockBytes(d) * 4 > bytes)
        d /= 2;
    const uint64_t blocks = std::max<uint64_t>(1, bytes / blockBytes(d));
    *paramBytes = blocks * blockBytes(d);
    *tensorCount = blocks * 6;

    TapeBuilder b;
    b.reserve(size_t(blocks) * 200 + 64);
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.21.0", true));
    // ids depend on the block index only, so records of another seed match tensor by tensor
    Writer w{b, SplitMix{seed * 0x632be59bd9b4e019ull + 1}, 1, {}, {}};
    b.beginArray(); // TrainingRecord tuple
    b.beginMap();
    b.key("blocks");
    b.beginArray();
    for (uint64_t k = 0; k < blocks; ++k) {
        b.beginMap();
        b.key("norm");
        b.beginMap();
        b.key("gamma");
        w.param({d}, 1.0f, 0.05f);
        b.key("beta");
        w.param({d}, 0.0f, 0.05f);
        b.key("epsilon");
        b.nil();
        b.end();
        b.key("up");
        w.linear(d, 4 * d);
        b.key("down");
        w.linear(4 * d, d);
        b.end();
    }
    b.end();
    b.end();
    b.beginMap(); // optimizer: SGD without momentum
    for (const auto& [id, rank] : w.params) {
        b.key(id);
        b.beginMap();
        b.key("V1");
        b.beginMap();
        b.key("Rank" + std::to_string(rank));
        b.beginMap();
        b.key("momentum");
        b.nil();
        b.end();
        b.end();
        b.end();
    }
    b.end();
    b.uinteger(1000); // scheduler (usize)
    b.beginMap();
    b.key("gradients");
    b.beginArray();
    b.end();
    b.end();
    b.beginArray(); // caller state (epoch, samples seen)
    b.uinteger(3);
    b.uinteger(123456);
    b.end();
    b.end();
    endEnvelope(b);
    return std::move(b).finish();
}

/// Network-like DAG: the generator of tests/bench/graph/bench_layout.cpp (spine, short and far skips).
GradientCheckpoint buildCheckpoint(uint32_t n)
{
    std::mt19937 rng(7);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t kind = rng() % 10;
        if (kind < 6)
            edges.push_back({i - 1, i});
        else if (kind < 8)
            edges.push_back({uint32_t(i - 1 - rng() % std::min<uint32_t>(i, 8)), i});
        else
            edges.push_back({uint32_t(rng() % i), i});
        if (rng() % 4 == 0)
            edges.push_back({uint32_t(i - 1 - rng() % std::min<uint32_t>(i, 3)), i});
    }
    static const char* const ops[] = {"matmul", "relu", "add", "softmax", "layernorm"};
    GradientCheckpoint c;
    c.step = 1000;
    c.timestamp = 1767225600;
    c.graph.nodes.reserve(n);
    char id[48];
    for (uint32_t i = 0; i < n; ++i) {
        std::snprintf(id, sizeof id, "%08x-0000-4000-8000-%012x", i * 2654435761u, i);
        ComputationNode node;
        node.id = id;
        node.op = ops[i % 5];
        node.outputCid = "bafkreioutput" + std::to_string(i);
        if (i % 2 == 0)
            node.gradientCid = "bafkreigrad" + std::to_string(i);
        node.metadata.emplace_back("layer", std::to_string(i / 16));
        c.graph.nodes.emplace_back(node.id, std::move(node));
    }
    for (const auto& [a, b] : edges) {
        c.graph.nodes[b].second.inputCids.push_back(*c.graph.nodes[a].second.outputCid);
        c.graph.edges.emplace_back(c.graph.nodes[a].first, c.graph.nodes[b].first);
    }
    if (n > 0)
        c.lossCid = c.graph.nodes.back().second.outputCid;
    c.optimizerState.push_back({"lr", {0, 0, 128, 58}});
    return c;
}

int usage()
{
    std::fprintf(stderr, "usage:\n  ckpt-bench-gen record BYTES SEED OUT...\n  ckpt-bench-gen gc NODES OUT.json\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3)
        return usage();
    const std::string cmd = argv[1];
    char* end = nullptr;
    const unsigned long long n = std::strtoull(argv[2], &end, 10);
    if (*end != 0 || n == 0)
        return usage();
    if (cmd == "record" && argc >= 5) {
        const unsigned long long seed = std::strtoull(argv[3], &end, 10);
        if (*end != 0)
            return usage();
        uint64_t paramBytes = 0, tensors = 0;
        const Tape tape = buildRecord(n, seed, &paramBytes, &tensors);
        for (int i = 4; i < argc; ++i) {
            const auto recorder = recorderFromPath(argv[i]);
            if (!recorder) {
                std::fprintf(stderr, "%s: unknown recorder extension\n", argv[i]);
                return 2;
            }
            // The metadata names the recorder that wrote the file, as Burn's would.
            TapeBuilder b;
            b.reserve(tape.nodes.size());
            const uint32_t item = *tape.find(tape.root(), "item");
            beginEnvelope(b, makeMetadata(*recorder, Precision::Full, "0.21.0", true));
            b.copy(tape, item);
            endEnvelope(b);
            const Tape envelope = std::move(b).finish();
            if (auto ok = saveRecord(envelope, *recorder, argv[i]); !ok) {
                std::fprintf(stderr, "%s\n", ok.error().message().c_str());
                return 1;
            }
            std::printf("{\"file\": \"%s\", \"param_bytes\": %llu, \"tensors\": %llu}\n", argv[i],
                static_cast<unsigned long long>(paramBytes), static_cast<unsigned long long>(tensors));
        }
        return 0;
    }
    if (cmd == "gc" && argc == 4) {
        const auto bytes = saveGradientCheckpoint(buildCheckpoint(uint32_t(n)));
        if (auto ok = writeFileAtomic(argv[3], bytes); !ok) {
            std::fprintf(stderr, "%s\n", ok.error().message().c_str());
            return 1;
        }
        std::printf("{\"file\": \"%s\", \"nodes\": %llu, \"bytes\": %zu}\n", argv[3], n, bytes.size());
        return 0;
    }
    return usage();
}
