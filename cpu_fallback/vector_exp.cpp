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

void exp_one_by_one(double* x, Index begin, Index n) {
    for (Index i = begin; i < n; ++i) x[i] = std::exp(x[i]);
}

#if defined(ZERONORM_WITH_LIBMVEC)
void exp_sse2(double* x, Index n) {
    Index i = 0;
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(x + i, _ZGVbN2v_exp(_mm_loadu_pd(x + i)));
    exp_one_by_one(x, i, n);
}

__attribute__((target("avx2,fma"))) void exp_avx2(double* x, Index n) {
    Index i = 0;
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _ZGVdN4v_exp(_mm256_loadu_pd(x + i)));
    exp_sse2(x + i, n - i);
}

__attribute__((target("avx512f"))) void exp_avx512(double* x, Index n) {
    Index i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(x + i, _ZGVeN8v_exp(_mm512_loadu_pd(x + i)));
    exp_sse2(x + i, n - i);
}

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
    exp_one_by_one(x, 0, n);
#endif
}

}  // namespace zeronorm::cpu
