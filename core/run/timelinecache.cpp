// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline cache (core/run/timelinecache.h): where it lives, its file format, and when a stored
// scan may stand for a checkpoint.
#include "core/run/timelinecache.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace ckpt {

std::string defaultTimelineCacheDir()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return (fs::path(x) / "checkpoint-inspector" / "timeline").string();
    if (const char* h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".cache" / "checkpoint-inspector" / "timeline").string();
    return (fs::temp_directory_path() / "checkpoint-inspector-timeline").string();
}

namespace run_detail {

namespace {

// One file per run directory, named by a hash of its absolute path; binary, every value
// length-checked when read back (a damaged or foreign cache is ignored, never trusted).
// 04: a Bool(U32) tensor's statistics are over its u32 elements (03 read them as bytes), its dtype named by its store
constexpr char kCacheMagic[8] = {'C', 'K', 'P', 'T', 'T', 'L', '0', '4'};

} // namespace

std::string absoluteRunPath(const std::string& dir)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    return (ec ? fs::path(dir) : p).string();
}

std::string cacheFileOf(const std::string& cacheDir, const std::string& runPath)
{
    uint64_t h = 1469598103934665603ull; // FNV-1a: a stable name, not a security boundary
    for (unsigned char c : runPath)
        h = (h ^ c) * 1099511628211ull;
    char name[40];
    std::snprintf(name, sizeof name, "%016llx.timeline", static_cast<unsigned long long>(h));
    return (fs::path(cacheDir) / name).string();
}

/** One checkpoint's scan as the cache (and a timeline partial) stores it; string ids are the pool's. */
void writeScan(ByteWriter& w, const CheckpointScan& s)
{
    w.ids(s.files);
    w.u64(s.deps.size());
    for (const auto& d : s.deps) {
        w.u64(d.back);
        w.ids(d.files);
    }
    w.out.push_back(s.valid ? 1 : 0);
    w.str(s.error);
    w.u64(s.tensors.size());
    for (const TensorScan& t : s.tensors) {
        for (uint32_t id : {t.path, t.paramId, t.stateName, t.owner, t.dtype, t.cid})
            w.u32(id);
        w.out.push_back(uint8_t(t.role));
        for (double v : {t.l2, t.maxAbs, t.mean, t.std})
            w.f64(v);
        for (uint64_t v : {t.nan, t.inf, t.zeros, t.count})
            w.u64(v);
        w.opt(t.updateL2);
        w.opt(t.updateRatio);
        w.u32(t.linkBack);
        w.u32(t.linkTensor);
    }
}

std::vector<uint8_t> encodeCache(const std::string& runPath, const std::vector<const CheckpointScan*>& scans, const StringPool& pool)
{
    ByteWriter w;
    size_t estimate = 64 + 48 * pool.size();
    for (const CheckpointScan* s : scans)
        estimate += 256 + s->tensors.size() * 128;
    w.out.reserve(estimate);
    w.magic(kCacheMagic);
    w.str(runPath);
    w.u64(pool.size());
    for (size_t i = 0; i < pool.size(); ++i)
        w.str(pool.at(uint32_t(i)));
    w.u64(scans.size());
    for (const CheckpointScan* s : scans)
        writeScan(w, *s);
    return w.out;
}

/** The cached scans by their first file's path, strings into \a pool; empty (with a warning) when the file is unusable. */
std::unordered_map<std::string, CheckpointScan> decodeCache(std::span<const uint8_t> bytes, const std::string& runPath, StringPool& pool,
    std::string& warning)
{
    std::unordered_map<std::string, CheckpointScan> out;
    if (bytes.size() < 8 || std::memcmp(bytes.data(), kCacheMagic, 8) != 0) {
        warning = "the timeline cache has another format; it is rebuilt";
        return out;
    }
    ByteReader r{bytes, 8};
    if (r.str() != runPath || !r.ok)
        return out; // another run's file under the same hash: rebuilt
    // the file's string ids, as ids of this run's pool (which may already hold some)
    const StringTable table(r, pool);
    auto ref = [&] { return table.ref(r); };
    const uint64_t n = r.count(16);
    for (uint64_t i = 0; i < n && r.ok; ++i) {
        CheckpointScan s = readScan(r, ref);
        if (r.ok && !s.files.empty())
            out.emplace(s.files.front().path, std::move(s));
    }
    if (!r.ok) {
        warning = "the timeline cache is damaged; it is rebuilt";
        out.clear();
    }
    return out;
}

/** Whether a stored scan still describes checkpoint \a i: its files, and those it was linked to, unchanged. */
bool scanUsable(const RunCheckpoints& run, size_t i, const CheckpointScan& s)
{
    if (s.files != run.points[i].files) // every file with the identity it had
        return false;
    // the previous checkpoint (whatever it was) must be the same one: an insertion or a deletion re-scans
    const bool depsPrev = std::any_of(s.deps.begin(), s.deps.end(), [](const ScanDependency& d) { return d.back == 1; });
    if ((i > 0) != depsPrev)
        return false;
    for (const auto& d : s.deps)
        if (d.back == 0 || d.back > i || d.files != run.points[i - d.back].files)
            return false;
    return true;
}

} // namespace run_detail

} // namespace ckpt
