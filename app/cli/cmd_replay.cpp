// limitscope-cli replay: plays a trace through one algorithm and parameter set of the core and
// prints what would have happened: admitted and rejected by key, tier and model, the 429
// ratio, the largest burst admitted, shaping waits. Exit 0 on success, 2 on bad usage, an
// unreadable trace, a trace with bad lines (unless --skip-bad-lines) or invalid parameters.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/tuner_options.h"
#include "core/limiter/rate.h"
#include "core/tuner/replay.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "replay";

nlohmann::json counts_json(const tuner::Counts& c) {
  return {{"admitted", c.admitted}, {"rejected", c.rejected}, {"admitted_cost", c.admitted_cost},
          {"rejected_cost", c.rejected_cost}, {"ratio_429", c.ratio_429()}};
}

// Named counts, leaving out the empty name (events without a model or tier).
nlohmann::json by_name(const std::vector<std::string>& names, const std::vector<tuner::Counts>& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty() && counts[i].admitted + counts[i].rejected > 0) j[names[i]] = counts_json(counts[i]);
  }
  return j;
}

}  // namespace

int run_replay(const CommandArgs& argv) {
  auto specs = trace_option_specs();
  specs.push_back({"algorithm", "A", "token-bucket, gcra, sliding-log, sliding-counter, fixed-window, leaky-bucket"});
  specs.push_back({"capacity", "C", "bucket capacity (bucket algorithms)"});
  specs.push_back({"refill", "R", "refill rate with a unit, e.g. 10/s (bucket algorithms)"});
  specs.push_back({"window", "W", "window with a unit, e.g. 60s (window algorithms)"});
  specs.push_back({"limit", "L", "cost admitted per window (window algorithms)"});
  specs.push_back({"json", "", "print the result as JSON"});
  Args args(kName, "replay a trace through one limiter setting", specs, argv);
  if (args.help_requested()) {
    std::cout << args.usage();
    return 0;
  }
  if (!args.ok()) return usage_error(kName, args.error());
  auto params = limit_params_from(args);
  if (!params) return usage_error(kName, params.error());
  std::size_t skipped = 0;
  auto trace = load_trace_option(args, &skipped);
  if (!trace) return usage_error(kName, trace.error());
  auto r = tuner::replay(*trace, *params);
  if (!r) return usage_error(kName, r.error());
  if (skipped > 0) r->warnings.push_back("skipped " + std::to_string(skipped) + " bad trace line(s)");

  if (args.has("json")) {
    nlohmann::json j = counts_json(r->total);
    j["params"] = params->describe();
    j["events"] = trace->events.size();
    j["duration_s"] = trace->duration_s();
    j["largest_burst_admitted"] = r->largest_burst_admitted;
    j["total_delay_s"] = r->total_delay_s;
    j["max_delay_s"] = r->max_delay_s;
    j["keys"] = by_name(trace->keys, r->by_key);
    j["tiers"] = by_name(trace->tiers, r->by_tier);
    j["models"] = by_name(trace->models, r->by_model);
    j["warnings"] = r->warnings;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << params->describe() << " over " << trace->events.size() << " requests ("
              << trace->duration_s() << " s): admitted " << r->total.admitted << ", rejected "
              << r->total.rejected << " (" << r->total.ratio_429() * 100 << "% 429), largest burst "
              << r->largest_burst_admitted << " in 1 s\n";
    for (const auto& w : r->warnings) std::cout << "warning: " << w << "\n";
  }
  return 0;
}

}  // namespace limitscope::cli
