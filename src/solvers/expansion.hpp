// Internal: the values of a kernel expansion, shared by the models' decision functions and the
// cross-validation engine's scores. Not installed.
#pragma once

#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/kernel.hpp"

namespace zeronorm::detail {

// sum_k coef_k k(x_i, c_k) for every row x_i of `points` (centres: one row per c_k, coef their
// coefficients; both non-empty). A linear kernel goes through w = centres' coef (points.rows()
// d work and memory instead of points.rows() centres.rows() d).
Vector expansion_values(Backend& backend, const KernelSpec& kernel, const DeviceMatrix& points,
                        const DeviceMatrix& centres, const Vector& coef);

}  // namespace zeronorm::detail
