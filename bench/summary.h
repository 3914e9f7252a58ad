#pragma once
// limitscope-bench prints, after Google Benchmark's own table, one summary section per area
// with the figures an operator asks for (ns per decision, bytes per key, ratio to a baseline
// measured in the same run). A bench file registers its section with a static
// SummarySection; main.cpp collects every benchmark result so sections can look them up.

#include <map>
#include <string>
#include <string_view>

namespace limitscope::bench {

struct Result {
  std::string name;            // Google Benchmark's run name, e.g. "BM_Keyed/threads:2"
  double ns_per_iter = 0;      // adjusted real (wall) time per iteration, ns
  double cpu_ns_per_iter = 0;  // CPU time per iteration, ns (less disturbed by a busy machine)
  std::map<std::string, double> counters;  // user counters (items_per_second, ...)
  bool median = false;  // the median of --benchmark_repetitions runs (else a single run)
};

/// @return the result of the benchmark run called `name` in this process (the median over
///         repetitions when --benchmark_repetitions ran it several times), or nullptr when it
///         did not run (filtered out).
const Result* find_result(std::string_view name);

/// Registers a summary printer; sections print in ascending `order`, then by title.
struct SummarySection {
  using Print = void (*)();
  SummarySection(const char* title, int order, Print print);
};

namespace detail {
void record_result(Result r);
void print_sections();
}  // namespace detail

}  // namespace limitscope::bench
