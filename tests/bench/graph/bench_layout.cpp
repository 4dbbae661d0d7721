// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Layout benchmark: lays out a generated network-like DAG of N nodes with core/graph/layout and
// writes the same graph as DOT for a comparison with graphviz (see run_bench.sh). Not a ctest.
#include "core/graph/layout.h"
#include "tests/common/syntheticgraph.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>

using namespace ckpt;

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_layout N OUT.dot\n");
        return 2;
    }
    const uint32_t n = uint32_t(std::stoul(argv[1]));
    std::mt19937 rng(7);
    LayoutInput in;
    in.nodes.resize(n);
    for (auto& s : in.nodes)
        s.width = 60 + double(rng() % 120);
    testing::appendNetworkEdges(rng, n, true, in.edges); // the graph tst_layout checks

    const auto wall0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    auto r = layoutGraph(in);
    const double cpuMs = double(std::clock() - cpu0) * 1000.0 / CLOCKS_PER_SEC;
    const double wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
    if (!r) {
        std::fprintf(stderr, "layout failed: %s\n", r.error().message().c_str());
        return 1;
    }
    std::printf("ours: %u nodes, %zu edges: %.0f ms wall, %.0f ms cpu; %u layers, %llu dummies, %llu crossings, %zu groups, %.0f x %.0f\n",
        n, in.edges.size(), wallMs, cpuMs, r->layerCount, static_cast<unsigned long long>(r->dummyCount),
        static_cast<unsigned long long>(r->crossings), r->groups.size(), r->width, r->height);
    FILE* f = std::fopen(argv[2], "w");
    if (!f)
        return 1;
    std::fprintf(f, "digraph g {\n  node [shape=box, fixedsize=true, height=0.44];\n");
    for (uint32_t v = 0; v < n; ++v)
        std::fprintf(f, "  n%u [width=%.2f];\n", v, in.nodes[v].width / 72.0);
    for (const auto& [a, b] : in.edges)
        std::fprintf(f, "  n%u -> n%u;\n", a, b);
    std::fprintf(f, "}\n");
    std::fclose(f);
    return 0;
}
