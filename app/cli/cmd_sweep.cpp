// limitscope-cli sweep: replays a trace against a grid of settings (capacity × refill, or
// window × limit; log-spaced unless an axis ends in ":lin", and centred on the trace's first
// guess when no axis is given), every cell the exact replay of its configuration, and
// recommends the cheapest setting that meets the given constraints (fewest dollars admitted
// when the trace is priced, else fewest cost units) and spends at most --max-spend-increase
// more than the --current setting. It prints the same advice as the Tuner tab
// (core/tuner/advice.h). Exit 0 on success (also when no cell meets the constraints: the
// recommendation is null), 2 on bad usage or input.

#include <iostream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/redis_options.h"
#include "app/cli/tuner_options.h"
#include "core/tuner/advice.h"
#include "core/tuner/candidate.h"
#include "core/tuner/first_guess.h"
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

nlohmann::json figures_json(const std::optional<tuner::SettingFigures>& f) {
  if (!f) return nullptr;
  nlohmann::json j = counts_json(f->total);
  j["setting"] = tuner::setting_text(f->params);
  j["max_quota_burn"] = f->max_quota_burn;
  j["keys_over_quota"] = f->keys_over_quota;
  return j;
}

// "--current X,Y": the current setting in the axes' units (capacity,refill per second or
// window seconds,limit).
Expected<LimitParams> current_setting(const std::string& text, const tuner::SweepSpec& spec) {
  const auto comma = text.find(',');
  const std::string shown = "--current '" + text + "'";
  if (comma == std::string::npos)
    return make_error(shown +
                      ": expected X,Y (capacity,refill per second or window seconds,limit)");
  auto x = tuner::parse_axis(text.substr(0, comma) + ":" + text.substr(0, comma) + ":1", "current");
  auto y =
      tuner::parse_axis(text.substr(comma + 1) + ":" + text.substr(comma + 1) + ":1", "current");
  if (!x || !y) return make_error(shown + ": X and Y must be numbers > 0");
  const LimitParams p = tuner::cell_params(spec, x->min, y->min);
  if (Status why = p.validate(); !why.ok()) return make_error(shown + ": " + why.error());
  return p;
}

}  // namespace

