// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The vocabulary of the SIMD kernels (core/tensor/kernels/kernels.h): GCC/Clang vector types of W
// lanes and the element readers that widen stored values to double, one at a time (get, the scalar
// paths of core/tensor/stats.cpp) or W at a time (getW, the kernels). Everything here is inline and
// is inlined into each instruction-set variant of a kernel, so that each variant is compiled whole
// for its instruction set.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

// The vectors never cross a non-inlined call, so the ABI note about passing AVX arguments is moot.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ckpt::kernels {

/// Lanes of the statistics' vector loops: eight doubles, one AVX-512 register, two AVX2 ones, four SSE2 ones.
inline constexpr size_t W = 8;

/// W lanes of T in one GCC/Clang vector.
template<class T> struct VecOf;
#define CKPT_VEC(T)                                                                                                \
    template<> struct VecOf<T> { typedef T type __attribute__((vector_size(W * sizeof(T)))); }
CKPT_VEC(double); CKPT_VEC(float); CKPT_VEC(int64_t); CKPT_VEC(uint64_t); CKPT_VEC(int32_t); CKPT_VEC(uint32_t);
CKPT_VEC(int16_t); CKPT_VEC(uint16_t); CKPT_VEC(int8_t); CKPT_VEC(uint8_t);
#undef CKPT_VEC
template<class T>
using Vec = typename VecOf<T>::type;
using V = Vec<double>;
using VMask = Vec<int64_t>;

/// Four lanes of double (one AVX2 register), as the diff's f32 loop keeps its sums.
using V4 = double __attribute__((vector_size(32)));
using I4 = int64_t __attribute__((vector_size(32)));

template<class T>
T load(const uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template<class T>
[[gnu::always_inline]] inline Vec<T> loadW(const uint8_t* p)
{
    Vec<T> v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

[[gnu::always_inline]] inline double laneSum(V v)
{
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

[[gnu::always_inline]] inline V splat(double x) { return V{} + x; }

/// The storage types the statistics kernels read, one reader each (the index of the kernels' tables).
enum class Elem : uint8_t { F32, F64, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8 };
inline constexpr size_t ElemCount = 12;

/// Element readers: raw storage → double, exactly and without branches, one at a time (get) or W
/// at a time (getW, the vectorised loops).
struct F32R {
    using S = float;
    static constexpr Elem elem = Elem::F32;
    static double get(S v) { return v; }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return __builtin_convertvector(loadW<float>(p), V); }
};
struct F64R {
    using S = double;
    static constexpr Elem elem = Elem::F64;
    static double get(S v) { return v; }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return loadW<double>(p); }
};
struct F16R {
    using S = uint16_t;
    static constexpr Elem elem = Elem::F16;
    // Exact: one multiplication by 2^112 rebases the exponent (and normalises subnormals); Inf/NaN
    // get the all-ones exponent back. Same values as halfToFloat, branch-free.
    static double get(S h)
    {
        const float magnitude = std::bit_cast<float>(uint32_t(h & 0x7fffu) << 13) * 0x1p112f;
        const uint32_t special = (h & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0u;
        return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | special | (uint32_t(h & 0x8000u) << 16));
    }
    [[gnu::always_inline]] static V getW(const uint8_t* p)
    {
        using U = Vec<uint32_t>;
        using F = Vec<float>;
        const U h = __builtin_convertvector(loadW<uint16_t>(p), U);
        const F magnitude = reinterpret_cast<F>((h & 0x7fffu) << 13) * 0x1p112f;
        const U special = reinterpret_cast<U>((h & 0x7c00u) == 0x7c00u) & 0x7f800000u;
        return __builtin_convertvector(reinterpret_cast<F>(reinterpret_cast<U>(magnitude) | special | ((h & 0x8000u) << 16)), V);
    }
};
struct BF16R {
    using S = uint16_t;
    static constexpr Elem elem = Elem::BF16;
    static double get(S v) { return std::bit_cast<float>(uint32_t(v) << 16); }
    [[gnu::always_inline]] static V getW(const uint8_t* p)
    {
        using U = Vec<uint32_t>;
        return __builtin_convertvector(reinterpret_cast<Vec<float>>(__builtin_convertvector(loadW<uint16_t>(p), U) << 16), V);
    }
};
template<class T, Elem E>
struct IntR {
    using S = T;
    static constexpr Elem elem = E;
    static double get(S v) { return static_cast<double>(v); }
    [[gnu::always_inline]] static V getW(const uint8_t* p) { return __builtin_convertvector(loadW<T>(p), V); }
};
using I64R = IntR<int64_t, Elem::I64>;
using I32R = IntR<int32_t, Elem::I32>;
using I16R = IntR<int16_t, Elem::I16>;
using I8R = IntR<int8_t, Elem::I8>;
using U64R = IntR<uint64_t, Elem::U64>;
using U32R = IntR<uint32_t, Elem::U32>;
using U16R = IntR<uint16_t, Elem::U16>;
using U8R = IntR<uint8_t, Elem::U8>;

/// Applies M to every reader, in Elem order (the tables of kernels.cpp are built from this list).
#define CKPT_KERNEL_READERS(M) M(F32R), M(F64R), M(F16R), M(BF16R), M(I64R), M(I32R), M(I16R), M(I8R), \
    M(U64R), M(U32R), M(U16R), M(U8R)

} // namespace ckpt::kernels
