// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ckpt {

/**
 * Compressed sparse rows of a directed graph on vertices 0..n-1: vertex v's neighbours are
 * target[offset[v] .. offset[v + 1]), in the order the edges were given. The one adjacency builder
 * of the graph analysis, the hierarchy, the layout and the app's graph view.
 */
struct Csr {
    std::vector<uint32_t> offset; ///< n + 1 entries
    std::vector<uint32_t> target;

    /** From (from, to) pairs; \a reverse builds the predecessors instead (to -> from). */
    static Csr build(size_t n, std::span<const std::pair<uint32_t, uint32_t>> edges, bool reverse = false)
    {
        Csr c;
        c.offset.assign(n + 1, 0);
        for (const auto& [a, b] : edges)
            ++c.offset[(reverse ? b : a) + 1];
        for (size_t v = 0; v < n; ++v)
            c.offset[v + 1] += c.offset[v];
        c.target.resize(edges.size());
        std::vector<uint32_t> fill(c.offset.begin(), c.offset.end() - 1);
        for (const auto& [a, b] : edges)
            c.target[fill[reverse ? b : a]++] = reverse ? a : b;
        return c;
    }

    std::span<const uint32_t> of(uint32_t v) const { return {target.data() + offset[v], target.data() + offset[v + 1]}; }
};

} // namespace ckpt
