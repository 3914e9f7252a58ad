// limitscope-cli simulate: runs a named traffic scenario through the keyed limiter on
// simulated time and prints totals (per tier, model, key) and the per-step series, as a table
// or as a stable JSON document (docs/cli.md, "simulate"). Same seed => same bytes.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/options/args.h"
#include "core/limiter/policy.h"
#include "core/limiter/rate.h"
#include "core/sim/simulation.h"

namespace limitscope::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kCommand = "simulate";
constexpr Nanos kMaxDuration{std::chrono::hours(24)};

// Rounds to 6 decimals (micro-dollars, ppm of a level), so the JSON stays readable and
// stable; the value printed is the shortest text that reads back to the rounded double.
double round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

double seconds(Nanos d) {
  return static_cast<double>(d.count()) / 1e9;
}

// The outcome counts every level of the report has: a run's row, a step, a tier, a model
// or a key.
template <class Counts>
void put_outcomes(Json& j, const Counts& c) {
  j["admitted"] = c.admitted;
  j["rejected"] = c.rejected;
  j["degraded"] = c.degraded;
}

Json row_json(const SimTotals::Row& r, bool with_key_fields) {
  Json j;
  if (with_key_fields) j["tier"] = r.tier;
  put_outcomes(j, r);
  j["retries"] = r.retries;
  j["llm_tokens"] = r.llm_tokens;
  j["cost"] = round6(r.cost);
  j["spend_usd"] = round6(r.spend);
  const std::int64_t n = r.admitted + r.rejected;
  j["ratio_429"] = round6(n == 0 ? 0.0 : static_cast<double>(r.rejected) / static_cast<double>(n));
  if (with_key_fields) j["quota_burn"] = round6(r.quota_burn);
  return j;
}

Json group_json(const std::vector<GroupStepSample>& groups) {
  Json j = Json::object();
  for (const GroupStepSample& g : groups) {
    Json& gj = j[g.name];
    put_outcomes(gj, g);
    gj["spend_usd"] = round6(g.spend);
  }
  return j;
}

Json step_json(const StepSample& s) {
  Json j;
  j["t_s"] = seconds(s.time);
  put_outcomes(j, s);
  j["retries"] = s.retries;
  j["gave_up"] = s.gave_up;
  j["spend_usd"] = round6(s.spend);
  j["ratio_429"] = round6(s.ratio_429);
  j["by_tier"] = group_json(s.by_tier);
  j["by_model"] = group_json(s.by_model);
  Json keys = Json::array();
  for (const KeyStepSample& k : s.keys) {
    Json kj;
    kj["api_key"] = k.api_key;
    kj["tier"] = k.tier;
    kj["model"] = k.model;
    kj["algorithm"] = to_string(k.algorithm);
    kj["level"] = round6(k.level);
    kj["occupancy"] = k.occupancy ? Json(round6(*k.occupancy)) : Json(nullptr);
    put_outcomes(kj, k);
    kj["retries"] = k.retries;
    kj["cost"] = round6(k.cost);
    kj["llm_tokens"] = k.llm_tokens;
    kj["spend_usd"] = round6(k.spend);
    kj["quota_burn"] = round6(k.quota_burn);
    keys.push_back(std::move(kj));
  }
  j["keys"] = std::move(keys);
  j["incidents"] = s.incidents;
  return j;
}

Json scenario_json(const ScenarioSpec& spec) {
  Json clients = Json::array();
  for (const ClientSpec& c : spec.clients) {
    Json models = Json::array();
    for (const ModelShare& m : c.models) {
      models.push_back(Json{{"model", m.model},
                            {"weight", m.weight},
                            {"tokens_min", m.tokens_min},
                            {"tokens_max", m.tokens_max}});
    }
    clients.push_back(Json{{"api_key", c.api_key},
                           {"tier", c.tier},
                           {"role", to_string(c.role)},
                           {"description", c.description},
                           {"rate_per_s", c.traffic.rate_per_s},
                           {"start_s", seconds(c.traffic.start)},
                           {"retry", to_string(c.retry.behaviour)},
                           {"models", std::move(models)}});
  }
  Json incidents = Json::array();
  for (const Incident& i : spec.incidents) incidents.push_back(i.describe());
  return Json{{"clients", std::move(clients)}, {"incidents", std::move(incidents)}};
}

