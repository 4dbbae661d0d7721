// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's scan (core/run/timelinescan.h): computeTimeline, checkpoint by checkpoint through the
// cache, block by block and window by window through the files.
#include "core/run/timelinescan.h"

#include "core/io/bytes.h"
#include "core/run/timelineseries.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>

namespace fs = std::filesystem;

namespace ckpt {

namespace run_detail {

std::vector<size_t> windowBounds(const std::vector<LoadedTensor>& tensors)
{
    std::vector<size_t> bounds{0};
    uint64_t bytes = 0;
    for (size_t k = 0; k < tensors.size(); ++k) {
        bytes += tensors[k].bytes.size();
        if (bytes >= ScanWindowBytes && k + 1 < tensors.size()) {
            bounds.push_back(k + 1);
            bytes = 0;
        }
    }
    bounds.push_back(SIZE_MAX); // the last window takes whatever a checkpoint has beyond the first's tensors
    return bounds;
}

void setStats(TensorScan& out, const TensorStats& s)
{
    const double maxAbs = s.finite > 0 ? std::max(std::abs(s.min), std::abs(s.max)) : 0.0;
    // the update norms are left as they are: the scan fills them apart, from the pair of checkpoints
    static_cast<PointStats&>(out) = {.l2 = s.l2,
        .maxAbs = maxAbs,
        .mean = s.mean,
        .std = s.std,
        .nan = s.nan,
        .inf = s.inf,
        .zeros = s.zeros,
        .count = s.count,
        .updateL2 = out.updateL2,
        .updateRatio = out.updateRatio};
}

TensorScan scanOf(const LoadedTensor& t, const TensorStats& s, StringPool& pool)
{
    TensorScan out;
    out.path = pool.id(t.path);
    out.role = t.role;
    out.paramId = pool.id(t.paramId);
    out.stateName = pool.id(t.stateName);
    out.owner = pool.id(t.owner);
    out.dtype = pool.id(storedDTypeName(t.dtype, t.boolStore));
    out.cid = pool.id(t.cid);
    setStats(out, s);
    return out;
}

namespace {

/**
 * One checkpoint being scanned: opened, its tensors paired with their predecessors, its statistics
 * and updates filled in window by window (see computeTimeline), then finished into its scan.
 */
struct PendingScan {
    size_t index = 0;
    std::shared_ptr<LoadedCheckpoint> c;
    std::vector<Link> link;
    std::vector<std::optional<UpdatePair>> pair;
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
            pair[k] = UpdatePair{&a, &t};
        }
    }

