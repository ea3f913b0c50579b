#include "vector_exp.hpp"

#include <cmath>

#if defined(ZERONORM_WITH_LIBMVEC)
#include <immintrin.h>

// libmvec's variants of exp (the x86-64 vector function ABI: b = SSE2, d = AVX2, e = AVX-512).
extern "C" {
__m128d _ZGVbN2v_exp(__m128d);
__m256d _ZGVdN4v_exp(__m256d);
__m512d _ZGVeN8v_exp(__m512d);
}
#endif

namespace zeronorm::cpu {
namespace {

#if defined(ZERONORM_WITH_LIBMVEC)
// Full vectors in place, then the last n % width entries through a padded vector, so every entry
// goes through the same function whatever its position (a symmetric kernel stays symmetric).
#define ZN_VECTOR_EXP(name, target, width, load, store, variant)                  \
    target void name(double* x, Index n) {                                       \
        Index i = 0;                                                              \
        for (; i + (width) <= n; i += (width)) store(x + i, variant(load(x + i))); \
        if (i == n) return;                                                       \
        alignas(64) double tail[width] = {};                                      \
        for (Index k = i; k < n; ++k) tail[k - i] = x[k];                          \
        store(tail, variant(load(tail)));                                         \
        for (Index k = i; k < n; ++k) x[k] = tail[k - i];                          \
    }

ZN_VECTOR_EXP(exp_sse2, , 2, _mm_loadu_pd, _mm_storeu_pd, _ZGVbN2v_exp)
ZN_VECTOR_EXP(exp_avx2, __attribute__((target("avx2,fma"))), 4, _mm256_loadu_pd,
              _mm256_storeu_pd, _ZGVdN4v_exp)
ZN_VECTOR_EXP(exp_avx512, __attribute__((target("avx512f"))), 8, _mm512_loadu_pd,
              _mm512_storeu_pd, _ZGVeN8v_exp)
#undef ZN_VECTOR_EXP

using ExpFunction = void (*)(double*, Index);

ExpFunction widest_exp() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return exp_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return exp_avx2;
    return exp_sse2;
}
#endif

}  // namespace

void exp_in_place(double* x, Index n) {
#if defined(ZERONORM_WITH_LIBMVEC)
    static const ExpFunction exp_function = widest_exp();
    exp_function(x, n);
#else
    for (Index i = 0; i < n; ++i) x[i] = std::exp(x[i]);
#endif
}

}  // namespace zeronorm::cpu