Json document(const Simulation& sim, const std::vector<StepSample>& steps, const SimTotals& totals,
              Nanos duration) {
  Json j;
  j["scenario"] = sim.scenario().name;
  j["description"] = sim.scenario().description;
  j["policy"] = sim.policy().source;
  j["seed"] = sim.options().seed;
  j["duration_s"] = seconds(duration);
  j["step_s"] = seconds(sim.options().step);
  Json spec = scenario_json(sim.scenario());
  j["clients"] = std::move(spec["clients"]);
  j["incidents"] = std::move(spec["incidents"]);
  Json t = row_json(totals.all, false);
  t["gave_up"] = totals.gave_up;
  Json by_tier = Json::object();
  for (const auto& [name, r] : totals.by_tier) by_tier[name] = row_json(r, false);
  Json by_model = Json::object();
  for (const auto& [name, r] : totals.by_model) by_model[name] = row_json(r, false);
  Json by_key = Json::object();
  for (const auto& [name, r] : totals.by_key) by_key[name] = row_json(r, true);
  t["by_tier"] = std::move(by_tier);
  t["by_model"] = std::move(by_model);
  t["by_key"] = std::move(by_key);
  j["totals"] = std::move(t);
  Json series = Json::array();
  for (const StepSample& s : steps) series.push_back(step_json(s));
  j["series"] = std::move(series);
  return j;
}

std::string percent(std::int64_t part, std::int64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// Writes one table line without the padding of empty trailing columns.
void emit(std::ostream& out, std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << "\n";
}

void print_rows(std::ostream& out, std::string_view title,
                const std::map<std::string, SimTotals::Row>& rows, bool keys) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-22s %-11s %9s %9s %7s %8s %11s %8s", std::string(title).c_str(),
                keys ? "tier" : "", "admitted", "rejected", "429", "retries", "spend $",
                keys ? "quota" : "");
  emit(out, buf);
  for (const auto& [name, r] : rows) {
    std::snprintf(buf, sizeof buf, "%-22s %-11s %9lld %9lld %7s %8lld %11.4f", name.c_str(),
                  keys ? r.tier.c_str() : "", static_cast<long long>(r.admitted),
                  static_cast<long long>(r.rejected),
                  percent(r.rejected, r.admitted + r.rejected).c_str(),
                  static_cast<long long>(r.retries), r.spend);
    std::string line = buf;
    if (keys) {
      std::snprintf(buf, sizeof buf, " %7.2f%%", 100.0 * r.quota_burn);
      line += buf;
    }
    emit(out, line);
  }
  out << "\n";
}

