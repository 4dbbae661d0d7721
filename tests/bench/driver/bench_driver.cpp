// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench: our side of the benchmark suite (tests/bench/README.md). One measurement per process,
// so that peak memory belongs to that measurement alone; prints one JSON line:
//
//   ckpt-bench open FILE [--schema-from MPK]      open + index (lazy: no payload byte is read)
//   ckpt-bench touch FILE [--schema-from MPK]     open + index + read every payload byte once (the work
//                                                 a peer's full decode does at least: every byte in memory)
//   ckpt-bench stats FILE [--schema-from MPK]     open + statistics of every tensor (256-bin histogram, on
//                                                 every hardware thread, as the app and the CLI run them),
//                                                 then the same statistics pass again on resident pages
//                                                 (stats_warm_s: the pass alone, as numpy's side is timed
//                                                 on data msgpack has already loaded)
//   ckpt-bench sum FILE                           plain summing loops over the file's bytes (the machine's limit)
//   ckpt-bench convert IN OUT [--schema-from MPK] open IN, write it in OUT's recorder (full precision)
//   ckpt-bench diff A B                           open both + diffRecords (parallel: the CLI's executor,
//                                                 one thread per core)
//   ckpt-bench stats-both A B                     open both + one statistics pass over both records'
//                                                 tensors (256-bin histograms; the same executor), the
//                                                 peer the diff's target is set against
//   ckpt-bench gc FILE                            GradientCheckpoint parse + typed decode + topological order
//   ckpt-bench gc-verify FILE                     not timed: the fast reader takes FILE (else the gc figures
//                                                 would time the general reader) and its checkpoint is the
//                                                 general reader's (same re-saved bytes, notes and order)
//   ckpt-bench layout FILE                        GradientCheckpoint load + layout of its graph
//   ckpt-bench timeline RUN [--threads N] [--no-cache]
//                                                 what `ckpt timeline RUN --json` does (listRunCheckpoints,
//                                                 computeTimeline, timelineJson, the document written to
//                                                 /dev/null) on exactly N threads of the CLI's executor
//                                                 (0: one per hardware thread, the CLI's count); the CLI
//                                                 has no thread option, this is its one-thread figure
//   ckpt-bench stats-files FILE...|RUN [--threads N]
//                                                 one statistics pass over every tensor of every file (of a
//                                                 run directory: its checkpoints' files as listed), a file
//                                                 at a time (open, statistics of all its tensors in one call,
//                                                 release), without histogram as the timeline computes them
//                                                 (core/run/loadedcheckpoint.cpp statsOf): the peer of the
//                                                 timeline's cost (issue 30)
//   ckpt-bench sha256 BLOCK BYTES                 not a file: SHA-256 of BYTES bytes as consecutive blocks of
//                                                 BLOCK bytes of one buffer (as a CAR's blocks lie in the file),
//                                                 on this one thread, three ways: our portable FIPS 180-4 code
//                                                 (detail::portableSha256, core's own until issue 32), OpenSSL
//                                                 libcrypto's EVP_Digest(EVP_sha256()), and ckpt::sha256 as core
//                                                 computes it now. Untimed first: all three give the same
//                                                 digests. Then each is timed twice, in the order portable,
//                                                 evp, core, core, evp, portable (a drift of the machine falls
//                                                 on all three alike); each figure is the faster of its two
//                                                 passes. No memory sampler in this one (one thread only).
//
// Memory: a sampler thread reads /proc/self/statm every millisecond; resident minus shared pages is
// the anonymous memory (RssAnon: heap, not the file mapping), and its maximum is reported as
// peak_anon_bytes; peak_rss_bytes is the kernel's VmHWM (mapping pages included).
#include "app/workers/parallelfor.h"
#include "core/codec/json.h"
#include "core/diff/diff.h"
#include "core/graph/analysis.h"
#include "core/graph/checkpoint.h"
#include "core/graph/layout.h"
#include "core/graph/sha256.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/report/timelinejson.h"
#include "core/run/timeline.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ckpt;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class AnonSampler {
public:
    AnonSampler()
        : m_thread([this] {
            while (!m_stop.load(std::memory_order_relaxed)) {
                sample();
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        })
    {
    }
    ~AnonSampler() { stop(); }
    void stop()
    {
        if (m_thread.joinable()) {
            m_stop = true;
            m_thread.join();
        }
        sample();
    }
    uint64_t peakAnon() const { return m_peak; }

    /// VmHWM of /proc/self/status in bytes.
    static uint64_t peakRss()
    {
        std::ifstream in("/proc/self/status");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("VmHWM:", 0) == 0)
                return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
        return 0;
    }

