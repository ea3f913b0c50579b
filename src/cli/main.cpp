// zeronorm: train / predict / cv / select on CSV and LIBSVM-format files.
//
// Exit codes: 0 success; 1 usage (bad flags or option values, unreadable paths); 2 data
// (malformed files, sizes that do not fit, unsuitable labels); 3 numerical failure; 4 device
// (CUDA error, backend not compiled); 5 an output (model, --output, standard output) cannot be
// written: an unusable target, found before any work, or a failed write. Every error message on stderr starts "zeronorm: error: ".
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>

#include "cli.hpp"
#include "zeronorm/core/backend.hpp"
#include "zeronorm/core/cpu_blas.hpp"
#include "zeronorm/core/cuda_compatibility.hpp"

#ifndef ZERONORM_CLI_VERSION
#define ZERONORM_CLI_VERSION "unknown"
#endif

namespace {

enum ExitCode { ok = 0, usage = 1, data = 2, numerical = 3, device = 4, output = 5 };

int fail(int code, const std::string& message) {
    std::cerr << "zeronorm: error: " << message << std::endl;
    return code;
}

// Runs the parsed command and turns each kind of failure into its exit code.
int execute(zeronorm::cli::Command& command) {
    using namespace zeronorm;
    try {
        command.run();
        return ok;
    } catch (const InvalidArgument& e) {
        return fail(usage, e.what());
    } catch (const DataFormatError& e) {
        return fail(data, e.what());
    } catch (const DimensionMismatch& e) {
        return fail(data, e.what());
    } catch (const cli::DataError& e) {
        return fail(data, e.what());
    } catch (const NumericalError& e) {
        return fail(numerical, e.what());
    } catch (const NotCompiled& e) {
        return fail(device, e.what());
    } catch (const CudaError& e) {
        return fail(device, e.what());
    } catch (const OutputError& e) {
        return fail(output, e.what());
    } catch (const Error& e) {  // I/O failures
        return fail(data, e.what());
    } catch (const std::bad_alloc&) {
        return fail(numerical, "out of memory");
    } catch (const std::exception& e) {
        return fail(data, e.what());
    }
}

// Where OpenBLAS took the processor for an SSE-era one (better_blas_coretype), the tool restarts
// itself once with OPENBLAS_CORETYPE naming the processor's kernels, unless the user set that
// variable: twice the GEMM rate for every command at the cost of one exec. If the exec fails,
// the run goes on with the kernels loaded.
void use_the_processors_blas_kernels(char** argv) {
    if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
    const std::string coretype = zeronorm::better_blas_coretype();
    if (coretype.empty()) return;
    if (setenv("OPENBLAS_CORETYPE", coretype.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv);
}

// A cross-validation allocates and frees the same few matrices for every split (its subsets,
// standardised copies, kernels), most of them above glibc's default mmap threshold (128 KiB,
// raised as blocks are freed) or trimmed off the top of the heap when freed (above 128 KiB): each
// split then gets them back as fresh pages, zeroed through page faults (a quarter of the time of
// a 72 x 7129 RFE cross-validation). The tool keeps blocks up to 32 MiB in the heap and trims it
// only above 128 MiB, unless the user tunes glibc's allocator through its environment variables.
void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
    for (const char* tunable :
         {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
        if (std::getenv(tunable) != nullptr) return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

int run(int argc, char** argv) {
    use_the_processors_blas_kernels(argv);
    keep_freed_memory_for_reuse();
    // One BLAS thread unless the user asks otherwise (see set_cpu_blas_threads).
    if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr) zeronorm::set_cpu_blas_threads(1);
    CLI::App app{
        "Sparse SVMs by approximate zero-norm minimisation: feature selection (AROM, "
        "RFE, CORR), SVM training, prediction and cross-validation.",
        "zeronorm"};
    app.set_version_flag("--version", [] {
        // The architectures: which cards this build's CUDA module runs on (cuda_compatibility.hpp).
        const std::string cuda =
            zeronorm::cuda_compiled()
                ? "yes (" +
                      zeronorm::describe_cuda_architectures(
                          zeronorm::parse_cuda_architectures(zeronorm::cuda_architectures_built())) +
                      "; CMAKE_CUDA_ARCHITECTURES=" + zeronorm::cuda_architectures_built() + ")"
                : std::string("no");
        const char* chosen = std::getenv("OPENBLAS_CORETYPE");
        return std::string("zeronorm ") + ZERONORM_CLI_VERSION + "\ncuda: " + cuda +
               "\nblas kernels: " + zeronorm::cpu_blas_kernels() +
               (chosen != nullptr ? std::string(" (OPENBLAS_CORETYPE=") + chosen + ")" : "");
    });
    app.require_subcommand(1);
    app.footer(
        "Run 'zeronorm <command> --help' for the options of a command.\n"
        "Exit codes: 0 ok, 1 usage, 2 data, 3 numerical, 4 device, 5 output not written.");

    std::vector<std::unique_ptr<zeronorm::cli::Command>> commands;
    commands.push_back(zeronorm::cli::make_train_command(app));
    commands.push_back(zeronorm::cli::make_predict_command(app));
    commands.push_back(zeronorm::cli::make_cv_command(app));
    commands.push_back(zeronorm::cli::make_select_command(app));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        return fail(usage, std::string(e.what()) +
                               "\nRun 'zeronorm --help' or 'zeronorm <command> --help' for usage.");
    }
    for (auto& command : commands)
        if (command->app->parsed()) return execute(*command);
    return fail(usage, "no command given");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        return fail(data, e.what());
    } catch (...) {
        return fail(data, "unexpected failure");
    }
}
