// How an iterative algorithm ended. Bad input is an exception (error.hpp); how a solve on valid
// input ended is a Status, with the result's `message` saying why in words.
#pragma once

#include <string>

namespace zeronorm {

enum class Status {
    Success,         // converged to the requested tolerance
    NoConvergence,   // stopped at the iteration cap
    NumericalIssue,  // stopped early on a numerical problem (reported, result is the last good iterate)
    Infeasible,      // the problem has no feasible point (proven, e.g. a hard-margin LP on inseparable data)
    Unbounded,       // the objective is unbounded below (proven: the dual is infeasible)
};

inline const char* to_string(Status s) {
    switch (s) {
        case Status::Success: return "success";
        case Status::NoConvergence: return "no_convergence";
        case Status::NumericalIssue: return "numerical_issue";
        case Status::Infeasible: return "infeasible";
        case Status::Unbounded: return "unbounded";
    }
    return "unknown";
}

}  // namespace zeronorm
