// limitscope-cli sweep: replays a trace against a grid of settings (capacity × refill, or
// window × limit), every cell the exact replay of its configuration, and recommends the
// cheapest setting that meets the given constraints (fewest dollars admitted when the trace is
// priced, else fewest cost units). Exit 0 on success (also when no cell meets the
// constraints: the recommendation is null), 2 on bad usage or input.

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/cli/tuner_options.h"
#include "core/tuner/sweep.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "sweep";

nlohmann::json cell_json(const tuner::SweepCell& c, bool window) {
  nlohmann::json j;
  if (window) {
    j["window_s"] = c.x;
    j["limit"] = c.y;
  } else {
    j["capacity"] = c.x;
    j["refill_per_s"] = c.y;
  }
  j["admitted"] = c.total.admitted;
  j["rejected"] = c.total.rejected;
  j["ratio_429"] = c.total.ratio_429();
  j["admitted_cost"] = c.total.admitted_cost;
  j["worst_key_429"] = c.worst_key_429;
  j["spend_usd"] = c.total.admitted_spend;
  j["worst_key_usd_per_min"] = c.worst_key_spend_per_min;
  return j;
}

}  // namespace

int run_sweep(const CommandArgs& argv) {
  auto specs = trace_option_specs();
  specs.push_back({"algorithm", "A", "token-bucket, gcra, sliding-log, sliding-counter, fixed-window, leaky-bucket"});
  specs.push_back({"capacity", "MIN:MAX:STEPS", "capacities (bucket algorithms)"});
  specs.push_back({"refill", "MIN:MAX:STEPS", "refill rates per second (bucket algorithms)"});
  specs.push_back({"window", "MIN:MAX:STEPS", "windows in seconds (window algorithms)"});
  specs.push_back({"limit", "MIN:MAX:STEPS", "limits per window (window algorithms)"});
  specs.push_back({"max-429", "R", "constraint: overall 429 ratio at most R (e.g. 0.001)"});
  specs.push_back({"max-key-429", "R", "constraint: no key's 429 ratio above R"});
  specs.push_back({"max-key-spend", "USD", "constraint: no key admitted more than USD dollars in any minute"});
  for (auto& spec : pricing_option_specs()) specs.push_back(std::move(spec));
  specs.push_back({"threads", "N", "worker threads (default 2)"});
  specs.push_back({"json", "", "print every cell and the recommendation as JSON"});
  Args args(kName, "replay a trace against a grid of settings and recommend one", specs, argv);
  if (args.help_requested()) {
    std::cout << args.usage();
    return 0;
  }
  if (!args.ok()) return usage_error(kName, args.error());
  const auto alg = args.get("algorithm");
  if (!alg) return usage_error(kName, "--algorithm is required");
  const auto a = parse_algorithm(*alg);
  if (!a) return usage_error(kName, "--algorithm '" + *alg + "' is not a known algorithm");
  tuner::SweepSpec spec;
  spec.base.algorithm = *a;
  const bool window = is_window_algorithm(*a);
  const char* xn = window ? "window" : "capacity";
  const char* yn = window ? "limit" : "refill";
  const auto xt = args.get(xn);
  const auto yt = args.get(yn);
  if (!xt || !yt) {
    return usage_error(kName, std::string("--") + xn + " and --" + yn + " MIN:MAX:STEPS are required for " + *alg);
  }
  auto x = tuner::parse_axis(*xt, xn);
  if (!x) return usage_error(kName, x.error());
  auto y = tuner::parse_axis(*yt, yn);
  if (!y) return usage_error(kName, y.error());
  spec.x = *x;
  spec.y = *y;
  auto threads = integer_option(args, "threads", 2, 1, 256);
  if (!threads) return usage_error(kName, threads.error());
  spec.threads = static_cast<int>(*threads);
  tuner::Constraints constraints;
  for (auto [name, slot] : {std::pair{"max-429", &constraints.max_ratio_429},
                            std::pair{"max-key-429", &constraints.max_worst_key_429},
                            std::pair{"max-key-spend", &constraints.max_worst_key_spend_per_min}}) {
    if (args.get(name)) {
      auto v = number_option(args, name, 0, 0);
      if (!v) return usage_error(kName, v.error());
      *slot = *v;
    }
  }
  std::size_t skipped = 0;
  auto trace = load_trace_option(args, &skipped);
  if (!trace) return usage_error(kName, trace.error());

  PricingChoice pricing;
  if (auto why = pricing_from(args, pricing)) return usage_error(kName, *why);
  spec.pricing = &pricing.options;

  SteadyClock& clock = SteadyClock::instance();
  const Nanos t0 = clock.now();
  auto result = tuner::sweep(*trace, spec);
  if (!result) return usage_error(kName, result.error());
  const double elapsed_s = static_cast<double>((clock.now() - t0).count()) / 1e9;
  if (auto why = tuner::check_constraints(*result, constraints)) return usage_error(kName, "--max-key-spend: " + *why);
  const auto rec = tuner::recommend(*result, constraints);
  const bool constrained = constraints.max_ratio_429 || constraints.max_worst_key_429 ||
                           constraints.max_worst_key_spend_per_min;

  if (args.has("json")) {
    nlohmann::json j;
    j["algorithm"] = std::string(to_string(*a));
    j["events"] = trace->events.size();
    j["skipped_lines"] = skipped;
    j["elapsed_s"] = elapsed_s;
    j["priced"] = result->priced;
    j["unpriced_reason"] = result->unpriced_reason;
    j["cells"] = nlohmann::json::array();
    for (const auto& c : result->cells) j["cells"].push_back(cell_json(c, window));
    j["frontier"] = rec.frontier;
    j["recommendation"] = constrained && rec.best ? cell_json(result->cells[*rec.best], window)
                                                  : nlohmann::json(nullptr);
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << result->cells.size() << " settings over " << trace->events.size() << " requests in "
              << elapsed_s << " s\n";
    if (constrained) {
      if (rec.best) {
        std::cout << "recommended: " << result->cells[*rec.best].params.describe() << " ("
                  << result->cells[*rec.best].total.ratio_429() * 100 << "% 429)\n";
      } else {
        std::cout << "no setting in the grid meets the constraints\n";
      }
    }
  }
  return 0;
}

}  // namespace limitscope::cli
