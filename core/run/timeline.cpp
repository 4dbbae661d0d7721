// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The run timeline (core/run/timeline.h): a scan per checkpoint, kept in a persistent cache, assembled
// into series of one tensor each, with events.
#include "core/run/timeline.h"

#include "core/io/bytes.h"
#include "core/run/loadedcheckpoint.h"
#include "core/util/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <unordered_map>

namespace fs = std::filesystem;

namespace ckpt {

using run_detail::LoadedCheckpoint;
using run_detail::LoadedTensor;

std::string_view timelineEventKindName(TimelineEventKind k)
{
    switch (k) {
    case TimelineEventKind::FirstNan: return "first_nan";
    case TimelineEventKind::FirstInf: return "first_inf";
    case TimelineEventKind::Spike: return "spike";
    }
    return "spike";
}

std::string defaultTimelineCacheDir()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return (fs::path(x) / "checkpoint-inspector" / "timeline").string();
    if (const char* h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".cache" / "checkpoint-inspector" / "timeline").string();
    return (fs::temp_directory_path() / "checkpoint-inspector-timeline").string();
}

namespace {

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
struct TensorScan {
    uint32_t path = 0, paramId = 0, stateName = 0, owner = 0, dtype = 0; ///< StringPool ids
    uint32_t cid = 0;        ///< GradientCheckpoint blocks: an unchanged CID needs no read
    TensorRole role = TensorRole::Other;
    double l2 = 0, maxAbs = 0, mean = 0, std = 0;
    uint64_t nan = 0, inf = 0, zeros = 0, count = 0;
    std::optional<double> updateL2, updateRatio;
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

// ---- the cache file -------------------------------------------------------------------------------
// One file per run directory, named by a hash of its absolute path; binary, every value
// length-checked when read back (a damaged or foreign cache is ignored, never trusted).

constexpr char kCacheMagic[8] = {'C', 'K', 'P', 'T', 'T', 'L', '0', '3'};

struct Writer {
    std::vector<uint8_t> out;
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

struct Reader {
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
    StringTable(Reader& r, StringPool& pool)
        : ids(r.count(8))
    {
        for (auto& id : ids)
            id = pool.id(r.str());
    }
    /** The next reference in \a r; an index outside the table makes the read fail. */
    uint32_t ref(Reader& r) const
    {
        const uint32_t i = r.u32();
        if (i >= ids.size()) {
            r.ok = false;
            return 0;
        }
        return ids[i];
    }
};

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
void writeScan(Writer& w, const CheckpointScan& s)
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

/** The inverse of writeScan; \a ref reads a string id and maps it into the reader's pool (r.ok false on any damage). */
template<class Ref>
CheckpointScan readScan(Reader& r, Ref&& ref)
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

std::vector<uint8_t> encodeCache(const std::string& runPath, const std::vector<const CheckpointScan*>& scans, const StringPool& pool)
{
    Writer w;
    size_t estimate = 64 + 48 * pool.size();
    for (const CheckpointScan* s : scans)
        estimate += 256 + s->tensors.size() * 128;
    w.out.reserve(estimate);
    w.out.insert(w.out.end(), kCacheMagic, kCacheMagic + 8);
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
    Reader r{bytes, 8};
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

// ---- assembling the series ------------------------------------------------------------------------

/** Median of a small sample (copied: the history stays in order). */
double median(std::vector<double> v)
{
    const size_t m = v.size() / 2;
    const auto middle = v.begin() + std::ptrdiff_t(m);
    std::nth_element(v.begin(), middle, v.end());
    const double hi = v[m];
    if (v.size() % 2)
        return hi;
    return (*std::max_element(v.begin(), middle) + hi) / 2;
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

/** Builds the Timeline checkpoint by checkpoint, events included (a live view sees them as they come). */
class Assembler {
public:
    Assembler(Timeline& t, const TimelineOptions& o, const StringPool& pool)
        : m_t(t)
        , m_o(o)
        , m_pool(pool)
    {
    }

    void add(size_t index, const CheckpointScan& scan)
    {
        m_seriesOf.resize(index + 1);
        auto& mine = m_seriesOf[index];
        mine.assign(scan.tensors.size(), npos);
        for (size_t k = 0; k < scan.tensors.size(); ++k) {
            const TensorScan& s = scan.tensors[k];
            if (!m_o.filter.empty() && !globMatch(m_o.filter, m_pool.at(s.path)))
                continue;
            size_t series = npos;
            if (s.linkBack > 0 && s.linkBack <= index) {
                const auto& theirs = m_seriesOf[index - s.linkBack];
                if (s.linkTensor < theirs.size())
                    series = theirs[s.linkTensor];
            }
            if (series == npos || m_lastPoint[series] == index) {
                series = m_t.series.size();
                TimelineSeries ts;
                ts.path = m_pool.at(s.path);
                ts.role = s.role;
                ts.paramId = m_pool.at(s.paramId);
                ts.stateName = m_pool.at(s.stateName);
                ts.owner = m_pool.at(s.owner);
                ts.dtype = m_pool.at(s.dtype);
                m_t.series.push_back(std::move(ts));
                m_lastPoint.push_back(npos);
                m_state.emplace_back();
            }
            mine[k] = series;
            m_lastPoint[series] = index;
            TimelinePoint p;
            p.checkpoint = uint32_t(index);
            p.l2 = s.l2;
            p.maxAbs = s.maxAbs;
            p.mean = s.mean;
            p.std = s.std;
            p.nan = s.nan;
            p.inf = s.inf;
            p.zeros = s.zeros;
            p.count = s.count;
            p.updateL2 = s.updateL2;
            p.updateRatio = s.updateRatio;
            m_t.series[series].points.push_back(p);
            events(series, p);
        }
    }

private:
    static constexpr size_t npos = size_t(-1);

    struct History {
        std::vector<double> values;
        bool lastWasSpike = false;
    };
    struct SeriesState {
        bool nanSeen = false, infSeen = false;
        History norm, ratio;
    };

    void events(size_t series, const TimelinePoint& p)
    {
        SeriesState& st = m_state[series];
        const std::string& path = m_t.series[series].path;
        if (p.nan > 0 && !st.nanSeen) {
            st.nanSeen = true;
            m_t.events.push_back({TimelineEventKind::FirstNan, p.checkpoint, series, path,
                std::to_string(p.nan) + " NaN of " + std::to_string(p.count)});
        }
        if (p.inf > 0 && !st.infSeen) {
            st.infSeen = true;
            m_t.events.push_back({TimelineEventKind::FirstInf, p.checkpoint, series, path,
                std::to_string(p.inf) + " Inf of " + std::to_string(p.count)});
        }
        spike(series, p, "l2", p.count > 0 ? std::optional<double>(p.l2) : std::nullopt, st.norm);
        // An optimizer moment's update ratio is noise by nature (the first moment changes sign with the
        // gradient, ratios of 1 to 10 are ordinary): judged for parameters and gradients only.
        if (m_t.series[series].role != TensorRole::Optimizer)
            spike(series, p, "update_ratio", p.updateRatio, st.ratio);
    }

    /**
     * A robust z-score against the series' own recent history: median and 1.4826 MAD of the previous
     * points, in decades (log10): norms and ratios are scales, a jump from 1e-3 to 1e-1 is as large as
     * one from 1 to 100. The spread has a floor of 0.05 decades (12%), so a series that hardly moved
     * is not "spiking" at its first wiggle: at the default threshold of 6 a value must at least double.
     */
    void spike(size_t series, const TimelinePoint& p, const char* metric, std::optional<double> value, History& h)
    {
        if (!value || !std::isfinite(*value) || *value <= 0)
            return;
        const double x = std::log10(*value);
        bool isSpike = false;
        const size_t window = std::max<size_t>(m_o.spikeWindow, 4);
        if (h.values.size() >= 4) {
            const size_t from = h.values.size() > window ? h.values.size() - window : 0;
            std::vector<double> recent(h.values.begin() + long(from), h.values.end());
            const double med = median(recent);
            for (double& v : recent)
                v = std::abs(v - med);
            const double sigma = std::max(1.4826 * median(recent), 0.05);
            const double z = (x - med) / sigma;
            if (z > m_o.spikeThreshold) {
                isSpike = true;
                if (!h.lastWasSpike) // a streak is one event, at its start
                    m_t.events.push_back({TimelineEventKind::Spike, p.checkpoint, series, m_t.series[series].path,
                        std::string(metric) + " " + fmt(*value) + ", " + fmt(std::pow(10.0, x - med)) + "x its median " + fmt(std::pow(10.0, med))
                            + " of the last " + std::to_string(recent.size()) + " checkpoints (robust z " + fmt(z) + ")"});
            }
        }
        h.lastWasSpike = isSpike;
        h.values.push_back(x);
    }

    Timeline& m_t;
    const TimelineOptions& m_o;
    const StringPool& m_pool;
    std::vector<std::vector<size_t>> m_seriesOf; ///< checkpoint -> scan tensor -> series (npos: filtered out)
    std::vector<size_t> m_lastPoint;             ///< series -> the checkpoint of its last point
    std::vector<SeriesState> m_state;
};

/** The statistics of a scanned tensor (scanOf; a merge's tensor split over shares, from its folded chunks). */
void setStats(TensorScan& out, const TensorStats& s)
{
    out.l2 = s.l2;
    out.maxAbs = s.finite > 0 ? std::max(std::abs(s.min), std::abs(s.max)) : 0.0;
    out.mean = s.mean;
    out.std = s.std;
    out.nan = s.nan;
    out.inf = s.inf;
    out.zeros = s.zeros;
    out.count = s.count;
}

TensorScan scanOf(const LoadedTensor& t, const TensorStats& s, StringPool& pool)
{
    TensorScan out;
    out.path = pool.id(t.path);
    out.role = t.role;
    out.paramId = pool.id(t.paramId);
    out.stateName = pool.id(t.stateName);
    out.owner = pool.id(t.owner);
    out.dtype = pool.id(dtypeName(t.dtype));
    out.cid = pool.id(t.cid);
    setStats(out, s);
    return out;
}


using Link = std::optional<std::pair<size_t, size_t>>; ///< (checkpoint, tensor) of a tensor's predecessor

/**
 * One checkpoint being scanned: opened, its tensors paired with their predecessors, its statistics
 * and updates filled in window by window (see computeTimeline), then finished into its scan.
 */
struct PendingScan {
    size_t index = 0;
    std::shared_ptr<LoadedCheckpoint> c;
    std::vector<Link> link;
    std::vector<std::optional<run_detail::UpdatePair>> pair;
    std::vector<bool> sameCid;
    std::vector<std::shared_ptr<LoadedCheckpoint>> keep; ///< predecessors stay mapped until the norms are done

    /** Pairs, and takes the statistics of GradientCheckpoint blocks whose CID did not change from their predecessor. */
    void prepare(const std::vector<CheckpointScan>& scans, CheckpointScan& scan, const std::function<std::shared_ptr<LoadedCheckpoint>(size_t)>& load,
        StringPool& pool)
    {
        scan.tensors.resize(c->tensors.size());
        sameCid.assign(c->tensors.size(), false);
        pair.assign(c->tensors.size(), std::nullopt);
        for (size_t k = 0; k < c->tensors.size(); ++k) {
            const LoadedTensor& t = c->tensors[k];
            if (!link[k])
                continue;
            const auto [pi, pk] = *link[k];
            const TensorScan& before = scans[pi].tensors[pk];
            if (!t.cid.empty() && before.cid == pool.id(t.cid)) { // a predecessor outside the block: its scan is complete
                scan.tensors[k] = before;
                sameCid[k] = true;
                continue;
            }
            auto holder = load(pi);
            if (!holder || pk >= holder->tensors.size())
                continue;
            const LoadedTensor& a = holder->tensors[pk];
            if (a.numel != t.numel || a.bytes.empty() || t.bytes.empty())
                continue;
            if (keep.empty() || keep.back() != holder)
                keep.push_back(holder);
            pair[k] = run_detail::UpdatePair{&a, &t};
        }
    }

    /** Statistics, then updates, of tensors [begin, end): the updates find the values the statistics just read in the caches. */
    void window(size_t begin, size_t end, CheckpointScan& scan, StringPool& pool, const ParallelFor& parallel) const
    {
        end = std::min(end, c->tensors.size());
        std::vector<size_t> toRead, pairOf;
        std::vector<run_detail::UpdatePair> pairs;
        for (size_t k = begin; k < end; ++k) {
            if (sameCid[k])
                continue;
            toRead.push_back(k);
            if (pair[k]) {
                pairs.push_back(*pair[k]);
                pairOf.push_back(k);
            }
        }
        const auto stats = run_detail::statsOf(*c, toRead, parallel);
        for (size_t j = 0; j < toRead.size(); ++j)
            scan.tensors[toRead[j]] = scanOf(c->tensors[toRead[j]], stats[j], pool);
        const auto norms = run_detail::updateNorms(pairs, parallel);
        for (size_t j = 0; j < pairs.size(); ++j)
            scan.tensors[pairOf[j]].updateL2 = norms[j];
    }

    /** Links, update ratios and the files the scan depended on. */
    void finish(const RunCheckpoints& run, const std::vector<CheckpointScan>& scans, CheckpointScan& scan) const
    {
        const size_t i = index;
        for (size_t k = 0; k < c->tensors.size(); ++k) {
            TensorScan& ts = scan.tensors[k];
            ts.linkBack = 0;
            ts.linkTensor = 0;
            ts.updateRatio.reset();
            if (!link[k]) {
                ts.updateL2.reset();
                continue;
            }
            const auto [pi, pk] = *link[k];
            ts.linkBack = uint32_t(i - pi);
            ts.linkTensor = uint32_t(pk);
            if (pi != i - 1 && std::none_of(scan.deps.begin(), scan.deps.end(), [&](const auto& d) { return d.back == i - pi; }))
                scan.deps.push_back({uint32_t(i - pi), run.points[pi].files});
            if (sameCid[k])
                ts.updateL2 = 0.0;
            else if (!pair[k])
                ts.updateL2.reset();
            const TensorScan& before = scans[pi].tensors[pk];
            if (ts.updateL2 && before.l2 > 0)
                ts.updateRatio = *ts.updateL2 / before.l2;
        }
    }
};

} // namespace

/**
 * The engine behind computeTimeline and mergeTimelinePartials: with \a given, the scans of every
 * checkpoint come from there (the merged partials, checked by the caller) instead of the cache file.
 */
static Result<Timeline> timelineOf(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress,
    const ParallelFor& parallel, StringPool& pool, std::unordered_map<std::string, CheckpointScan>* given)
{
    Timeline tl;
    tl.run = run.dir;
    tl.layout = run.layout;
    tl.logs = run.logs;
    tl.warnings = run.warnings;
    const size_t n = run.points.size();
    const std::string runPath = absoluteRunPath(run.dir);
    const std::string cacheDir = options.cacheDir.empty() ? defaultTimelineCacheDir() : options.cacheDir;
    const std::string cacheFile = cacheFileOf(cacheDir, runPath);

    std::unordered_map<std::string, CheckpointScan> cached;
    size_t cachedEntries = 0;
    if (given) {
        cached = std::move(*given);
    } else if (options.useCache) {
        std::error_code ec;
        if (fs::exists(cacheFile, ec)) {
            if (auto bytes = mapFile(cacheFile)) {
                std::string warning;
                cached = decodeCache(std::span<const uint8_t>((*bytes)->data(), (*bytes)->size()), runPath, pool, warning);
                cachedEntries = cached.size();
                if (!warning.empty())
                    tl.warnings.push_back(cacheFile + ": " + warning);
            } else {
                tl.warnings.push_back("the timeline cache cannot be read: " + bytes.error().message());
            }
        }
    }
    // With the cache on, every tensor is scanned (the cache serves any later filter); without it, only the filtered ones.
    const std::string loadFilter = options.useCache ? std::string() : options.filter;

    std::vector<CheckpointScan> scans(n);
    std::vector<std::shared_ptr<LoadedCheckpoint>> loaded(n);
    /// the newest checkpoint holding a tensor of each path, for tensors the previous checkpoint lacks (a pending gradient)
    std::unordered_map<uint32_t, std::pair<size_t, size_t>> holder; // by path (StringPool id)
    std::optional<size_t> prevValid;
    Assembler assembler(tl, options, pool);

    auto load = [&](size_t i) -> std::shared_ptr<LoadedCheckpoint> {
        if (!loaded[i]) {
            // a predecessor mapped again for the update of a new checkpoint: its scan is reused, not counted as read
            auto l = run_detail::loadCheckpoint(run, run.points[i], loadFilter);
            if (!l)
                return nullptr;
            loaded[i] = std::move(*l);
        }
        return loaded[i];
    };
    auto cacheUsable = [&](size_t i, const CheckpointScan& s) { return scanUsable(run, i, s); };

    // Checkpoints to scan go in blocks of up to BlockSize, and a block's tensors in windows of about
    // WindowBytes of its first checkpoint (tensor index ranges, the same for every checkpoint of the
    // block: a run's checkpoints share their layout). Window by window, every checkpoint's statistics
    // and its update against its predecessor are computed in checkpoint order, so the predecessor's
    // window was read just before and is still in the caches: each file is read from memory about
    // once, not twice (as itself, then as the next one's predecessor). GradientCheckpoints go one at a
    // time: an unchanged CID takes its predecessor's finished statistics.
    const size_t blockSize = run.layout == RunLayout::GradientCheckpoints ? 1 : 8;
    constexpr uint64_t WindowBytes = uint64_t(4) << 20;
    auto publish = [&](size_t i, bool fromCache) {
        CheckpointScan& scan = scans[i];
        if (scan.valid) {
            for (size_t k = 0; k < scan.tensors.size(); ++k)
                holder[scan.tensors[k].path] = {i, k};
            prevValid = i;
        }
        TimelineCheckpoint tc;
        tc.point = run.points[i];
        tc.fromCache = fromCache;
        tc.valid = scan.valid;
        tc.error = scan.error;
        tc.tensors = scan.tensors.size();
        tl.checkpoints.push_back(std::move(tc));
        assembler.add(i, scan);
        progress.report(double(i + 1) / double(n));
        if (options.onCheckpoint)
            options.onCheckpoint(i, tl);
    };

    for (size_t i = 0; i < n;) {
        if (progress.cancelled()) {
            tl.cancelled = true;
            break;
        }
        if (auto it = cached.find(run.points[i].files.front().path); it != cached.end() && cacheUsable(i, it->second)) {
            scans[i] = std::move(it->second);
            ++tl.reused;
            publish(i, true);
            ++i;
            continue;
        }
        if (given) // the merge checked every checkpoint before: a scan missing here is a broken promise, not a read
            return std::unexpected(Error{ErrorCode::Invalid, "no partial holds a usable scan of this checkpoint", run.points[i].file});
        // a block: this checkpoint and the ones after it that the cache cannot give either
        size_t end = i + 1;
        while (end < n && end - i < blockSize) {
            auto it = cached.find(run.points[end].files.front().path);
            if (it != cached.end() && cacheUsable(end, it->second))
                break;
            ++end;
        }
        std::vector<PendingScan> pending;
        std::optional<size_t> blockPrev = prevValid;
        auto blockHolder = holder; // paths seen up to each checkpoint, as the one-at-a-time loop would see them
        for (size_t j = i; j < end; ++j) {
            CheckpointScan& scan = scans[j];
            scan.files = run.points[j].files;
            if (j > 0)
                scan.deps.push_back({1, run.points[j - 1].files});
            auto cur = run_detail::loadCheckpoint(run, run.points[j], loadFilter);
            ++tl.read;
            if (!cur) {
                scan.valid = false;
                scan.error = cur.error().message();
                continue;
            }
            scan.valid = true;
            loaded[j] = *cur;
            PendingScan p;
            p.index = j;
            p.c = *cur;
            // predecessors: the previous valid checkpoint as the diff pairs tensors, else the newest holder of the path
            p.link.assign(p.c->tensors.size(), std::nullopt);
            if (blockPrev)
                if (auto prev = load(*blockPrev)) {
                    const auto pairs = run_detail::pairWithPrevious(*p.c, *prev);
                    for (size_t k = 0; k < pairs.size(); ++k)
                        if (pairs[k])
                            p.link[k] = std::pair{*blockPrev, *pairs[k]};
                }
            for (size_t k = 0; k < p.c->tensors.size(); ++k)
                if (!p.link[k])
                    if (auto h = blockHolder.find(pool.id(p.c->tensors[k].path)); h != blockHolder.end())
                        p.link[k] = h->second;
            p.prepare(scans, scan, load, pool);
            for (size_t k = 0; k < p.c->tensors.size(); ++k)
                blockHolder[pool.id(p.c->tensors[k].path)] = {j, k};
            blockPrev = j;
            pending.push_back(std::move(p));
        }
        if (!pending.empty()) {
            const LoadedCheckpoint& first = *pending.front().c;
            std::vector<size_t> bounds{0};
            uint64_t bytes = 0;
            for (size_t k = 0; k < first.tensors.size(); ++k) {
                bytes += first.tensors[k].bytes.size();
                if (bytes >= WindowBytes && k + 1 < first.tensors.size()) {
                    bounds.push_back(k + 1);
                    bytes = 0;
                }
            }
            bounds.push_back(SIZE_MAX); // the last window takes whatever a checkpoint has beyond the first's tensors
            for (size_t w = 0; w + 1 < bounds.size() && !tl.cancelled; ++w) {
                // a block of large checkpoints is many seconds of work: asked to stop, the block is dropped
                if (progress.cancelled()) {
                    tl.cancelled = true;
                    break;
                }
                for (const PendingScan& p : pending)
                    p.window(bounds[w], bounds[w + 1], scans[p.index], pool, parallel);
            }
            if (tl.cancelled)
                break;
            for (const PendingScan& p : pending)
                p.finish(run, scans, scans[p.index]);
        }
        pending.clear();
        for (size_t j = i; j < end; ++j)
            publish(j, false);
        // only the newest valid checkpoint stays mapped: it is the next block's predecessor
        for (size_t j = 0; j < end; ++j)
            if (loaded[j] && (!prevValid || j != *prevValid))
                loaded[j].reset();
        i = end;
    }

    // Nothing read and nothing gone: the cache file already says all of it (a re-run of an unchanged run writes nothing).
    const bool cacheCurrent = tl.read == 0 && cachedEntries == tl.checkpoints.size();
    if (options.useCache && !cacheCurrent) {
        std::vector<const CheckpointScan*> keep;
        keep.reserve(tl.checkpoints.size());
        for (size_t i = 0; i < tl.checkpoints.size(); ++i)
            keep.push_back(&scans[i]);
        std::error_code ec;
        fs::create_directories(cacheDir, ec);
        if (ec) {
            tl.warnings.push_back("the timeline cache directory cannot be made: " + cacheDir + ": " + ec.message());
        } else if (auto w = writeFileAtomic(cacheFile, encodeCache(runPath, keep, pool)); !w) {
            tl.warnings.push_back("the timeline cache cannot be written: " + w.error().message());
        }
    }
    return tl;
}

// ---- shards: partial results and their merge ----------------------------------------------------------
// A partial file: "CKPTPRT2", the run's absolute path (str), shard I and N (u32 each), the run's
// checkpoint count (u64), a string pool (u64 count, str each), then pieces (u64 count): each the
// checkpoint index, its tensor count and the first tensor of the piece (u64 each), the piece's scan as
// the cache stores one (writeScan: file identities, dependencies, valid/error, tensors with their
// statistics, update_l2 and link to the predecessor; update_ratio left to the merge), and one byte per
// tensor (1: an unchanged CID, statistics to be taken from its predecessor), then the piece's tensors
// whose chunks are shared with other shares (u64 count): each its index in the checkpoint, its first
// chunk here and its chunk count (u64 each), the moments of its chunks here (u64 count; count, finite,
// nan, zeros as u64, sum, sumSq, min, max, minAbs, shift, mean, m2 as f64) and, when it has an update,
// the update's sum of squares per chunk (a byte 1 and f64 each; else a byte 0); last, the FNV-1a hash
// of all bytes before it (u64). All little-endian.

namespace {

// NOLINTNEXTLINE(modernize-use-using): only a typedef takes __extension__, which keeps -Wpedantic quiet about __int128
__extension__ typedef unsigned __int128 U128; ///< byte positions times N: no overflow for any run

constexpr char kPartialMagic[8] = {'C', 'K', 'P', 'T', 'P', 'R', 'T', '2'};

/** Where one tensor of a checkpoint spread over several shares goes (SharePlan::tensorShares). */
struct TensorShares {
    uint32_t first = 0, last = 0;   ///< the shares that have a part of it (equal: it goes whole to that one)
    std::vector<uint32_t> chunks;   ///< split tensors (first != last): the share of each stats chunk, non-decreasing
    bool has(uint32_t share) const
    {
        return chunks.empty() ? first == share : std::binary_search(chunks.begin(), chunks.end(), share);
    }
    /** The chunks [begin, end) that go to \a share (split tensors). */
    std::pair<size_t, size_t> chunksOf(uint32_t share) const
    {
        const auto [from, to] = std::equal_range(chunks.begin(), chunks.end(), share);
        return {size_t(from - chunks.begin()), size_t(to - chunks.begin())};
    }
};

/**
 * A tensor whose statistics may be computed chunk by chunk in several shares: raw elements of more
 * than one stats chunk. Not a legacy {value, shape} tensor (its statistics come from the record) nor a
 * GradientCheckpoint block (an unchanged CID takes its predecessor's statistics whole).
 */
bool chunkSplittable(const run_detail::LoadedTensor& t)
{
    // computeStats chunks the bytes by the dtype's size, updateNorms the elements by numel: they must agree
    const uint32_t size = t.dtype == DType::QFloat ? 0 : dtypeSize(t.dtype);
    return size > 0 && t.cid.empty() && t.numel > StatsChunkElements && t.bytes.size() == t.numel * size;
}

/**
 * How N shares divide a run: in G groups of consecutive checkpoints, each group's C shares taking
 * the same column of every checkpoint in it. The checkpoints lie end to end by bytes, and a checkpoint
 * belongs to the group holding its byte midpoint (group g: [g T/G, (g+1) T/G)); group g has shares
 * [g N/G, (g+1) N/G). Within a checkpoint, a column is a range of its tensors by their byte midpoints
 * (column c of C: [c/C, (c+1)/C) of the checkpoint's tensor bytes), a tensor of several stats chunks
 * that straddles columns going chunk by chunk. Why columns: a share computes each checkpoint's
 * update against its predecessor, so it reads the predecessor's part too; within a group that part
 * is its own (the previous checkpoint's same column, still in the caches), and only the group's
 * first checkpoint needs one read from outside: a share reads 1/K more than its own bytes, K the
 * group's checkpoints. Split by checkpoints alone, a share holding part of one checkpoint would read
 * as much again of the previous one.
 * C: enough that the largest checkpoint is in columns of at most T/N bytes (no share is left with
 * more than its part), and more while a column stays at least kMinColumnBytes of an average
 * checkpoint (each share parses every checkpoint of its group: a column must be worth that); G =
 * N / C (floor). Many small checkpoints: C = 1, G = N, a share takes whole checkpoints. Integer
 * arithmetic: every process computes the same plan.
 */
class SharePlan {
public:
    static constexpr uint64_t kMinColumnBytes = uint64_t(256) << 20;

    SharePlan(const RunCheckpoints& run, uint32_t n)
        : m_n(std::max(n, 1u))
    {
        uint64_t largest = 1;
        for (const auto& p : run.points) {
            m_start.push_back(m_total);
            m_width.push_back(std::max<uint64_t>(p.bytes, 1));
            m_total += m_width.back();
            largest = std::max(largest, m_width.back());
        }
        m_total = std::max<uint64_t>(m_total, 1);
        const uint64_t average = m_total / std::max<uint64_t>(run.points.size(), 1);
        const auto fit = uint64_t((static_cast<U128>(largest) * m_n + m_total - 1) / m_total); // ceil(largest / (T/N))
        m_groups = m_n / uint32_t(std::clamp<uint64_t>(std::max(fit, average / kMinColumnBytes), 1, m_n));
    }
    /** The shares checkpoint \a i goes to, first and last (0-based; equal: whole to that share): its group's. */
    std::pair<uint32_t, uint32_t> sharesOf(size_t i) const
    {
        const auto g = uint32_t(std::min<U128>(m_groups - 1, static_cast<U128>(m_start[i] + m_width[i] / 2) * m_groups / m_total));
        return {firstShare(g), firstShare(g + 1) - 1};
    }
    /**
     * Where each tensor of checkpoint \a i goes among sharesOf(i): whole, to the column holding its byte
     * midpoint among the checkpoint's tensors, or (a tensor of several stats chunks that would straddle
     * columns) chunk by chunk, each to the column holding the chunk's midpoint. Non-decreasing along
     * the tensors and their chunks, so every share's part is one contiguous range.
     */
    std::vector<TensorShares> tensorShares(size_t i, const LoadedCheckpoint& c) const
    {
        const auto [first, last] = sharesOf(i);
        const uint64_t columns = uint64_t(last - first) + 1;
        U128 all = 0;
        for (const auto& t : c.tensors)
            all += std::max<uint64_t>(t.bytes.size(), 1);
        all = std::max<U128>(all, 1);
        // the share of the bytes [at, at + size) of the checkpoint's tensors laid end to end
        auto shareOf = [&](U128 at, uint64_t size) {
            return first + uint32_t(std::min<U128>(columns - 1, columns * (2 * at + size) / (2 * all)));
        };
        std::vector<TensorShares> out(c.tensors.size());
        U128 before = 0;
        for (size_t k = 0; k < c.tensors.size(); ++k) {
            const run_detail::LoadedTensor& t = c.tensors[k];
            const uint64_t size = std::max<uint64_t>(t.bytes.size(), 1);
            TensorShares& ts = out[k];
            ts.first = ts.last = shareOf(before, size);
            if (chunkSplittable(t) && shareOf(before, 0) != shareOf(before + size - 1, 0)) {
                const uint64_t elementSize = dtypeSize(t.dtype);
                for (size_t ch = 0; ch < statsChunkCount(t.numel); ++ch) {
                    const uint64_t from = uint64_t(ch) * StatsChunkElements;
                    const U128 offset = static_cast<U128>(from) * elementSize;
                    const uint64_t elements = std::min<uint64_t>(StatsChunkElements, t.numel - from);
                    ts.chunks.push_back(shareOf(before + offset, elements * elementSize));
                }
                ts.first = ts.chunks.front();
                ts.last = ts.chunks.back();
                if (ts.first == ts.last)
                    ts.chunks.clear(); // all its chunks in one share after all: whole
            }
            before += size;
        }
        return out;
    }

private:
    uint32_t firstShare(uint32_t group) const { return uint32_t(uint64_t(group) * m_n / m_groups); }
    uint32_t m_n = 1;
    uint32_t m_groups = 1;
    uint64_t m_total = 0;
    std::vector<uint64_t> m_start, m_width;
};

/**
 * A tensor of a piece whose statistics are shared with other shares: the mergeable moments of its
 * stats chunks [firstChunk, firstChunk + moments.size()) and the update's sums over the same chunks.
 * The merge folds every share's chunks in chunk order, as computeStats and updateNorms fold them.
 */
struct SharedChunks {
    uint64_t tensor = 0;                ///< in the checkpoint
    uint64_t firstChunk = 0;
    uint64_t chunks = 0;                ///< of the whole tensor
    std::vector<StatsMoments> moments;
    std::vector<double> updateSums;     ///< per chunk when the tensor has an update, else empty
};

/** One checkpoint's share of the work: all its tensors or a range of them. */
struct PartialPiece {
    uint64_t index = 0;   ///< the checkpoint
    uint64_t total = 0;   ///< its tensors
    uint64_t first = 0;   ///< the piece holds tensors [first, first + scan.tensors.size())
    CheckpointScan scan;  ///< update_ratio not yet set; unchanged-CID tensors without statistics, shared ones with theirs to be folded
    std::vector<uint8_t> sameCid;
    std::vector<SharedChunks> shared; ///< ascending by tensor: at most the piece's first and last
};

/** FNV-1a over a partial's bytes, stored as its last 8: a flipped bit in a number is found, not merged. */
uint64_t partialChecksum(std::span<const uint8_t> bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (uint8_t c : bytes)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string shardName(uint32_t zeroBased, uint32_t n)
{
    return std::to_string(zeroBased + 1) + "/" + std::to_string(n);
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> timelineShareGroups(const RunCheckpoints& run, uint32_t shares)
{
    const SharePlan plan(run, shares);
    std::vector<std::pair<uint32_t, uint32_t>> out;
    out.reserve(run.points.size());
    for (size_t i = 0; i < run.points.size(); ++i)
        out.push_back(plan.sharesOf(i));
    return out;
}

Result<TimelineShard> parseTimelineShard(std::string_view text)
{
    auto bad = [&] {
        return std::unexpected(Error{ErrorCode::Usage, "expected --shard I/N with 1 <= I <= N (whole numbers), found '" + std::string(text) + "'"});
    };
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos)
        return bad();
    auto number = [](std::string_view t) -> std::optional<uint32_t> {
        uint32_t v = 0;
        const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
            return std::nullopt;
        return v;
    };
    const auto i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
    if (!i || !n || *i == 0 || *i > *n)
        return bad();
    return TimelineShard{*i, *n};
}

namespace {
/// One piece of a share on its way through the statistics and updates (writeTimelinePartial).
struct ShareWork {
    size_t piece = 0;
    std::shared_ptr<LoadedCheckpoint> c;
    size_t a = 0;                         ///< the piece's first tensor
    std::vector<Link> link;               ///< per tensor of the piece
    std::vector<bool> paired;
    std::vector<size_t> toRead, pairOf;   ///< tensor indices, ascending
    std::vector<run_detail::UpdatePair> pairs;
    std::vector<std::optional<run_detail::UpdatePair>> sharedPair; ///< per entry of the piece's `shared`
    std::vector<std::shared_ptr<LoadedCheckpoint>> keep;
};

/**
 * Tensor \a k of the piece is shared with other shares: taken out of the whole-tensor work (toRead,
 * pairs) of \a w, its update pair (if any) kept for its chunks.
 */
void detachShared(ShareWork& w, size_t k)
{
    std::erase(w.toRead, k);
    std::optional<run_detail::UpdatePair> pair;
    if (const auto at = std::find(w.pairOf.begin(), w.pairOf.end(), k); at != w.pairOf.end()) {
        const auto j = at - w.pairOf.begin();
        pair = w.pairs[size_t(j)];
        w.pairs.erase(w.pairs.begin() + j);
        w.pairOf.erase(at);
    }
    w.sharedPair.push_back(pair);
}

/** The moments (and update sums) of the shared tensors of \a w in [from, to): their chunks of this share. */
void computeSharedChunks(const ShareWork& w, PartialPiece& piece, size_t from, size_t to, const ParallelFor& parallel)
{
    for (size_t j = 0; j < piece.shared.size(); ++j) {
        SharedChunks& sc = piece.shared[j];
        if (sc.tensor < from || sc.tensor >= to)
            continue;
        const LoadedTensor& t = w.c->tensors[sc.tensor];
        const size_t chunks = sc.moments.size();
        sc.moments = computeChunkMoments(t.dtype, t.bytes, sc.firstChunk, chunks, parallel);
        if (w.sharedPair[j])
            sc.updateSums = run_detail::updateChunkSums(*w.sharedPair[j], sc.firstChunk, chunks, parallel);
    }
}

/**
 * For the tensors [w.a, end) of checkpoint \a i, linked in w.link: the scan's dependencies on the
 * checkpoints linked to, the unchanged CIDs, the pairs whose update is computed, and what is read.
 */
void pairWithLinks(const RunCheckpoints& run, size_t i, size_t end, ShareWork& w, CheckpointScan& scan, std::vector<uint8_t>& sameCid,
    const std::function<std::shared_ptr<LoadedCheckpoint>(size_t)>& load)
{
    const LoadedCheckpoint& c = *w.c;
    const size_t a = w.a;
    w.paired.assign(end - a, false);
    for (size_t k = a; k < end; ++k) {
        const LoadedTensor& t = c.tensors[k];
        if (const auto& lk = w.link[k - a]) {
            const auto [pi, pk] = *lk;
            const bool known = pi == i - 1 || std::any_of(scan.deps.begin(), scan.deps.end(), [&](const auto& d) { return d.back == i - pi; });
            if (!known)
                scan.deps.push_back({uint32_t(i - pi), run.points[pi].files});
            auto pred = load(pi);
            const LoadedTensor* before = pred && pk < pred->tensors.size() ? &pred->tensors[pk] : nullptr;
            if (before && !t.cid.empty() && before->cid == t.cid) {
                sameCid[k - a] = 1;
            } else if (before && before->numel == t.numel && !before->bytes.empty() && !t.bytes.empty()) {
                w.pairs.push_back({before, &t});
                w.pairOf.push_back(k);
                w.paired[k - a] = true;
                if (w.keep.empty() || w.keep.back() != pred)
                    w.keep.push_back(pred); // mapped until its norms are done
            }
        }
        if (!sameCid[k - a])
            w.toRead.push_back(k);
    }
}

/**
 * The scan of a piece once its statistics and updates are in: the links to the predecessors, the
 * tensors whose statistics the merge fills in (an unchanged CID: its predecessor's; a shared tensor:
 * the shares' chunks folded) with their names only, and no update ratio (it needs the predecessor's l2).
 */
void finishPieceScan(const ShareWork& w, PartialPiece& piece, StringPool& pool)
{
    const size_t i = piece.index;
    std::vector<bool> isShared(piece.scan.tensors.size(), false);
    for (const SharedChunks& sc : piece.shared)
        isShared[sc.tensor - w.a] = true;
    for (size_t j = 0; j < piece.scan.tensors.size(); ++j) {
        TensorScan& ts = piece.scan.tensors[j];
        if (piece.sameCid[j] || isShared[j])
            ts = scanOf(w.c->tensors[w.a + j], TensorStats{}, pool);
        ts.updateRatio.reset();
        if (const auto& lk = w.link[j]) {
            ts.linkBack = uint32_t(i - lk->first);
            ts.linkTensor = uint32_t(lk->second);
            if (!w.paired[j] && !piece.sameCid[j])
                ts.updateL2.reset();
            else if (piece.sameCid[j] || isShared[j])
                ts.updateL2 = 0.0; // unchanged: no step; shared: the square root of the shares' sums, at the merge
        } else {
            ts.linkBack = ts.linkTensor = 0;
            ts.updateL2.reset();
        }
    }
}

/// A checkpoint of a merge so far whose shares are not all in: listed invalid, in the form the engine
/// takes from a cache (its files and its predecessor's, so that the scan is "usable").
CheckpointScan waitingScan(const RunCheckpoints& run, size_t i, std::string why)
{
    CheckpointScan w;
    w.files = run.points[i].files;
    if (i > 0)
        w.deps.push_back({1, run.points[i - 1].files});
    w.valid = false;
    w.error = std::move(why);
    return w;
}

/// The tensors the pieces of one checkpoint hold between them (a shared one once per piece).
uint64_t tensorsIn(const std::vector<std::pair<size_t, PartialPiece>>& pieces)
{
    uint64_t n = 0;
    for (const auto& [source, piece] : pieces)
        n += piece.scan.tensors.size();
    return n;
}

/// An unchanged block takes its predecessor's statistics: with that predecessor still waiting, so does it.
bool unchangedBlockWaits(const CheckpointScan& merged, const std::vector<uint8_t>& sameCid, const std::vector<CheckpointScan>& scans, size_t i)
{
    for (size_t k = 0; k < merged.tensors.size() && k < sameCid.size(); ++k) {
        const TensorScan& ts = merged.tensors[k];
        if (sameCid[k] && ts.linkBack > 0 && ts.linkBack <= i && !scans[i - ts.linkBack].valid)
            return true;
    }
    return false;
}

/**
 * The shared tensors of a piece (encodePartial), each checked against the piece: one of its tensors,
 * ascending, chunks within the tensor, update sums for every chunk exactly when its scan has an update.
 */
void readSharedChunks(Reader& r, PartialPiece& piece)
{
    piece.shared.resize(r.count(33));
    for (SharedChunks& sc : piece.shared) {
        sc.tensor = r.u64();
        sc.firstChunk = r.u64();
        sc.chunks = r.u64();
        sc.moments.resize(r.count(96));
        for (StatsMoments& m : sc.moments) {
            for (uint64_t* v : {&m.count, &m.finite, &m.nan, &m.zeros})
                *v = r.u64();
            for (double* v : {&m.sum, &m.sumSq, &m.min, &m.max, &m.minAbs, &m.shift, &m.mean, &m.m2})
                *v = r.f64();
        }
        if (r.byte()) {
            if (!r.ok || sc.moments.size() > (r.in.size() - r.pos) / 8) {
                r.ok = false;
                return;
            }
            sc.updateSums.resize(sc.moments.size());
            for (double& u : sc.updateSums)
                u = r.f64();
        }
    }
    uint64_t after = piece.first; // the next tensor a shared one may be
    for (const SharedChunks& sc : piece.shared) {
        const uint64_t at = sc.tensor - piece.first;
        if (sc.tensor < after || at >= piece.scan.tensors.size() || sc.moments.empty() || sc.firstChunk > sc.chunks
            || sc.moments.size() > sc.chunks - sc.firstChunk || piece.scan.tensors[at].updateL2.has_value() == sc.updateSums.empty()) {
            r.ok = false;
            return;
        }
        after = sc.tensor + 1;
    }
}

/// Pieces of one checkpoint in tensor order; pieces that begin inside one shared tensor, in chunk order.
std::pair<uint64_t, uint64_t> pieceOrder(const PartialPiece& p)
{
    const bool beginsShared = !p.shared.empty() && p.shared.front().tensor == p.first;
    return {p.first, beginsShared ? p.shared.front().firstChunk : 0};
}

/** What the pieces of one checkpoint make together: nothing missing and no conflict, or one of them said. */
struct Assembly {
    std::string missing;   ///< tensors or chunks in no piece (a merge so far waits for them)
    std::string conflict;  ///< pieces that overlap or disagree (always an error)
};

/**
 * Puts the pieces of one checkpoint (sorted by pieceOrder) together into \a merged and \a sameCid: whole
 * tensors side by side, and a tensor shared by several shares from its chunks, folded in chunk order
 * as computeStats and updateNorms fold a whole tensor's, so that it equals the single-process scan.
 */
Assembly assemblePieces(std::vector<std::pair<size_t, PartialPiece>>& ps, CheckpointScan& merged, std::vector<uint8_t>& sameCid,
    const StringPool& pool)
{
    Assembly out;
    const uint64_t total = ps.front().second.total;
    merged.files = ps.front().second.scan.files;
    merged.valid = true;
    if (PartialPiece& only = ps.front().second; ps.size() == 1 && only.first == 0 && only.scan.tensors.size() == total && only.shared.empty()) {
        // a whole checkpoint in one piece, the common case: its scan is taken over, not copied (fresh
        // memory is page faults, and a run's scans are megabytes)
        merged.deps = std::move(only.scan.deps);
        merged.tensors = std::move(only.scan.tensors);
        sameCid = std::move(only.sameCid);
        return out;
    }
    merged.tensors.reserve(size_t(std::min<uint64_t>(total, tensorsIn(ps))));
    /// the shared tensor whose chunks are being folded
    struct Folding {
        size_t at = 0;             ///< in merged.tensors
        uint64_t tensor = 0, nextChunk = 0, chunks = 0;
        StatsMoments moments;
        double updateSum = 0;
    };
    std::optional<Folding> folding;
    // "tensor 3 of 12 is in no partial", "chunks 4 to 7 of tensor 2 are in no partial"
    const auto absent = [](uint64_t a, uint64_t b, const char* what, const std::string& of) {
        return (a == b ? std::string(what) + " " + std::to_string(a) + " of " + of + " is"
                       : std::string(what) + "s " + std::to_string(a) + " to " + std::to_string(b) + " of " + of + " are")
            + " in no partial";
    };
    const auto tensorName = [&](uint64_t k, const TensorScan& ts) { return "tensor " + std::to_string(k) + " (" + pool.at(ts.path) + ")"; };
    const auto unfinished = [&] {
        return absent(folding->nextChunk, folding->chunks - 1, "chunk", tensorName(folding->tensor, merged.tensors[folding->at]));
    };
    uint64_t next = 0; // tensors [0, next) placed
    for (auto& [source, piece] : ps) {
        if (piece.total != total) {
            out.conflict = "the partials disagree on its tensors";
            return out;
        }
        if (piece.scan.tensors.empty())
            continue; // the first share of a split checkpoint reports it even when no tensor fell to it
        const bool continues = folding && piece.first == folding->tensor;
        if (!continues && piece.first < next) {
            out.conflict = "tensor " + std::to_string(piece.first) + " is in two partials";
            return out;
        }
        if (!continues && piece.first > next) {
            out.missing = absent(next, piece.first - 1, "tensor", std::to_string(total));
            return out;
        }
        for (auto& d : piece.scan.deps)
            if (std::none_of(merged.deps.begin(), merged.deps.end(), [&](const auto& m) { return m.back == d.back; }))
                merged.deps.push_back(std::move(d));
        size_t sharedAt = 0;
        for (size_t j = 0; j < piece.scan.tensors.size(); ++j) {
            const uint64_t k = piece.first + j;
            const TensorScan& ts = piece.scan.tensors[j];
            const bool shared = sharedAt < piece.shared.size() && piece.shared[sharedAt].tensor == k;
            if (folding && folding->tensor != k) {
                out.missing = unfinished();
                return out;
            }
            if (!shared && folding) { // whole here, yet chunks of it came from another piece
                out.conflict = tensorName(k, ts) + " is in two partials";
                return out;
            }
            if (!shared) {
                merged.tensors.push_back(ts);
                sameCid.push_back(piece.sameCid[j]);
                continue;
            }
            const SharedChunks& sc = piece.shared[sharedAt++];
            if (!folding) {
                merged.tensors.push_back(ts);
                sameCid.push_back(0);
                folding = Folding{merged.tensors.size() - 1, k, 0, sc.chunks, {}, 0.0};
            } else if (sc.chunks != folding->chunks || ts.updateL2.has_value() != merged.tensors[folding->at].updateL2.has_value()) {
                out.conflict = "the partials disagree on " + tensorName(k, ts);
                return out;
            }
            if (sc.firstChunk != folding->nextChunk) {
                if (sc.firstChunk < folding->nextChunk)
                    out.conflict = "chunk " + std::to_string(sc.firstChunk) + " of " + tensorName(k, ts) + " is in two partials";
                else
                    out.missing = absent(folding->nextChunk, sc.firstChunk - 1, "chunk", tensorName(k, ts));
                return out;
            }
            for (size_t c = 0; c < sc.moments.size(); ++c) {
                mergeMoments(folding->moments, sc.moments[c]);
                if (!sc.updateSums.empty())
                    folding->updateSum += sc.updateSums[c];
            }
            folding->nextChunk += sc.moments.size();
            if (folding->nextChunk == folding->chunks) {
                TensorScan& whole = merged.tensors[folding->at];
                setStats(whole, statsFromMoments(folding->moments));
                if (whole.updateL2)
                    whole.updateL2 = std::sqrt(folding->updateSum);
                folding.reset();
            }
        }
        next = piece.first + piece.scan.tensors.size();
    }
    if (folding)
        out.missing = unfinished();
    else if (next != total)
        out.missing = absent(next, total - 1, "tensor", std::to_string(total));
    return out;
}

/// The partial file's bytes (CKPTPRT2, see above): header, string table, pieces, checksum.
std::vector<uint8_t> encodePartial(const RunCheckpoints& run, TimelineShard shard, const StringPool& pool, const std::vector<PartialPiece>& pieces)
{
    Writer w;
    w.out.insert(w.out.end(), kPartialMagic, kPartialMagic + 8);
    w.str(absoluteRunPath(run.dir));
    w.u32(shard.index);
    w.u32(shard.count);
    w.u64(run.points.size());
    w.u64(pool.size());
    for (size_t i = 0; i < pool.size(); ++i)
        w.str(pool.at(uint32_t(i)));
    w.u64(pieces.size());
    for (const auto& piece : pieces) {
        w.u64(piece.index);
        w.u64(piece.total);
        w.u64(piece.first);
        writeScan(w, piece.scan);
        w.u64(piece.sameCid.size());
        w.out.insert(w.out.end(), piece.sameCid.begin(), piece.sameCid.end());
        w.u64(piece.shared.size());
        for (const SharedChunks& sc : piece.shared) {
            w.u64(sc.tensor);
            w.u64(sc.firstChunk);
            w.u64(sc.chunks);
            w.u64(sc.moments.size());
            for (const StatsMoments& m : sc.moments) {
                for (uint64_t v : {m.count, m.finite, m.nan, m.zeros})
                    w.u64(v);
                for (double v : {m.sum, m.sumSq, m.min, m.max, m.minAbs, m.shift, m.mean, m.m2})
                    w.f64(v);
            }
            w.out.push_back(sc.updateSums.empty() ? 0 : 1);
            for (double v : sc.updateSums)
                w.f64(v);
        }
    }
    w.u64(partialChecksum(w.out));
    return std::move(w.out);
}
} // namespace

Result<TimelinePartialSummary> writeTimelinePartial(const RunCheckpoints& run, TimelineShard shard, const std::string& out,
    const Progress& progress, const ParallelFor& parallel)
{
    if (shard.index == 0 || shard.index > shard.count)
        return std::unexpected(Error{ErrorCode::Usage, "a shard is I/N with 1 <= I <= N"});
    const uint32_t me = shard.index - 1;
    const size_t n = run.points.size();
    const SharePlan plan(run, shard.count);
    std::optional<size_t> lo, hi; // the checkpoints this share has a part in: contiguous, the plan being monotonic
    for (size_t i = 0; i < n; ++i)
        if (const auto [f, l] = plan.sharesOf(i); f <= me && me <= l) {
            if (!lo)
                lo = i;
            hi = i;
        }

    StringPool pool;
    std::vector<PartialPiece> pieces;
    TimelinePartialSummary summary;
    if (lo) {
        std::unordered_map<size_t, std::shared_ptr<LoadedCheckpoint>> loaded;
        auto load = [&](size_t i) -> std::shared_ptr<LoadedCheckpoint> {
            if (auto it = loaded.find(i); it != loaded.end())
                return it->second;
            auto l = run_detail::loadCheckpoint(run, run.points[i], {});
            if (!l)
                return nullptr;
            return loaded[i] = std::move(*l);
        };
        // What the single-process engine knows when it reaches checkpoint *lo: the previous valid
        // checkpoint and the newest holder of every path. Found by walking back from *lo (headers only),
        // as far as the links need: to the previous valid checkpoint, then on only for a path a tensor
        // of the share needs and no newer checkpoint holds.
        std::optional<size_t> prevValid;
        std::unordered_map<std::string, std::pair<size_t, size_t>> holder;
        size_t walked = *lo; // [walked, *lo) looked at
        auto walkBack = [&](const std::string* path) {
            while (walked > 0 && (!prevValid || (path && !holder.contains(*path)))) {
                const size_t j = --walked;
                auto c = run_detail::loadCheckpoint(run, run.points[j], {});
                if (!c)
                    continue; // invalid: neither a predecessor nor a holder, as in the engine
                if (!prevValid) {
                    prevValid = j;
                    loaded[j] = *c;
                }
                std::unordered_map<std::string_view, size_t> last; // the engine keeps the last tensor of a path
                for (size_t k = 0; k < (*c)->tensors.size(); ++k)
                    last[(*c)->tensors[k].path] = k;
                for (const auto& [p, k] : last)
                    holder.try_emplace(std::string(p), j, k); // a newer holder stays
            }
        };
        walkBack(nullptr);

        // The statistics and updates of up to BlockSize checkpoints go window by window (tensor ranges
        // of about WindowBytes), in checkpoint order, as in the engine: a checkpoint's window is still
        // in the caches when the next one's update reads it as its predecessor.
        constexpr size_t BlockSize = 8;
        constexpr uint64_t WindowBytes = uint64_t(4) << 20;
        std::vector<ShareWork> work;
        auto runBlock = [&] {
            if (work.empty())
                return;
            std::vector<size_t> bounds{0};
            uint64_t bytes = 0;
            const auto& first = work.front().c->tensors;
            for (size_t k = 0; k < first.size(); ++k) {
                bytes += first[k].bytes.size();
                if (bytes >= WindowBytes && k + 1 < first.size()) {
                    bounds.push_back(k + 1);
                    bytes = 0;
                }
            }
            bounds.push_back(SIZE_MAX);
            for (size_t b = 0; b + 1 < bounds.size(); ++b)
                for (const ShareWork& w : work) {
                    CheckpointScan& scan = pieces[w.piece].scan;
                    const auto from = std::lower_bound(w.toRead.begin(), w.toRead.end(), bounds[b]);
                    const auto to = std::lower_bound(w.toRead.begin(), w.toRead.end(), bounds[b + 1]);
                    const std::vector<size_t> indices(from, to);
                    const auto stats = run_detail::statsOf(*w.c, indices, parallel);
                    for (size_t j = 0; j < indices.size(); ++j)
                        scan.tensors[indices[j] - w.a] = scanOf(w.c->tensors[indices[j]], stats[j], pool);
                    const size_t p0 = size_t(std::lower_bound(w.pairOf.begin(), w.pairOf.end(), bounds[b]) - w.pairOf.begin());
                    const size_t p1 = size_t(std::lower_bound(w.pairOf.begin(), w.pairOf.end(), bounds[b + 1]) - w.pairOf.begin());
                    const std::vector<run_detail::UpdatePair> pairs(w.pairs.begin() + std::ptrdiff_t(p0), w.pairs.begin() + std::ptrdiff_t(p1));
                    const auto norms = run_detail::updateNorms(pairs, parallel);
                    for (size_t j = 0; j < pairs.size(); ++j)
                        scan.tensors[w.pairOf[p0 + j] - w.a].updateL2 = norms[j];
                    computeSharedChunks(w, pieces[w.piece], bounds[b], bounds[b + 1], parallel);
                }
            for (const ShareWork& w : work)
                finishPieceScan(w, pieces[w.piece], pool);
            work.clear();
        };

        for (size_t i = *lo; i <= *hi; ++i) {
            if (progress.cancelled())
                return std::unexpected(Error{ErrorCode::Cancelled, "cancelled"});
            const auto [f, l] = plan.sharesOf(i);
            const bool mine = f <= me && me <= l;
            auto cur = run_detail::loadCheckpoint(run, run.points[i], {});
            if (!cur) {
                if (mine && me == f) { // one share reports an invalid checkpoint
                    PartialPiece piece;
                    piece.index = i;
                    piece.scan.files = run.points[i].files;
                    if (i > 0)
                        piece.scan.deps.push_back({1, run.points[i - 1].files});
                    piece.scan.error = cur.error().message();
                    pieces.push_back(std::move(piece));
                }
                continue;
            }
            const LoadedCheckpoint& c = **cur;
            size_t a = 0, b = c.tensors.size();
            std::vector<TensorShares> shares;
            if (f != l) { // the tensors (or chunks of them) that fall to this share: one contiguous range
                shares = plan.tensorShares(i, c);
                const auto has = [&](const TensorShares& t) { return t.has(me); };
                a = size_t(std::find_if(shares.begin(), shares.end(), has) - shares.begin());
                b = size_t(std::find_if_not(shares.begin() + std::ptrdiff_t(a), shares.end(), has) - shares.begin());
                if (a == b)
                    a = b = 0;
            }
            if (mine && (a < b || me == f)) {
                PartialPiece piece;
                piece.index = i;
                piece.total = c.tensors.size();
                piece.first = a;
                CheckpointScan& scan = piece.scan;
                scan.files = run.points[i].files;
                scan.valid = true;
                if (i > 0)
                    scan.deps.push_back({1, run.points[i - 1].files});
                // links exactly as the engine makes them: the previous valid checkpoint as the diff pairs, else the path's newest holder
                std::vector<Link> link(b - a);
                if (prevValid)
                    if (auto prev = load(*prevValid)) {
                        const auto pairs = run_detail::pairWithPrevious(c, *prev);
                        for (size_t k = a; k < b; ++k)
                            if (pairs[k])
                                link[k - a] = std::pair{*prevValid, *pairs[k]};
                    }
                for (size_t k = a; k < b; ++k)
                    if (!link[k - a]) {
                        const std::string& path = c.tensors[k].path;
                        if (!holder.contains(path))
                            walkBack(&path);
                        if (auto h = holder.find(path); h != holder.end())
                            link[k - a] = h->second;
                    }
                piece.sameCid.assign(b - a, 0);
                scan.tensors.resize(b - a);
                ShareWork w;
                w.piece = pieces.size();
                w.c = *cur;
                w.a = a;
                w.link = std::move(link);
                pairWithLinks(run, i, b, w, scan, piece.sameCid, load);
                for (size_t k = a; k < b; ++k)
                    if (!shares.empty() && !shares[k].chunks.empty()) {
                        const auto [from, to] = shares[k].chunksOf(me);
                        SharedChunks sc;
                        sc.tensor = k;
                        sc.firstChunk = from;
                        sc.chunks = shares[k].chunks.size();
                        sc.moments.resize(to - from); // computed window by window with the others
                        piece.shared.push_back(std::move(sc));
                        detachShared(w, k);
                        ++summary.sharedTensors;
                    }
                work.push_back(std::move(w));
                summary.tensors += b - a;
                if (f != l)
                    ++summary.split;
                pieces.push_back(std::move(piece));
            }
            // the engine's state after checkpoint i, for the next one
            prevValid = i;
            for (size_t k = 0; k < c.tensors.size(); ++k)
                holder[c.tensors[k].path] = {i, k};
            loaded.clear();
            loaded[i] = *cur;
            if (work.size() >= BlockSize)
                runBlock();
            progress.report(double(i - *lo + 1) / double(*hi - *lo + 1));
        }
        runBlock();
    }
    summary.checkpoints = pieces.size();
    for (const auto& piece : pieces) {
        if (!summary.first || piece.index < *summary.first)
            summary.first = piece.index;
        if (!summary.last || piece.index > *summary.last)
            summary.last = piece.index;
    }
    if (auto written = writeFileAtomic(out, encodePartial(run, shard, pool, pieces)); !written)
        return std::unexpected(written.error());
    return summary;
}

Result<Timeline> mergeTimelinePartials(const RunCheckpoints& run, const std::vector<std::string>& partials, const TimelineOptions& options,
    const Progress& progress)
{
    if (partials.empty())
        return std::unexpected(Error{ErrorCode::Usage, "a merge needs the partials of every shard"});
    const std::string runPath = absoluteRunPath(run.dir);
    const size_t n = run.points.size();
    StringPool pool;
    struct Source {
        std::string file;
        uint32_t shard = 0; // 0-based
    };
    std::vector<Source> sources;
    uint32_t count = 0;
    std::vector<std::vector<std::pair<size_t, PartialPiece>>> byCheckpoint(n); // (source, piece)
    for (const std::string& file : partials) {
        auto bad = [&](const std::string& what) { return std::unexpected(Error{ErrorCode::Invalid, what, file}); };
        auto mapped = mapFile(file);
        if (!mapped)
            return std::unexpected(Error(mapped.error()).withFile(file));
        const std::span<const uint8_t> whole((*mapped)->data(), (*mapped)->size());
        if (whole.size() < 8 || std::memcmp(whole.data(), kPartialMagic, 8) != 0)
            return bad("not a timeline partial (the output of ckpt timeline RUN --shard I/N --partial OUT, format CKPTPRT2)");
        if (whole.size() < 16 || Reader{whole, whole.size() - 8}.u64() != partialChecksum(whole.first(whole.size() - 8)))
            return bad("the partial is damaged or truncated (its checksum does not match its " + std::to_string(whole.size()) + " bytes)");
        const std::span<const uint8_t> bytes = whole.first(whole.size() - 8);
        Reader r{bytes, 8};
        const std::string theirRun = r.str();
        const uint32_t index = r.u32(), shards = r.u32();
        const uint64_t checkpoints = r.u64();
        if (!r.ok || shards == 0 || index == 0 || index > shards)
            return bad("the partial is damaged or truncated (its header)");
        if (theirRun != runPath)
            return bad(std::string("a partial of the run ").append(theirRun).append(", not of ").append(runPath));
        if (count && shards != count)
            return bad("shard " + shardName(index - 1, shards) + " of another split: " + sources.front().file + " is shard "
                + shardName(sources.front().shard, count));
        count = shards;
        for (const auto& s : sources)
            if (s.shard == index - 1)
                return bad("shard " + shardName(index - 1, shards) + " given twice: " + s.file + " is that shard too");
        if (checkpoints != n)
            return bad("made when the run had " + std::to_string(checkpoints) + " checkpoints; it has " + std::to_string(n) + " now");
        const StringTable table(r, pool);
        auto ref = [&] { return table.ref(r); };
        const uint64_t pieces = r.count(24);
        const size_t source = sources.size();
        sources.push_back({file, index - 1});
        for (uint64_t p = 0; p < pieces && r.ok; ++p) {
            PartialPiece piece;
            piece.index = r.u64();
            piece.total = r.u64();
            piece.first = r.u64();
            piece.scan = readScan(r, ref);
            piece.sameCid.resize(r.count(1));
            for (auto& b : piece.sameCid)
                b = r.byte();
            readSharedChunks(r, piece);
            if (!r.ok || piece.index >= n || piece.sameCid.size() != piece.scan.tensors.size() || piece.first > piece.total
                || piece.scan.tensors.size() > piece.total - piece.first || (!piece.scan.valid && !piece.scan.tensors.empty())) {
                r.ok = false;
                break;
            }
            if (!scanUsable(run, piece.index, piece.scan))
                return bad("checkpoint " + run.points[piece.index].file + " (or one it is compared with) changed since this partial was made");
            byCheckpoint[piece.index].emplace_back(source, std::move(piece));
        }
        if (!r.ok || r.pos != bytes.size())
            return bad("the partial is damaged or truncated (at byte " + std::to_string(r.pos) + ")");
    }

    const SharePlan plan(run, count);
    auto expected = [&](size_t i) {
        const auto [f, l] = plan.sharesOf(i);
        std::string who;
        for (uint32_t s = f; s <= l; ++s) {
            const auto given = std::find_if(sources.begin(), sources.end(), [&](const Source& src) { return src.shard == s; });
            who += (who.empty() ? "" : ", ") + std::string("shard ") + shardName(s, count)
                + (given == sources.end() ? " (no partial given)" : " (" + given->file + ")");
        }
        return who;
    };
    std::vector<CheckpointScan> scans(n);
    std::vector<std::vector<uint8_t>> sameCid(n);
    std::vector<size_t> sourceOf(n, 0);
    // So far (shares still running): a checkpoint not yet complete is listed as waiting (waitingScan).
    auto waiting = [&](size_t i) { scans[i] = waitingScan(run, i, "waiting for " + expected(i)); };
    std::unordered_map<uint32_t, std::pair<size_t, size_t>> lastHolder; // partialsSoFar: path -> (checkpoint, tensor) of the newest scan in
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && options.partialsSoFar && scans[i - 1].valid)
            for (size_t k = 0; k < scans[i - 1].tensors.size(); ++k)
                lastHolder[scans[i - 1].tensors[k].path] = {i - 1, k};
        auto& ps = byCheckpoint[i];
        const std::string& file = run.points[i].file;
        if (ps.empty() && options.partialsSoFar) {
            waiting(i);
            continue;
        }
        if (ps.empty())
            return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + " (index " + std::to_string(i) + ") is in no partial: "
                + expected(i) + " should have produced it"});
        std::sort(ps.begin(), ps.end(), [](const auto& x, const auto& y) { return pieceOrder(x.second) < pieceOrder(y.second); });
        sourceOf[i] = ps.front().first;
        if (std::any_of(ps.begin(), ps.end(), [](const auto& p) { return !p.second.scan.valid; })) {
            if (ps.size() != 1)
                return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": the partials disagree on whether it can be read ("
                    + expected(i) + ")"});
            scans[i] = std::move(ps.front().second.scan);
            continue;
        }
        CheckpointScan& merged = scans[i];
        const Assembly assembly = assemblePieces(ps, merged, sameCid[i], pool);
        if (!assembly.conflict.empty())
            return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": " + assembly.conflict + " (" + expected(i) + ")"});
        if (!assembly.missing.empty()) {
            if (!options.partialsSoFar)
                return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": " + assembly.missing + " (" + expected(i) + ")"});
            waiting(i); // a split checkpoint with a share still missing is waiting as a whole
            continue;
        }
        // an unchanged block takes its predecessor's statistics: with the predecessor still waiting, so does it
        if (options.partialsSoFar && unchangedBlockWaits(merged, sameCid[i], scans, i)) {
            waiting(i);
            continue;
        }
        // what PendingScan::finish does once the predecessors' statistics are known
        for (size_t k = 0; k < merged.tensors.size(); ++k) {
            TensorScan& ts = merged.tensors[k];
            if (ts.linkBack == 0)
                continue;
            const size_t pi = i - std::min<size_t>(ts.linkBack, i);
            if (options.partialsSoFar && ts.linkBack <= i && !scans[pi].valid) {
                // Its predecessor is still waiting: no ratio yet, and the series goes on from the newest
                // checkpoint in that holds the path (else the heatmap would show it as a new row).
                ts.updateRatio.reset();
                ts.linkBack = 0;
                ts.linkTensor = 0;
                if (auto h = lastHolder.find(ts.path); h != lastHolder.end()) {
                    ts.linkBack = uint32_t(i - h->second.first);
                    ts.linkTensor = uint32_t(h->second.second);
                }
                continue;
            }
            if (ts.linkBack > i || !scans[pi].valid || ts.linkTensor >= scans[pi].tensors.size())
                return std::unexpected(Error{ErrorCode::Invalid, "the partial is damaged (checkpoint " + file + " links to a tensor that is not there)",
                    sources[ps.front().first].file});
            const TensorScan& before = scans[pi].tensors[ts.linkTensor];
            if (sameCid[i][k]) {
                const uint32_t back = ts.linkBack, tensor = ts.linkTensor;
                ts = before;
                ts.linkBack = back;
                ts.linkTensor = tensor;
                ts.updateL2 = 0.0;
            }
            ts.updateRatio.reset();
            if (ts.updateL2 && before.l2 > 0)
                ts.updateRatio = *ts.updateL2 / before.l2;
        }
    }
    std::unordered_map<std::string, CheckpointScan> given;
    for (size_t i = 0; i < n; ++i)
        given.emplace(run.points[i].files.front().path, std::move(scans[i]));
    if (options.partialsSoFar) {
        TimelineOptions soFar = options;
        soFar.useCache = false; // waiting checkpoints must never reach the cache
        return timelineOf(run, soFar, progress, {}, pool, &given);
    }
    return timelineOf(run, options, progress, {}, pool, &given);
}

Result<Timeline> computeTimeline(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress, const ParallelFor& parallel)
{
    StringPool pool;
    return timelineOf(run, options, progress, parallel, pool, nullptr);
}

} // namespace ckpt
