// zeronorm._core: the library's method registry and evaluation for Python (nanobind). The
// scikit-learn estimators in python/zeronorm/ call these functions; they are not a public API.
//
// Arrays: float64 NumPy arrays of any strides arrive as views (nanobind does not copy them), and
// are read once into the column-major matrix a Dataset owns (a plain memcpy for Fortran order).
// Results go back as NumPy arrays that own their memory. Every computation runs with the GIL
// released. zeronorm::Error and its subclasses become the Python classes of zeronorm.errors of
// the same names, with the C++ message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "zeronorm/zeronorm.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace zeronorm {
namespace {

using InMatrix = nb::ndarray<const double, nb::ndim<2>, nb::device::cpu>;
using InVector = nb::ndarray<const double, nb::ndim<1>, nb::device::cpu>;
using OutArray = nb::ndarray<nb::numpy>;

// ---- arrays in and out -------------------------------------------------------------------------

// The matrix behind a NumPy array of any order (strides are in elements).
Matrix to_matrix(const InMatrix& a) {
    using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
    const Index n = Index(a.shape(0)), d = Index(a.shape(1));
    const Eigen::Map<const Matrix, 0, Stride> view(a.data(), n, d,
                                                   Stride(a.stride(1), a.stride(0)));
    return view;
}

Vector to_vector(const InVector& a) {
    using Stride = Eigen::InnerStride<Eigen::Dynamic>;
    const Eigen::Map<const Vector, 0, Stride> view(a.data(), Index(a.shape(0)),
                                                   Stride(a.stride(0)));
    return view;
}

// A NumPy array owning a moved-in copy of `value` (Eigen vector/matrix or std::vector).
template <class Owned>
OutArray owning_array(Owned&& value, std::initializer_list<size_t> shape,
                      std::initializer_list<int64_t> strides = {}) {
    using T = std::decay_t<Owned>;
    auto* owned = new T(std::forward<Owned>(value));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<T*>(p); });
    using Scalar = std::decay_t<decltype(*owned->data())>;
    return OutArray(owned->data(), shape, owner, strides, nb::dtype<Scalar>());
}

OutArray vector_out(Vector v) {
    const size_t n = size_t(v.size());
    return owning_array(std::move(v), {n});
}

OutArray matrix_out(Matrix m) {
    const size_t n = size_t(m.rows()), d = size_t(m.cols());
    return owning_array(std::move(m), {n, d}, {1, int64_t(n)});
}

OutArray indices_out(const IndexVector& v) {
    std::vector<std::int64_t> copy(v.begin(), v.end());
    const size_t n = copy.size();
    return owning_array(std::move(copy), {n});
}

Dataset make_dataset(const InMatrix& X, const InVector& y) {
    Dataset data;
    data.X = to_matrix(X);
    data.y = to_vector(y);
    data.validate();
    return data;
}

// ---- options from Python dictionaries ----------------------------------------------------------

std::string key_of(const nb::handle& key) { return nb::cast<std::string>(key); }

// SelectionOptions from {"method": ..., "feature_counts": [...], "C": ..., ...}; the keys are
// the struct's field names ("smo_tolerance" for smo.tolerance). An unknown key is an
// InvalidArgument, so a misspelt option never goes unnoticed.
SelectionOptions selection_options(const nb::dict& given) {
    SelectionOptions o;
    for (auto [key, value] : given) {
        const std::string k = key_of(key);
        if (k == "method") o.method = nb::cast<std::string>(value);
        else if (k == "feature_counts") {
            for (auto c : nb::cast<std::vector<std::int64_t>>(value)) o.feature_counts.push_back(Index(c));
        } else if (k == "C") o.C = nb::cast<double>(value);
        else if (k == "ridge") o.ridge = nb::cast<double>(value);
        else if (k == "prune_tolerance") o.prune_tolerance = nb::cast<double>(value);
        else if (k == "convergence_tolerance") o.convergence_tolerance = nb::cast<double>(value);
        else if (k == "max_iterations") o.max_iterations = nb::cast<std::int64_t>(value);
        else if (k == "rfe_fraction") o.rfe_fraction = nb::cast<double>(value);
        else if (k == "multiclass") o.multiclass = parse_multiclass_scheme(nb::cast<std::string>(value));
        else if (k == "final_C") o.final_C = nb::cast<double>(value);
        else if (k == "final_ridge") o.final_ridge = nb::cast<double>(value);
        else if (k == "smo_tolerance") o.smo.tolerance = nb::cast<double>(value);
        else if (k == "final_smo_tolerance") o.final_smo.tolerance = nb::cast<double>(value);
        // A ranker's own parameters by their registered names ("dc.mu", ...); set_parameter
        // refuses an unknown name.
        else o.set_parameter(k, nb::cast<std::string>(nb::str(value)));
    }
    return o;
}