    /** Statistics, then updates, of tensors [begin, end): the updates find the values the statistics just read in the caches. */
    void window(size_t begin, size_t end, CheckpointScan& scan, StringPool& pool, const ParallelFor& parallel) const
    {
        end = std::min(end, c->tensors.size());
        std::vector<size_t> toRead, pairOf;
        std::vector<UpdatePair> pairs;
        for (size_t k = begin; k < end; ++k) {
            if (sameCid[k])
                continue;
            toRead.push_back(k);
            if (pair[k]) {
                pairs.push_back(*pair[k]);
                pairOf.push_back(k);
            }
        }
        const auto stats = statsOf(*c, toRead, parallel);
        for (size_t j = 0; j < toRead.size(); ++j)
            scan.tensors[toRead[j]] = scanOf(c->tensors[toRead[j]], stats[j], pool);
        const auto norms = updateNorms(pairs, parallel);
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

/**
 * computeTimeline's run through the checkpoints, in phases: the cache read, then checkpoint by
 * checkpoint either a usable cached scan or a block of checkpoints opened, linked to their
 * predecessors and computed window by window, each published to the timeline in order; the cache
 * written last.
 */
class ScanEngine {
public:
    ScanEngine(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress, const ParallelFor& parallel,
        StringPool& pool)
        : m_run(run)
        , m_options(options)
        , m_progress(progress)
        , m_parallel(parallel)
        , m_pool(pool)
        , m_runPath(absoluteRunPath(run.dir))
        , m_cacheDir(options.cacheDir.empty() ? defaultTimelineCacheDir() : options.cacheDir)
        , m_cacheFile(cacheFileOf(m_cacheDir, m_runPath))
        // With the cache on, every tensor is scanned (the cache serves any later filter); without it, only the filtered ones.
        , m_loadFilter(options.useCache ? std::string() : options.filter)
        , m_scans(run.points.size())
        , m_loaded(run.points.size())
        , m_assembler(m_tl, options, pool)
    {
        m_tl.run = run.dir;
        m_tl.layout = run.layout;
        m_tl.logs = run.logs;
        m_tl.warnings = run.warnings;
    }

    Result<Timeline> run(std::unordered_map<std::string, CheckpointScan>* given)
    {
        if (given)
            m_cached = std::move(*given);
        else if (m_options.useCache)
            readCache();
        const size_t n = m_run.points.size();
        for (size_t i = 0; i < n;) {
            if (m_progress.cancelled()) {
                m_tl.cancelled = true;
                break;
            }
            if (CheckpointScan* cached = usableCached(i)) {
                m_scans[i] = std::move(*cached);
                ++m_tl.reused;
                publish(i, true);
                ++i;
                continue;
            }
            if (given) // the merge checked every checkpoint before: a scan missing here is a broken promise, not a read
                return std::unexpected(Error{ErrorCode::Invalid, "no partial holds a usable scan of this checkpoint", m_run.points[i].file});
            const size_t end = blockEnd(i);
            if (!scanBlock(i, end))
                break;
            for (size_t j = i; j < end; ++j)
                publish(j, false);
            // only the newest valid checkpoint stays mapped: it is the next block's predecessor
            for (size_t j = 0; j < end; ++j)
                if (m_loaded[j] && (!m_prevValid || j != *m_prevValid))
                    m_loaded[j].reset();
            i = end;
        }
        writeCache();
        return std::move(m_tl);
    }

private:
    void readCache()
    {
        std::error_code ec;
        if (!fs::exists(m_cacheFile, ec))
            return;
        if (auto bytes = mapFile(m_cacheFile)) {
            std::string warning;
            m_cached = decodeCache(std::span<const uint8_t>((*bytes)->data(), (*bytes)->size()), m_runPath, m_pool, warning);
            m_cachedEntries = m_cached.size();
            if (!warning.empty())
                m_tl.warnings.push_back(m_cacheFile + ": " + warning);
        } else {
            m_tl.warnings.push_back("the timeline cache cannot be read: " + bytes.error().message());
        }
    }

    /** Nothing read and nothing gone: the cache file already says all of it (a re-run of an unchanged run writes nothing). */
    void writeCache()
    {
        const bool cacheCurrent = m_tl.read == 0 && m_cachedEntries == m_tl.checkpoints.size();
        if (!m_options.useCache || cacheCurrent)
            return;
        std::vector<const CheckpointScan*> keep;
        keep.reserve(m_tl.checkpoints.size());
        for (size_t i = 0; i < m_tl.checkpoints.size(); ++i)
            keep.push_back(&m_scans[i]);
        std::error_code ec;
        fs::create_directories(m_cacheDir, ec);
        if (ec) {
            m_tl.warnings.push_back("the timeline cache directory cannot be made: " + m_cacheDir + ": " + ec.message());
        } else if (auto w = writeFileAtomic(m_cacheFile, encodeCache(m_runPath, keep, m_pool)); !w) {
            m_tl.warnings.push_back("the timeline cache cannot be written: " + w.error().message());
        }
    }

    /** The cached scan of checkpoint \a i if it still describes it, else null. */
    CheckpointScan* usableCached(size_t i)
    {
        auto it = m_cached.find(m_run.points[i].files.front().path);
        return it != m_cached.end() && scanUsable(m_run, i, it->second) ? &it->second : nullptr;
    }

    std::shared_ptr<LoadedCheckpoint> load(size_t i)
    {
        if (!m_loaded[i]) {
            // a predecessor mapped again for the update of a new checkpoint: its scan is reused, not counted as read
            auto l = loadCheckpoint(m_run, m_run.points[i], m_loadFilter);
            if (!l)
                return nullptr;
            m_loaded[i] = std::move(*l);
        }
        return m_loaded[i];
    }

    void publish(size_t i, bool fromCache)
    {
        CheckpointScan& scan = m_scans[i];
        if (scan.valid) {
            for (size_t k = 0; k < scan.tensors.size(); ++k)
                m_holder[scan.tensors[k].path] = {i, k};
            m_prevValid = i;
        }
        TimelineCheckpoint tc;
        tc.point = m_run.points[i];
        tc.fromCache = fromCache;
        tc.valid = scan.valid;
        tc.error = scan.error;
        tc.tensors = scan.tensors.size();
        m_tl.checkpoints.push_back(std::move(tc));
        m_assembler.add(i, scan);
        m_progress.report(double(i + 1) / double(m_run.points.size()));
        if (m_options.onCheckpoint)
            m_options.onCheckpoint(i, m_tl);
    }

    /**
     * Checkpoints to scan go in blocks of up to ScanBlockSize, and a block's tensors in windows of
     * about ScanWindowBytes of its first checkpoint (tensor index ranges, the same for every checkpoint
     * of the block: a run's checkpoints share their layout). Window by window, every checkpoint's
     * statistics and its update against its predecessor are computed in checkpoint order, so the
     * predecessor's window was read just before and is still in the caches: each file is read from
     * memory about once, not twice (as itself, then as the next one's predecessor). GradientCheckpoints
     * go one at a time: an unchanged CID takes its predecessor's finished statistics. The block from
     * \a i: it and the checkpoints after it that the cache cannot give either.
     */
    size_t blockEnd(size_t i)
    {
        const size_t blockSize = m_run.layout == RunLayout::GradientCheckpoints ? 1 : ScanBlockSize;
        size_t end = i + 1;
        while (end < m_run.points.size() && end - i < blockSize && !usableCached(end))
            ++end;
        return end;
    }

    /** Scans checkpoints [i, end) into m_scans; false when asked to stop (the block is dropped). */
    bool scanBlock(size_t i, size_t end)
    {
        std::vector<PendingScan> pending = openBlock(i, end);
        if (pending.empty())
            return true;
        const std::vector<size_t> bounds = windowBounds(pending.front().c->tensors);
        for (size_t w = 0; w + 1 < bounds.size(); ++w) {
            // a block of large checkpoints is many seconds of work: asked to stop, the block is dropped
            if (m_progress.cancelled()) {
                m_tl.cancelled = true;
                return false;
            }
            for (const PendingScan& p : pending)
                p.window(bounds[w], bounds[w + 1], m_scans[p.index], m_pool, m_parallel);
        }
        for (const PendingScan& p : pending)
            p.finish(m_run, m_scans, m_scans[p.index]);
        return true;
    }

    /** Opens checkpoints [i, end) and pairs their tensors with their predecessors; the valid ones pending. */
    std::vector<PendingScan> openBlock(size_t i, size_t end)
    {
        std::vector<PendingScan> pending;
        std::optional<size_t> blockPrev = m_prevValid;
        auto blockHolder = m_holder; // paths seen up to each checkpoint, as the one-at-a-time loop would see them
        const auto loader = [this](size_t k) { return load(k); };
        for (size_t j = i; j < end; ++j) {
            CheckpointScan& scan = m_scans[j];
            scan.files = m_run.points[j].files;
            if (j > 0)
                scan.deps.push_back({1, m_run.points[j - 1].files});
            auto cur = loadCheckpoint(m_run, m_run.points[j], m_loadFilter);
            ++m_tl.read;
            if (!cur) {
                scan.valid = false;
                scan.error = cur.error().message();
                continue;
            }
            scan.valid = true;
            m_loaded[j] = *cur;
            PendingScan p;
            p.index = j;
            p.c = *cur;
            link(p, blockPrev, blockHolder);
            p.prepare(m_scans, scan, loader, m_pool);
            for (size_t k = 0; k < p.c->tensors.size(); ++k)
                blockHolder[m_pool.id(p.c->tensors[k].path)] = {j, k};
            blockPrev = j;
            pending.push_back(std::move(p));
        }
        return pending;
    }

    /** Predecessors: the previous valid checkpoint as the diff pairs tensors, else the newest holder of the path. */
    void link(PendingScan& p, std::optional<size_t> prevValid, const std::unordered_map<uint32_t, std::pair<size_t, size_t>>& holder)
    {
        p.link.assign(p.c->tensors.size(), std::nullopt);
        if (prevValid)
            if (auto prev = load(*prevValid)) {
                const auto pairs = pairWithPrevious(*p.c, *prev);
                for (size_t k = 0; k < pairs.size(); ++k)
                    if (pairs[k])
                        p.link[k] = std::pair{*prevValid, *pairs[k]};
            }
        for (size_t k = 0; k < p.c->tensors.size(); ++k)
            if (!p.link[k])
                if (auto h = holder.find(m_pool.id(p.c->tensors[k].path)); h != holder.end())
                    p.link[k] = h->second;
    }

    const RunCheckpoints& m_run;
    const TimelineOptions& m_options;
    const Progress& m_progress;
    const ParallelFor& m_parallel;
    StringPool& m_pool;
    const std::string m_runPath, m_cacheDir, m_cacheFile, m_loadFilter;
    Timeline m_tl;
    std::unordered_map<std::string, CheckpointScan> m_cached;
    size_t m_cachedEntries = 0;
    std::vector<CheckpointScan> m_scans;
    std::vector<std::shared_ptr<LoadedCheckpoint>> m_loaded;
    /// the newest checkpoint holding a tensor of each path, for tensors the previous checkpoint lacks (a pending gradient)
    std::unordered_map<uint32_t, std::pair<size_t, size_t>> m_holder; // by path (StringPool id)
    std::optional<size_t> m_prevValid;
    Assembler m_assembler;
};

} // namespace

Result<Timeline> timelineOf(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress,
    const ParallelFor& parallel, StringPool& pool, std::unordered_map<std::string, CheckpointScan>* given)
{
    return ScanEngine(run, options, progress, parallel, pool).run(given);
}

} // namespace run_detail

Result<Timeline> computeTimeline(const RunCheckpoints& run, const TimelineOptions& options, const Progress& progress, const ParallelFor& parallel)
{
    run_detail::StringPool pool;
    return run_detail::timelineOf(run, options, progress, parallel, pool, nullptr);
}

} // namespace ckpt