int run_sweep(const CommandArgs& argv) {
  auto specs = trace_option_specs();
  specs.push_back({"algorithm", "A",
                   "token-bucket, gcra, sliding-log, sliding-counter, fixed-window, leaky-bucket"});
  specs.push_back({"capacity", "MIN:MAX:STEPS[:lin]",
                   "capacities (bucket algorithms; log-spaced unless :lin)"});
  specs.push_back({"refill", "MIN:MAX:STEPS[:lin]", "refill rates per second (bucket algorithms)"});
  specs.push_back({"window", "MIN:MAX:STEPS[:lin]", "windows in seconds (window algorithms)"});
  specs.push_back({"limit", "MIN:MAX:STEPS[:lin]", "limits per window (window algorithms)"});
  specs.push_back(
      {"steps", "N", "without axes: N × N settings around the trace's first guess (default 9)"});
  specs.push_back(
      {"current", "X,Y",
       "the current setting (capacity,refill/s or window s,limit): the spend limit's reference"});
  specs.push_back({"max-spend-increase", "SHARE",
                   "spend at most SHARE more than --current admits (default 0.1 = +10%; 'off')"});
  specs.push_back({"max-429", "R", "constraint: overall 429 ratio at most R (e.g. 0.001)"});
  specs.push_back({"max-key-429", "R", "constraint: no key's 429 ratio above R"});
  specs.push_back(
      {"max-key-spend", "USD", "constraint: no key admitted more than USD dollars in any minute"});
  for (auto& spec : pricing_option_specs()) specs.push_back(std::move(spec));
  specs.push_back({"threads", "N", "worker threads (default 2)"});
  specs.push_back({"json", "", "print every cell and the recommendation as JSON"});
  const Expected<Args> command_line = Args::parse(
      kName, "replay a trace against a grid of settings and recommend one", specs, argv);
  if (const auto exit = early_exit(command_line, kName)) return *exit;
  const Args& args = *command_line;
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
  if (static_cast<bool>(xt) != static_cast<bool>(yt)) {
    return usage_error(
        kName, std::string("give both --") + xn + " and --" + yn + " MIN:MAX:STEPS, or neither");
  }
  if (xt) {
    auto x = tuner::parse_axis(*xt, xn);
    if (!x) return usage_error(kName, x.error());
    auto y = tuner::parse_axis(*yt, yn);
    if (!y) return usage_error(kName, y.error());
    spec.x = *x;
    spec.y = *y;
  }
  auto steps = integer_option(args, "steps", 9, 1, 64);
  if (!steps) return usage_error(kName, steps.error());
  std::optional<double> max_increase = tuner::kDefaultMaxSpendIncrease;
  if (auto m = args.get("max-spend-increase")) {
    if (*m == "off") {
      max_increase.reset();
    } else {
      auto v = number_option(args, "max-spend-increase", 0, 0);
      if (!v) return usage_error(kName, v.error());
      max_increase = *v;
    }
  }
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
  const tuner::FirstGuess guess = tuner::first_guess(*trace, *a);
  if (!xt) std::tie(spec.x, spec.y) = tuner::suggest_axes(*trace, *a, static_cast<int>(*steps));
  std::optional<LimitParams> current;
  if (auto c = args.get("current")) {
    auto p = current_setting(*c, spec);
    if (!p) return usage_error(kName, p.error());
    current = *p;
  }

  PricingChoice pricing;
  if (Status why = pricing_from(args, pricing); !why.ok()) return usage_error(kName, why.error());
  spec.pricing = &pricing.options;

  SteadyClock& clock = SteadyClock::instance();
  const Nanos t0 = clock.now();
  auto result = tuner::sweep(*trace, spec);
  if (!result) return usage_error(kName, result.error());
  const double elapsed_s = static_cast<double>((clock.now() - t0).count()) / 1e9;
  if (Status why = tuner::check_constraints(*result, constraints); !why.ok())
    return usage_error(kName, "--max-key-spend: " + why.error());
  tuner::GuidedSweep guided;
  guided.all = std::move(*result);
  tuner::OperatorConstraints operator_constraints;
  operator_constraints.core = constraints;
  tuner::AdviceOptions advice_options;
  advice_options.current = current;
  advice_options.max_spend_increase = max_increase;
  advice_options.pricing = &pricing.options;
  const tuner::Advice advice =
      tuner::advise(*trace, spec, guided, operator_constraints, advice_options);
  const auto& rec = advice.recommendation;
  const auto& cells = guided.all.cells;
  const bool constrained = constraints.max_ratio_429 || constraints.max_worst_key_429 ||
                           constraints.max_worst_key_spend_per_min || advice.spend_cap;

  if (args.has("json")) {
    nlohmann::json j;
    j["algorithm"] = std::string(to_string(*a));
    j["events"] = trace->events.size();
    j["skipped_lines"] = skipped;
    j["elapsed_s"] = elapsed_s;
    j["priced"] = guided.all.priced;
    j["unpriced_reason"] = guided.all.unpriced_reason;
    j["spacing"] = {spec.x.spacing == tuner::Spacing::log ? "log" : "lin",
                    spec.y.spacing == tuner::Spacing::log ? "log" : "lin"};
    j["cells"] = nlohmann::json::array();
    for (const auto& c : cells) j["cells"].push_back(cell_json(c, window));
    j["frontier"] = rec.frontier;
    j["recommendation"] =
        constrained && rec.best ? cell_json(cells[*rec.best], window) : nlohmann::json(nullptr);
    j["first_guess"] = {{"setting", tuner::setting_text(guess.params)}, {"basis", guess.basis}};
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& e : advice.edges) {
      edges.push_back(
          {{"axis", e.axis == 0 ? xn : yn}, {"end", e.low ? "low" : "high"}, {"value", e.value}});
    }
    j["advice"] = {{"lines", advice.lines},
                   {"edges", edges},
                   {"spend_cap", json_or_null(advice.spend_cap)},
                   {"excluded_by_spend", advice.excluded_by_spend
                                             ? cell_json(cells[*advice.excluded_by_spend], window)
                                             : nlohmann::json(nullptr)},
                   {"current", figures_json(advice.current)},
                   {"recommended", figures_json(advice.best)}};
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << cells.size() << " settings over " << trace->events.size() << " requests in "
              << elapsed_s << " s\n";
    std::cout << "first guess: " << tuner::setting_text(guess.params) << " (" << guess.basis
              << ")\n";
    if (constrained) {
      for (const auto& line : advice.lines) std::cout << line << "\n";
    }
  }
  return 0;
}

}  // namespace limitscope::cli
