// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-gen: deterministic inputs of the benchmark suite (tests/bench/README.md).
//
//   ckpt-bench-gen record BYTES SEED OUT...   one TrainingRecord, written in every OUT's recorder
//   ckpt-bench-gen gc NODES OUT.json           one GradientCheckpoint (serde_json pretty, as `save`)
//   ckpt-bench-gen run DIR CHECKPOINTS BYTES SEED [--layers L] [--no-gradients] [--nan-from K] [--step-every S]
//                                              a training run: DIR/checkpoint/record-STEP.mpk (see writeRun)
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
#include "core/model/paramid.h"
#include "core/model/recorder.h"
#include "core/record/record.h"
#include "core/value/tape.h"
#include "tests/common/syntheticgraph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
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
        writeTensorData(b, "F32", shape, scratch);
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

/// Network-like DAG: the graph the layout bench and tst_layout use (tests/common/syntheticgraph.h).
GradientCheckpoint buildCheckpoint(uint32_t n)
{
    std::mt19937 rng(7);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    testing::appendNetworkEdges(rng, n, true, edges);
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

// ---- a training run (issue 30's probes: the run timeline, the re-run after a new checkpoint, bisect,
// the Run panel) -----------------------------------------------------------------------------------
//
// CHECKPOINTS NamedMpk TrainingRecords of about BYTES each, in DIR/checkpoint/record-STEP.mpk with
// STEP = (i + 1) * step-every (ckpt-train's layout), shaped like the transformer of
// `ckpt-interop transformer` (tests/interop/src/transformer.rs): module {embedding {weight [512, d]},
// layers: L × {norm_1, attention {query, key, value, output}, norm_2, mlp {up d→4d, down 4d→d}},
// norm, head d→512} (Linear with bias, LayerNorm {gamma, beta, epsilon nil}); Adam
// (AdaptiveMomentumState {time, moment_1, moment_2, max_moment_2 nil}) for every parameter in
// parameter order; a usize scheduler; pending F32 gradients sorted by id (Ruda's
// GradientsParamsRecord; --no-gradients: none); caller state {step, epoch}. d is the multiple of 8
// whose file size is nearest BYTES (at least 8). Tensors: (5 + 16 L) parameters × 4 (3 without
// gradients): 532 for the default L = 8.
//
// The values train: between two checkpoints every parameter takes one Adam step (lr 1e-3, betas 0.9
// and 0.999) on a gradient of uniform noise (σ ≈ 6e-4) drawn from one splitmix64 stream seeded by
// SEED, so every tensor changes a little from checkpoint to checkpoint (update ratios about 1e-2 for
// weights, 1e-4 for LayerNorm gains) and the same SEED writes the same bytes on every machine.
// --nan-from K writes NaN into 16 elements of one tensor (the parameter layers[L/2].mlp.up.weight)
// in checkpoint K and every later one (the bad tail bisect must find); the state that trains stays
// finite.

constexpr uint64_t RunVocab = 512;

struct RunParam {
    uint64_t id = 0;
    std::string path;
    std::vector<uint64_t> shape;
    std::vector<float> w, m1, m2, g;
};

uint64_t runParamCount(uint64_t d, uint64_t layers)
{
    return layers * (12 * d * d + 13 * d) + 2 * RunVocab * d + 2 * d + RunVocab;
}

uint64_t runTensorCount(uint64_t layers, bool gradients) { return (5 + 16 * layers) * (gradients ? 4 : 3); }

/** f32 payloads plus ~200 bytes of framing per tensor (keys, ids, shapes, dtypes). */
uint64_t runFileEstimate(uint64_t d, uint64_t layers, bool gradients)
{
    return runParamCount(d, layers) * 4 * (gradients ? 4 : 3) + 200 * runTensorCount(layers, gradients) + 600;
}

/** splitmix64's finalizer: distinct indices give distinct parameter ids. */
uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct RunSpec {
    std::string dir;
    uint64_t checkpoints = 0, bytes = 0, seed = 0;
    uint64_t layers = 8;
    bool gradients = true;
    std::optional<uint64_t> nanFrom;
    uint64_t stepEvery = 100;
};

struct RunModel {
    std::vector<RunParam> params;
    uint64_t d = 8;
    size_t nanParam = 0;

    /** Walks the module in parameter order: emit(index, center, scale) for each parameter. */
    template<class Emit>
    static void walk(TapeBuilder* b, uint64_t d, uint64_t layers, Emit&& emit)
    {
        size_t k = 0;
        auto key = [&](const char* name) {
            if (b)
                b->key(name);
        };
        auto open = [&] {
            if (b)
                b->beginMap();
        };
        auto close = [&] {
            if (b)
                b->end();
        };
        auto param = [&](const std::string& path, std::vector<uint64_t> shape, float center, float scale) {
            emit(k++, path, std::move(shape), center, scale);
        };
        auto linear = [&](const std::string& path, uint64_t in, uint64_t out) {
            const float bound = 1.0f / std::sqrt(float(in));
            open();
            key("weight");
            param(path + ".weight", {in, out}, 0, bound);
            key("bias");
            param(path + ".bias", {out}, 0, bound);
            close();
        };
        auto norm = [&](const std::string& path) {
            open();
            key("gamma");
            param(path + ".gamma", {d}, 1.0f, 0.05f);
            key("beta");
            param(path + ".beta", {d}, 0.0f, 0.05f);
            key("epsilon");
            if (b)
                b->nil();
            close();
        };
        open();
        key("embedding");
        open();
        key("weight");
        param("embedding.weight", {RunVocab, d}, 0, 0.05f);
        close();
        key("layers");
        if (b)
            b->beginArray();
        for (uint64_t l = 0; l < layers; ++l) {
            const std::string p = "layers[" + std::to_string(l) + "]";
            open();
            key("norm_1");
            norm(p + ".norm_1");
            key("attention");
            open();
            for (const char* name : {"query", "key", "value", "output"}) {
                key(name);
                linear(p + ".attention." + name, d, d);
            }
            close();
            key("norm_2");
            norm(p + ".norm_2");
            key("mlp");
            open();
            key("up");
            linear(p + ".mlp.up", d, 4 * d);
            key("down");
            linear(p + ".mlp.down", 4 * d, d);
            close();
            close();
        }
        if (b)
            b->end();
        key("norm");
        norm("norm");
        key("head");
        linear("head", d, RunVocab);
        close();
    }

    RunModel(const RunSpec& spec, SplitMix& rng)
    {
        // the multiple of 8 whose file is nearest the size asked for
        for (uint64_t c = 8; runFileEstimate(c, spec.layers, spec.gradients) <= 2 * spec.bytes; c += 8) {
            const auto err = [&](uint64_t x) {
                const uint64_t e = runFileEstimate(x, spec.layers, spec.gradients);
                return e > spec.bytes ? e - spec.bytes : spec.bytes - e;
            };
            if (err(c) < err(d))
                d = c;
        }
        const uint64_t idBase = mix64(spec.seed + 0x1dc0de);
        const std::string nanPath = "layers[" + std::to_string(spec.layers / 2) + "].mlp.up.weight";
        walk(nullptr, d, spec.layers, [&](size_t k, const std::string& path, std::vector<uint64_t> shape, float center, float scale) {
            RunParam p;
            p.id = mix64(idBase + k);
            p.path = path;
            p.shape = std::move(shape);
            uint64_t numel = 1;
            for (auto s : p.shape)
                numel *= s;
            p.w.resize(numel);
            for (auto& v : p.w)
                v = center + scale * rng.symmetric();
            p.m1.assign(numel, 0.0f);
            p.m2.assign(numel, GradScale * GradScale / 3); // E[g^2] of the uniform noise: Adam's steady state
            p.g.assign(numel, 0.0f);
            if (path == nanPath)
                nanParam = k;
            params.push_back(std::move(p));
        });
    }

    static constexpr float GradScale = 1e-3f; ///< gradients are uniform in ±GradScale

    /** One Adam step of every parameter on fresh noise gradients. */
    void step(SplitMix& rng)
    {
        constexpr float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
        for (auto& p : params)
            for (size_t e = 0; e < p.w.size(); ++e) {
                const float g = GradScale * rng.symmetric();
                p.g[e] = g;
                p.m1[e] = b1 * p.m1[e] + (1 - b1) * g;
                p.m2[e] = b2 * p.m2[e] + (1 - b2) * g * g;
                p.w[e] -= lr * p.m1[e] / (std::sqrt(p.m2[e]) + eps);
            }
    }
};

void tensorData(TapeBuilder& b, std::span<const float> values, const std::vector<uint64_t>& shape)
{
    writeTensorData(b, "F32", shape, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4));
}

