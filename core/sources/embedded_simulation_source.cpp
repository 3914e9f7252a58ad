#include "core/sources/embedded_simulation_source.h"

#include <algorithm>

#include "core/metrics/alert_engine.h"
#include "core/metrics/default_rules.h"

namespace limitscope {
namespace {

constexpr double kRejectionThresholdPerS = 0.5;  // HighRateLimitRejection's threshold
constexpr double kBurnThreshold = 0.8;           // QuotaBurnAnomaly's threshold

// The extra traffic each incident kind brings when the operator injects it.
Incident incident_for(IncidentKind kind, Nanos now, Nanos length) {
  Incident i;
  i.kind = kind;
  i.at = now;
  i.length = length;
  switch (kind) {
    case IncidentKind::runaway_client:
      i.api_key = "loop-bot";
      i.tier = "free";
      i.model = "gpt-4.1";
      i.rate_per_s = 2000;
      break;
    case IncidentKind::burst:
      i.api_key = "pro-agency";
      i.tier = "pro";
      i.model = "claude-sonnet-4.5";
      i.rate_per_s = 120;
      break;
    case IncidentKind::misconfigured_tenant:
      i.api_key = "newco-prod";
      i.tier = "free";
      i.model = "gpt-4.1";
      i.rate_per_s = 10;
      break;
    case IncidentKind::backend_outage:
      break;
  }
  return i;
}

}  // namespace

std::string_view to_string(AlertState s) {
  switch (s) {
    case AlertState::inactive: return "inactive";
    case AlertState::pending: return "pending";
    case AlertState::firing: return "firing";
    case AlertState::resolved: return "resolved";
  }
  return "unknown";
}

Expected<std::unique_ptr<EmbeddedSimulationSource>> EmbeddedSimulationSource::create(
    const Policy& policy, const EmbeddedSimulationOptions& options) {
  auto scenario = make_scenario(options.scenario, options.scenario_length);
  if (!scenario) return make_error(scenario.error());
  SimulationOptions sim_options;
  sim_options.seed = options.seed;
  auto sim = Simulation::create(policy, std::move(*scenario), sim_options);
  if (!sim) return make_error(sim.error());

  std::unique_ptr<EmbeddedSimulationSource> src(new EmbeddedSimulationSource());
  src->options_ = options;
  src->sim_ = std::move(*sim);
  src->epoch_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(sim_options.wall_epoch).count();
  metrics::SeriesStoreOptions store_options;
  store_options.samples_per_series = options.samples_per_series;
  src->store_ = std::make_unique<metrics::SeriesStore>(store_options);
  src->recorder_ = std::make_unique<SimulationRecorder>(*src->store_, src->sim_->policy(), src->epoch_ms_);
  const std::string_view rules_text =
      options.rules_text.empty() ? metrics::default_rules_yaml() : std::string_view(options.rules_text);
  auto rules = metrics::parse_rule_file(rules_text, options.rules_source);
  if (!rules) return make_error(rules.error());
  src->alerts_ = std::make_unique<metrics::AlertEngine>(*src->store_, std::move(rules->groups));
  return src;
}

EmbeddedSimulationSource::~EmbeddedSimulationSource() = default;

std::int64_t EmbeddedSimulationSource::now_ms() const {
  return epoch_ms_ + std::chrono::duration_cast<std::chrono::milliseconds>(sim_->now()).count();
}

int EmbeddedSimulationSource::advance(Nanos d) {
  carry_ += d;
  int steps = 0;
  const Nanos step = sim_->options().step;
  while (carry_ >= step) {
    carry_ -= step;
    const StepSample s = sim_->step();
    const std::size_t refused = recorder_->record(s);
    if (refused > 0) last_error_ = std::to_string(refused) + " samples refused by the series store";
    record_keys(s);
    incidents_now_ = s.incidents;
    if (alerts_->evaluate_due(recorder_->time_ms(s)) > 0) {
      for (const auto& rule : alerts_->snapshot()->rules) {
        if (!rule.last_error.empty()) last_error_ = "rule " + rule.name + ": " + rule.last_error;
      }
    }
    ++steps;
  }
  return steps;
}

void EmbeddedSimulationSource::record_keys(const StepSample& s) {
  const double step_s = std::chrono::duration<double>(s.step).count();
  const std::int64_t t = recorder_->time_ms(s);
  for (const KeyStepSample& k : s.keys) {
    KeyRow& row = keys_[{k.api_key, k.model}];
    if (row.api_key.empty()) {
      row.api_key = k.api_key;
      row.model = k.model;
    }
    row.tier = k.tier;
    row.algorithm = std::string(to_string(k.algorithm));
    if (const TierPolicy* tier = sim_->policy().find_tier(k.tier)) {
      row.parameters = tier->requests.describe();
      row.capacity = tier->requests.max_cost();
    }
    row.level = k.level;
    row.occupancy = k.occupancy;
    row.rejected_per_s = step_s > 0 ? static_cast<double>(k.rejected) / step_s : 0;
    row.requests_per_s = step_s > 0 ? static_cast<double>(k.admitted + k.rejected) / step_s : 0;
    row.spend += k.spend;
    row.quota_burn = k.quota_burn;
    if (k.admitted + k.rejected > 0) row.last_seen_ms = t;
    row.sparkline.push_back(k.level);
    if (row.sparkline.size() > options_.sparkline_points) {
      row.sparkline.erase(row.sparkline.begin(),
                          row.sparkline.begin() + static_cast<std::ptrdiff_t>(row.sparkline.size() - options_.sparkline_points));
    }
  }
}

std::optional<std::string> EmbeddedSimulationSource::inject(IncidentKind kind, Nanos length) {
  auto err = sim_->inject(incident_for(kind, sim_->now(), length));
  if (err) last_error_ = *err;
  return err;
}

DashboardSnapshot EmbeddedSimulationSource::snapshot(const ChartView& view) const {
  DashboardSnapshot snap;
  snap.now_ms = now_ms();
  snap.start_ms = epoch_ms_;
  snap.charts.push_back(bucket_level_chart(*store_, view));
  snap.charts.push_back(window_occupancy_chart(*store_, view));
  snap.charts.push_back(rejection_chart(*store_, view, kRejectionThresholdPerS));
  snap.charts.push_back(quota_burn_chart(*store_, view, kBurnThreshold));
  snap.keys.reserve(keys_.size());
  for (const auto& [id, row] : keys_) snap.keys.push_back(row);
  add_alerts(snap);
  snap.source = "embedded simulation: " + options_.scenario + " (seed " + std::to_string(options_.seed) + ")";
  snap.incidents = incidents_now_;
  const double elapsed_s = static_cast<double>(snap.now_ms - epoch_ms_) / 1000.0;
  snap.samples_per_s = elapsed_s > 0 ? static_cast<double>(recorder_->appended()) / elapsed_s : 0;
  snap.dropped_samples = store_->dropped_samples();
  snap.last_error = last_error_;
  return snap;
}

void EmbeddedSimulationSource::add_alerts(DashboardSnapshot& snap) const {
  const auto alerts = alerts_->snapshot();
  for (const metrics::Alert& a : alerts->alerts) {
    AlertRow row;
    row.rule = a.rule;
    if (a.state == metrics::AlertState::firing) {
      row.state = AlertState::firing;
      row.since_ms = a.fired_at_ms.value_or(a.active_at_ms);
    } else if (a.state == metrics::AlertState::pending) {
      row.state = AlertState::pending;
      row.since_ms = a.active_at_ms;
    } else {
      row.state = a.resolved_at_ms ? AlertState::resolved : AlertState::inactive;
      row.since_ms = a.resolved_at_ms.value_or(a.active_at_ms);
    }
    row.value = a.value;
    metrics::Labels shown = a.labels;
    shown.erase("alertname");
    row.severity = std::string(shown.get("severity"));
    shown.erase("severity");
    row.labels = shown.to_string();
    row.summary = std::string(a.annotations.get("summary"));
    snap.alerts.push_back(std::move(row));
  }
  // Firing first, then pending, then resolved; newest first within a state.
  std::stable_sort(snap.alerts.begin(), snap.alerts.end(), [](const AlertRow& x, const AlertRow& y) {
    const auto rank = [](AlertState st) { return st == AlertState::firing ? 0 : st == AlertState::pending ? 1 : 2; };
    if (rank(x.state) != rank(y.state)) return rank(x.state) < rank(y.state);
    return x.since_ms > y.since_ms;
  });
  // One band per rule and state: the union of its alerts' intervals, so twenty pending
  // alerts of one rule shade the chart once, not twenty times darker.
  for (const metrics::RuleStatus& rule : alerts->rules) {
    for (const bool firing : {false, true}) {
      std::vector<std::pair<std::int64_t, std::int64_t>> spans;
      for (const metrics::StateInterval& iv : rule.history) {
        if ((iv.state == metrics::AlertState::firing) != firing) continue;
        spans.emplace_back(iv.start_ms, iv.end_ms.value_or(snap.now_ms));
      }
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 0; i < spans.size();) {
        auto [start, end] = spans[i];
        for (++i; i < spans.size() && spans[i].first <= end; ++i) end = std::max(end, spans[i].second);
        snap.alert_intervals.push_back(AlertInterval{rule.name, start, end, firing});
      }
    }
  }
}

}  // namespace limitscope
