// Simulation figures: wall time to simulate 60 s of each named scenario (every request decided
// through the KeyedLimiter), and decisions per second. Target: 60 s of `mixed` well under 1 s.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench/summary.h"
#include "core/sim/simulation.h"

namespace limitscope::bench {
namespace {

constexpr Nanos kRun{std::chrono::seconds(60)};

void BM_Simulate60s(benchmark::State& state, std::string scenario) {
  std::int64_t decisions = 0;
  for (auto _ : state) {
    auto spec = make_scenario(scenario, kRun);
    auto sim = Simulation::create(default_policy(), std::move(*spec));
    if (!sim) {
      state.SkipWithError(sim.error().c_str());
      return;
    }
    std::int64_t n = 0;
    while ((*sim)->now() < kRun) {
      const StepSample s = (*sim)->step();
      n += s.admitted + s.rejected;
    }
    decisions += n;
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(decisions);
  state.counters["decisions_per_run"] =
      static_cast<double>(decisions) / static_cast<double>(state.iterations());
}

const bool kRegistered = [] {
  for (std::string_view name : scenario_names()) {
    benchmark::RegisterBenchmark(("BM_Simulate60s/" + std::string(name)).c_str(), BM_Simulate60s,
                                 std::string(name))
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

void print_sim_summary() {
  for (std::string_view name : scenario_names()) {
    const Result* r = find_result("BM_Simulate60s/" + std::string(name));
    if (r == nullptr) continue;
    const double decisions =
        r->counters.count("decisions_per_run") != 0 ? r->counters.at("decisions_per_run") : 0.0;
    std::printf("60 s of %-21s %8.0f decisions in %7.2f ms CPU (%5.2f M decisions/s)%s\n",
                std::string(name).c_str(), decisions, r->cpu_ns_per_iter / 1e6,
                decisions / (r->cpu_ns_per_iter / 1e9) / 1e6,
                name == "mixed" ? "  (target: well under 1 s)" : "");
  }
}

const SummarySection kSimSection("Simulation", 50, print_sim_summary);

}  // namespace
}  // namespace limitscope::bench
