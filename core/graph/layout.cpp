// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/graph/layout.h"

#include "core/graph/csr.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace ckpt {

namespace {

/**
 * Least-squares positions for one layer: minimise sum (x_i - desired_i)^2 subject to
 * x_{i+1} - x_i >= sep_i. With y_i = x_i - S_i (S = prefix sums of sep) this is isotonic regression,
 * solved exactly in linear time by pool-adjacent-violators.
 */
void placeLayer(const std::vector<double>& desired, const std::vector<double>& sep, std::vector<double>& x)
{
    const size_t k = desired.size();
    x.resize(k);
    if (k == 0)
        return;
    std::vector<double> prefix(k, 0);
    for (size_t i = 1; i < k; ++i)
        prefix[i] = prefix[i - 1] + sep[i - 1];
    struct Block {
        double sum;
        uint32_t count;
        uint32_t first;
    };
    std::vector<Block> blocks;
    blocks.reserve(k);
    for (size_t i = 0; i < k; ++i) {
        blocks.push_back(Block{desired[i] - prefix[i], 1, uint32_t(i)});
        while (blocks.size() > 1) {
            const Block& top = blocks.back();
            const Block& prev = blocks[blocks.size() - 2];
            if (prev.sum / prev.count <= top.sum / top.count)
                break;
            Block merged{prev.sum + top.sum, prev.count + top.count, prev.first};
            blocks.pop_back();
            blocks.back() = merged;
        }
    }
    for (const auto& b : blocks) {
        const double mean = b.sum / b.count;
        for (uint32_t i = b.first; i < b.first + b.count; ++i)
            x[i] = mean + prefix[i];
    }
}

/** Exact crossings between two adjacent layers (Barth/Jünger/Mutzel accumulator tree). */
uint64_t countCrossings(std::vector<std::pair<uint32_t, uint32_t>>& segments, uint32_t lowerSize)
{
    std::sort(segments.begin(), segments.end());
    uint32_t size = 1;
    while (size < lowerSize)
        size <<= 1;
    std::vector<uint64_t> tree(2 * size_t(size), 0);
    uint64_t crossings = 0;
    for (const auto& [up, low] : segments) {
        uint32_t index = low + size;
        ++tree[index];
        while (index > 1) {
            if (index % 2 == 0)
                crossings += tree[index + 1];
            index /= 2;
            ++tree[index];
        }
    }
    return crossings;
}

/**
 * What the phases of layoutGraph share: the input and options, the result being filled, and what
 * each phase leaves for the later ones. Vertices 0..n-1 are the input's nodes, n..total-1 the
 * dummies phase 3 adds for long edges.
 */
struct LayoutState {
    const LayoutInput& input;
    const LayoutOptions& options;
    const uint32_t n = uint32_t(input.nodes.size());
    const size_t m = input.edges.size();
    LayoutResult result;

    // 1. cycle breaking
    std::vector<uint32_t> discovery;                     ///< node -> DFS discovery order
    std::vector<uint8_t> reversed, selfLoop;             ///< per edge
    // 2. ranking
    std::vector<std::pair<uint32_t, uint32_t>> dagPairs; ///< (upper, lower) of every edge but the self loops
    std::vector<uint32_t> inDegree, outDegree, rank;
    uint32_t layers = 0;
    // 3. vertices
    std::vector<uint32_t> vLayer;
    std::vector<double> vWidth, vHeight;
    std::vector<double> vKey;                            ///< in-layer sort key
    std::vector<std::pair<uint32_t, uint32_t>> segments; ///< (upper vertex, lower vertex)
    std::vector<uint32_t> chainStart, chainLength;       ///< dummies of edge e: [chainStart, +chainLength)
    uint32_t total = 0;                                  ///< vertices, dummies included
    Csr down, up;
    std::vector<std::vector<uint32_t>> layerVertices;
    std::vector<double> pos;                             ///< normalised position in [0, 1)
    // 5. coordinates
    std::vector<double> layerTop, layerHeight;
    std::vector<double> cx;                              ///< vertex -> centre x
    std::vector<double> rowHeight, vRowTop;              ///< wrapping
    std::vector<uint32_t> vRow;
    std::vector<uint32_t> layerColumn;                   ///< folding
    std::vector<double> columnBottom;
    double pitch = 0;

