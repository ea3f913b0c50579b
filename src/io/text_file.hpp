// Line-by-line reading for the text readers (data and model files), with errors that name the
// file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <string>

namespace zeronorm::detail {

// Reads a text stream line by line in chunks, so that an endless or binary input fails early
// instead of being read into memory: a line longer than the limit, more bytes in all than the
// limit, or a NUL byte (no text file has one; UTF-16 and binary files do) is a DataFormatError
// with file:line:column. Lines end in LF, CRLF or a lone CR (old Mac files); a UTF-8
// byte-order mark at the start is skipped. Only the current line is held in memory.
class LineInput {
public:
    LineInput(std::istream& in, const std::string& name, std::size_t max_line_bytes,
              std::uint64_t max_total_bytes);
    // Next line in [b, e), without its end; false at the end of input. The pointers stay valid
    // until the next call.
    bool next(const char*& b, const char*& e);
    // Next line that is not blank (spaces, tabs); false at the end of input.
    bool next_nonblank(const char*& b, const char*& e);
    // 1-based number of the line last returned.
    std::size_t line() const { return line_; }
    // Bytes consumed so far, line ends included.
    std::uint64_t offset() const { return offset_; }
    // The longest line accepted from now on; `what` says in messages where that limit comes from.
    void set_max_line(std::size_t bytes, const std::string& what);

private:
    bool fill();  // appends one chunk; false at the end of input
    [[noreturn]] void fail_long_line() const;

    std::istream& in_;
    const std::string& name_;
    std::size_t max_line_;
    std::string max_line_what_;
    std::uint64_t max_total_;
    std::string buf_;
    std::size_t pos_ = 0;       // start of the unread part of buf_
    std::size_t have_ = 0;      // bytes of buf_ holding input
    std::size_t scanned_ = 0;   // bytes after pos_ known to hold no line end
    std::uint64_t read_ = 0;    // bytes read from the stream
    std::uint64_t offset_ = 0;  // bytes consumed
    std::size_t line_ = 0;
    bool at_start_ = true;
    bool after_cr_ = false;  // the last line ended in '\r': a '\n' right after it belongs to it
};

// "64 MiB", "1.5 GiB": a byte count for messages.
std::string byte_size(std::uint64_t bytes);

// The size of the regular file at `path`, or 0 when unknown (a pipe, a device).
std::uint64_t regular_file_size(const std::string& path);

// Opens `path` for reading. InvalidArgument when it is a directory or cannot be opened; `what`
// ("" or e.g. "model ") prefixes the path in those messages.
std::ifstream open_text_file(const std::string& path, const std::string& what);

// The token [b, e) in single quotes for error messages: at most 40 bytes shown (then "..."),
// \r and \t spelled out, other control and non-ASCII bytes as \xNN.
std::string quote_token(const char* b, const char* e);

}  // namespace zeronorm::detail
