// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor/kernels/kernels.h"

#include "core/tensor/kernels/pairkernels.h"
#include "core/tensor/kernels/statskernels.h"

// The variants beyond the baseline: x86-64 with GCC (as the loader's target_clones were before; any
// other compiler or machine builds the baseline alone).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CKPT_KERNEL_X86_VARIANTS 1
#endif

namespace ckpt::kernels {

namespace {

// The instruction set of each variant's functions, by the variant's namespace.
#define CKPT_TARGET_baseline
#define CKPT_TARGET_avx2 __attribute__((target("avx2")))
#define CKPT_TARGET_x86v4 __attribute__((target("arch=x86-64-v4")))

// One variant: each kernel as a function compiled for its instruction set (CKPT_TARGET_<NS>) around
// its always_inline body, so that the whole loop (readers, lambdas, lane sums) is compiled for that
// instruction set, and the variant's table. The diff's loop is named apart (DIFF,
// the namespace whose loop the table takes; see CKPT_DIFF_VARIANT).
#define CKPT_FINITE_MOMENTS(R) &finiteMoments<R>
#define CKPT_HISTOGRAM(R) &histogram<R>
#define CKPT_KERNEL_VARIANT(NS, ISA, DIFF)                                                                           \
    namespace NS {                                                                                                   \
    template<class R>                                                                                                \
    CKPT_TARGET_##NS bool finiteMoments(const uint8_t* p, size_t n, double shift, StatsMoments& out)                 \
    {                                                                                                                \
        return detail::finiteMomentsBody<R>(p, n, shift, out);                                                       \
    }                                                                                                                \
    template<class R>                                                                                                \
    CKPT_TARGET_##NS void histogram(const uint8_t* p, size_t n, const BinRange& r, bool allFinite, uint64_t* out)    \
    {                                                                                                                \
        detail::histogramBody<R>(p, n, r, allFinite, out);                                                           \
    }                                                                                                                \
    CKPT_TARGET_##NS double sumSquaredF32(const uint8_t* a, const uint8_t* b, uint64_t count)                        \
    {                                                                                                                \
        return detail::sumSquaredBody<float>(a, b, count);                                                           \
    }                                                                                                                \
    CKPT_TARGET_##NS double sumSquaredF64(const uint8_t* a, const uint8_t* b, uint64_t count)                        \
    {                                                                                                                \
        return detail::sumSquaredBody<double>(a, b, count);                                                          \
    }                                                                                                                \
    constexpr Table table = {ISA, {CKPT_KERNEL_READERS(CKPT_FINITE_MOMENTS)}, {CKPT_KERNEL_READERS(CKPT_HISTOGRAM)}, \
        &sumSquaredF32, &sumSquaredF64, &DIFF::diffF32Block};                                                        \
    }

// The diff's f32 loop keeps four doubles per vector, one AVX2 register: AVX-512 has no wider
// register to give it, so it has a baseline and an AVX2 variant only, and the x86-64-v4 table takes
// the AVX2 one (as the loader's clones did).
#define CKPT_DIFF_VARIANT(NS)                                                                                        \
    namespace NS {                                                                                                   \
    CKPT_TARGET_##NS void diffF32Block(const uint8_t* a, const uint8_t* b, size_t count, double tol, DiffLanes& lanes) \
    {                                                                                                                \
        detail::diffF32BlockBody(a, b, count, tol, lanes);                                                           \
    }                                                                                                                \
    }

CKPT_DIFF_VARIANT(baseline)
CKPT_KERNEL_VARIANT(baseline, Isa::Baseline, baseline)
#ifdef CKPT_KERNEL_X86_VARIANTS
CKPT_DIFF_VARIANT(avx2)
CKPT_KERNEL_VARIANT(avx2, Isa::Avx2, avx2)
CKPT_KERNEL_VARIANT(x86v4, Isa::X86V4, avx2)
#endif

#undef CKPT_KERNEL_VARIANT
#undef CKPT_DIFF_VARIANT
#undef CKPT_FINITE_MOMENTS
#undef CKPT_HISTOGRAM
#undef CKPT_TARGET_baseline
#undef CKPT_TARGET_avx2
#undef CKPT_TARGET_x86v4

// The tables are indexed by Elem: the reader list must be in its order.
#define CKPT_ELEM_OF(R) R::elem
constexpr std::array<Elem, ElemCount> ReaderOrder = {CKPT_KERNEL_READERS(CKPT_ELEM_OF)};
#undef CKPT_ELEM_OF
static_assert([] {
    for (size_t i = 0; i < ElemCount; ++i)
        if (size_t(ReaderOrder[i]) != i)
            return false;
    return true;
}());

} // namespace

std::string_view isaName(Isa isa)
{
    switch (isa) {
    case Isa::Baseline: return "baseline";
    case Isa::Avx2: return "avx2";
    case Isa::X86V4: return "x86-64-v4";
    }
    return "baseline";
}

const Table* variant(Isa isa)
{
    switch (isa) {
    case Isa::Baseline: return &baseline::table;
#ifdef CKPT_KERNEL_X86_VARIANTS
    case Isa::Avx2: return &avx2::table;
    case Isa::X86V4: return &x86v4::table;
#endif
    default: return nullptr;
    }
}

bool isaCompiled(Isa isa)
{
    return variant(isa) != nullptr;
}

bool cpuRuns(Isa isa)
{
    if (!isaCompiled(isa))
        return false;
#ifdef CKPT_KERNEL_X86_VARIANTS
    __builtin_cpu_init(); // idempotent; needed if the first call comes from a static initialiser
    switch (isa) {
    case Isa::Baseline: return true;
    case Isa::Avx2: return __builtin_cpu_supports("avx2");
    case Isa::X86V4: return __builtin_cpu_supports("x86-64-v4");
    }
#endif
    return true;
}

const Table& active()
{
    static const Table& chosen = []() -> const Table& {
        for (auto it = AllIsas.rbegin(); it != AllIsas.rend(); ++it)
            if (cpuRuns(*it))
                return *variant(*it);
        return baseline::table;
    }();
    return chosen;
}

} // namespace ckpt::kernels
