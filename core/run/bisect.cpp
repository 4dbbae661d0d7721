// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Bisect a run to its first bad checkpoint (core/run/timeline.h).
#include "core/run/loadedcheckpoint.h"
#include "core/run/timeline.h"
#include "core/util/charconv.h"

#include <cmath>

namespace ckpt {

using run_detail::LoadedCheckpoint;

Result<BisectPredicate> parseBisectPredicate(std::string_view text)
{
    BisectPredicate p;
    p.text = std::string(text);
    auto usage = [&](const std::string& what) {
        return std::unexpected(Error{ErrorCode::Usage, "--until '" + std::string(text) + "': " + what, ""});
    };
    if (text == "nan")
        p.kind = BisectPredicate::Kind::Nan;
    else if (text == "inf")
        p.kind = BisectPredicate::Kind::Inf;
    else if (text == "nonfinite")
        p.kind = BisectPredicate::Kind::Nonfinite;
    else {
        const size_t gt = text.find('>');
        if (gt == std::string_view::npos)
            return usage("expected nan, inf, nonfinite, max_abs>X or update_ratio>X");
        const std::string_view name = text.substr(0, gt), number = text.substr(gt + 1);
        if (name == "max_abs")
            p.kind = BisectPredicate::Kind::MaxAbs;
        else if (name == "update_ratio")
            p.kind = BisectPredicate::Kind::UpdateRatio;
        else
            return usage("expected max_abs or update_ratio before '>', found '" + std::string(name) + "'");
        double x = 0;
        auto r = fromCharsDouble(number.data(), number.data() + number.size(), x);
        if (number.empty() || r.ec != std::errc() || r.ptr != number.data() + number.size() || !std::isfinite(x))
            return usage("expected a finite number after '>', found '" + std::string(number) + "'");
        p.threshold = x;
    }
    return p;
}

namespace {

/** The tensors of \a c for which the predicate holds (\a prev: the predecessor, for update_ratio). */
std::vector<std::string> badTensors(const LoadedCheckpoint& c, const LoadedCheckpoint* prev, const BisectPredicate& p, const ParallelFor& parallel)
{
    std::vector<std::string> bad;
    if (p.kind == BisectPredicate::Kind::UpdateRatio) { // the update and the predecessor's norm: no statistics of c
        if (!prev)
            return bad; // the first checkpoint has no update
        const auto partner = run_detail::pairWithPrevious(c, *prev);
        std::vector<run_detail::UpdatePair> pairs;
        std::vector<size_t> of;
        std::vector<size_t> prevIdx;
        for (size_t k = 0; k < partner.size(); ++k) {
            if (!partner[k])
                continue;
            const auto& a = prev->tensors[*partner[k]];
            const auto& b = c.tensors[k];
            if (a.numel != b.numel || a.bytes.empty() || b.bytes.empty())
                continue;
            pairs.push_back({&a, &b});
            of.push_back(k);
            prevIdx.push_back(*partner[k]);
        }
        const auto prevStats = run_detail::statsOf(*prev, prevIdx, parallel);
        const auto norms = run_detail::updateNorms(pairs, parallel);
        for (size_t j = 0; j < pairs.size(); ++j)
            if (prevStats[j].l2 > 0 && norms[j] / prevStats[j].l2 > p.threshold)
                bad.push_back(c.tensors[of[j]].path);
        return bad;
    }
    std::vector<size_t> all(c.tensors.size());
    for (size_t k = 0; k < all.size(); ++k)
        all[k] = k;
    const auto stats = run_detail::statsOf(c, all, parallel);
    for (size_t k = 0; k < c.tensors.size(); ++k) {
        const TensorStats& s = stats[k];
        const double maxAbs = s.finite > 0 ? std::max(std::abs(s.min), std::abs(s.max)) : 0.0;
        bool hit = false;
        switch (p.kind) {
        case BisectPredicate::Kind::Nan: hit = s.nan > 0; break;
        case BisectPredicate::Kind::Inf: hit = s.inf > 0; break;
        case BisectPredicate::Kind::Nonfinite: hit = s.nan + s.inf > 0; break;
        case BisectPredicate::Kind::MaxAbs: hit = maxAbs > p.threshold; break;
        case BisectPredicate::Kind::UpdateRatio: break;
        }
        if (hit)
            bad.push_back(c.tensors[k].path);
    }
    return bad;
}

} // namespace

Result<BisectResult> bisectRun(const RunCheckpoints& run, const BisectPredicate& predicate, const BisectOptions& options,
    const Progress& progress, const ParallelFor& parallel)
{
    BisectResult r;
    r.run = run;
    r.predicate = predicate;
    const size_t n = run.points.size();
    std::vector<int> state(n, 0); // 0 unknown, 1 good, 2 bad, 3 unreadable
    std::vector<std::vector<std::string>> paths(n);

    auto open = [&](size_t i) -> std::shared_ptr<LoadedCheckpoint> {
        r.opened.push_back(i);
        auto l = run_detail::loadCheckpoint(run, run.points[i], options.filter);
        if (!l) {
            r.warnings.push_back(l.error().message());
            return nullptr;
        }
        return *l;
    };
    /// 1 good, 2 bad, 3 unreadable
    auto evaluate = [&](size_t i) {
        if (state[i])
            return state[i];
        auto c = open(i);
        if (!c)
            return state[i] = 3;
        std::shared_ptr<LoadedCheckpoint> prev;
        if (predicate.kind == BisectPredicate::Kind::UpdateRatio) {
            // the predecessor: the nearest earlier checkpoint that can be read
            for (size_t j = i; j-- > 0;) {
                if (state[j] != 3) {
                    prev = open(j);
                    if (prev)
                        break;
                }
                state[j] = 3;
            }
        }
        paths[i] = badTensors(*c, prev.get(), predicate, parallel);
        return state[i] = paths[i].empty() ? 1 : 2;
    };

    if (options.scan) {
        for (size_t i = 0; i < n; ++i) {
            if (progress.cancelled()) {
                r.cancelled = true;
                break;
            }
            const int s = evaluate(i);
            progress.report(double(i + 1) / double(n));
            if (s == 1)
                r.lastGood = i;
            if (s == 2) {
                r.firstBad = i;
                break;
            }
        }
    } else {
        // Invariant: every readable checkpoint at or before lo is good, the one at hi is bad (n: none found yet).
        long lo = -1, hi = long(n);
        while (hi - lo > 1) {
            if (progress.cancelled()) {
                r.cancelled = true;
                break;
            }
            const long mid = lo + (hi - lo) / 2;
            // the readable checkpoint nearest mid inside (lo, hi): unreadable ones are passed over
            std::optional<long> probe;
            for (long d = 0; !probe && (mid + d < hi || mid - d > lo); ++d) {
                for (long c : {mid + d, mid - d})
                    if (!probe && c > lo && c < hi && evaluate(size_t(c)) != 3)
                        probe = c;
            }
            if (!probe)
                break; // nothing readable left between them
            if (state[size_t(*probe)] == 2)
                hi = *probe;
            else
                lo = *probe;
            progress.report(1.0 - double(hi - lo) / double(n + 1));
        }
        if (hi < long(n))
            r.firstBad = size_t(hi);
        if (lo >= 0)
            r.lastGood = size_t(lo);
    }
    if (r.firstBad)
        r.badPaths = paths[*r.firstBad];
    return r;
}

} // namespace ckpt