    uint32_t upper(uint32_t e) const { return reversed[e] ? input.edges[e].second : input.edges[e].first; }
    uint32_t lower(uint32_t e) const { return reversed[e] ? input.edges[e].first : input.edges[e].second; }
};

// ---- 1. cycle breaking: iterative DFS in node order; edges into a vertex on the stack are back edges.
void breakCycles(LayoutState& s)
{
    const uint32_t n = s.n;
    const size_t m = s.m;
    std::vector<std::pair<uint32_t, uint32_t>> outPairs;
    outPairs.reserve(m);
    for (uint32_t i = 0; i < m; ++i)
        outPairs.emplace_back(s.input.edges[i].first, i);
    const Csr outEdges = Csr::build(n, outPairs); // vertex -> edge indices
    std::vector<uint8_t> state(n, 0);
    s.discovery.assign(n, 0);
    uint32_t discovered = 0;
    s.reversed.assign(m, 0);
    s.selfLoop.assign(m, 0);
    {
        std::vector<std::pair<uint32_t, uint32_t>> stack; // vertex, next edge slot
        for (uint32_t root = 0; root < n; ++root) {
            if (state[root])
                continue;
            state[root] = 1;
            s.discovery[root] = discovered++;
            stack.emplace_back(root, outEdges.offset[root]);
            while (!stack.empty()) {
                auto& [v, next] = stack.back();
                if (next == outEdges.offset[v + 1]) {
                    state[v] = 2;
                    stack.pop_back();
                    continue;
                }
                const uint32_t e = outEdges.target[next++];
                const uint32_t w = s.input.edges[e].second;
                if (w == v) {
                    s.selfLoop[e] = 1;
                } else if (state[w] == 1) {
                    s.reversed[e] = 1;
                } else if (state[w] == 0) {
                    state[w] = 1;
                    s.discovery[w] = discovered++;
                    stack.emplace_back(w, outEdges.offset[w]);
                }
            }
        }
    }
    for (uint32_t e = 0; e < m; ++e) {
        s.result.edges[e].from = s.input.edges[e].first;
        s.result.edges[e].to = s.input.edges[e].second;
        s.result.edges[e].reversed = s.reversed[e];
        s.result.edges[e].selfLoop = s.selfLoop[e];
        if (s.reversed[e] || s.selfLoop[e])
            s.result.backEdges.push_back(e);
    }
}

// ---- 2. ranking: longest path from the sources, then sources pulled down next to their consumers.
void rankLayers(LayoutState& s)
{
    const uint32_t n = s.n;
    const size_t m = s.m;
    s.dagPairs.reserve(m);
    for (uint32_t e = 0; e < m; ++e)
        if (!s.selfLoop[e])
            s.dagPairs.emplace_back(s.upper(e), s.lower(e));
    const Csr succ = Csr::build(n, s.dagPairs);
    s.inDegree.assign(n, 0);
    s.outDegree.assign(n, 0);
    for (const auto& [a, b] : s.dagPairs) {
        ++s.inDegree[b];
        ++s.outDegree[a];
    }
    s.rank.assign(n, 0);
    std::vector<uint32_t> topo;
    topo.reserve(n);
    {
        std::vector<uint32_t> remaining = s.inDegree;
        for (uint32_t v = 0; v < n; ++v)
            if (remaining[v] == 0)
                topo.push_back(v);
        for (size_t i = 0; i < topo.size(); ++i) {
            const uint32_t v = topo[i];
            for (uint32_t w : succ.of(v)) {
                s.rank[w] = std::max(s.rank[w], s.rank[v] + 1);
                if (--remaining[w] == 0)
                    topo.push_back(w);
            }
        }
    }
    for (size_t i = topo.size(); i-- > 0;) {
        const uint32_t v = topo[i];
        if (s.inDegree[v] == 0 && s.outDegree[v] > 0) {
            uint32_t lowest = UINT32_MAX;
            for (uint32_t w : succ.of(v))
                lowest = std::min(lowest, s.rank[w]);
            s.rank[v] = lowest - 1;
        }
    }
    uint32_t layers = n ? 1 : 0;
    for (uint32_t v = 0; v < n; ++v)
        layers = std::max(layers, s.rank[v] + 1);
    s.layers = layers;
    s.result.layerCount = layers;
}

/** Sorts layer \a r by the vertices' keys (stable) and records their normalised positions. */
void sortLayer(LayoutState& s, uint32_t r)
{
    auto& lv = s.layerVertices[r];
    std::stable_sort(lv.begin(), lv.end(), [&](uint32_t a, uint32_t b) { return s.vKey[a] < s.vKey[b]; });
    const double size = double(lv.size());
    for (uint32_t i = 0; i < lv.size(); ++i)
        s.pos[lv[i]] = (i + 0.5) / size;
}

// ---- 3. vertices: real nodes, then dummies for every layer a long edge crosses (within budget).
void addVertices(LayoutState& s)
{
    const uint32_t n = s.n;
    const size_t m = s.m;
    const uint32_t layers = s.layers;
    s.vLayer = s.rank;
    s.vWidth.resize(n);
    s.vHeight.resize(n);
    s.vKey.resize(n); // initial in-layer order: DFS s.discovery
    for (uint32_t v = 0; v < n; ++v) {
        s.vWidth[v] = s.input.nodes[v].width;
        s.vHeight[v] = s.input.nodes[v].height;
        s.vKey[v] = s.discovery[v];
    }
    s.segments.reserve(m);
    s.chainStart.assign(m, 0);
    s.chainLength.assign(m, 0);
    uint64_t budget = s.options.maxDummies;
    for (uint32_t e = 0; e < m; ++e) {
        if (s.selfLoop[e])
            continue;
        const uint32_t a = s.upper(e), b = s.lower(e);
        const uint32_t span = s.rank[b] - s.rank[a];
        if (span > 1 && (uint64_t(span - 1) > budget || span > s.options.maxDummySpan)) {
            s.result.edges[e].straight = true;
            continue;
        }
        uint32_t prev = a;
        s.chainStart[e] = uint32_t(s.vLayer.size());
        for (uint32_t r = s.rank[a] + 1; r < s.rank[b]; ++r) {
            const uint32_t d = uint32_t(s.vLayer.size());
            s.vLayer.push_back(r);
            s.vWidth.push_back(s.options.dummyWidth);
            s.vHeight.push_back(0);
            s.vKey.push_back(s.discovery[a] + 0.5);
            s.segments.emplace_back(prev, d);
            prev = d;
        }
        s.chainLength[e] = span - 1;
        budget -= span - 1;
        s.segments.emplace_back(prev, b);
    }
    const uint32_t total = uint32_t(s.vLayer.size());
    s.total = total;
    s.result.dummyCount = total - n;
    s.down = Csr::build(total, s.segments);
    s.up = Csr::build(total, s.segments, /*reverse=*/true);
    s.layerVertices.resize(layers);
    {
        std::vector<uint32_t> count(layers, 0);
        for (uint32_t v = 0; v < total; ++v)
            ++count[s.vLayer[v]];
        for (uint32_t r = 0; r < layers; ++r)
            s.layerVertices[r].reserve(count[r]);
        for (uint32_t v = 0; v < total; ++v)
            s.layerVertices[s.vLayer[v]].push_back(v);
    }
    s.pos.assign(total, 0);
    for (uint32_t r = 0; r < layers; ++r)
        sortLayer(s, r);
}

// ---- 4. crossing reduction: barycenter sweeps, alternating direction.
Result<void> reduceCrossings(LayoutState& s, const Progress& progress)
{
    const uint32_t layers = s.layers;
    for (int sweep = 0; sweep < s.options.crossingSweeps; ++sweep) {
        if (progress.cancelled())
            return fail(ErrorCode::Cancelled, "layout cancelled");
        const bool downward = sweep % 2 == 0;
        for (uint32_t step = 1; step < layers; ++step) {
            const uint32_t r = downward ? step : layers - 1 - step;
            for (uint32_t v : s.layerVertices[r]) {
                const auto nb = downward ? s.up.of(v) : s.down.of(v);
                if (nb.empty()) {
                    s.vKey[v] = s.pos[v];
                    continue;
                }
                double sum = 0;
                for (uint32_t u : nb)
                    sum += s.pos[u];
                s.vKey[v] = sum / double(nb.size());
            }
            sortLayer(s, r);
        }
    }
    return {};
}

// ---- 5. coordinates: y per layer, x by least squares towards neighbours, order and spacing kept.
Result<void> assignCoordinates(LayoutState& s, const Progress& progress)
{
    const uint32_t n = s.n;
    const uint32_t layers = s.layers;
    const uint32_t total = s.total;
    s.layerTop.assign(layers, 0);
    s.layerHeight.assign(layers, 0);
    for (uint32_t v = 0; v < total; ++v)
        s.layerHeight[s.vLayer[v]] = std::max(s.layerHeight[s.vLayer[v]], s.vHeight[v]);
    for (uint32_t r = 1; r < layers; ++r)
        s.layerTop[r] = s.layerTop[r - 1] + s.layerHeight[r - 1] + s.options.layerGap;
    s.cx.assign(total, 0);
    std::vector<std::vector<double>> separation(layers);
    for (uint32_t r = 0; r < layers; ++r) {
        const auto& lv = s.layerVertices[r];
        auto& sep = separation[r];
        sep.resize(lv.empty() ? 0 : lv.size() - 1);
        for (size_t i = 0; i + 1 < lv.size(); ++i) {
            const bool dummyPair = lv[i] >= n || lv[i + 1] >= n;
            sep[i] = (s.vWidth[lv[i]] + s.vWidth[lv[i + 1]]) / 2 + (dummyPair ? s.options.nodeGap / 2 : s.options.nodeGap);
        }
        // Start packed and centred on 0, so that layers begin aligned around a common axis.
        double x = 0;
        for (size_t i = 0; i < lv.size(); ++i) {
            if (i)
                x += sep[i - 1];
            s.cx[lv[i]] = x;
        }
        for (uint32_t v : lv)
            s.cx[v] -= x / 2;
    }
    std::vector<double> desired, placed;
    for (int sweep = 0; sweep < s.options.coordinateSweeps; ++sweep) {
        if (progress.cancelled())
            return fail(ErrorCode::Cancelled, "layout cancelled");
        const bool downward = sweep % 2 == 0;
        const bool last = sweep + 1 == s.options.coordinateSweeps;
        for (uint32_t step = 0; step < layers; ++step) {
            const uint32_t r = downward ? step : layers - 1 - step;
            const auto& lv = s.layerVertices[r];
            desired.resize(lv.size());
            for (size_t i = 0; i < lv.size(); ++i) {
                const uint32_t v = lv[i];
                double sum = 0;
                size_t c = 0;
                auto take = [&](std::span<const uint32_t> nb) {
                    for (uint32_t u : nb)
                        sum += s.cx[u];
                    c += nb.size();
                };
                if (last || downward)
                    take(s.up.of(v));
                if (last || !downward)
                    take(s.down.of(v));
                desired[i] = c ? sum / double(c) : s.cx[v];
            }
            placeLayer(desired, separation[r], placed);
            for (size_t i = 0; i < lv.size(); ++i)
                s.cx[lv[i]] = placed[i];
        }
    }
    return {};
}

// Shift into [0, width].
void shiftIntoBounds(LayoutState& s)
{
    const uint32_t total = s.total;
    const uint32_t layers = s.layers;
    double minX = 0, maxX = 0;
    bool any = false;
    for (uint32_t v = 0; v < total; ++v) {
        const double l = s.cx[v] - s.vWidth[v] / 2, r = s.cx[v] + s.vWidth[v] / 2;
        minX = any ? std::min(minX, l) : l;
        maxX = any ? std::max(maxX, r) : r;
        any = true;
    }
    for (uint32_t v = 0; v < total; ++v)
        s.cx[v] -= minX;
    s.result.width = any ? maxX - minX : 0;
    s.result.height = layers ? s.layerTop[layers - 1] + s.layerHeight[layers - 1] : 0;
}

/** Wrapping: the row width whose wrapped shape comes nearest the wanted aspect (result.width: none nearer). */
double bestRowWidth(const LayoutState& s, const std::vector<double>& left, const std::vector<double>& right, double rowGap)
{
    const LayoutOptions& options = s.options;
    const LayoutResult& result = s.result;
    const uint32_t layers = s.layers;
    const auto& layerHeight = s.layerHeight;
    auto shape = [&](double rowWidth) {
        double height = result.height, width = 0;
        for (uint32_t r = 0; r < layers; ++r) {
            const double w = right[r] - left[r];
            const double rows = std::max(1.0, std::ceil(w / rowWidth - 1e-9));
            height += (rows - 1) * (layerHeight[r] + rowGap);
            width = std::max(width, rows > 1 ? rowWidth + options.nodeGap + 2 * options.dummyWidth : w);
        }
        return std::pair{width, height};
    };
    double bestWidth = result.width, bestScore = 1e300;
    for (int k = 1; k <= 256; ++k) {
        const double rowWidth = result.width / k;
        if (rowWidth < 4 * options.nodeGap)
            break;
        const auto [w, h] = shape(rowWidth);
        const double score = std::abs(std::log(w / h / options.foldAspect));
        if (score < bestScore) {
            bestScore = score;
            bestWidth = rowWidth;
        }
    }
    return bestWidth;
}

/** Wrapping: the layers wider than \a bestWidth cut into rows, each centred on its own; the rest centred as before. */
void cutIntoRows(LayoutState& s, const std::vector<double>& left, const std::vector<double>& right, double rowGap, double bestWidth)
{
    // rows: consecutive vertices by their place in the layer, cut every bestWidth
    struct Row {
        uint32_t layer, row;
        size_t begin, end;
        double left, right;
    };
    std::vector<Row> rows;
    std::vector<uint32_t> rowCount(s.layers, 1);
    double width = 0;
    for (uint32_t r = 0; r < s.layers; ++r) {
        const auto& lv = s.layerVertices[r];
        const double w = right[r] - left[r];
        const uint32_t count = uint32_t(std::max(1.0, std::ceil(w / bestWidth - 1e-9)));
        if (count == 1) {
            width = std::max(width, w);
            continue;
        }
        const double pitch = w / count;
        uint32_t row = 0;
        for (size_t begin = 0; begin < lv.size(); ++row) {
            size_t end = begin + 1; // never an empty row
            while (end < lv.size() && (row + 1 == count || s.cx[lv[end]] - left[r] < (row + 1) * pitch))
                ++end;
            rows.push_back({r, row, begin, end, s.cx[lv[begin]] - s.vWidth[lv[begin]] / 2, s.cx[lv[end - 1]] + s.vWidth[lv[end - 1]] / 2});
            width = std::max(width, rows.back().right - rows.back().left);
            begin = end;
        }
        rowCount[r] = row;
    }
    for (uint32_t r = 0; r < s.layers; ++r)
        if (rowCount[r] == 1) { // kept whole: centred as before, inside the new width
            const double shift = std::clamp(width / 2 - s.result.width / 2, -left[r], width - right[r]);
            for (uint32_t v : s.layerVertices[r])
                s.cx[v] += shift;
        } else {
            s.layerHeight[r] = rowCount[r] * s.rowHeight[r] + (rowCount[r] - 1) * rowGap;
        }
    for (const Row& row : rows) { // each row centred on its own
        const double shift = (width - (row.right - row.left)) / 2 - row.left;
        for (size_t i = row.begin; i < row.end; ++i) {
            const uint32_t v = s.layerVertices[row.layer][i];
            s.cx[v] += shift;
            s.vRow[v] = row.row;
            s.vRowTop[v] = row.row * (s.rowHeight[row.layer] + rowGap);
        }
    }
    for (uint32_t r = 1; r < s.layers; ++r)
        s.layerTop[r] = s.layerTop[r - 1] + s.layerHeight[r - 1] + s.options.layerGap;
    s.result.width = width;
    s.result.height = s.layerTop[s.layers - 1] + s.layerHeight[s.layers - 1];
}

// Wrapping: a graph much wider than tall (one input fanning out to thousands of branches) breaks
// its wide layers into rows, like a paragraph, until width / height comes near foldAspect.
void wrapWideLayers(LayoutState& s)
{
    const uint32_t layers = s.layers;
    s.rowHeight = s.layerHeight;
    s.vRowTop.assign(s.total, 0);
    s.vRow.assign(s.total, 0);
    size_t widestLayer = 0;
    for (const auto& lv : s.layerVertices)
        widestLayer = std::max(widestLayer, lv.size());
    if (!(s.options.foldAspect > 0 && layers > 0 && s.result.height > 0 && s.result.width / s.result.height > 2 * s.options.foldAspect
            && widestLayer > s.options.foldMinCount))
        return;
    std::vector<double> left(layers, 0), right(layers, 0);
    for (uint32_t r = 0; r < layers; ++r)
        if (!s.layerVertices[r].empty()) {
            left[r] = s.cx[s.layerVertices[r].front()] - s.vWidth[s.layerVertices[r].front()] / 2;
            right[r] = s.cx[s.layerVertices[r].back()] + s.vWidth[s.layerVertices[r].back()] / 2;
        }
    const double rowGap = s.options.layerGap / 2;
    const double bestWidth = bestRowWidth(s, left, right, rowGap);
    if (bestWidth < s.result.width)
        cutIntoRows(s, left, right, rowGap, bestWidth);
}

// Folding: a deep graph wraps into columns of consecutive layers, like text into lines.
void foldIntoColumns(LayoutState& s)
{
    const uint32_t layers = s.layers;
    s.layerColumn.assign(layers, 0);
    s.columnBottom.assign(1, s.result.height);
    s.pitch = 0;
    if (!(s.options.foldAspect > 0 && layers > 1 && layers > s.options.foldMinCount && s.result.width > 0))
        return;
    s.pitch = s.result.width + s.options.columnGap;
    const double wanted = std::sqrt(s.options.foldAspect * s.result.height / s.pitch);
    if (wanted >= 1.5) {
        const double columnHeight = s.result.height / std::round(wanted);
        std::vector<double> columnX(layers, 0);
        double start = 0;
        uint32_t column = 0;
        s.columnBottom.assign(1, 0);
        for (uint32_t r = 0; r < layers; ++r) {
            if (r > 0 && s.layerTop[r] + s.layerHeight[r] - start > columnHeight && s.layerTop[r] > start) {
                ++column;
                start = s.layerTop[r];
                s.columnBottom.push_back(0);
            }
            s.layerColumn[r] = column;
            s.layerTop[r] -= start;
            columnX[r] = column * s.pitch;
            s.columnBottom[column] = s.layerTop[r] + s.layerHeight[r];
        }
        for (uint32_t v = 0; v < s.total; ++v)
            s.cx[v] += columnX[s.vLayer[v]];
        s.result.columns = column + 1;
        s.result.width = s.result.columns * s.pitch - s.options.columnGap;
        s.result.height = *std::max_element(s.columnBottom.begin(), s.columnBottom.end());
    }
}

/** The boxes of the real nodes where the coordinates, the wrapping and the folding put them. */
void placeNodes(LayoutState& s)
{
    for (uint32_t r = 0; r < s.layers; ++r)
        for (uint32_t i = 0; i < s.layerVertices[r].size(); ++i) {
            const uint32_t v = s.layerVertices[r][i];
            if (v >= s.n)
                continue;
            auto& node = s.result.nodes[v];
            node.width = s.vWidth[v];
            node.height = s.vHeight[v];
            node.x = s.cx[v] - s.vWidth[v] / 2;
            node.y = s.layerTop[r] + s.vRowTop[v] + (s.rowHeight[r] - s.vHeight[v]) / 2;
            node.layer = r;
            node.order = i;
            node.row = s.vRow[v];
        }
}

// ---- 6. routing: bottom centre of the upper box, through the dummies, top centre of the lower box.
void routeEdges(LayoutState& s)
{
    for (uint32_t e = 0; e < s.m; ++e) {
        auto& edge = s.result.edges[e];
        if (s.selfLoop[e])
            continue;
        const auto& a = s.result.nodes[s.upper(e)];
        const auto& b = s.result.nodes[s.lower(e)];
        edge.points.reserve(s.chainLength[e] + 2);
        uint32_t column = s.layerColumn[a.layer];
        // into a later column: down out of this one, along its foot to the gap beside it, up the gap
        // (no box there) and along the top to where the edge enters the next column
        auto add = [&](double x, double y, uint32_t layer) {
            if (s.layerColumn[layer] != column) {
                const auto [px, py] = edge.points.back();
                const double foot = s.columnBottom[column] + s.options.layerGap / 2, gap = (column + 1) * s.pitch - s.options.columnGap / 2;
                edge.points.emplace_back(px, foot);
                edge.points.emplace_back(gap, foot);
                edge.points.emplace_back(gap, -s.options.layerGap / 2);
                edge.points.emplace_back(x, -s.options.layerGap / 2);
                column = s.layerColumn[layer];
            }
            edge.points.emplace_back(x, y);
        };
        edge.points.emplace_back(a.x + a.width / 2, a.y + a.height);
        for (uint32_t k = 0; k < s.chainLength[e]; ++k) {
            const uint32_t d = s.chainStart[e] + k;
            add(s.cx[d], s.layerTop[s.vLayer[d]] + s.vRowTop[d] + s.rowHeight[s.vLayer[d]] / 2, s.vLayer[d]);
        }
        add(b.x + b.width / 2, b.y, b.layer);
        if (s.reversed[e])
            std::reverse(edge.points.begin(), edge.points.end());
    }
}

// ---- 7. chains of single-successor -> single-predecessor links, reported as groups.
void collectChains(LayoutState& s)
{
    const uint32_t n = s.n;
    std::vector<uint32_t> next(n, UINT32_MAX), prev(n, UINT32_MAX);
    for (const auto& [a, b] : s.dagPairs)
        if (s.outDegree[a] == 1 && s.inDegree[b] == 1) {
            next[a] = b;
            prev[b] = a;
        }
    for (uint32_t v = 0; v < n; ++v) {
        if (prev[v] != UINT32_MAX || next[v] == UINT32_MAX)
            continue;
        LayoutGroup g;
        for (uint32_t w = v; w != UINT32_MAX; w = next[w])
            g.nodes.push_back(w);
        if (g.nodes.size() < s.options.minGroupLength)
            continue;
        double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
        for (uint32_t w : g.nodes) {
            const auto& b = s.result.nodes[w];
            x0 = std::min(x0, b.x);
            y0 = std::min(y0, b.y);
            x1 = std::max(x1, b.x + b.width);
            y1 = std::max(y1, b.y + b.height);
        }
        g.x = x0;
        g.y = y0;
        g.width = x1 - x0;
        g.height = y1 - y0;
        s.result.groups.push_back(std::move(g));
    }
}

// ---- 8. crossings left, counted exactly per pair of adjacent layers.
void countLayerCrossings(LayoutState& s)
{
    const uint32_t layers = s.layers;
    std::vector<uint32_t> order(s.total, 0);
    for (uint32_t r = 0; r < layers; ++r)
        for (uint32_t i = 0; i < s.layerVertices[r].size(); ++i)
            order[s.layerVertices[r][i]] = i;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> byLayer(layers);
    for (const auto& [a, b] : s.segments)
        byLayer[s.vLayer[a]].emplace_back(order[a], order[b]);
    for (uint32_t r = 0; r + 1 < layers; ++r)
        s.result.crossings += countCrossings(byLayer[r], uint32_t(s.layerVertices[r + 1].size()));
}

} // namespace