private:
    void sample()
    {
        FILE* f = std::fopen("/proc/self/statm", "r");
        if (!f)
            return;
        unsigned long long size = 0, resident = 0, shared = 0;
        if (std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared) == 3) {
            const uint64_t anon = (resident - std::min(resident, shared)) * uint64_t(sysconf(_SC_PAGESIZE));
            m_peak = std::max(m_peak, anon);
        }
        std::fclose(f);
    }
    std::atomic<bool> m_stop{false};
    uint64_t m_peak = 0;   // written by the sampler thread until stop(), read after
    std::thread m_thread;
};

struct Output {
    std::string text = "{";
    void add(const char* key, double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        sep();
        text += '"' + std::string(key) + "\": " + buf;
    }
    void add(const char* key, uint64_t v)
    {
        sep();
        text += '"' + std::string(key) + "\": " + std::to_string(v);
    }
    void sep()
    {
        if (text.size() > 1)
            text += ", ";
    }
};

int failWith(const Error& e)
{
    std::fprintf(stderr, "ckpt-bench: %s\n", e.message().c_str());
    return 1;
}

Result<std::shared_ptr<const Record>> open(const std::string& path, const std::string& schemaFrom)
{
    OpenOptions o;
    o.schemaFrom = schemaFrom;
    return openRecord(path, o);
}

/// Several accumulators so the loop is bound by memory, not by the latency of one float add chain.
double sumF32(std::span<const uint8_t> bytes)
{
    const size_t n = bytes.size() / 4;
    const float* p = reinterpret_cast<const float*>(bytes.data());
    float acc[16] = {};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; ++k)
            acc[k] += p[i + k];
    double total = 0;
    for (; i < n; ++i)
        total += p[i];
    for (float a : acc)
        total += a;
    return total;
}

/**
 * sumF32 over the whole span on \a parallel: chunks of 8 MiB (the statistics' window), one task
 * each, summed in chunk order. The limit loop on the same executor as the statistics pass it is
 * compared with, so both sides of that ratio use the same threads.
 */
double sumF32Parallel(std::span<const uint8_t> bytes, const ParallelFor& parallel)
{
    constexpr size_t Chunk = size_t(8) << 20;
    const size_t chunks = (bytes.size() + Chunk - 1) / Chunk;
    std::vector<double> partial(chunks);
    parallel(chunks, [&](size_t c) {
        const size_t first = c * Chunk;
        partial[c] = sumF32(bytes.subspan(first, std::min(Chunk, bytes.size() - first) / 4 * 4));
    });
    double total = 0;
    for (double x : partial)
        total += x;
    return total;
}

uint64_t sumU64(std::span<const uint8_t> bytes)
{
    const size_t n = bytes.size() / 8;
    const uint64_t* p = reinterpret_cast<const uint64_t*>(bytes.data());
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i)
        total += p[i];
    return total;
}

/** Reads every byte of \a bytes once (8 at a time): every page faulted in, every byte through the cache. */
uint64_t touchBytes(std::span<const uint8_t> bytes)
{
    return sumU64(bytes) + (bytes.size() % 8 ? bytes.back() : 0);
}

struct StatsSummary {
    double checksum = 0;
    uint64_t nonFinite = 0;
};

/**
 * The statistics the app's tensor table shows, for every tensor of the record (256-bin histograms),
 * driven the way ui/ and app/cli drive them: all tensors in one call, every chunk of every tensor a
 * task on the caller's executor (here the CLI's std::thread one, one worker per hardware thread).
 */
