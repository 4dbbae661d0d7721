// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The merge of cluster shares' partials into the run's timeline (mergeTimelinePartials,
// core/run/timeline.h): every partial read and checked, each checkpoint's pieces put together, the
// links finished, and the scans handed to the engine as if from its cache.
#include "core/io/bytes.h"
#include "core/run/timelinepartial.h"
#include "core/run/timelinescan.h"
#include "core/run/timelineshares.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

namespace ckpt {

namespace run_detail {

namespace {

std::string shardName(uint32_t zeroBased, uint32_t n)
{
    return std::to_string(zeroBased + 1) + "/" + std::to_string(n);
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

/**
 * mergeTimelinePartials in phases: every partial read and checked against the run and the others
 * (read), then checkpoint by checkpoint its pieces put together (assemble): whole, waiting for a share
 * (a merge so far), or an error naming the checkpoint and the shares that should have produced it.
 */
class Merger {
public:
    Merger(const RunCheckpoints& run, const TimelineOptions& options)
        : m_run(run)
        , m_options(options)
        , m_runPath(absoluteRunPath(run.dir))
        , m_byCheckpoint(run.points.size())
        , m_scans(run.points.size())
        , m_sameCid(run.points.size())
    {
    }

    /** Reads the partial \a file into the pieces of its checkpoints. */
    Result<void> read(const std::string& file)
    {
        const size_t n = m_run.points.size();
        auto bad = [&](const std::string& what) { return std::unexpected(Error{ErrorCode::Invalid, what, file}); };
        auto mapped = mapFile(file);
        if (!mapped)
            return std::unexpected(Error(mapped.error()).withFile(file));
        const std::span<const uint8_t> whole((*mapped)->data(), (*mapped)->size());
        if (whole.size() < 8 || std::memcmp(whole.data(), kPartialMagic, 8) != 0)
            return bad("not a timeline partial (the output of ckpt timeline RUN --shard I/N --partial OUT, format CKPTPRT2)");
        if (whole.size() < 16 || ByteReader{whole, whole.size() - 8}.u64() != partialChecksum(whole.first(whole.size() - 8)))
            return bad("the partial is damaged or truncated (its checksum does not match its " + std::to_string(whole.size()) + " bytes)");
        const std::span<const uint8_t> bytes = whole.first(whole.size() - 8);
        ByteReader r{bytes, 8};
        const std::string theirRun = r.str();
        const uint32_t index = r.u32(), shards = r.u32();
        const uint64_t checkpoints = r.u64();
        if (!r.ok || shards == 0 || index == 0 || index > shards)
            return bad("the partial is damaged or truncated (its header)");
        if (theirRun != m_runPath)
            return bad(std::string("a partial of the run ").append(theirRun).append(", not of ").append(m_runPath));
        if (m_count && shards != m_count)
            return bad("shard " + shardName(index - 1, shards) + " of another split: " + m_sources.front().file + " is shard "
                + shardName(m_sources.front().shard, m_count));
        m_count = shards;
        for (const auto& s : m_sources)
            if (s.shard == index - 1)
                return bad("shard " + shardName(index - 1, shards) + " given twice: " + s.file + " is that shard too");
        if (checkpoints != n)
            return bad("made when the run had " + std::to_string(checkpoints) + " checkpoints; it has " + std::to_string(n) + " now");
        const StringTable table(r, m_pool);
        const uint64_t pieces = r.count(24);
        const size_t source = m_sources.size();
        m_sources.push_back({file, index - 1});
        for (uint64_t p = 0; p < pieces && r.ok; ++p) {
            PartialPiece piece = readPartialPiece(r, table, n);
            if (!r.ok)
                break;
            if (!scanUsable(m_run, piece.index, piece.scan))
                return bad("checkpoint " + m_run.points[piece.index].file + " (or one it is compared with) changed since this partial was made");
            m_byCheckpoint[piece.index].emplace_back(source, std::move(piece));
        }
        if (!r.ok || r.pos != bytes.size())
            return bad("the partial is damaged or truncated (at byte " + std::to_string(r.pos) + ")");
        return {};
    }

    /** Puts every checkpoint together, in order: its predecessors' statistics are known by then. */
    Result<void> assemble()
    {
        m_plan.emplace(m_run, m_count);
        for (size_t i = 0; i < m_run.points.size(); ++i) {
            if (i > 0 && m_options.partialsSoFar && m_scans[i - 1].valid)
                for (size_t k = 0; k < m_scans[i - 1].tensors.size(); ++k)
                    m_lastHolder[m_scans[i - 1].tensors[k].path] = {i - 1, k};
            if (auto done = assembleCheckpoint(i); !done)
                return done;
        }
        return {};
    }

    /** The merged scans, handed to the engine as its cache would hand them. */
    Result<Timeline> timeline(const Progress& progress)
    {
        std::unordered_map<std::string, CheckpointScan> given;
        for (size_t i = 0; i < m_run.points.size(); ++i)
            given.emplace(m_run.points[i].files.front().path, std::move(m_scans[i]));
        if (m_options.partialsSoFar) {
            TimelineOptions soFar = m_options;
            soFar.useCache = false; // waiting checkpoints must never reach the cache
            return timelineOf(m_run, soFar, progress, {}, m_pool, &given);
        }
        return timelineOf(m_run, m_options, progress, {}, m_pool, &given);
    }

private:
    struct Source {
        std::string file;
        uint32_t shard = 0; // 0-based
    };

    /** "shard 2/3 (FILE), shard 3/3 (no partial given)": the shares checkpoint \a i goes to. */
    std::string expected(size_t i) const
    {
        const auto [f, l] = m_plan->sharesOf(i);
        std::string who;
        for (uint32_t s = f; s <= l; ++s) {
            const auto given = std::find_if(m_sources.begin(), m_sources.end(), [&](const Source& src) { return src.shard == s; });
            who += (who.empty() ? "" : ", ") + std::string("shard ") + shardName(s, m_count)
                + (given == m_sources.end() ? " (no partial given)" : " (" + given->file + ")");
        }
        return who;
    }

    /** So far (shares still running): a checkpoint not yet complete is listed as waiting (waitingScan). */
    void waiting(size_t i) { m_scans[i] = waitingScan(m_run, i, "waiting for " + expected(i)); }

    Result<void> assembleCheckpoint(size_t i)
    {
        auto& ps = m_byCheckpoint[i];
        const std::string& file = m_run.points[i].file;
        if (ps.empty() && m_options.partialsSoFar) {
            waiting(i);
            return {};
        }
        if (ps.empty())
            return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + " (index " + std::to_string(i) + ") is in no partial: "
                + expected(i) + " should have produced it"});
        std::sort(ps.begin(), ps.end(), [](const auto& x, const auto& y) { return pieceOrder(x.second) < pieceOrder(y.second); });
        if (std::any_of(ps.begin(), ps.end(), [](const auto& p) { return !p.second.scan.valid; })) {
            if (ps.size() != 1)
                return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": the partials disagree on whether it can be read ("
                    + expected(i) + ")"});
            m_scans[i] = std::move(ps.front().second.scan);
            return {};
        }
        CheckpointScan& merged = m_scans[i];
        const Assembly assembly = assemblePieces(ps, merged, m_sameCid[i], m_pool);
        if (!assembly.conflict.empty())
            return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": " + assembly.conflict + " (" + expected(i) + ")"});
        if (!assembly.missing.empty()) {
            if (!m_options.partialsSoFar)
                return std::unexpected(Error{ErrorCode::Invalid, "checkpoint " + file + ": " + assembly.missing + " (" + expected(i) + ")"});
            waiting(i); // a split checkpoint with a share still missing is waiting as a whole
            return {};
        }
        // an unchanged block takes its predecessor's statistics: with the predecessor still waiting, so does it
        if (m_options.partialsSoFar && unchangedBlockWaits(merged, m_sameCid[i], m_scans, i)) {
            waiting(i);
            return {};
        }
        return finishLinks(i, m_sources[ps.front().first].file);
    }

    /** What PendingScan::finish does once the predecessors' statistics are known; \a source names the partial. */
    Result<void> finishLinks(size_t i, const std::string& source)
    {
        CheckpointScan& merged = m_scans[i];
        for (size_t k = 0; k < merged.tensors.size(); ++k) {
            TensorScan& ts = merged.tensors[k];
            if (ts.linkBack == 0)
                continue;
            const size_t pi = i - std::min<size_t>(ts.linkBack, i);
            if (m_options.partialsSoFar && ts.linkBack <= i && !m_scans[pi].valid) {
                // Its predecessor is still waiting: no ratio yet, and the series goes on from the newest
                // checkpoint in that holds the path (else the heatmap would show it as a new row).
                ts.updateRatio.reset();
                ts.linkBack = 0;
                ts.linkTensor = 0;
                if (auto h = m_lastHolder.find(ts.path); h != m_lastHolder.end()) {
                    ts.linkBack = uint32_t(i - h->second.first);
                    ts.linkTensor = uint32_t(h->second.second);
                }
                continue;
            }
            if (ts.linkBack > i || !m_scans[pi].valid || ts.linkTensor >= m_scans[pi].tensors.size())
                return std::unexpected(Error{ErrorCode::Invalid,
                    "the partial is damaged (checkpoint " + m_run.points[i].file + " links to a tensor that is not there)", source});
            const TensorScan& before = m_scans[pi].tensors[ts.linkTensor];
            if (m_sameCid[i][k]) {
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
        return {};
    }

    const RunCheckpoints& m_run;
    const TimelineOptions& m_options;
    const std::string m_runPath;
    StringPool m_pool;
    std::vector<Source> m_sources;
    uint32_t m_count = 0;
    std::vector<std::vector<std::pair<size_t, PartialPiece>>> m_byCheckpoint; // (source, piece)
    std::optional<SharePlan> m_plan;
    std::vector<CheckpointScan> m_scans;
    std::vector<std::vector<uint8_t>> m_sameCid;
    std::unordered_map<uint32_t, std::pair<size_t, size_t>> m_lastHolder; // partialsSoFar: path -> (checkpoint, tensor) of the newest scan in
};

} // namespace

} // namespace run_detail

Result<Timeline> mergeTimelinePartials(const RunCheckpoints& run, const std::vector<std::string>& partials, const TimelineOptions& options,
    const Progress& progress)
{
    if (partials.empty())
        return std::unexpected(Error{ErrorCode::Usage, "a merge needs the partials of every shard"});
    run_detail::Merger merger(run, options);
    for (const std::string& file : partials)
        if (auto read = merger.read(file); !read)
            return std::unexpected(read.error());
    if (auto assembled = merger.assemble(); !assembled)
        return std::unexpected(assembled.error());
    return merger.timeline(progress);
}

} // namespace ckpt
