// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loops over pairs of payloads, written once: the update norms' sum of squared steps and the
// diff's f32 block. kernels.cpp inlines them into one function per instruction set; only it
// includes this file.

#include "core/tensor/kernels/kernels.h"

#include <cstring>

namespace ckpt::kernels::detail {

using V8 = double __attribute__((vector_size(64)));
/// Eight lanes of a payload's element type (a vector type cannot depend on a template parameter directly).
template<class T> struct Lanes8;
template<> struct Lanes8<float> { using type = float __attribute__((vector_size(32))); };
template<> struct Lanes8<double> { using type = double __attribute__((vector_size(64))); };

/**
 * Sum of squared differences over the pairs finite on both sides, eight lanes at a time (lanes summed
 * in a fixed order: the same result on every variant). A lane's difference d is finite exactly when
 * both values are (f32 widened to f64 cannot overflow; an f64 difference that overflows is no step
 * either), and d - d == 0 holds exactly for finite d.
 */
template<class T>
[[gnu::always_inline]] inline double sumSquaredBody(const uint8_t* pa, const uint8_t* pb, uint64_t count)
{
    using In = typename Lanes8<T>::type;
    V8 acc = {};
    uint64_t k = 0;
    for (; k + 8 <= count; k += 8) {
        In a, b;
        std::memcpy(&a, pa + sizeof(T) * k, sizeof a);
        std::memcpy(&b, pb + sizeof(T) * k, sizeof b);
        const V8 d = __builtin_convertvector(b, V8) - __builtin_convertvector(a, V8);
        const V8 m = (d - d == 0) ? d : V8{};
        acc += m * m;
    }
    double tail = 0;
    for (; k < count; ++k) {
        T a, b;
        std::memcpy(&a, pa + sizeof(T) * k, sizeof(T));
        std::memcpy(&b, pb + sizeof(T) * k, sizeof(T));
        const double d = double(b) - double(a);
        const double m = (d - d == 0) ? d : 0.0;
        tail += m * m;
    }
    return (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) + tail;
}

/// \a m (a multiple of 4) finite pairs: d = y - x in double four at a time, its bin as the diff's deltaBin computes it.
[[gnu::always_inline]] inline void diffF32BlockBody(const uint8_t* pa, const uint8_t* pb, size_t m, double tol, DiffLanes& L)
{
    using F4 = float __attribute__((vector_size(16)));
    using U4 = uint64_t __attribute__((vector_size(32)));
    const V4 tolerance = {tol, tol, tol, tol};
    const I4 lowest = {DeltaBins::minExp, DeltaBins::minExp, DeltaBins::minExp, DeltaBins::minExp};
    const I4 highest = {DeltaBins::maxExp, DeltaBins::maxExp, DeltaBins::maxExp, DeltaBins::maxExp};
    constexpr int64_t bins = int64_t(DeltaBins::bins);
    for (size_t j = 0; j < m; j += 4) {
        F4 xf, yf;
        std::memcpy(&xf, pa + 4 * j, 16);
        std::memcpy(&yf, pb + 4 * j, 16);
        const V4 x = __builtin_convertvector(xf, V4), y = __builtin_convertvector(yf, V4);
        const V4 d = y - x;
        const U4 bits = reinterpret_cast<U4>(d);
        const V4 ad = reinterpret_cast<V4>(bits & 0x7fffffffffffffffull);
        L.differing -= reinterpret_cast<I4>(ad > tolerance); // a true lane is -1
        L.maxAbs = ad > L.maxAbs ? ad : L.maxAbs;
        L.sumAbs += ad;
        L.dot += x * y;
        L.na += x * x;
        L.nb += y * y;
        L.nd += d * d;
        // deltaBin: bins + nonZero * (1 + k - sign * (2k + 2)), k the clamped binary exponent
        I4 e = reinterpret_cast<I4>((bits >> 52) & 0x7ffu) - 1023;
        e = e < lowest ? lowest : e;
        e = e > highest ? highest : e;
        const I4 k = e - lowest;
        const I4 sign = reinterpret_cast<I4>(bits >> 63);
        const I4 nonZero = -reinterpret_cast<I4>(d != V4{});
        const I4 index = bins + nonZero * (1 + k - sign * (2 * k + 2));
        for (int l = 0; l < 4; ++l)
            ++L.hist[size_t(l)][size_t(index[l])];
    }
}

} // namespace ckpt::kernels::detail
