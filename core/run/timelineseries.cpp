// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's series and events (core/run/timelineseries.h).
#include "core/run/timelineseries.h"

#include "core/util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ckpt {

std::string_view timelineEventKindName(TimelineEventKind k)
{
    switch (k) {
    case TimelineEventKind::FirstNan: return "first_nan";
    case TimelineEventKind::FirstInf: return "first_inf";
    case TimelineEventKind::Spike: return "spike";
    }
    return "spike";
}

namespace run_detail {

namespace {

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

/** The series a scanned tensor starts: its names, out of the scan's string pool. */
SeriesIdentity identityOf(const TensorScan& s, const StringPool& pool)
{
    return {.path = pool.at(s.path),
        .role = s.role,
        .paramId = pool.at(s.paramId),
        .stateName = pool.at(s.stateName),
        .owner = pool.at(s.owner),
        .dtype = pool.at(s.dtype)};
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

} // namespace

void Assembler::add(size_t index, const CheckpointScan& scan)
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
            m_t.series.push_back({identityOf(s, m_pool), {}});
            m_lastPoint.push_back(npos);
            m_state.emplace_back();
        }
        mine[k] = series;
        m_lastPoint[series] = index;
        TimelinePoint p;
        static_cast<PointStats&>(p) = s;
        p.checkpoint = uint32_t(index);
        m_t.series[series].points.push_back(p);
        events(series, p);
    }
}

void Assembler::events(size_t series, const TimelinePoint& p)
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
void Assembler::spike(size_t series, const TimelinePoint& p, const char* metric, std::optional<double> value, History& h)
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

} // namespace run_detail

} // namespace ckpt
