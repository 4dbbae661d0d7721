// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The timeline's series and events: checkpoint scans (core/run/timelinecache.h) assembled into one
// series per tensor, followed along the scans' links, with the events (first NaN, first Inf, spikes)
// found as the points come. Not part of the public interface (core/run/timeline.h).

#include "core/run/timelinecache.h"

#include <optional>
#include <vector>

namespace ckpt::run_detail {

/** Builds the Timeline checkpoint by checkpoint, events included (a live view sees them as they come). */
class Assembler {
public:
    Assembler(Timeline& t, const TimelineOptions& o, const StringPool& pool)
        : m_t(t)
        , m_o(o)
        , m_pool(pool)
    {
    }

    /** Checkpoint \a index's scan: its tensors (those the filter takes) as points of their series. */
    void add(size_t index, const CheckpointScan& scan);

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

    void events(size_t series, const TimelinePoint& p);
    void spike(size_t series, const TimelinePoint& p, const char* metric, std::optional<double> value, History& h);

    Timeline& m_t;
    const TimelineOptions& m_o;
    const StringPool& m_pool;
    std::vector<std::vector<size_t>> m_seriesOf; ///< checkpoint -> scan tensor -> series (npos: filtered out)
    std::vector<size_t> m_lastPoint;             ///< series -> the checkpoint of its last point
    std::vector<SeriesState> m_state;
};

} // namespace ckpt::run_detail