nb::dict selection_defaults() {
    const SelectionOptions o;
    nb::dict d;
    d["method"] = o.method;
    d["C"] = o.C;
    d["ridge"] = o.ridge;
    d["prune_tolerance"] = o.prune_tolerance;
    d["convergence_tolerance"] = o.convergence_tolerance;
    d["max_iterations"] = o.max_iterations;
    d["rfe_fraction"] = o.rfe_fraction;
    d["multiclass"] = to_string(o.multiclass);
    d["final_C"] = o.final_C;
    d["final_ridge"] = o.final_ridge;
    d["smo_tolerance"] = o.smo.tolerance;
    d["final_smo_tolerance"] = o.final_smo.tolerance;
    return d;
}

// KernelSpec from {"kernel": "rbf", "gamma": ..., "degree": ..., "coef0": ...}.
KernelSpec kernel_spec(const nb::dict& given) {
    KernelSpec k;
    for (auto [key, value] : given) {
        const std::string name = key_of(key);
        if (name == "kernel") k.type = parse_kernel_type(nb::cast<std::string>(value));
        else if (name == "gamma") k.gamma = nb::cast<double>(value);
        else if (name == "degree") k.degree = nb::cast<int>(value);
        else if (name == "coef0") k.coef0 = nb::cast<double>(value);
        else throw InvalidArgument("unknown kernel option '" + name + "'");
    }
    return k;
}

// The C++ defaults of the kernel, the SMO solver and every registered classifier's parameters.
nb::dict classifier_defaults() {
    const KernelSpec k;
    const SmoOptions smo;
    nb::dict d;
    d["kernel"] = to_string(k.type);
    d["gamma"] = k.gamma;
    d["degree"] = k.degree;
    d["coef0"] = k.coef0;
    d["C"] = smo.C;
    d["ridge"] = smo.ridge;
    d["tol"] = smo.tolerance;
    d["shrinking"] = smo.shrinking;
    d["cache_size"] = smo.cache_mb;
    for (const auto& c : classifiers()) {
        nb::dict params;
        for (const auto& p : c->info().parameters) params[p.name.c_str()] = p.default_value;
        d[c->info().name.c_str()] = params;
    }
    return d;
}

std::unique_ptr<Backend> open_backend(const std::string& kind, int device) {
    return make_backend(parse_backend_kind(kind), device);
}

// ---- the functions the estimators call ---------------------------------------------------------

nb::dict subset_dict(FeatureSubset s) {
    nb::dict d;
    d["n_features"] = std::int64_t(s.n_features);
    d["selected"] = indices_out(s.selected);
    d["weights"] = vector_out(std::move(s.weights));
    d["class_weights"] = matrix_out(std::move(s.class_weights));
    nb::list bias;
    for (const auto& model : s.classifiers) bias.append(model.bias);
    d["bias"] = bias;
    d["classifier_status"] = to_string(s.classifier_status);
    d["classifier_message"] = s.classifier_message;
    // A kernel classifier's support vectors (kta's SVM without bias); -1 for a linear one.
    d["support_vectors"] = std::int64_t(
        s.classifiers.size() == 1 && s.classifiers.front().kernel.type != KernelType::Linear
            ? s.classifiers.front().n_support()
            : -1);
    return d;
}

