// A labelled data set: dense X (n samples x d features, column-major double), labels and
// optional feature names.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

namespace zeronorm {

using Index = Eigen::Index;
using Matrix = Eigen::MatrixXd;  // column-major, n x d
using Vector = Eigen::VectorXd;
using IndexVector = std::vector<Index>;

struct Dataset {
    Matrix X;                                // n x d
    // n labels: +1/-1 for two classes, 0..K-1 for K classes (empty for data read without
    // labels, to predict: ReadOptions::allow_unlabelled).
    Vector y;
    std::vector<std::string> feature_names;  // empty or d names
    // Original label text -> the label stored in y, when the file's labels were remapped
    // (e.g. {1,2} -> {-1,+1}, {"ALL","AML"} -> {-1,+1}); empty when the labels were used as
    // written.
    std::map<std::string, double> label_mapping;

    Index n_samples() const { return X.rows(); }
    Index n_features() const { return X.cols(); }
    // Number of distinct labels.
    int n_classes() const;
    // True when y holds exactly the two labels -1 and +1.
    bool is_binary() const;
    // Rows `rows` of this set (labels, names and mapping carried along).
    Dataset subset(const IndexVector& rows) const;
    // Throws DimensionMismatch / InvalidArgument if the parts do not fit or contain NaN/Inf.
    void validate() const;
};

}  // namespace zeronorm
