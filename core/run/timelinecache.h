// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the timeline keeps of one checkpoint, its scan, and the byte form it is stored in: the
// persistent cache file (CKPTTL04) and, scan by scan, the partials of cluster shares
// (core/run/timelinepartial.h). Shared by the timeline's files (timelinescan, timelineseries,
// timelineshares, timelinemerge); not part of the public interface (core/run/timeline.h).

#include "core/run/timeline.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ckpt::run_detail {

/**
 * The strings of a timeline's scans, each kept once: a run repeats the same few hundred paths, ids
 * and dtypes in every checkpoint, and a cache of 300 checkpoints would otherwise hold every one of
 * them 300 times (in memory and on disk, and allocate them on every re-run). Id 0 is "".
 */
class StringPool {
public:
    StringPool() { id({}); }
    uint32_t id(std::string_view s)
    {
        if (auto it = m_index.find(s); it != m_index.end())
            return it->second;
        const auto n = uint32_t(m_strings.size());
        m_strings.emplace_back(s);
        m_index.emplace(m_strings.back(), n); // a deque's elements never move: the view stays valid
        return n;
    }
    const std::string& at(uint32_t i) const { return i < m_strings.size() ? m_strings[i] : m_strings[0]; }
    size_t size() const { return m_strings.size(); }

private:
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, uint32_t> m_index;
};

/** One tensor of one checkpoint as scanned: everything the timeline needs, nothing that needs the file again. */
struct TensorScan : PointStats {
    uint32_t path = 0, paramId = 0, stateName = 0, owner = 0, dtype = 0; ///< StringPool ids
    uint32_t cid = 0;        ///< GradientCheckpoint blocks: an unchanged CID needs no read
    TensorRole role = TensorRole::Other;
    uint32_t linkBack = 0;   ///< how many checkpoints back its predecessor is (0: none)
    uint32_t linkTensor = 0; ///< the predecessor's index in that checkpoint's scan
};

/** The files a scan depended on besides its own, by distance: when any differs, the scan is stale. */
struct ScanDependency {
    uint32_t back = 0;
    std::vector<FileIdentity> files;
};

struct CheckpointScan {
    std::vector<FileIdentity> files;
    std::vector<ScanDependency> deps;
    bool valid = false;
    std::string error;
    std::vector<TensorScan> tensors;
};

// ---- the stored form --------------------------------------------------------------------------------
// Little-endian numbers, length-prefixed strings; every value length-checked when read back (a
// damaged or foreign file is ignored or refused, never trusted).

struct ByteWriter {
    std::vector<uint8_t> out;
    /** A file's first 8 bytes, byte by byte (a range insert into the fresh vector trips GCC 12's -Wstringop-overflow). */
    void magic(const char (&m)[8])
    {
        for (char c : m)
            out.push_back(uint8_t(c));
    }
    void u64(uint64_t v)
    {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i)
            b[i] = uint8_t(v >> (8 * i));
        out.insert(out.end(), b, b + 8);
    }
    void u32(uint32_t v)
    {
        uint8_t b[4];
        for (int i = 0; i < 4; ++i)
            b[i] = uint8_t(v >> (8 * i));
        out.insert(out.end(), b, b + 4);
    }
    void f64(double v)
    {
        uint64_t u;
        std::memcpy(&u, &v, 8);
        u64(u);
    }
    void str(std::string_view s)
    {
        u64(s.size());
        out.insert(out.end(), s.begin(), s.end());
    }
    void opt(const std::optional<double>& v)
    {
        out.push_back(v ? 1 : 0);
        f64(v.value_or(0));
    }
    void ids(const std::vector<FileIdentity>& files)
    {
        u64(files.size());
        for (const auto& f : files) {
            str(f.path);
            u64(f.size);
            u64(uint64_t(f.mtimeNs));
            u64(f.inode);
        }
    }
};