Result<LayoutResult> layoutGraph(const LayoutInput& input, const LayoutOptions& options, const Progress& progress)
{
    const uint32_t n = uint32_t(input.nodes.size());
    if (input.nodes.size() >= UINT32_MAX / 2)
        return fail(ErrorCode::Limit, "too many nodes to lay out");
    for (const auto& [a, b] : input.edges)
        if (a >= n || b >= n)
            return fail(ErrorCode::Usage, "edge names node " + std::to_string(std::max(a, b)) + " of " + std::to_string(n));
    LayoutState s{input, options};
    s.result.nodes.resize(n);
    s.result.edges.resize(input.edges.size());

    breakCycles(s);
    progress.report(0.1);
    rankLayers(s);
    addVertices(s);
    progress.report(0.3);
    if (auto swept = reduceCrossings(s, progress); !swept)
        return std::unexpected(std::move(swept.error()));
    progress.report(0.6);
    if (auto placed = assignCoordinates(s, progress); !placed)
        return std::unexpected(std::move(placed.error()));
    progress.report(0.85);
    shiftIntoBounds(s);
    wrapWideLayers(s);
    foldIntoColumns(s);
    placeNodes(s);
    routeEdges(s);
    collectChains(s);
    countLayerCrossings(s);
    progress.report(1.0);
    return std::move(s.result);
}

