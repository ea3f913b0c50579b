// Small helpers shared by the reproduction drivers in bench/: comma-separated option lists,
// per-run statistics and the cells of the markdown tables they print.
#pragma once

#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace zeronorm::bench {

// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
    return out;
}

// Values of one quantity over runs: mean and standard error (sample sd / sqrt(runs)).
struct Stats {
    std::vector<double> values;
    double mean() const {
        return values.empty()
                   ? 0.0
                   : std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    }
    double standard_error() const {
        if (values.size() < 2) return 0.0;
        const double mu = mean();
        double ss = 0.0;
        for (double v : values) ss += (v - mu) * (v - mu);
        return std::sqrt(ss / double(values.size() - 1)) / std::sqrt(double(values.size()));
    }
};

inline std::string fmt(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

inline std::string mean_se(const Stats& s, int digits) {
    return fmt(s.mean(), digits) + " ± " + fmt(s.standard_error(), digits);
}

// (ours - paper) in units of our standard error; "–" when the paper gives no number (< 0) or
// the runs do not vary.
inline std::string gap(const Stats& s, double paper) {
    if (paper < 0) return "–";
    const double se = s.standard_error();
    if (se == 0.0) return "–";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f", (s.mean() - paper) / se);
    return buf;
}

}  // namespace zeronorm::bench
