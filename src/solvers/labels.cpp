#include "solvers/labels.hpp"

#include "zeronorm/core/error.hpp"

namespace zeronorm {

void check_two_class_labels(const Vector& y, const std::string& who) {
    bool positive = false, negative = false;
    for (Index i = 0; i < y.size(); ++i) {
        ZN_EXPECTS(y[i] == 1.0 || y[i] == -1.0,
                   who << ": labels must be +1/-1, y[" << i << "] = " << y[i]);
        (y[i] > 0 ? positive : negative) = true;
    }
    ZN_EXPECTS(positive && negative,
               who << ": both classes must be present, the labels hold only one class ("
                   << (positive ? "+1" : "-1") << ")");
}

}  // namespace zeronorm
