// Files written atomically: the text goes to a temporary file in the target's directory, is
// flushed to disk (fsync), then renamed over the target, so a reader sees the old file or the
// complete new one, never a partial one, and a failed write leaves the old file untouched.
//
// Targets: a missing file in an existing, writable directory, or an existing regular file (its
// permission bits are kept). A symbolic link is followed: the regular file it names is replaced
// in that file's directory and the link stays. Anything else (a directory, a device, a FIFO, a
// socket, a dangling link, a link to a non-regular file) is refused, so writing can never
// replace, say, /dev/null with a regular file. Every failure is an OutputError.
#pragma once

#include <string>

namespace zeronorm {

class StagedFile {
public:
    // Checks the target and creates the temporary now, so an unusable path fails before any
    // work is done. `what` names the file in messages (e.g. "model", "--output").
    StagedFile(const std::string& path, const std::string& what);
    ~StagedFile();  // removes the temporary unless it was committed
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    // Writes `text` to the temporary and flushes it to disk.
    void write(const std::string& text);
    // Renames the written temporary over the target.
    void commit();

    // The file that will be replaced (a symbolic link resolved).
    const std::string& target() const { return target_; }

private:
    [[noreturn]] void fail(const std::string& why, int err);

    std::string path_;
    std::string what_;
    std::string target_;
    std::string temporary_;
    int fd_ = -1;
    bool written_ = false;
    bool committed_ = false;
};

// StagedFile(path, what), write(text), commit().
void write_file_atomically(const std::string& path, const std::string& text,
                           const std::string& what);

}  // namespace zeronorm
