// limitscope-cli compare: one trace through the five limiter algorithms set to the same
// nominal limit (L per window W), side by side: 429 ratio, over-admission against the exact
// sliding window, state memory per key. Exit 0 on success, 2 on bad usage or input.

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/cli/tuner_options.h"
#include "core/limiter/rate.h"
#include "core/tuner/compare.h"

namespace limitscope::cli {

int run_compare(const CommandArgs& argv) {
  constexpr const char* kName = "compare";
  auto specs = trace_option_specs();
  specs.push_back({"limit", "L", "cost units per window"});
  specs.push_back({"window", "W", "window with a unit, e.g. 60s (buckets refill L per W)"});
  specs.push_back({"json", "", "print the comparison as JSON"});
  const Expected<Args> command_line = Args::parse(
      kName, "the five algorithms on one trace, at the same nominal limit", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  const auto w = args.get("window");
  if (!args.get("limit") || !w) return usage_error(kName, "--limit L and --window W are required");
  auto limit = number_option(args, "limit", 0, 0);
  if (!limit) return usage_error(kName, limit.error());
  auto window = parse_duration(*w);
  if (!window) return usage_error(kName, "--window: " + window.error());
  std::size_t skipped = 0;
  auto trace = load_trace_option(args, &skipped);
  if (!trace) return usage_error(kName, trace.error());
  auto r = tuner::compare_algorithms(*trace, *limit, *window);
  if (!r) return usage_error(kName, r.error());
  if (args.has("json")) {
    nlohmann::json j;
    j["events"] = trace->events.size();
    j["algorithms"] = nlohmann::json::array();
    for (const auto& c : *r) {
      j["algorithms"].push_back({{"algorithm", std::string(to_string(c.params.algorithm))},
                                 {"params", c.params.describe()},
                                 {"admitted", c.total.admitted},
                                 {"rejected", c.total.rejected},
                                 {"ratio_429", c.total.ratio_429()},
                                 {"max_window_cost", c.max_window_cost},
                                 {"over_admission", c.over_admission},
                                 {"state_bytes_per_key", c.state_bytes_per_key}});
    }
    std::cout << json_text(j) << "\n";
  } else {
    std::printf("%-16s %10s %10s %8s %14s %10s\n", "algorithm", "admitted", "rejected", "429 %",
                "over-admission", "bytes/key");
    for (const auto& c : *r) {
      std::printf("%-16s %10llu %10llu %8.2f %13.1f%% %10.0f\n",
                  std::string(to_string(c.params.algorithm)).c_str(),
                  static_cast<unsigned long long>(c.total.admitted),
                  static_cast<unsigned long long>(c.total.rejected), c.total.ratio_429() * 100,
                  c.over_admission * 100, c.state_bytes_per_key);
    }
  }
  return 0;
}

}  // namespace limitscope::cli