LayoutInput layoutInputFor(const ComputationGraphStore& graph, std::vector<std::string>* names)
{
    LayoutInput in;
    std::unordered_map<std::string_view, uint32_t> index;
    index.reserve(graph.nodes.size() * 2);
    std::vector<std::string> localNames;
    auto& out = names ? *names : localNames;
    out.clear();
    out.reserve(graph.nodes.size());
    in.nodes.reserve(graph.nodes.size());
    for (const auto& [key, node] : graph.nodes) {
        if (!index.try_emplace(key, uint32_t(in.nodes.size())).second)
            continue;
        // Boxes sized for the op label (monospace estimate); the UI may re-measure and re-run.
        const double w = std::clamp(7.0 * double(std::max<size_t>(node.op.size(), 6)) + 24.0, 60.0, 260.0);
        in.nodes.push_back({w, 32});
        out.push_back(key);
    }
    auto idOf = [&](const std::string& s) {
        auto [it, inserted] = index.try_emplace(s, uint32_t(in.nodes.size()));
        if (inserted) {
            in.nodes.push_back({60, 24}); // phantom id named only by an edge
            out.push_back(s);
        }
        return it->second;
    };
    in.edges.reserve(graph.edges.size());
    for (const auto& [from, to] : graph.edges) {
        const uint32_t a = idOf(from);
        const uint32_t b = idOf(to);
        in.edges.emplace_back(a, b);
    }
    return in;
}

} // namespace ckpt
