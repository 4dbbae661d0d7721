// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The network-like computation graph the layout and hierarchy tests and the layout bench generate:
// a long spine with short skips, rare far skips (long edges) and, optionally, extra inputs, plus back
// edges for graphs with cycles. One generator, so that the bench measures the graph the tests check.

#include <algorithm>
#include <cstdint>
#include <random>

namespace ckpt::testing {

/**
 * Appends the forward edges of an \a n-node network to \a edges (anything with push_back({from, to})):
 * node i takes its input from i-1 (6 in 10), from one of the 8 before it (2 in 10) or from any earlier
 * node (1 in 10); with \a extraInputs, one node in four takes a second input from one of the 3 before it.
 * The draws from \a rng are the same for the same arguments, so a seed fixes the graph.
 */
template<class Edges>
void appendNetworkEdges(std::mt19937& rng, uint32_t n, bool extraInputs, Edges& edges)
{
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t kind = rng() % 10;
        if (kind < 6)
            edges.push_back({i - 1, i});
        else if (kind < 8)
            edges.push_back({uint32_t(i - 1 - rng() % std::min<uint32_t>(i, 8)), i});
        else
            edges.push_back({uint32_t(rng() % i), i}); // occasionally a far skip: a long edge
        if (extraInputs && rng() % 4 == 0)
            edges.push_back({uint32_t(i - 1 - rng() % std::min<uint32_t>(i, 3)), i});
    }
}

/** Appends \a count back edges (from a later node to an earlier one: cycles), and with \a selfLoops a
 *  self-loop at the first node of each. */
template<class Edges>
void appendBackEdges(std::mt19937& rng, uint32_t n, uint32_t count, bool selfLoops, Edges& edges)
{
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t a = rng() % n, b = rng() % n;
        edges.push_back({std::max(a, b), std::min(a, b)});
        if (selfLoops)
            edges.push_back({a, a});
    }
}

} // namespace ckpt::testing
