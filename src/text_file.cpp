#include "text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "zeronorm/error.hpp"

namespace zeronorm::detail {

std::string read_stream(std::istream& in, const std::string& name, std::size_t size_hint) {
    std::string buf;
    buf.reserve(size_hint);
    constexpr std::size_t chunk = 1 << 20;
    std::size_t have = 0;
    for (;;) {
        buf.resize(have + chunk);
        in.read(&buf[have], static_cast<std::streamsize>(chunk));
        const auto got = in.gcount();
        have += static_cast<std::size_t>(got);
        if (got < static_cast<std::streamsize>(chunk)) break;
    }
    buf.resize(have);
    if (in.bad()) throw Error("cannot read '" + name + "': read error");
    return buf;
}

std::string read_text_file(const std::string& path, const std::string& what) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InvalidArgument("cannot read " + what + "'" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw InvalidArgument("cannot open " + what + "'" + path + "' for reading: " +
                              std::generic_category().message(err));
    }
    const auto size = std::filesystem::file_size(path, ec);
    return read_stream(in, path, ec ? 0 : static_cast<std::size_t>(size));
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
