// How an iterative algorithm ended.
#pragma once

#include <string>

namespace zeronorm {

enum class Status {
    Success,         // converged to the requested tolerance
    NoConvergence,   // stopped at the iteration cap
    NumericalIssue,  // stopped early on a numerical problem (reported, result is the last good iterate)
};

inline const char* to_string(Status s) {
    switch (s) {
        case Status::Success: return "success";
        case Status::NoConvergence: return "no_convergence";
        case Status::NumericalIssue: return "numerical_issue";
    }
    return "unknown";
}

}  // namespace zeronorm