/** Checkpoint \a index of the run as an envelope tape (the model's current state). */
Tape runCheckpoint(const RunSpec& spec, const RunModel& m, uint64_t index)
{
    const uint64_t step = (index + 1) * spec.stepEvery;
    const bool poisoned = spec.nanFrom && index >= *spec.nanFrom;
    uint64_t payload = 0;
    for (const auto& p : m.params)
        payload += p.w.size() * 4 * (spec.gradients ? 4 : 3);
    TapeBuilder b;
    b.reserve(m.params.size() * 40 + 64);
    b.reservePool(payload + m.params.size() * 64 + 4096);
    beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full, "0.21.0", true));
    b.beginArray(); // TrainingRecord tuple
    std::vector<float> poison;
    RunModel::walk(&b, m.d, spec.layers, [&](size_t k, const std::string&, const std::vector<uint64_t>&, float, float) {
        const RunParam& p = m.params[k];
        b.beginMap();
        b.key("id");
        b.str(paramIdFromU64(p.id));
        b.key("param");
        if (poisoned && k == m.nanParam) {
            poison = p.w;
            const size_t stride = std::max<size_t>(1, poison.size() / 16);
            for (size_t e = 0, n = 0; e < poison.size() && n < 16; e += stride, ++n)
                poison[e] = std::numeric_limits<float>::quiet_NaN();
            tensorData(b, poison, p.shape);
        } else {
            tensorData(b, p.w, p.shape);
        }
        b.end();
    });
    b.beginMap(); // optimizer: Adam, parameter order
    for (const auto& p : m.params) {
        b.key(paramIdFromU64(p.id));
        b.beginMap();
        b.key("V1");
        b.beginMap();
        b.key("Rank" + std::to_string(p.shape.size()));
        b.beginMap();
        b.key("momentum");
        b.beginMap();
        b.key("time");
        b.uinteger(step);
        b.key("moment_1");
        tensorData(b, p.m1, p.shape);
        b.key("moment_2");
        tensorData(b, p.m2, p.shape);
        b.key("max_moment_2");
        b.nil();
        b.end();
        b.end();
        b.end();
        b.end();
    }
    b.end();
    b.uinteger(step); // scheduler (usize)
    b.beginMap();     // pending gradients, sorted by id
    b.key("gradients");
    b.beginArray();
    if (spec.gradients) {
        std::vector<const RunParam*> byId;
        for (const auto& p : m.params)
            byId.push_back(&p);
        std::sort(byId.begin(), byId.end(), [](const RunParam* x, const RunParam* y) { return x->id < y->id; });
        for (const RunParam* p : byId) {
            b.beginArray();
            b.uinteger(p->id);
            b.str("F32");
            tensorData(b, p->g, p->shape);
            b.end();
        }
    }
    b.end();
    b.end();
    b.beginMap(); // caller state
    b.key("step");
    b.uinteger(step);
    b.key("epoch");
    b.uinteger(1 + index / 10);
    b.end();
    b.end();
    endEnvelope(b);
    return std::move(b).finish();
}

