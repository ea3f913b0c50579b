// Links against an installed zeronorm and trains a tiny SVM.
#include <zeronorm/backend.hpp>
#include <zeronorm/svm.hpp>

#include <iostream>

int main() {
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
    return err == 0.0 ? 0 : 1;
}