nb::dict rank(const InMatrix& X, const InVector& y, const nb::dict& options,
              const std::string& device, int device_index) {
    const SelectionOptions o = selection_options(options);
    SelectionResult r;
    {
        nb::gil_scoped_release release;
        const Dataset data = make_dataset(X, y);
        auto backend = open_backend(device, device_index);
        r = find_ranker(o.method).rank(*backend, data, o);
    }
    nb::dict out;
    nb::list subsets;
    for (auto& s : r.subsets) subsets.append(subset_dict(std::move(s)));
    out["subsets"] = subsets;
    out["scores"] = vector_out(std::move(r.scores));
    out["iterations"] = std::int64_t(r.iterations);
    out["status"] = to_string(r.status);
    out["message"] = r.message;
    out["seconds"] = r.seconds;
    out["method_seconds"] = r.method_seconds;
    return out;
}

nb::dict train_classifier(const InMatrix& X, const InVector& y, const std::string& method,
                          const nb::dict& kernel, double C, double ridge,
                          std::optional<double> tolerance, bool shrinking, double cache_mb,
                          const std::map<std::string, std::string>& parameters,
                          const std::string& device, int device_index) {
    const Classifier& classifier = find_classifier(method);
    SvmOptions svm;
    svm.kernel = kernel_spec(kernel);
    // The method's own SMO settings (the L0-SVM's inner tolerance) unless a tolerance is given.
    static_cast<SmoSettings&>(svm.smo) = classifier.smo_defaults();
    svm.smo.C = C;
    svm.smo.ridge = ridge;
    if (tolerance) svm.smo.tolerance = *tolerance;
    svm.smo.shrinking = shrinking;
    svm.smo.cache_mb = cache_mb;
    TrainedClassifier t;
    {
        nb::gil_scoped_release release;
        const Dataset data = make_dataset(X, y);
        svm.validate(data.n_features());
        auto backend = open_backend(device, device_index);
        t = classifier.train(*backend, data, svm, parameters);
    }
    nb::dict out;
    out["support_vectors"] = matrix_out(std::move(t.model.support_vectors));
    out["coef"] = vector_out(std::move(t.model.coef));
    out["bias"] = t.model.bias;
    out["status"] = to_string(t.status);
    out["message"] = t.message;
    out["iterations"] = std::int64_t(t.iterations);
    out["seconds"] = t.seconds;
    return out;
}

OutArray decision_function(const InMatrix& support_vectors, const InVector& coef, double bias,
                           const nb::dict& kernel, const InMatrix& X, const std::string& device,
                           int device_index) {
    SvmModel model;
    model.kernel = kernel_spec(kernel);
    Vector f;
    {
        nb::gil_scoped_release release;
        model.support_vectors = to_matrix(support_vectors);
        model.coef = to_vector(coef);
        model.bias = bias;
        ZN_EXPECTS_DIM(model.coef.size() == model.support_vectors.rows(),
                       model.coef.size() << " coefficients for " << model.support_vectors.rows()
                                         << " support vectors");
        const Matrix points = to_matrix(X);
        ZN_EXPECTS_DIM(points.cols() == model.n_features() || model.n_support() == 0,
                       "X has " << points.cols() << " features, the model "
                                << model.n_features());
        if (model.n_support() == 0) {
            f = Vector::Constant(points.rows(), bias);
        } else {
            auto backend = open_backend(device, device_index);
            f = model.decision_function(*backend, points);
        }
    }
    return vector_out(std::move(f));
}

// (train, test) row indices of each split, 0-based.
nb::list split_rows_out(const std::vector<Fold>& folds) {
    nb::list rows;
    for (const Fold& f : folds) rows.append(nb::make_tuple(indices_out(f.train), indices_out(f.test)));
    return rows;
}

