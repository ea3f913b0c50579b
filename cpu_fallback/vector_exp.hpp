// exp over arrays of doubles, for the CPU backend's kernel entries (the exponentials of the
// alignment sums are most of their time): glibc's vector math library (libmvec, at most 4 ulp
// from the exact value) in the widest variant the processor runs, AVX-512, AVX2 or SSE2, chosen
// once at run time, so a portable build runs 8 exponentials per instruction where it can;
// std::exp one by one where the build has no libmvec (ZERONORM_WITH_LIBMVEC unset).
#pragma once

#include "zeronorm/core/backend.hpp"

namespace zeronorm::cpu {

// x[i] <- exp(x[i]) for i < n; each result depends on x[i] alone, not on its position.
void exp_in_place(double* x, Index n);

}  // namespace zeronorm::cpu
