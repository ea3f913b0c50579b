// Whole-file and whole-stream reads for the text readers (data and model files), with errors
// that name the file.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

namespace zeronorm::detail {

// Everything left in `in`; `size_hint` (0 if unknown) reserves the buffer. Error on a read error.
std::string read_stream(std::istream& in, const std::string& name, std::size_t size_hint);

// The whole file at `path`. InvalidArgument when it is a directory or cannot be opened; `what`
// ("" or e.g. "model ") prefixes the path in those messages.
std::string read_text_file(const std::string& path, const std::string& what);

// The token [b, e) in single quotes for error messages: at most 40 bytes shown (then "..."),
// \r and \t spelled out, other control and non-ASCII bytes as \xNN.
std::string quote_token(const char* b, const char* e);

}  // namespace zeronorm::detail
