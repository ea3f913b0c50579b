#include "io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <iterator>
#include <system_error>

#include "zeronorm/core/error.hpp"

namespace zeronorm::detail {

namespace {
constexpr std::size_t chunk_bytes = std::size_t{1} << 20;
}  // namespace

LineInput::LineInput(std::istream& in, const std::string& name, std::size_t max_line_bytes,
                     std::uint64_t max_total_bytes)
    : in_(in), name_(name), max_line_(max_line_bytes), max_total_(max_total_bytes) {}

void LineInput::set_max_line(std::size_t bytes, const std::string& what) {
    max_line_ = bytes;
    max_line_what_ = what;
}

std::string byte_size(std::uint64_t bytes) {
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.4g %s", v, units[u]);
    return buf;
}

void LineInput::fail_long_line() const {
    throw DataFormatError(name_, line_ + 1, max_line_ + 1,
                          "line longer than " + byte_size(max_line_) +
                              (max_line_what_.empty() ? std::string() : " (" + max_line_what_ + ")") +
                              ": not a text file of this format, or no line end");
}

bool LineInput::fill() {
    if (pos_ > 0) {  // keep only the unread part, at the front
        buf_.erase(0, pos_);
        have_ -= pos_;
        pos_ = 0;
    }
    if (!in_) return false;
    buf_.resize(have_ + chunk_bytes);
    in_.read(&buf_[have_], static_cast<std::streamsize>(chunk_bytes));
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (in_.bad()) throw Error("cannot read '" + name_ + "': read error");
    have_ += got;
    read_ += got;
    if (read_ > max_total_)
        throw DataFormatError(name_, line_ + 1, 1,
                              "input longer than " + byte_size(max_total_) +
                                  " (the reader's limit on the total size): an endless input?");
    return got > 0;
}

bool LineInput::next(const char*& b, const char*& e) {
    for (;;) {
        if (pos_ == have_ && !fill()) return false;
        if (at_start_) {
            if (have_ - pos_ < 3 && fill()) continue;  // too little to tell a byte-order mark
            if (have_ - pos_ >= 3 && std::memcmp(&buf_[pos_], "\xEF\xBB\xBF", 3) == 0) {
                pos_ += 3;
                offset_ += 3;
            }
            at_start_ = false;
            continue;
        }
        if (after_cr_) {
            after_cr_ = false;
            if (buf_[pos_] == '\n') {
                ++pos_;
                ++offset_;
                continue;
            }
        }
        break;
    }
    for (;;) {
        const char* const line = &buf_[pos_];
        for (std::size_t k = scanned_; k < have_ - pos_; ++k) {
            const char c = line[k];
            if (c != '\n' && c != '\r' && c != '\0') continue;
            if (k > max_line_) fail_long_line();
            if (c == '\0')
                throw DataFormatError(name_, line_ + 1, k + 1,
                                      "NUL byte: expected text (is this a binary or UTF-16 file?)");
            b = line;
            e = line + k;
            after_cr_ = c == '\r';
            pos_ += k + 1;
            offset_ += k + 1;
            scanned_ = 0;
            ++line_;
            return true;
        }
        scanned_ = have_ - pos_;
        if (scanned_ > max_line_) fail_long_line();
        if (!fill()) break;
    }
    // The last line, without a line end.
    b = &buf_[pos_];
    e = b + scanned_;
    pos_ += scanned_;
    offset_ += scanned_;
    scanned_ = 0;
    ++line_;
    return true;
}

bool LineInput::next_nonblank(const char*& b, const char*& e) {
    while (next(b, e))
        for (const char* p = b; p != e; ++p)
            if (*p != ' ' && *p != '\t') return true;
    return false;
}

std::uint64_t regular_file_size(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return 0;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<std::uint64_t>(size);
}

std::ifstream open_text_file(const std::string& path, const std::string& what) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InvalidArgument("cannot read " + what + "'" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw InvalidArgument("cannot open " + what + "'" + path + "' for reading: " +
                              std::generic_category().message(err));
    }
    return in;
}

std::string quote_token(const char* b, const char* e) {
    constexpr std::ptrdiff_t max_shown = 40;
    std::string s = "'";
    const char* stop = (e - b > max_shown) ? b + max_shown : e;
    for (const char* p = b; p != stop; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c == '\r') {
            s += "\\r";
        } else if (c == '\t') {
            s += "\\t";
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
            s += buf;
        } else {
            s += static_cast<char>(c);
        }
    }
    if (stop != e) s += "...";
    s += "'";
    return s;
}

}  // namespace zeronorm::detail
