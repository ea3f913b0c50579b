// Links against an installed zeronorm, trains a tiny SVM and reaches the installed CUDA module
// when the package has one.
#include <zeronorm/zeronorm.hpp>

#include <iostream>
#include <string>

namespace {

// The module (installed when `installed_module`) is found where the package put it and loads: a
// backend, or CudaError on a machine without a GPU (NotCompiled: not found or refused).
bool cuda_module_reachable(bool installed_module) {
    const std::string expected = CONSUMER_CUDA_MODULE;
    std::cout << "consumer: CUDA module '" << zeronorm::cuda_module_path() << "', expected '"
              << expected << "'\n";
    if (zeronorm::cuda_module_path() != expected || expected.empty() == installed_module)
        return false;
    if (expected.empty()) return true;
    try {
        zeronorm::make_cuda_backend(0);
    } catch (const zeronorm::CudaError& e) {
        std::cout << "consumer: " << e.what() << "\n";
    } catch (const zeronorm::NotCompiled& e) {
        std::cout << "consumer: " << e.what() << "\n";
        return false;
    }
    return true;
}

}  // namespace

// argv[1]: 1 when the installed package has the CUDA module.
int main(int argc, char** argv) {
    zeronorm::Dataset data;
    data.X.resize(4, 2);
    data.X << 0, 0, 0, 1, 3, 3, 3, 4;
    data.y.resize(4);
    data.y << -1, -1, 1, 1;
    auto backend = zeronorm::make_cpu_backend();
    zeronorm::SvmOptions options;
    const auto result = zeronorm::train_svm(*backend, data, options);
    const auto predicted = result.model.predict(*backend, data.X);
    const double err = zeronorm::error_rate(predicted, data.y);
    std::cout << "consumer: training error " << err << "\n";
    return err == 0.0 && cuda_module_reachable(argc > 1 && std::string(argv[1]) == "1") ? 0 : 1;
}
