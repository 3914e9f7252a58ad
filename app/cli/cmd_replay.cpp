// limitscope-cli replay: plays a trace through one algorithm and parameter set of the core and
// prints what would have happened: admitted and rejected by key, tier and model, the 429
// ratio, the largest burst admitted, shaping waits, spend in dollars (tokens at the policy's
// model prices), the worst key's spend per minute, and a timeline with the daily quota burn. Exit 0
// on success, 2 on bad usage, an unreadable trace, a trace with bad lines (unless --skip-bad-lines)
// or invalid parameters.

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/tuner_options.h"
#include "core/limiter/rate.h"
#include "core/tuner/replay.h"

namespace limitscope::cli {

namespace {

constexpr const char* kName = "replay";

// Named counts, leaving out the empty name (events without a model or tier).
nlohmann::json by_name(const std::vector<std::string>& names,
                       const std::vector<tuner::Counts>& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].empty() && counts[i].admitted + counts[i].rejected > 0)
      j[names[i]] = counts_json(counts[i]);
  }
  return j;
}

nlohmann::json spend_json(const trace::Trace& trace, const tuner::SpendSummary& s) {
  nlohmann::json j = {{"priced", s.priced},
                      {"worst_key_usd_per_min", s.worst_key_per_min},
                      {"unpriced_requests", s.unpriced_requests},
                      {"unpriced_reason", s.unpriced_reason}};
  if (s.priced && s.worst_key_per_min > 0) {
    j["worst_key"] = trace.keys[s.worst_key];
    j["worst_minute_t_s"] = static_cast<double>(s.worst_minute_ns) / 1e9;
  }
  return j;
}

}  // namespace

int run_replay(const CommandArgs& argv) {
  auto specs = replay_option_specs();
  specs.push_back(
      {"timeline-step", "D", "timeline resolution, e.g. 1m (default: at most 200 points)"});
  specs.push_back({"json", "", "print the result as JSON"});
  const Expected<Args> command_line =
      Args::parse(kName, "replay a trace through one limiter setting", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
  ReplayInputs in;
  if (Status why = replay_inputs_from(args, in); !why.ok()) return usage_error(kName, why.error());
  tuner::ReplayOptions options;
  options.pricing = &in.pricing.options;
  if (auto step = args.get("timeline-step")) {
    auto d = parse_duration(*step);
    if (!d) return usage_error(kName, "--timeline-step: " + d.error());
    if (*d < std::chrono::seconds(1))
      return usage_error(kName, "--timeline-step " + *step + ": must be at least 1s");
    options.timeline_step = *d;
  }
  auto r = tuner::replay(in.trace, in.params, options);
  if (!r) return usage_error(kName, r.error());
  if (in.skipped > 0)
    r->warnings.push_back("skipped " + std::to_string(in.skipped) + " bad trace line(s)");

  if (args.has("json")) {
    nlohmann::json j = counts_json(r->total);
    j["params"] = in.params.describe();
    j["events"] = in.trace.events.size();
    j["duration_s"] = in.trace.duration_s();
    j["largest_burst_admitted"] = r->largest_burst_admitted;
    j["total_delay_s"] = r->total_delay_s;
    j["max_delay_s"] = r->max_delay_s;
    j["keys"] = by_name(in.trace.keys, r->by_key);
    j["tiers"] = by_name(in.trace.tiers, r->by_tier);
    j["models"] = by_name(in.trace.models, r->by_model);
    j["spend"] = spend_json(in.trace, r->spend);
    j["timeline_step_s"] = static_cast<double>(r->timeline_step.count()) / 1e9;
    j["timeline"] = nlohmann::json::array();
    for (const auto& p : r->timeline) {
      j["timeline"].push_back({{"t_s", p.t_s},
                               {"admitted", p.admitted},
                               {"rejected", p.rejected},
                               {"spend_usd", p.spend},
                               {"max_quota_burn", p.max_quota_burn},
                               {"keys_over_quota", p.keys_over_quota}});
    }
    j["warnings"] = r->warnings;
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << in.params.describe() << " over " << in.trace.events.size() << " requests ("
              << in.trace.duration_s() << " s): admitted " << r->total.admitted << ", rejected "
              << r->total.rejected << " (" << r->total.ratio_429() * 100 << "% 429), largest burst "
              << r->largest_burst_admitted << " in 1 s\n";
    if (r->spend.priced) {
      std::cout << "spend $" << r->total.admitted_spend << "; worst key "
                << in.trace.keys[r->spend.worst_key] << " $" << r->spend.worst_key_per_min
                << " in the minute from t=" << static_cast<double>(r->spend.worst_minute_ns) / 1e9
                << " s\n";
    }
    if (!r->spend.unpriced_reason.empty())
      std::cout << "note: " << r->spend.unpriced_reason << "\n";
    double burn = 0;
    for (const auto& p : r->timeline) burn = std::max(burn, p.max_quota_burn);
    std::cout << "highest daily quota burn of a key: " << burn * 100 << "%\n";
    for (const auto& w : r->warnings) std::cout << "warning: " << w << "\n";
  }
  return 0;
}

}  // namespace limitscope::cli
