// limitscope-cli whatif outage: a trace replayed with one setting and a Redis outage window
// under fail-open, fail-closed and a local fallback limiter (docs/tuner.md). Exit 0 on
// success, 2 on bad usage, an unreadable trace or an outage outside the trace.

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/cli/tuner_options.h"
#include "core/tuner/outage_whatif.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "whatif outage";

nlohmann::json to_json(const tuner::OutageWhatIf& w) {
  nlohmann::json j{{"params", w.params.describe()},
                   {"outage_start_s", static_cast<double>(w.window.start_ns) / 1e9},
                   {"outage_end_s", static_cast<double>(w.window.end_ns) / 1e9},
                   {"replicas", w.replicas},
                   {"priced", w.priced},
                   {"baseline", counts_json(w.baseline)},
                   {"baseline_in_outage", counts_json(w.baseline_in_outage)}};
  j["modes"] = nlohmann::json::array();
  for (const auto& m : w.modes) {
    j["modes"].push_back({{"mode", std::string(tuner::to_string(m.mode))},
                          {"total", counts_json(m.total)},
                          {"in_outage", counts_json(m.in_outage)},
                          {"over_admitted_cost", m.over_admitted_cost},
                          {"over_admitted_requests", m.over_admitted_requests},
                          {"extra_spend_usd", m.extra_spend}});
  }
  return j;
}

void print_text(const tuner::OutageWhatIf& w) {
  std::cout << w.params.describe() << ", outage of "
            << static_cast<double>(w.window.end_ns - w.window.start_ns) / 60e9 << " min; "
            << w.baseline_in_outage.admitted + w.baseline_in_outage.rejected
            << " requests fall in it\n";
  std::cout << std::left << std::setw(16) << "mode" << std::setw(12) << "admitted" << std::setw(12)
            << "refused" << std::setw(16) << "over-admitted"
            << "extra spend $\n";
  std::cout << std::setw(16) << "no outage" << std::setw(12) << w.baseline.admitted << std::setw(12)
            << w.baseline.rejected << std::setw(16) << 0 << 0 << "\n";
  for (const auto& m : w.modes) {
    std::cout << std::setw(16) << tuner::to_string(m.mode) << std::setw(12) << m.total.admitted
              << std::setw(12) << m.total.rejected << std::setw(16) << m.over_admitted_requests
              << m.extra_spend << "\n";
  }
  if (!w.priced) std::cout << "(no prices: give --policy and --tokens-per-request for dollars)\n";
}

}  // namespace

int run_whatif_outage(const CommandArgs& argv) {
  auto specs = replay_option_specs();
  specs.push_back({"outage", "D@HH:MM",
                   "the outage: its length and UTC start (or D@+OFFSET from the trace's start)"});
  specs.push_back(
      {"replicas", "N", "gateway replicas, each with a 1/N local fallback limiter (default 1)"});
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line =
      Args::parse(kName, "a Redis outage window under fail-open, fail-closed and a local fallback",
                  specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  if (!args.has("outage"))
    return usage_error(kName, "--outage D@HH:MM is required, e.g. 10m@14:00");
  auto replicas = integer_option(args, "replicas", 1, 1, 10'000);
  if (!replicas) return usage_error(kName, replicas.error());
  ReplayInputs in;
  if (Status why = replay_inputs_from(args, in); !why.ok()) return usage_error(kName, why.error());
  auto window = tuner::parse_outage(*args.get("outage"), in.trace);
  if (!window) return usage_error(kName, window.error());
  tuner::OutageOptions o;
  o.window = *window;
  o.replicas = static_cast<int>(*replicas);
  o.pricing = &in.pricing.options;
  auto w = tuner::whatif_outage(in.trace, in.params, o);
  if (!w) return usage_error(kName, w.error());
  if (args.has("json")) {
    std::cout << json_text(to_json(*w)) << "\n";
  } else {
    print_text(*w);
  }
  return 0;
}

}  // namespace limitscope::cli