nb::dict evaluate(const InMatrix& X, const InVector& y, const nb::dict& options, int n_splits,
                  std::int64_t train_size, std::uint64_t seed, bool log10, bool standardize,
                  int threads, const std::string& device, int device_index) {
    SelectionEvaluationOptions o;
    o.selection = selection_options(options);
    o.log10 = log10;
    o.standardize = standardize;
    o.threads = threads;
    SelectionEvaluation r;
    std::vector<Fold> folds;
    {
        nb::gil_scoped_release release;
        const Dataset data = make_dataset(X, y);
        o.validate(data.n_features());
        folds = stratified_random_splits(data.y, n_splits, Index(train_size), seed);
        auto backend = open_backend(device, device_index);
        r = evaluate_selection(*backend, data, folds, o);
    }
    const size_t n_counts = r.path.size(), n = r.splits.size();
    const Index rows = Index(n), cols = Index(n_counts);
    Matrix errors(rows, cols);
    nb::list selected;
    for (size_t s = 0; s < n; ++s) {
        nb::list per_count;
        for (size_t c = 0; c < n_counts; ++c) {
            errors(Index(s), Index(c)) = r.splits[s].errors[c];
            per_count.append(indices_out(r.splits[s].selected[c]));
        }
        selected.append(per_count);
    }
    Vector mean(cols), std_error(cols);
    std::vector<std::int64_t> counts, failed;
    for (size_t c = 0; c < n_counts; ++c) {
        counts.push_back(std::int64_t(r.path[c].n_features));
        mean(Index(c)) = r.path[c].mean_error;
        std_error(Index(c)) = r.path[c].std_error;
        failed.push_back(std::int64_t(r.path[c].failed_classifiers));
    }
    nb::dict out;
    out["feature_counts"] = owning_array(std::move(counts), {n_counts});
    out["mean_error"] = vector_out(std::move(mean));
    out["std_error"] = vector_out(std::move(std_error));
    out["failed_classifiers"] = owning_array(std::move(failed), {n_counts});
    out["split_errors"] = matrix_out(std::move(errors));
    out["selected"] = selected;
    nb::list frequencies;  // stability selection, per count: (features, fractions), most frequent first
    for (size_t c = 0; c < n_counts; ++c) {
        const std::vector<FeatureFrequency> chosen = selection_frequencies(r, c);
        IndexVector features;
        Vector fractions(Index(chosen.size()));
        for (size_t k = 0; k < chosen.size(); ++k) {
            features.push_back(chosen[k].feature);
            fractions(Index(k)) = chosen[k].frequency;
        }
        frequencies.append(nb::make_tuple(indices_out(features), vector_out(std::move(fractions))));
    }
    out["frequencies"] = frequencies;
    out["splits"] = split_rows_out(folds);
    out["status"] = to_string(r.status);
    out["seconds"] = r.seconds;
    return out;
}

// evaluate_svm over stratified random splits: C from C_grid by inner_folds-fold CV on each
// split's training rows (one C: no inner loop), retrained and tested.
nb::dict evaluate_svm_splits(const InMatrix& X, const InVector& y, const nb::dict& kernel,
                             const std::vector<double>& C_grid, double ridge, double tolerance,
                             int inner_folds, int n_splits, std::int64_t train_size,
                             std::uint64_t seed, bool log10, bool standardize, int threads,
                             const std::string& device, int device_index) {
    SvmEvaluationOptions o;
    o.svm.kernel = kernel_spec(kernel);
    ZN_EXPECTS(!C_grid.empty(), "evaluate_svm: C needs at least one value");
    o.svm.smo.C = C_grid.front();
    if (C_grid.size() > 1) o.C_grid = C_grid;
    o.svm.smo.ridge = ridge;
    o.svm.smo.tolerance = tolerance;
    o.inner_folds = inner_folds;
    o.seed = seed;
    o.standardize = standardize;
    o.threads = threads;
    SvmEvaluation r;
    std::vector<double> grid;
    std::vector<Fold> folds;
    {
        nb::gil_scoped_release release;
        Dataset data = make_dataset(X, y);
        if (log10) data.X = log10_transform(data.X);
        o.validate(data.n_features());
        grid = o.grid();
        folds = stratified_random_splits(data.y, n_splits, Index(train_size), seed);
        auto backend = open_backend(device, device_index);
        r = evaluate_svm(*backend, data, folds, o);
    }
    const Index n = Index(r.splits.size()), n_grid = C_grid.size() > 1 ? Index(grid.size()) : 0;
    Vector errors(n), chosen(n);
    Matrix inner(n, n_grid);
    std::vector<std::int64_t> support, iterations;
    for (Index s = 0; s < n; ++s) {
        const SvmSplitEvaluation& e = r.splits[std::size_t(s)];
        errors[s] = e.error;
        chosen[s] = e.C;
        for (Index c = 0; c < n_grid; ++c) inner(s, c) = e.inner_errors[std::size_t(c)];
        support.push_back(std::int64_t(e.n_support));
        iterations.push_back(e.iterations);
    }
    nb::dict out;
    out["split_errors"] = vector_out(std::move(errors));
    out["chosen_C"] = vector_out(std::move(chosen));
    out["C_grid"] = vector_out(Eigen::Map<const Vector>(grid.data(), Index(grid.size())));
    out["inner_errors"] = matrix_out(std::move(inner));
    out["n_support"] = owning_array(std::move(support), {size_t(n)});
    out["iterations"] = owning_array(std::move(iterations), {size_t(n)});
    out["splits"] = split_rows_out(folds);
    out["mean_error"] = r.mean_error;
    out["std_error"] = r.std_error;
    out["status"] = to_string(r.status);
    out["seconds"] = r.seconds;
    out["batched"] = r.batched;
    return out;
}

