// Where a backend's time goes, call by call: ZERONORM_CUDA_PROFILE=1 makes the CUDA backend
// record the wall time of each public operation (outermost calls only, so the rows add up to
// the time spent in the backend; every operation synchronises before it returns, so its wall
// time holds its kernels, library calls and transfers), the bytes it moved each way and the
// stream synchronisations, and the device time of its main kernels (CUDA events around their
// launches, inside those operations), and print the tables to stderr when the backend is
// destroyed. Not installed; header-only, for the CUDA module and the tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace zeronorm {

class OpProfile {
public:
    struct Row {
        std::int64_t calls = 0;
        double seconds = 0.0;
        std::int64_t syncs = 0;
        std::int64_t bytes_to_device = 0;
        std::int64_t bytes_to_host = 0;

        Row& operator+=(const Row& other) {
            calls += other.calls;
            seconds += other.seconds;
            syncs += other.syncs;
            bytes_to_device += other.bytes_to_device;
            bytes_to_host += other.bytes_to_host;
            return *this;
        }
    };

    // An operation's call begins (nested calls are counted in their outermost call); returns
    // whether this is the outermost one.
    bool enter(const char* op) {
        if (depth_++ == 0) current_ = op;
        return depth_ == 1;
    }
    // The outermost call ends after `seconds`.
    void leave(double seconds) {
        if (--depth_ > 0) return;
        Row& row = rows_[current_];
        ++row.calls;
        row.seconds += seconds;
    }
    void sync() { ++row_now().syncs; }
    void to_device(std::int64_t bytes) { row_now().bytes_to_device += bytes; }
    void to_host(std::int64_t bytes) { row_now().bytes_to_host += bytes; }

    // A kernel's launch took `seconds` of device time.
    void kernel(const std::string& name, double seconds) {
        Row& row = kernels_[name];
        ++row.calls;
        row.seconds += seconds;
    }

    // Another profile's rows and kernels added to these (a worker backend's, when it ends).
    void merge(const OpProfile& other) {
        for (const auto& [name, row] : other.rows_) rows_[name] += row;
        for (const auto& [name, row] : other.kernels_) kernels_[name] += row;
    }

    const std::map<std::string, Row>& rows() const { return rows_; }
    const std::map<std::string, Row>& kernels() const { return kernels_; }

    // One line per operation, the most time first, then the total.
    std::string table(const std::string& title) const {
        std::vector<std::pair<std::string, Row>> sorted(rows_.begin(), rows_.end());
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
            return a.second.seconds > b.second.seconds;
        });
        Row total;
        for (const auto& [name, row] : sorted) total += row;
        std::string out = title + "\n";
        out += line("operation", "calls", "seconds", "us/call", "share", "syncs", "MB in", "MB out");
        sorted.emplace_back("total", total);
        for (const auto& [name, row] : sorted) {
            const double share = total.seconds > 0.0 ? row.seconds / total.seconds : 0.0;
            out += line(name, std::to_string(row.calls), fixed(row.seconds, 4),
                        fixed(row.calls > 0 ? 1e6 * row.seconds / double(row.calls) : 0.0, 1),
                        fixed(100.0 * share, 1) + "%", std::to_string(row.syncs),
                        fixed(double(row.bytes_to_device) / 1e6, 2),
                        fixed(double(row.bytes_to_host) / 1e6, 2));
        }
        if (kernels_.empty()) return out;
        std::vector<std::pair<std::string, Row>> launches(kernels_.begin(), kernels_.end());
        std::stable_sort(launches.begin(), launches.end(), [](const auto& a, const auto& b) {
            return a.second.seconds > b.second.seconds;
        });
        out += "device time of the timed launches (inside the operations above):\n";
        out += line("kernel", "launches", "seconds", "us/launch", "of all", "", "", "");
        for (const auto& [name, row] : launches) {
            const double share = total.seconds > 0.0 ? row.seconds / total.seconds : 0.0;
            out += line(name, std::to_string(row.calls), fixed(row.seconds, 4),
                        fixed(row.calls > 0 ? 1e6 * row.seconds / double(row.calls) : 0.0, 1),
                        fixed(100.0 * share, 1) + "%", "", "", "");
        }
        return out;
    }

private:
    // Outside every operation (the backend's own set-up), the row "(outside operations)".
    Row& row_now() { return rows_[depth_ > 0 ? current_ : std::string("(outside operations)")]; }

    static std::string fixed(double v, int digits) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
        return buffer;
    }
    static std::string line(const std::string& name, const std::string& calls,
                            const std::string& seconds, const std::string& per_call,
                            const std::string& share, const std::string& syncs,
                            const std::string& in, const std::string& out) {
        char buffer[256];
        std::snprintf(buffer, sizeof buffer, "%-28s %8s %10s %10s %7s %7s %9s %9s\n",
                      name.c_str(), calls.c_str(), seconds.c_str(), per_call.c_str(),
                      share.c_str(), syncs.c_str(), in.c_str(), out.c_str());
        return buffer;
    }

    std::map<std::string, Row> rows_;
    std::map<std::string, Row> kernels_;
    std::string current_;
    int depth_ = 0;
};

}  // namespace zeronorm
