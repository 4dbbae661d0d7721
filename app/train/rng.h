// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace ckpt::train {

/**
 * A counter-based random source: every number is a pure function of (seed, stream, counter), so the
 * trainer never carries an opaque generator state — the counter in the continuation state is enough
 * to continue a run exactly, and an edited counter is honoured as it reads.
 */
inline uint64_t mix64(uint64_t z)
{
    // SplitMix64's finaliser (Stafford variant 13): a bijection with full avalanche.
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline uint64_t counterRandom(uint64_t seed, uint64_t stream, uint64_t counter)
{
    return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL * (stream + 1)) ^ (counter * 0xd1b54a32d192ed03ULL + 0x632be59bd9b4e019ULL));
}

/** Uniform double in [0, 1) with 53 random bits. */
inline double counterUniform(uint64_t seed, uint64_t stream, uint64_t counter)
{
    return static_cast<double>(counterRandom(seed, stream, counter) >> 11) * 0x1.0p-53;
}

/** Standard normal by Box–Muller from two consecutive counters (2*counter, 2*counter+1). */
inline double counterNormal(uint64_t seed, uint64_t stream, uint64_t counter)
{
    const double u1 = 1.0 - counterUniform(seed, stream, 2 * counter); // (0, 1]: log stays finite
    const double u2 = counterUniform(seed, stream, 2 * counter + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/** Fixed streams, so that adding a new use of randomness never shifts an old one. */
namespace stream {
inline constexpr uint64_t ParamIds = 1;
inline constexpr uint64_t Init = 100;       ///< + parameter index
inline constexpr uint64_t Teacher = 200;
inline constexpr uint64_t TrainData = 300;
inline constexpr uint64_t ValidData = 400;
inline constexpr uint64_t Batches = 500;
inline constexpr uint64_t GraphIds = 600;
inline constexpr uint64_t BlockInit = 700;  ///< every residual block parameter: counter (parameter index << 32) + element
inline constexpr uint64_t DeepGraphIds = 800; ///< node ids past the 64th node of a step (models with blocks)
} // namespace stream

} // namespace ckpt::train
