// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// A cluster share's partial, CKPTPRT2 (core/run/timelinepartial.h): written and read back.
#include "core/run/timelinepartial.h"

namespace ckpt::run_detail {

namespace {

/**
 * The shared tensors of a piece (encodePartial), each checked against the piece: one of its tensors,
 * ascending, chunks within the tensor, update sums for every chunk exactly when its scan has an update.
 */
void readSharedChunks(ByteReader& r, PartialPiece& piece)
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

} // namespace

uint64_t partialChecksum(std::span<const uint8_t> bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (uint8_t c : bytes)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

std::vector<uint8_t> encodePartial(const RunCheckpoints& run, TimelineShard shard, const StringPool& pool, const std::vector<PartialPiece>& pieces)
{
    ByteWriter w;
    w.magic(kPartialMagic);
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

PartialPiece readPartialPiece(ByteReader& r, const StringTable& table, size_t checkpoints)
{
    auto ref = [&] { return table.ref(r); };
    PartialPiece piece;
    piece.index = r.u64();
    piece.total = r.u64();
    piece.first = r.u64();
    piece.scan = readScan(r, ref);
    piece.sameCid.resize(r.count(1));
    for (auto& b : piece.sameCid)
        b = r.byte();
    readSharedChunks(r, piece);
    if (!r.ok || piece.index >= checkpoints || piece.sameCid.size() != piece.scan.tensors.size() || piece.first > piece.total
        || piece.scan.tensors.size() > piece.total - piece.first || (!piece.scan.valid && !piece.scan.tensors.empty()))
        r.ok = false;
    return piece;
}

} // namespace ckpt::run_detail
