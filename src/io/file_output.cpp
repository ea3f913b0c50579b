#include "zeronorm/io/file_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "zeronorm/core/error.hpp"

namespace zeronorm {
namespace {

std::string error_text(int err) {
    return std::generic_category().message(err);
}

std::string directory_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// Temporaries of one process differ by a counter, so two outputs staged at once never collide.
std::string temporary_name(const std::string& target) {
    static std::atomic<unsigned> counter{0};
    return target + ".tmp." + std::to_string(static_cast<long long>(::getpid())) + "." +
           std::to_string(counter++);
}

}  // namespace

StagedFile::StagedFile(const std::string& path, const std::string& what)
    : path_(path), what_(what), target_(path) {
    if (path.empty()) fail("empty path", 0);
    struct stat st {};
    bool exists = ::lstat(path.c_str(), &st) == 0;
    if (!exists && errno != ENOENT) fail("", errno);
    if (exists && S_ISLNK(st.st_mode)) {
        // Replace the file the link names, in its own directory; renaming over the link itself
        // would turn it into a regular file.
        char* real = ::realpath(path.c_str(), nullptr);
        if (real == nullptr) {
            const int err = errno;
            fail(err == ENOENT ? "it is a symbolic link to a missing file" : error_text(err), 0);
        }
        target_ = real;
        std::free(real);
        if (::stat(target_.c_str(), &st) != 0) fail("", errno);
        if (!S_ISREG(st.st_mode))
            fail("it is a symbolic link to '" + target_ + "', which is not a regular file", 0);
    }
    if (exists && S_ISDIR(st.st_mode)) fail("it is a directory", 0);
    if (exists && !S_ISREG(st.st_mode))
        fail("it is not a regular file (a device, FIFO or socket); only regular files are replaced",
             0);
    const std::string dir = directory_of(target_);
    struct stat dir_st {};
    if (::stat(dir.c_str(), &dir_st) != 0) {
        const int err = errno;
        fail(err == ENOENT ? "the directory '" + dir + "' does not exist" : error_text(err), 0);
    }
    if (!S_ISDIR(dir_st.st_mode)) fail("'" + dir + "' is not a directory", 0);
    for (;;) {
        temporary_ = temporary_name(target_);
        fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ >= 0 || errno != EEXIST) break;
    }
    if (fd_ < 0) {
        const int err = errno;
        const std::string temporary = temporary_;
        temporary_.clear();  // not created: nothing to remove
        fail("cannot create '" + temporary + "': " + error_text(err), 0);
    }
    // A replaced file keeps its permissions (a private results file stays private).
    if (exists && ::fchmod(fd_, st.st_mode & 07777) != 0) fail("", errno);
}

StagedFile::~StagedFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void StagedFile::write(const std::string& text) {
    ZN_EXPECTS(fd_ >= 0 && !written_, "StagedFile::write: already written");
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("", errno);
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd_) != 0) fail("", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("", errno);
    written_ = true;
}

void StagedFile::commit() {
    ZN_EXPECTS(written_ && !committed_, "StagedFile::commit: nothing written");
    if (std::rename(temporary_.c_str(), target_.c_str()) != 0) fail("", errno);
    committed_ = true;
    // Make the rename itself durable; the file is complete either way, so failures are ignored.
    const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
}

void StagedFile::fail(const std::string& why, int err) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    temporary_.clear();
    const std::string reason = why.empty() ? error_text(err) : why;
    throw OutputError("cannot write " + what_ + " '" + path_ + "': " + reason);
}

void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& what) {
    StagedFile file(path, what);
    file.write(text);
    file.commit();
}

}  // namespace zeronorm
