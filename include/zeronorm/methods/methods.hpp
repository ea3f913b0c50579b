// The registry of methods: feature rankers (l2-arom, l1-arom, rfe, corr, fsv, l2-l1-svm,
// l2-l0-svm, rlp, fs-svmcp, rfe-rbf) and classifiers (svm, l0-svm), each with its name, a one-line description, the paper it follows and the parameters
// it reads, so that the command-line tool (and bindings) can list them and offer their options.
//
// Adding a method: implement FeatureRanker (or Classifier) in the method's own folder under
// src/methods/, give it a factory `std::unique_ptr<FeatureRanker> make_<name>_ranker()`, and add
// that factory to the list in src/methods/method_registry.cpp (one line). Its parameters
// (MethodInfo::parameters) become command-line flags and reach it by name: a classifier's as
// Parameters, a ranker's through SelectionOptions::set_parameter into its options field.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "zeronorm/core/backend.hpp"
#include "zeronorm/io/json.hpp"
#include "zeronorm/io/model_io.hpp"
#include "zeronorm/methods/selection.hpp"
#include "zeronorm/solvers/svm.hpp"

namespace zeronorm {

// One parameter a method reads, for listing and for command-line flags.
struct ParameterInfo {
    enum class Type { Real, Integer, Choice, Flag };
    std::string name;           // the key in Classifier parameters / the SelectionOptions field
    std::string flag;           // its command-line flag, e.g. "--rfe-fraction"
    Type type = Type::Real;
    std::string default_value;  // as text
    std::string help;
    std::string valid;          // the valid range in words, e.g. "[0, 1)" or "exact, diagonal"
    std::vector<std::string> choices;  // Type::Choice: the accepted values
};

// What every method says about itself.
struct MethodInfo {
    std::string name;         // e.g. "l2-arom"
    std::string description;  // one line
    std::string citation;     // author(s) and year, with the section followed
    std::vector<ParameterInfo> parameters;  // those only this method reads
};

namespace detail {
struct Machines;
struct Ranking;
}  // namespace detail

// A feature-selection method. Its parameters are the fields of SelectionOptions: those every
// ranker shares (feature counts, the final classifier) and those listed in info().parameters.
class FeatureRanker {
public:
    virtual ~FeatureRanker() = default;
    virtual const MethodInfo& info() const = 0;
    // True when K >= 3 classes may use the Weston-Watkins M-SVM (otherwise one-vs-rest only).
    virtual bool supports_weston_watkins() const { return false; }
    // True when the method finds its own number of features (the support of its w: FSV, the
    // l2-l0-SVM, ...): then feature_counts may be empty, meaning that support as one subset,
    // and a requested count larger than the support is capped at it.
    virtual bool chooses_own_count() const { return false; }
    // Ranks the features (options.method is ignored) and retrains the final classifier on each
    // subset: select_features with this method.
    SelectionResult rank(Backend& backend, const Dataset& data,
                         const SelectionOptions& options) const;

    // The method itself, on validated labels (`machines`), for the counts sorted largest first.
    virtual detail::Ranking run(Backend& backend, const Dataset& data,
                                const detail::Machines& machines, const SelectionOptions& options,
                                const IndexVector& counts_desc) const = 0;
};

// Method parameters by name (ParameterInfo::name), as text: a classifier parses and checks them
// (InvalidArgument naming the parameter); a missing one takes its default.
using Parameters = std::map<std::string, std::string>;

// A trained two-class classifier, in the form a model file stores.
struct TrainedClassifier {
    SvmModel model;             // f(x) = sum_i coef_i k(x, x_i) + b
    ModelKind model_kind = ModelKind::KernelExpansion;  // how a model file stores it
    std::string method;         // the classifier's name
    // What the model file records about the method (empty for the plain SVM).
    std::vector<std::pair<std::string, std::string>> model_parameters;
    // The trainer's result in JSON form (to_json), led by the method's parameters.
    Json report;
    Status status = Status::Success;
    std::string message;        // how training ended, when not plainly converged
    std::int64_t iterations = 0;
    double seconds = 0.0;
};

// A two-class classifier trainer. `svm` gives the kernel and the SMO settings (svm.smo.C and
// ridge are the plain SVM's; a method with its own box bound names it in its parameters).
class Classifier {
public:
    virtual ~Classifier() = default;
    virtual const MethodInfo& info() const = 0;
    // True when the method takes svm.smo.C and svm.smo.ridge (-C, --ridge).
    virtual bool uses_box_and_ridge() const { return true; }
    // The SMO settings the method runs with unless the caller sets others in svm.smo.
    virtual SmoSettings smo_defaults() const { return SmoSettings{}; }
    // Labels +-1 with both classes present. Throws InvalidArgument for bad input or parameters,
    // naming the parameter (ParameterInfo::name) or the SvmOptions field.
    virtual TrainedClassifier train(Backend& backend, const Dataset& data, const SvmOptions& svm,
                                    const Parameters& parameters) const = 0;
};

// Every registered method, in registration order.
const std::vector<std::unique_ptr<FeatureRanker>>& feature_rankers();
const std::vector<std::unique_ptr<Classifier>>& classifiers();
// The method named `name`; InvalidArgument listing the known names otherwise.
const FeatureRanker& find_ranker(const std::string& name);
const Classifier& find_classifier(const std::string& name);
std::vector<std::string> ranker_names();
std::vector<std::string> classifier_names();

}  // namespace zeronorm
