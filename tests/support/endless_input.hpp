// A stream that serves `head` and then repeats `pattern` for ever, like a pipe whose writer never
// stops: for the readers' bounds on line length and total size.
#pragma once

#include <istream>
#include <streambuf>
#include <string>
#include <utility>

namespace zeronorm::testing {

class EndlessInput : public std::istream {
public:
    EndlessInput(std::string head, const std::string& pattern)
        : std::istream(nullptr), buffer_(std::move(head), pattern) {
        rdbuf(&buffer_);
    }

private:
    class Buffer : public std::streambuf {
    public:
        Buffer(std::string head, const std::string& pattern) : head_(std::move(head)) {
            while (block_.size() < (1u << 16)) block_ += pattern;
        }

    protected:
        int_type underflow() override {
            std::string& next = head_served_ || head_.empty() ? block_ : head_;
            head_served_ = true;
            setg(next.data(), next.data(), next.data() + next.size());
            return traits_type::to_int_type(next[0]);
        }

    private:
        std::string head_;
        std::string block_;
        bool head_served_ = false;
    };
    Buffer buffer_;
};

}  // namespace zeronorm::testing