/** Writes the run; one JSON line describes it. Files are renamed into place (no fsync: bench inputs). */
int writeRun(const RunSpec& spec)
{
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(spec.dir) / "checkpoint";
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
        std::fprintf(stderr, "%s: %s\n", folder.c_str(), ec.message().c_str());
        return 1;
    }
    SplitMix rng{spec.seed * 0x632be59bd9b4e019ull + 7};
    RunModel model(spec, rng);
    uint64_t total = 0, first = 0;
    for (uint64_t i = 0; i < spec.checkpoints; ++i) {
        model.step(rng);
        const Tape envelope = runCheckpoint(spec, model, i);
        auto bytes = encodeRecord(envelope, Recorder::NamedMpk);
        if (!bytes) {
            std::fprintf(stderr, "%s\n", bytes.error().message().c_str());
            return 1;
        }
        const std::string name = "record-" + std::to_string((i + 1) * spec.stepEvery) + ".mpk";
        const fs::path tmp = folder / ("." + name + ".tmp"), out = folder / name;
        FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f || std::fwrite(bytes->data(), 1, bytes->size(), f) != bytes->size() || std::fclose(f) != 0) {
            std::fprintf(stderr, "%s: cannot write\n", tmp.c_str());
            return 1;
        }
        fs::rename(tmp, out, ec);
        if (ec) {
            std::fprintf(stderr, "%s: %s\n", out.c_str(), ec.message().c_str());
            return 1;
        }
        total += bytes->size();
        if (i == 0)
            first = bytes->size();
    }
    std::printf("{\"dir\": \"%s\", \"checkpoints\": %llu, \"tensors\": %llu, \"file_bytes\": %llu, \"total_bytes\": %llu, "
                "\"d_model\": %llu, \"layers\": %llu, \"nan_from\": %lld, \"nan_tensor\": \"%s\"}\n",
        spec.dir.c_str(), static_cast<unsigned long long>(spec.checkpoints),
        static_cast<unsigned long long>(runTensorCount(spec.layers, spec.gradients)), static_cast<unsigned long long>(first),
        static_cast<unsigned long long>(total), static_cast<unsigned long long>(model.d), static_cast<unsigned long long>(spec.layers),
        spec.nanFrom ? static_cast<long long>(*spec.nanFrom) : -1LL, model.params[model.nanParam].path.c_str());
    return 0;
}

