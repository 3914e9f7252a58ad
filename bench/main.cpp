// limitscope-bench: runs every Google Benchmark registered in bench/*.cpp with the usual
// console output, keeps the results, then prints each area's summary section (figures,
// targets and ratios to baselines measured in the same run).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

#include "bench/summary.h"

namespace limitscope::bench {
namespace {

std::vector<Result>& results() {
  static std::vector<Result> r;
  return r;
}

struct Section {
  std::string title;
  int order;
  SummarySection::Print print;
};

std::vector<Section>& sections() {
  static std::vector<Section> s;
  return s;
}

// The console table as usual, plus a copy of every per-iteration result.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      // With --benchmark_repetitions the summaries use each benchmark's median run.
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type != Run::RT_Iteration && !median) continue;
      Result r;
      r.name = median ? run.run_name.str() : run.benchmark_name();
      r.median = median;
      r.ns_per_iter = run.GetAdjustedRealTime() * to_ns(run.time_unit);
      r.cpu_ns_per_iter = run.GetAdjustedCPUTime() * to_ns(run.time_unit);
      for (const auto& [name, counter] : run.counters) r.counters[name] = counter.value;
      detail::record_result(std::move(r));
    }
  }

 private:
  static double to_ns(benchmark::TimeUnit unit) {
    switch (unit) {
      case benchmark::kNanosecond:
        return 1;
      case benchmark::kMicrosecond:
        return 1e3;
      case benchmark::kMillisecond:
        return 1e6;
      case benchmark::kSecond:
        return 1e9;
    }
    return 1;
  }
};

}  // namespace

const Result* find_result(std::string_view name) {
  const Result* first = nullptr;
  for (const Result& r : results()) {
    if (r.name != name) continue;
    if (r.median) return &r;
    if (first == nullptr) first = &r;
  }
  return first;
}

SummarySection::SummarySection(const char* title, int order, Print print) {
  sections().push_back(Section{title, order, print});
}

namespace detail {
void record_result(Result r) {
  results().push_back(std::move(r));
}

void print_sections() {
  auto& s = sections();
  std::sort(s.begin(), s.end(), [](const Section& a, const Section& b) {
    return std::tie(a.order, a.title) < std::tie(b.order, b.title);
  });
  for (const Section& section : s) {
    std::printf("\n== %s ==\n", section.title.c_str());
    section.print();
  }
  std::fflush(stdout);
}
}  // namespace detail

}  // namespace limitscope::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  limitscope::bench::CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  limitscope::bench::detail::print_sections();
  return 0;
}
