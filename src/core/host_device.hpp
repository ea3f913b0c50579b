// ZN_HD marks functions usable on both sides: device code under nvcc, plain host code elsewhere.
#pragma once

#ifdef __CUDACC__
#define ZN_HD __host__ __device__
#else
#define ZN_HD
#endif