// ---- errors ------------------------------------------------------------------------------------

// Sets the Python error; the translator then returns (nanobind's protocol).
void raise_python(const char* name, const std::exception& e) {
    const nb::object type = nb::module_::import_("zeronorm.errors").attr(name);
    PyErr_SetString(type.ptr(), e.what());
}

// Most derived first; anything else propagates to nanobind's own translators.
void translate_errors(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const OutOfDeviceMemory& e) {
        raise_python("OutOfDeviceMemory", e);
    } catch (const CudaError& e) {
        raise_python("CudaError", e);
    } catch (const DataFormatError& e) {
        raise_python("DataFormatError", e);
    } catch (const DimensionMismatch& e) {
        raise_python("DimensionMismatch", e);
    } catch (const InvalidArgument& e) {
        raise_python("InvalidArgument", e);
    } catch (const OutputError& e) {
        raise_python("OutputError", e);
    } catch (const NumericalError& e) {
        raise_python("NumericalError", e);
    } catch (const NotCompiled& e) {
        raise_python("NotCompiled", e);
    } catch (const Error& e) {
        raise_python("Error", e);
    }
}

}  // namespace
}  // namespace zeronorm

NB_MODULE(_core, m) {
    using namespace zeronorm;
    m.doc() = "zeronorm's C++ library (internal; use the estimators of the zeronorm package)";
    nb::register_exception_translator(&translate_errors);

    m.def("rank", &rank, "X"_a, "y"_a, "options"_a, "device"_a, "device_index"_a,
          "Runs a registered feature ranker (labels +-1 or 0..K-1).");
    m.def("train_classifier", &train_classifier, "X"_a, "y"_a, "method"_a, "kernel"_a, "C"_a,
          "ridge"_a, "tol"_a, "shrinking"_a, "cache_mb"_a, "parameters"_a, "device"_a,
          "device_index"_a, "Trains a registered two-class classifier (labels +-1).");
    m.def("decision_function", &decision_function, "support_vectors"_a, "coef"_a, "bias"_a,
          "kernel"_a, "X"_a, "device"_a, "device_index"_a);
    m.def("evaluate_selection", &evaluate, "X"_a, "y"_a, "options"_a, "n_splits"_a,
          "train_size"_a, "seed"_a, "log10"_a, "standardize"_a, "threads"_a, "device"_a,
          "device_index"_a);
    m.def("evaluate_svm", &evaluate_svm_splits, "X"_a, "y"_a, "kernel"_a, "C_grid"_a, "ridge"_a,
          "tolerance"_a, "inner_folds"_a, "n_splits"_a, "train_size"_a, "seed"_a, "log10"_a,
          "standardize"_a, "threads"_a, "device"_a, "device_index"_a,
          "evaluate_svm over stratified random splits, C by inner cross-validation.");
    m.def("selection_defaults", &selection_defaults);
    m.def("classifier_defaults", &classifier_defaults);
    m.def("ranker_names", &ranker_names);
    m.def("classifier_names", &classifier_names);
    m.def("cuda_compiled", &cuda_compiled);
    m.def("cuda_device_count", &cuda_device_count);
    m.def("cuda_architectures", &cuda_architectures_built);
    // The address of the buffer the module sees: equal to the NumPy array's when no copy was made
    // on the way in.
    m.def("buffer_address", [](const InMatrix& X) {
        return reinterpret_cast<std::uintptr_t>(X.data());
    });
}
