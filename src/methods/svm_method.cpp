// Registration of the L2-norm SVM (svm.cpp) as a classifier.
#include "methods/linear_svm_without_kernel.hpp"
#include "methods/method_registry.hpp"
#include "zeronorm/io/json.hpp"

namespace zeronorm {
namespace {

class SvmClassifier final : public Classifier {
public:
    const MethodInfo& info() const override {
        static const MethodInfo info{
            "svm",
            "L2-norm SVM (C-SVC) trained by SMO (linear, n >= 2000 and 10 d: without the kernel)",
            "Fan, Chen & Lin 2005 (SMO with WSS2, as LIBSVM); Keerthi & DeCoste 2005 (finite "
            "Newton, with a ridge)",
            {}};
        return info;
    }
    TrainedClassifier train(Backend& backend, const Dataset& data, const SvmOptions& svm,
                            const Parameters&) const override {
        const bool without_kernel = detail::trains_without_kernel(data, svm);
        const SvmTrainResult r = without_kernel ? detail::train_svm_without_kernel(data, svm)
                                                : train_svm(backend, data, svm);
        TrainedClassifier out;
        out.model = r.model;
        out.method = info().name;
        out.status = r.smo.status;
        out.iterations = r.smo.iterations;
        out.seconds = r.seconds;
        out.report = to_json(r);
        out.report["solver"] = !without_kernel          ? "smo"
                               : svm.smo.ridge > 0.0 ? "primal newton, no kernel"
                                                     : "interior point, no kernel";
        return out;
    }
};

}  // namespace

std::unique_ptr<Classifier> make_svm_classifier() { return std::make_unique<SvmClassifier>(); }

}  // namespace zeronorm