void print_table(std::ostream& out, const Simulation& sim, const std::vector<StepSample>& steps,
                 const SimTotals& totals, Nanos duration) {
  const ScenarioSpec& spec = sim.scenario();
  out << "scenario " << spec.name << ": " << spec.description << "\n";
  out << "policy " << sim.policy().source << ", seed " << sim.options().seed << ", duration "
      << format_duration(duration) << "\n";
  for (const Incident& i : spec.incidents) out << "incident " << i.describe() << "\n";
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "\ntotal: %lld admitted, %lld rejected (%s 429), %lld degraded, %lld retries, "
      "%lld gave up, $%.4f\n\n",
      static_cast<long long>(totals.all.admitted), static_cast<long long>(totals.all.rejected),
      percent(totals.all.rejected, totals.all.admitted + totals.all.rejected).c_str(),
      static_cast<long long>(totals.all.degraded), static_cast<long long>(totals.all.retries),
      static_cast<long long>(totals.gave_up), totals.all.spend);
  out << buf;
  print_rows(out, "tier", totals.by_tier, false);
  print_rows(out, "model", totals.by_model, false);
  print_rows(out, "key", totals.by_key, true);
  std::snprintf(buf, sizeof buf, "%8s %9s %9s %7s %9s %11s  %s", "t", "admitted", "rejected", "429",
                "degraded", "spend $", "incidents");
  emit(out, buf);
  for (const StepSample& s : steps) {
    std::string incidents;
    for (const std::string& i : s.incidents) incidents += (incidents.empty() ? "" : "; ") + i;
    std::snprintf(buf, sizeof buf, "%8s %9lld %9lld %7s %9lld %11.4f  ",
                  format_duration(s.time).c_str(), static_cast<long long>(s.admitted),
                  static_cast<long long>(s.rejected),
                  percent(s.rejected, s.admitted + s.rejected).c_str(),
                  static_cast<long long>(s.degraded), s.spend);
    emit(out, buf + incidents);
  }
}

}  // namespace

int run_simulate(const CommandArgs& argv) {
  std::string names;
  for (std::string_view n : scenario_names()) names += (names.empty() ? "" : ", ") + std::string(n);
  const Expected<Args> command_line = Args::parse(
      kCommand,
      "Runs a traffic scenario through the keyed limiter on simulated time and prints\n"
      "totals per tier, model and key and the per-second series. Scenarios: " +
          names + ".",
      {{"policy", "FILE", "policy JSON (default: the embedded default policy)"},
       {"scenario", "NAME", "scenario to run (required)"},
       {"duration", "DURATION", "simulated time to run, e.g. 60s, 5m (default 60s, max 1d)"},
       {"seed", "N", "random seed, a non-negative integer (default 1)"},
       {"json", "", "print a JSON document instead of tables"}},
      argv);
  if (const auto exit = early_exit(command_line, kCommand)) return *exit;
  const Args& args = *command_line;
  const auto scenario_name = args.get("scenario");
  if (!scenario_name)
    return usage_error(kCommand, "--scenario NAME is required (one of " + names + ")");

  Nanos duration{std::chrono::seconds(60)};
  if (auto text = args.get("duration")) {
    auto parsed = parse_duration(*text);
    if (!parsed) return usage_error(kCommand, "--duration: " + parsed.error());
    if (*parsed > kMaxDuration) {
      return usage_error(kCommand, "--duration \"" + *text + "\": must be at most 1d");
    }
    duration = *parsed;
  }

  SimulationOptions options;
  if (auto text = args.get("seed")) {
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, options.seed);
    if (text->empty() || ec != std::errc() || ptr != end) {
      return usage_error(kCommand,
                         "--seed \"" + *text + "\": expected a non-negative integer below 2^64");
    }
  }

  Policy policy = default_policy();
  if (auto path = args.get("policy")) {
    auto loaded = load_policy_file(*path);
    if (!loaded) return usage_error(kCommand, "--policy: " + loaded.error());
    policy = std::move(*loaded);
  }

  auto spec = make_scenario(*scenario_name, duration);
  if (!spec) return usage_error(kCommand, "--scenario: " + spec.error());
  auto created = Simulation::create(policy, std::move(*spec), options);
  if (!created) return usage_error(kCommand, created.error());
  Simulation& sim = **created;

  std::vector<StepSample> steps;
  SimTotals totals;
  while (sim.now() < duration) {
    steps.push_back(sim.advance(std::min(options.step, duration - sim.now())));
    totals.add(steps.back());
  }

  if (args.has("json")) {
    std::cout << json_text(document(sim, steps, totals, duration), 2) << "\n";
  } else {
    print_table(std::cout, sim, steps, totals, duration);
  }
  return 0;
}

}  // namespace limitscope::cli