int usage()
{
    std::fprintf(stderr, "usage:\n  ckpt-bench-gen record BYTES SEED OUT...\n  ckpt-bench-gen gc NODES OUT.json\n"
                         "  ckpt-bench-gen run DIR CHECKPOINTS BYTES SEED [--layers L] [--no-gradients] [--nan-from K] [--step-every S]\n");
    return 2;
}

/** `run DIR CHECKPOINTS BYTES SEED [options]`. */
int runCommand(int argc, char** argv)
{
    if (argc < 6)
        return usage();
    auto number = [](const char* text, uint64_t& out) {
        char* end = nullptr;
        out = std::strtoull(text, &end, 10);
        return *text != 0 && *end == 0;
    };
    RunSpec spec;
    spec.dir = argv[2];
    if (!number(argv[3], spec.checkpoints) || !number(argv[4], spec.bytes) || !number(argv[5], spec.seed) || spec.checkpoints == 0)
        return usage();
    for (int i = 6; i < argc; ++i) {
        const std::string o = argv[i];
        uint64_t v = 0;
        if (o == "--no-gradients")
            spec.gradients = false;
        else if (o == "--layers" && i + 1 < argc && number(argv[i + 1], v) && v > 0)
            spec.layers = v, ++i;
        else if (o == "--nan-from" && i + 1 < argc && number(argv[i + 1], v))
            spec.nanFrom = v, ++i;
        else if (o == "--step-every" && i + 1 < argc && number(argv[i + 1], v) && v > 0)
            spec.stepEvery = v, ++i;
        else
            return usage();
    }
    return writeRun(spec);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3)
        return usage();
    const std::string cmd = argv[1];
    if (cmd == "run")
        return runCommand(argc, argv);
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