StatsSummary statsOfEveryTensor(const Record& record, const ParallelFor& parallel)
{
    StatsOptions options; // 256 bins
    std::vector<size_t> all(record.tensors.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    StatsSummary s;
    for (const TensorStats& st : record.stats(all, options, parallel)) {
        s.checksum += st.sum;
        s.nonFinite += st.nan + st.inf;
    }
    return s;
}

/**
 * The benchmark's GradientCheckpoint figures are only the fast reader's if it takes the generated
 * file, and only worth something if it reads what the general reader (readJson + the typed decoder,
 * checked against serde_json in tst_graph) reads: compared through the re-saved bytes (every field,
 * maps in stored order), the decode notes and the topological order.
 */
int verifyFastReader(const std::string& path)
{
    auto bytes = mapFile(path);
    if (!bytes)
        return failWith(bytes.error());
    const auto fast = readGradientCheckpointFast((*bytes)->span());
    if (!fast)
        return failWith(fail(ErrorCode::Invalid, path + ": the fast reader declined the file, so the gc rows would time the general reader").error());
    JsonReadOptions options;
    options.maxDepth = UINT32_MAX;
    auto tape = readJson(*bytes, options);
    if (!tape)
        return failWith(tape.error());
    auto general = decodeGradientCheckpoint(*tape);
    if (!general)
        return failWith(general.error());
    const auto& a = fast->notes;
    const auto& b = general->notes;
    if (saveGradientCheckpoint(*fast) != saveGradientCheckpoint(*general) || a.duplicateMapKeys != b.duplicateMapKeys
        || a.unknownFields != b.unknownFields || a.nodeKeyIdMismatches != b.nodeKeyIdMismatches
        || topologicalOrder(fast->graph) != topologicalOrder(general->graph))
        return failWith(fail(ErrorCode::Invalid, path + ": the fast and the general reader disagree").error());
    std::printf("{\"fast_equals_general\": 1, \"nodes\": %zu}\n", fast->graph.nodes.size());
    return 0;
}

int usage()
{
    std::fprintf(stderr, "usage: ckpt-bench open|touch|stats|stats-both|sum|convert|diff|gc|gc-verify|layout FILE [OUT|B] [--schema-from MPK]\n"
                         "       ckpt-bench timeline RUN [--threads N] [--no-cache]\n"
                         "       ckpt-bench stats-files FILE...|RUN [--threads N]\n"
                         "       ckpt-bench sha256 BLOCK BYTES\n");
    return 2;
}

/// `ckpt-bench sha256 BLOCK BYTES` (issue 32): our portable SHA-256 against libcrypto's, one thread.
int sha256Bench(const std::string& blockArg, const std::string& bytesArg)
{
    const uint64_t block = std::strtoull(blockArg.c_str(), nullptr, 10);
    const uint64_t wanted = std::strtoull(bytesArg.c_str(), nullptr, 10);
    if (block == 0 || wanted == 0 || block > (uint64_t(1) << 32))
        return usage();
    // one buffer of 16 MiB (or one block, if larger), filled from splitmix64, walked block by block
    const uint64_t blocksInBuffer = std::max<uint64_t>(1, (uint64_t(16) << 20) / block);
    std::vector<uint8_t> buffer(blocksInBuffer * block);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < buffer.size(); i += 8) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        std::memcpy(buffer.data() + i, &z, std::min<size_t>(8, buffer.size() - i));
    }
    const uint64_t calls = std::max<uint64_t>(1, wanted / block);
    const auto blockAt = [&](uint64_t i) {
        return std::span<const uint8_t>(buffer.data() + (i % blocksInBuffer) * block, size_t(block));
    };

    bool evpFailed = false;
    const auto portable = [](std::span<const uint8_t> d) { return detail::portableSha256(d); };
    const auto evp = [&evpFailed](std::span<const uint8_t> d) {
        Sha256Digest out{};
        unsigned int len = 0;
        if (EVP_Digest(d.data(), d.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 || len != out.size())
            evpFailed = true;
        return out;
    };
    const auto core = [](std::span<const uint8_t> d) { return sha256(d); };

    // untimed: the same digest all three ways (the first blocks, and the buffer's last one)
    for (uint64_t i : {uint64_t(0), uint64_t(1), uint64_t(2), blocksInBuffer - 1}) {
        const auto a = portable(blockAt(i));
        const bool same = evp(blockAt(i)) == a && core(blockAt(i)) == a;
        if (evpFailed)
            return failWith(fail(ErrorCode::Invalid, "sha256: EVP_Digest(EVP_sha256()) failed").error());
        if (!same)
            return failWith(fail(ErrorCode::Invalid, "sha256: libcrypto, ckpt::sha256 and the portable code disagree "
                                                     "on block " + std::to_string(i)).error());
    }

    uint8_t sink = 0; // every digest feeds it, so no pass can be optimised away
    const auto pass = [&](const auto& hash) {
        const auto t = Clock::now();
        for (uint64_t i = 0; i < calls; ++i)
            sink ^= hash(blockAt(i))[i & 31];
        return secondsSince(t);
    };
    double portableS = pass(portable), evpS = pass(evp), coreS = pass(core);
    coreS = std::min(coreS, pass(core));
    evpS = std::min(evpS, pass(evp));
    portableS = std::min(portableS, pass(portable));
    if (evpFailed)
        return failWith(fail(ErrorCode::Invalid, "sha256: EVP_Digest(EVP_sha256()) failed").error());

    Output out;
    out.add("block_bytes", block);
    out.add("calls", calls);
    out.add("bytes", calls * block);
    out.add("portable_s", portableS);
    out.add("evp_s", evpS);
    out.add("core_s", coreS);
    out.add("portable_over_evp", portableS / evpS);
    out.add("portable_over_core", portableS / coreS);
    out.add("sink", uint64_t(sink));
    std::printf("%s}\n", out.text.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args;
    std::string schemaFrom;
    unsigned threads = 0; // 0: one per hardware thread
    bool noCache = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--schema-from") == 0 && i + 1 < argc)
            schemaFrom = argv[++i];
        else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (std::strcmp(argv[i], "--no-cache") == 0)
            noCache = true;
        else
            args.emplace_back(argv[i]);
    }
    if (args.size() < 2)
        return usage();
    const std::string& cmd = args[0];
    if (cmd == "gc-verify" && args.size() == 2)
        return verifyFastReader(args[1]);
    if (cmd == "sha256" && args.size() == 3)
        return sha256Bench(args[1], args[2]);
    AnonSampler sampler;
    Output out;
    const auto t0 = Clock::now();

    if ((cmd == "open" || cmd == "touch" || cmd == "stats") && args.size() == 2) {
        auto rec = open(args[1], schemaFrom);
        if (!rec)
            return failWith(rec.error());
        const Record& record = **rec;
        out.add("open_s", secondsSince(t0));
        out.add("tensors", uint64_t(record.tensors.size()));
        out.add("tensor_bytes", record.tensorBytes());
        out.add("file_bytes", record.fileSize);
        if (cmd == "touch") {
            const auto t1 = Clock::now();
            uint64_t checksum = 0;
            for (const auto& t : record.tensors)
                checksum += touchBytes(record.payload(t));
            out.add("touch_s", secondsSince(t1));
            out.add("open_touch_s", secondsSince(t0));
            out.add("checksum", checksum);
        }
        if (cmd == "stats") {
            const ParallelFor parallel = workers::threadedFor();
            out.add("threads", uint64_t(std::max(1u, std::thread::hardware_concurrency())));
            const auto t1 = Clock::now();
            const StatsSummary cold = statsOfEveryTensor(record, parallel);
            const double coldSeconds = secondsSince(t1);
            out.add("stats_s", coldSeconds);
            out.add("open_stats_s", secondsSince(t0));
            const auto t2 = Clock::now();
            const StatsSummary warm = statsOfEveryTensor(record, parallel);
            const double warmSeconds = secondsSince(t2);
            out.add("stats_warm_s", warmSeconds);
            out.add("stats_warm_gbps", double(record.tensorBytes()) / warmSeconds / 1e9);
            // the same pass on one thread: the like-for-like figure beside one-thread peers (numpy)
            const auto t3 = Clock::now();
            const StatsSummary single = statsOfEveryTensor(record, workers::threadedFor(1));
            out.add("stats_warm_1t_s", secondsSince(t3));
            if (single.checksum != cold.checksum && !(std::isnan(single.checksum) && std::isnan(cold.checksum)))
                return failWith(fail(ErrorCode::Invalid, "the one-thread statistics pass gave another sum").error());
            out.add("checksum", cold.checksum);
            out.add("non_finite", cold.nonFinite);
            if (warm.checksum != cold.checksum && !(std::isnan(warm.checksum) && std::isnan(cold.checksum)))
                return failWith(fail(ErrorCode::Invalid, "the second statistics pass gave another sum").error());
        }
    } else if (cmd == "sum" && args.size() == 2) {
        auto bytes = mapFile(args[1]);
        if (!bytes)
            return failWith(bytes.error());
        const std::span<const uint8_t> all((*bytes)->data(), (*bytes)->size());
        // first touch faults the mapping in; measured apart so the loops see resident pages
        const auto tTouch = Clock::now();
        volatile uint64_t sink = sumU64(all);
        out.add("first_touch_s", secondsSince(tTouch));
        const auto t1 = Clock::now();
        sink = sumU64(all);
        const double u64Seconds = secondsSince(t1);
        const auto t2 = Clock::now();
        const volatile double f = sumF32(all);
        const double f32Seconds = secondsSince(t2);
        (void)sink;
        (void)f;
        out.add("bytes", uint64_t(all.size()));
        out.add("sum_u64_s", u64Seconds);
        out.add("sum_u64_gbps", double(all.size()) / u64Seconds / 1e9);
        out.add("sum_f32_s", f32Seconds);
        out.add("sum_f32_gbps", double(all.size()) / f32Seconds / 1e9);
        // the same loop on every core through the statistics' executor (workers::threadedFor)
        const ParallelFor parallel = workers::threadedFor();
        const auto t3 = Clock::now();
        const volatile double fm = sumF32Parallel(all, parallel);
        const double f32ParallelSeconds = secondsSince(t3);
        (void)fm;
        out.add("threads", uint64_t(std::max(1u, std::thread::hardware_concurrency())));
        out.add("sum_f32_mt_s", f32ParallelSeconds);
        out.add("sum_f32_mt_gbps", double(all.size()) / f32ParallelSeconds / 1e9);
    } else if (cmd == "convert" && args.size() == 3) {
        auto rec = open(args[1], schemaFrom);
        if (!rec)
            return failWith(rec.error());
        out.add("open_s", secondsSince(t0));
        const auto target = recorderFromPath(args[2]);
        if (!target)
            return failWith(fail(ErrorCode::Usage, args[2] + ": unknown recorder extension").error());
        const auto t1 = Clock::now();
        auto converted = convertRecord(**rec, *target, Precision::Full, args[2]);
        if (!converted)
            return failWith(converted.error());
        out.add("save_s", secondsSince(t1));
    } else if ((cmd == "stats-both" || cmd == "diff") && args.size() == 3) {
        // the diff and its peer (one statistics pass over both records) open the same way
        auto a = open(args[1], schemaFrom);
        if (!a)
            return failWith(a.error());
        auto b = open(args[2], schemaFrom);
        if (!b)
            return failWith(b.error());
        out.add("open_s", secondsSince(t0));
        const auto t1 = Clock::now();
        if (cmd == "stats-both") {
            const ParallelFor parallel = workers::threadedFor();
            double checksum = 0;
            for (const Record* r : {a->get(), b->get()})
                checksum += statsOfEveryTensor(*r, parallel).checksum;
            out.add("stats_s", secondsSince(t1));
            out.add("tensor_bytes", (*a)->tensorBytes() + (*b)->tensorBytes());
            out.add("checksum", checksum);
        } else {
            auto d = diffRecords(**a, **b, {}, Progress::none(), workers::threadedFor());
            if (!d)
                return failWith(d.error());
            out.add("diff_s", secondsSince(t1));
            out.add("changed", d->changed);
            out.add("unchanged", d->unchanged);
        }
    } else if ((cmd == "gc" || cmd == "layout") && args.size() == 2) {
        auto bytes = mapFile(args[1]);
        if (!bytes)
            return failWith(bytes.error());
        auto c = loadGradientCheckpoint(*bytes);
        if (!c)
            return failWith(c.error());
        out.add("parse_s", secondsSince(t0));
        out.add("nodes", uint64_t(c->graph.nodes.size()));
        if (cmd == "gc") {
            const auto t1 = Clock::now();
            const auto order = topologicalOrder(c->graph);
            out.add("topo_s", secondsSince(t1));
            out.add("parse_topo_s", secondsSince(t0)); // before the checkpoint is freed, as the peer's figure
            out.add("ordered", uint64_t(order.size()));
        } else {
            const auto t1 = Clock::now();
            const LayoutInput input = layoutInputFor(c->graph);
            auto layout = layoutGraph(input);
            if (!layout)
                return failWith(layout.error());
            out.add("layout_s", secondsSince(t1));
            out.add("layers", uint64_t(layout->layerCount));
            out.add("crossings", layout->crossings);
        }
    } else if (cmd == "timeline" && args.size() == 2) {
        const ParallelFor parallel = workers::threadedFor(threads);
        out.add("threads", uint64_t(threads ? threads : std::max(1u, std::thread::hardware_concurrency())));
        auto run = listRunCheckpoints(args[1]);
        if (!run)
            return failWith(run.error());
        TimelineOptions options;
        options.useCache = !noCache;
        auto t = computeTimeline(*run, options, Progress::none(), parallel);
        if (!t)
            return failWith(t.error());
        out.add("timeline_s", secondsSince(t0));
        const std::string json = timelineJson(*t);
        // written as the CLI writes it (to a /dev/null stdout in the bench), so the work is the same
        if (FILE* null = std::fopen("/dev/null", "wb")) {
            std::fwrite(json.data(), 1, json.size(), null);
            std::fclose(null);
        }
        out.add("timeline_json_s", secondsSince(t0));
        out.add("checkpoints", uint64_t(t->checkpoints.size()));
        out.add("series", uint64_t(t->series.size()));
        out.add("read", t->read);
        out.add("reused", t->reused);
        out.add("json_bytes", uint64_t(json.size()));
    } else if (cmd == "stats-files" && args.size() >= 2) {
        const ParallelFor parallel = workers::threadedFor(threads);
        out.add("threads", uint64_t(threads ? threads : std::max(1u, std::thread::hardware_concurrency())));
        StatsOptions options;
        options.histogramBins = 0; // as the timeline: the moments only, one read of each tensor
        // a run directory: the files of its checkpoints, listed as the timeline lists them
        std::vector<std::string> files(args.begin() + 1, args.end());
        if (args.size() == 2 && std::filesystem::is_directory(args[1])) {
            auto run = listRunCheckpoints(args[1]);
            if (!run)
                return failWith(run.error());
            files.clear();
            for (const auto& point : run->points)
                for (const auto& f : point.files)
                    files.push_back(f.path);
        }
        double checksum = 0;
        uint64_t tensors = 0, bytes = 0;
        for (const std::string& file : files) {
            auto rec = open(file, schemaFrom);
            if (!rec)
                return failWith(rec.error());
            const Record& record = **rec;
            std::vector<size_t> all(record.tensors.size());
            for (size_t i = 0; i < all.size(); ++i)
                all[i] = i;
            for (const TensorStats& st : record.stats(all, options, parallel))
                checksum += st.sum;
            tensors += record.tensors.size();
            bytes += record.tensorBytes();
        }
        out.add("stats_files_s", secondsSince(t0));
        out.add("files", uint64_t(files.size()));
        out.add("tensors", tensors);
        out.add("tensor_bytes", bytes);
        out.add("checksum", checksum);
    } else {
        return usage();
    }
    out.add("total_s", secondsSince(t0));
    sampler.stop();
    out.add("peak_anon_bytes", sampler.peakAnon());
    out.add("peak_rss_bytes", AnonSampler::peakRss());
    std::printf("%s}\n", out.text.c_str());
    return 0;
}
