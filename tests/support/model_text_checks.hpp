// Checks on model-file texts shared by the model-file tests.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/endless_input.hpp"
#include "zeronorm/core/error.hpp"
#include "zeronorm/io/model_io.hpp"

namespace zeronorm::testing {

// The lines joined, each ended by "\n".
inline std::string join_lines(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

// Success when parsing `text` as "m.model" throws DataFormatError at m.model:line:column whose
// message starts with that position and contains `key`.
inline ::testing::AssertionResult model_rejected_at(const std::string& text, std::size_t line,
                                                    std::size_t column, const std::string& key) {
    try {
        std::istringstream in(text);
        parse_model(in, "m.model");
    } catch (const DataFormatError& e) {
        const std::string msg = e.what();
        if (e.file() != "m.model" || e.line() != line || e.column() != column)
            return ::testing::AssertionFailure()
                   << "expected m.model:" << line << ":" << column << ", got: " << msg;
        if (msg.rfind("m.model:" + std::to_string(line) + ":" + std::to_string(column) + ": ", 0) !=
            0)
            return ::testing::AssertionFailure() << "message lacks the position: " << msg;
        if (msg.find(key) == std::string::npos)
            return ::testing::AssertionFailure() << "message lacks '" << key << "': " << msg;
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw another exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

// Success when parsing `head` followed by `pattern` repeated without end throws DataFormatError at
// line:column whose message contains `key`.
inline ::testing::AssertionResult endless_rejected_at(const std::string& head,
                                                      const std::string& pattern, std::size_t line,
                                                      std::size_t column, const std::string& key) {
    EndlessInput in(head, pattern);
    try {
        parse_model(in, "m.model");
    } catch (const DataFormatError& e) {
        const std::string where = std::to_string(e.line()) + ":" + std::to_string(e.column());
        if (where != std::to_string(line) + ":" + std::to_string(column) ||
            std::string(e.what()).find(key) == std::string::npos)
            return ::testing::AssertionFailure() << "got " << e.what();
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace zeronorm::testing
