// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Cluster shares of a run's timeline (core/run/timelineshares.h): the plan that divides the work, and
// one share's part of it computed and written as a partial (writeTimelinePartial).
#include "core/run/timelineshares.h"

#include "core/io/bytes.h"
#include "core/run/timelinepartial.h"
#include "core/run/timelinescan.h"

#include <charconv>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace ckpt {

namespace run_detail {

bool chunkSplittable(const LoadedTensor& t)
{
    // computeStats chunks the bytes by the dtype's size, updateNorms the elements by numel: they must agree
    const uint32_t size = dtypeSize(t.dtype, t.boolStore);
    return size > 0 && t.cid.empty() && t.numel > StatsChunkElements && t.bytes.size() == t.numel * size;
}

SharePlan::SharePlan(const RunCheckpoints& run, uint32_t n)
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

std::pair<uint32_t, uint32_t> SharePlan::sharesOf(size_t i) const
{
    const auto g = uint32_t(std::min<U128>(m_groups - 1, static_cast<U128>(m_start[i] + m_width[i] / 2) * m_groups / m_total));
    return {firstShare(g), firstShare(g + 1) - 1};
}

std::vector<TensorShares> SharePlan::tensorShares(size_t i, const LoadedCheckpoint& c) const
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
        const LoadedTensor& t = c.tensors[k];
        const uint64_t size = std::max<uint64_t>(t.bytes.size(), 1);
        TensorShares& ts = out[k];
        ts.first = ts.last = shareOf(before, size);
        if (chunkSplittable(t) && shareOf(before, 0) != shareOf(before + size - 1, 0)) {
            const uint64_t elementSize = dtypeSize(t.dtype, t.boolStore);
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

namespace {

/// One piece of a share on its way through the statistics and updates (writeTimelinePartial).
struct ShareWork {
    size_t piece = 0;
    std::shared_ptr<LoadedCheckpoint> c;
    size_t a = 0;                         ///< the piece's first tensor
    std::vector<Link> link;               ///< per tensor of the piece
    std::vector<bool> paired;
    std::vector<size_t> toRead, pairOf;   ///< tensor indices, ascending
    std::vector<UpdatePair> pairs;
    std::vector<std::optional<UpdatePair>> sharedPair; ///< per entry of the piece's `shared`
    std::vector<std::shared_ptr<LoadedCheckpoint>> keep;
};

/**
 * Tensor \a k of the piece is shared with other shares: taken out of the whole-tensor work (toRead,
 * pairs) of \a w, its update pair (if any) kept for its chunks.
 */
void detachShared(ShareWork& w, size_t k)
{
    std::erase(w.toRead, k);
    std::optional<UpdatePair> pair;
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
        sc.moments = computeChunkMoments(t.elementType(), t.bytes, sc.firstChunk, chunks, parallel);
        if (w.sharedPair[j])
            sc.updateSums = updateChunkSums(*w.sharedPair[j], sc.firstChunk, chunks, parallel);
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

/**
 * One share's part of the timeline work (writeTimelinePartial), in phases: the checkpoints it has a
 * part in; the engine's state before the first of them (walkBack); checkpoint by checkpoint its piece
 * (the tensors or chunks that fall to it, linked as the engine links them); the statistics and updates
 * of every ScanBlockSize pieces window by window (runBlock); the summary.
 */
class ShareWriter {
public:
    ShareWriter(const RunCheckpoints& run, TimelineShard shard, const Progress& progress, const ParallelFor& parallel)
        : m_run(run)
        , m_progress(progress)
        , m_parallel(parallel)
        , m_me(shard.index - 1)
        , m_plan(run, shard.count)
    {
    }

    /** Computes the share's pieces; false when asked to stop. */
    bool compute()
    {
        std::optional<size_t> lo, hi; // the checkpoints this share has a part in: contiguous, the plan being monotonic
        for (size_t i = 0; i < m_run.points.size(); ++i)
            if (const auto [f, l] = m_plan.sharesOf(i); f <= m_me && m_me <= l) {
                if (!lo)
                    lo = i;
                hi = i;
            }
        if (!lo)
            return true;
        m_walked = *lo;
        walkBack(nullptr);
        for (size_t i = *lo; i <= *hi; ++i) {
            if (m_progress.cancelled())
                return false;
            take(i);
            if (m_work.size() >= ScanBlockSize)
                runBlock();
            m_progress.report(double(i - *lo + 1) / double(*hi - *lo + 1));
        }
        runBlock();
        return true;
    }

    TimelinePartialSummary summary()
    {
        m_summary.checkpoints = m_pieces.size();
        for (const auto& piece : m_pieces) {
            if (!m_summary.first || piece.index < *m_summary.first)
                m_summary.first = piece.index;
            if (!m_summary.last || piece.index > *m_summary.last)
                m_summary.last = piece.index;
        }
        return m_summary;
    }

    std::vector<uint8_t> bytes(TimelineShard shard) const { return encodePartial(m_run, shard, m_pool, m_pieces); }

private:
    std::shared_ptr<LoadedCheckpoint> load(size_t i)
    {
        if (auto it = m_loaded.find(i); it != m_loaded.end())
            return it->second;
        auto l = loadCheckpoint(m_run, m_run.points[i], {});
        if (!l)
            return nullptr;
        return m_loaded[i] = std::move(*l);
    }

    /**
     * What the single-process engine knows when it reaches the share's first checkpoint: the previous
     * valid checkpoint and the newest holder of every path. Found by walking back from there (headers
     * only), as far as the links need: to the previous valid checkpoint, then on only for a path
     * (\a path) a tensor of the share needs and no newer checkpoint holds.
     */
    void walkBack(const std::string* path)
    {
        while (m_walked > 0 && (!m_prevValid || (path && !m_holder.contains(*path)))) {
            const size_t j = --m_walked;
            auto c = loadCheckpoint(m_run, m_run.points[j], {});
            if (!c)
                continue; // invalid: neither a predecessor nor a holder, as in the engine
            if (!m_prevValid) {
                m_prevValid = j;
                m_loaded[j] = *c;
            }
            std::unordered_map<std::string_view, size_t> last; // the engine keeps the last tensor of a path
            for (size_t k = 0; k < (*c)->tensors.size(); ++k)
                last[(*c)->tensors[k].path] = k;
            for (const auto& [p, k] : last)
                m_holder.try_emplace(std::string(p), j, k); // a newer holder stays
        }
    }

    /** Checkpoint \a i: its piece if the share has one, then the engine's state after it, for the next one. */
    void take(size_t i)
    {
        const auto [f, l] = m_plan.sharesOf(i);
        const bool mine = f <= m_me && m_me <= l;
        auto cur = loadCheckpoint(m_run, m_run.points[i], {});
        if (!cur) {
            if (mine && m_me == f) // one share reports an invalid checkpoint
                addInvalid(i, cur.error().message());
            return;
        }
        const LoadedCheckpoint& c = **cur;
        size_t a = 0, b = c.tensors.size();
        std::vector<TensorShares> shares;
        if (f != l) { // the tensors (or chunks of them) that fall to this share: one contiguous range
            shares = m_plan.tensorShares(i, c);
            const auto has = [&](const TensorShares& t) { return t.has(m_me); };
            a = size_t(std::find_if(shares.begin(), shares.end(), has) - shares.begin());
            b = size_t(std::find_if_not(shares.begin() + std::ptrdiff_t(a), shares.end(), has) - shares.begin());
            if (a == b)
                a = b = 0;
        }
        if (mine && (a < b || m_me == f))
            addPiece(i, *cur, a, b, shares, f != l);
        m_prevValid = i;
        for (size_t k = 0; k < c.tensors.size(); ++k)
            m_holder[c.tensors[k].path] = {i, k};
        m_loaded.clear();
        m_loaded[i] = *cur;
    }

    void addInvalid(size_t i, std::string error)
    {
        PartialPiece piece;
        piece.index = i;
        piece.scan.files = m_run.points[i].files;
        if (i > 0)
            piece.scan.deps.push_back({1, m_run.points[i - 1].files});
        piece.scan.error = std::move(error);
        m_pieces.push_back(std::move(piece));
    }

    /** The piece of tensors [a, b) of checkpoint \a i, its work queued for runBlock. */
    void addPiece(size_t i, const std::shared_ptr<LoadedCheckpoint>& cur, size_t a, size_t b, const std::vector<TensorShares>& shares, bool split)
    {
        PartialPiece piece;
        piece.index = i;
        piece.total = cur->tensors.size();
        piece.first = a;
        CheckpointScan& scan = piece.scan;
        scan.files = m_run.points[i].files;
        scan.valid = true;
        if (i > 0)
            scan.deps.push_back({1, m_run.points[i - 1].files});
        piece.sameCid.assign(b - a, 0);
        scan.tensors.resize(b - a);
        ShareWork w;
        w.piece = m_pieces.size();
        w.c = cur;
        w.a = a;
        w.link = linksOf(*cur, a, b);
        pairWithLinks(m_run, i, b, w, scan, piece.sameCid, [this](size_t k) { return load(k); });
        for (size_t k = a; k < b; ++k)
            if (!shares.empty() && !shares[k].chunks.empty()) {
                const auto [from, to] = shares[k].chunksOf(m_me);
                SharedChunks sc;
                sc.tensor = k;
                sc.firstChunk = from;
                sc.chunks = shares[k].chunks.size();
                sc.moments.resize(to - from); // computed window by window with the others
                piece.shared.push_back(std::move(sc));
                detachShared(w, k);
                ++m_summary.sharedTensors;
            }
        m_work.push_back(std::move(w));
        m_summary.tensors += b - a;
        if (split)
            ++m_summary.split;
        m_pieces.push_back(std::move(piece));
    }

    /** Links exactly as the engine makes them: the previous valid checkpoint as the diff pairs, else the path's newest holder. */
    std::vector<Link> linksOf(const LoadedCheckpoint& c, size_t a, size_t b)
    {
        std::vector<Link> link(b - a);
        if (m_prevValid)
            if (auto prev = load(*m_prevValid)) {
                const auto pairs = pairWithPrevious(c, *prev);
                for (size_t k = a; k < b; ++k)
                    if (pairs[k])
                        link[k - a] = std::pair{*m_prevValid, *pairs[k]};
            }
        for (size_t k = a; k < b; ++k)
            if (!link[k - a]) {
                const std::string& path = c.tensors[k].path;
                if (!m_holder.contains(path))
                    walkBack(&path);
                if (auto h = m_holder.find(path); h != m_holder.end())
                    link[k - a] = h->second;
            }
        return link;
    }

    /**
     * The statistics and updates of the queued pieces go window by window (windowBounds), in
     * checkpoint order, as in the engine: a checkpoint's window is still in the caches when the next
     * one's update reads it as its predecessor.
     */
    void runBlock()
    {
        if (m_work.empty())
            return;
        const std::vector<size_t> bounds = windowBounds(m_work.front().c->tensors);
        for (size_t b = 0; b + 1 < bounds.size(); ++b)
            for (const ShareWork& w : m_work)
                window(w, bounds[b], bounds[b + 1]);
        for (const ShareWork& w : m_work)
            finishPieceScan(w, m_pieces[w.piece], m_pool);
        m_work.clear();
    }

    /** The statistics, updates and shared chunks of the tensors [from, to) of one queued piece. */
    void window(const ShareWork& w, size_t from, size_t to)
    {
        CheckpointScan& scan = m_pieces[w.piece].scan;
        const auto r0 = std::lower_bound(w.toRead.begin(), w.toRead.end(), from);
        const auto r1 = std::lower_bound(w.toRead.begin(), w.toRead.end(), to);
        const std::vector<size_t> indices(r0, r1);
        const auto stats = statsOf(*w.c, indices, m_parallel);
        for (size_t j = 0; j < indices.size(); ++j)
            scan.tensors[indices[j] - w.a] = scanOf(w.c->tensors[indices[j]], stats[j], m_pool);
        const size_t p0 = size_t(std::lower_bound(w.pairOf.begin(), w.pairOf.end(), from) - w.pairOf.begin());
        const size_t p1 = size_t(std::lower_bound(w.pairOf.begin(), w.pairOf.end(), to) - w.pairOf.begin());
        const std::vector<UpdatePair> pairs(w.pairs.begin() + std::ptrdiff_t(p0), w.pairs.begin() + std::ptrdiff_t(p1));
        const auto norms = updateNorms(pairs, m_parallel);
        for (size_t j = 0; j < pairs.size(); ++j)
            scan.tensors[w.pairOf[p0 + j] - w.a].updateL2 = norms[j];
        computeSharedChunks(w, m_pieces[w.piece], from, to, m_parallel);
    }

    const RunCheckpoints& m_run;
    const Progress& m_progress;
    const ParallelFor& m_parallel;
    const uint32_t m_me;
    const SharePlan m_plan;
    StringPool m_pool;
    std::vector<PartialPiece> m_pieces;
    TimelinePartialSummary m_summary;
    std::unordered_map<size_t, std::shared_ptr<LoadedCheckpoint>> m_loaded;
    std::optional<size_t> m_prevValid;
    std::unordered_map<std::string, std::pair<size_t, size_t>> m_holder;
    size_t m_walked = 0; ///< [m_walked, first checkpoint) looked at
    std::vector<ShareWork> m_work;
};

} // namespace

} // namespace run_detail

std::vector<std::pair<uint32_t, uint32_t>> timelineShareGroups(const RunCheckpoints& run, uint32_t shares)
{
    const run_detail::SharePlan plan(run, shares);
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

Result<TimelinePartialSummary> writeTimelinePartial(const RunCheckpoints& run, TimelineShard shard, const std::string& out,
    const Progress& progress, const ParallelFor& parallel)
{
    if (shard.index == 0 || shard.index > shard.count)
        return std::unexpected(Error{ErrorCode::Usage, "a shard is I/N with 1 <= I <= N"});
    run_detail::ShareWriter writer(run, shard, progress, parallel);
    if (!writer.compute())
        return std::unexpected(Error{ErrorCode::Cancelled, "cancelled"});
    const TimelinePartialSummary summary = writer.summary();
    if (auto written = writeFileAtomic(out, writer.bytes(shard)); !written)
        return std::unexpected(written.error());
    return summary;
}

} // namespace ckpt