struct ByteReader {
    std::span<const uint8_t> in;
    size_t pos = 0;
    bool ok = true;
    uint64_t u64()
    {
        if (in.size() - pos < 8) {
            ok = false;
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= uint64_t(in[pos + i]) << (8 * i);
        pos += 8;
        return v;
    }
    uint32_t u32()
    {
        if (in.size() - pos < 4) {
            ok = false;
            return 0;
        }
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
            v |= uint32_t(in[pos + i]) << (8 * i);
        pos += 4;
        return v;
    }
    double f64()
    {
        const uint64_t u = u64();
        double v;
        std::memcpy(&v, &u, 8);
        return v;
    }
    uint8_t byte()
    {
        if (pos >= in.size()) {
            ok = false;
            return 0;
        }
        return in[pos++];
    }
    std::string str()
    {
        const uint64_t n = u64();
        if (!ok || n > in.size() - pos) {
            ok = false;
            return {};
        }
        std::string s(reinterpret_cast<const char*>(in.data() + pos), n);
        pos += n;
        return s;
    }
    std::optional<double> opt()
    {
        const bool has = byte() != 0;
        const double v = f64();
        return has ? std::optional<double>(v) : std::nullopt;
    }
    /** A count of items each at least \a minBytes long: never more than the rest of the file could hold. */
    uint64_t count(size_t minBytes)
    {
        const uint64_t n = u64();
        if (!ok || n > (in.size() - pos) / std::max<size_t>(minBytes, 1))
            ok = false;
        return ok ? n : 0;
    }
    std::vector<FileIdentity> ids()
    {
        std::vector<FileIdentity> v(count(32));
        for (auto& f : v) {
            f.path = str();
            f.size = u64();
            f.mtimeNs = int64_t(u64());
            f.inode = u64();
        }
        return v;
    }
};

/** A file's string table (the cache's, a partial's) read into \a pool: a reference in the file becomes a pool id. */
struct StringTable {
    std::vector<uint32_t> ids;
    StringTable(ByteReader& r, StringPool& pool)
        : ids(r.count(8))
    {
        for (auto& id : ids)
            id = pool.id(r.str());
    }
    /** The next reference in \a r; an index outside the table makes the read fail. */
    uint32_t ref(ByteReader& r) const
    {
        const uint32_t i = r.u32();
        if (i >= ids.size()) {
            r.ok = false;
            return 0;
        }
        return ids[i];
    }
};

/** The run directory as the cache and the partials name it: absolute, symbolic links resolved where they can be. */
std::string absoluteRunPath(const std::string& dir);

/** The cache file of the run at \a runPath: one per run directory, named by a hash of its absolute path. */
std::string cacheFileOf(const std::string& cacheDir, const std::string& runPath);

/** One checkpoint's scan as the cache (and a timeline partial) stores it; string ids are the pool's. */
void writeScan(ByteWriter& w, const CheckpointScan& s);

/** The inverse of writeScan; \a ref reads a string id and maps it into the reader's pool (r.ok false on any damage). */
template<class Ref>
CheckpointScan readScan(ByteReader& r, Ref&& ref)
{
    CheckpointScan s;
    s.files = r.ids();
    s.deps.resize(r.count(16));
    for (auto& d : s.deps) {
        d.back = uint32_t(r.u64());
        d.files = r.ids();
    }
    s.valid = r.byte() != 0;
    s.error = r.str();
    s.tensors.resize(r.count(64));
    for (TensorScan& t : s.tensors) {
        t.path = ref();
        t.paramId = ref();
        t.stateName = ref();
        t.owner = ref();
        t.dtype = ref();
        t.cid = ref();
        const uint8_t role = r.byte();
        t.role = role <= uint8_t(TensorRole::Other) ? TensorRole(role) : TensorRole::Other;
        t.l2 = r.f64();
        t.maxAbs = r.f64();
        t.mean = r.f64();
        t.std = r.f64();
        t.nan = r.u64();
        t.inf = r.u64();
        t.zeros = r.u64();
        t.count = r.u64();
        t.updateL2 = r.opt();
        t.updateRatio = r.opt();
        t.linkBack = r.u32();
        t.linkTensor = r.u32();
    }
    return s;
}

/** The cache file's bytes (CKPTTL04): the run's path, the string pool, the scans in checkpoint order. */
std::vector<uint8_t> encodeCache(const std::string& runPath, const std::vector<const CheckpointScan*>& scans, const StringPool& pool);

/** The cached scans by their first file's path, strings into \a pool; empty (with a warning) when the file is unusable. */
std::unordered_map<std::string, CheckpointScan> decodeCache(std::span<const uint8_t> bytes, const std::string& runPath, StringPool& pool,
    std::string& warning);

/** Whether a stored scan still describes checkpoint \a i: its files, and those it was linked to, unchanged. */
bool scanUsable(const RunCheckpoints& run, size_t i, const CheckpointScan& s);

} // namespace ckpt::run_detail
