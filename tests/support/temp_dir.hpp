// A folder for the files a test writes: under the build's tests/tmp, one per process, so that
// test binaries run side by side (ctest -j, seed sweeps) never write the same path. Removed when
// the process exits normally.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace zeronorm::testing {

inline const std::string& process_tmp_dir() {
    struct Folder {
        std::string path =
            std::string(ZERONORM_TEST_TMP) + "/process-" + std::to_string(::getpid());
        Folder() { std::filesystem::create_directories(path); }
        ~Folder() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    };
    static const Folder folder;
    return folder.path;
}

}  // namespace zeronorm::testing
