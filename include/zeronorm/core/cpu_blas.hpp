// Which BLAS kernels the CPU backend's dense products run on, and a remedy where OpenBLAS did
// not recognise the processor.
#pragma once

#include <string>

namespace zeronorm {

// OpenBLAS's name for the kernels it loaded ("SkylakeX", "Haswell", "Prescott", ...), or
// "Eigen" in a build without OpenBLAS.
std::string cpu_blas_kernels();

// The OPENBLAS_CORETYPE that selects the processor's own kernels where OpenBLAS fell back to
// its SSE-era ones on a processor with AVX-512 ("SkylakeX") or AVX2 and FMA ("Haswell"); empty
// where the loaded kernels are not such a fallback or OpenBLAS is absent. (Debian's OpenBLAS
// 0.3.21 takes Xeons newer than it knows, e.g. family 6 model 207, for Prescott, which halves
// the GEMM rate.) OpenBLAS reads the variable when it is loaded, so a process sets it and
// restarts itself, as the command-line tool does.
std::string better_blas_coretype();

}  // namespace zeronorm
