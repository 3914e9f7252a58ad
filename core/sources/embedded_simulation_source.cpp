#include "core/sources/embedded_simulation_source.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include "core/metrics/alert_engine.h"
#include "core/metrics/default_rules.h"
#include "core/sources/alert_view.h"
#include "core/sources/key_row_figures.h"

namespace limitscope {
namespace {

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
    case AlertState::no_data: return "no data";
  }
  return "unknown";
}

Expected<std::unique_ptr<EmbeddedSimulationSource>> EmbeddedSimulationSource::create(
    const Policy& policy, const EmbeddedSimulationOptions& options) {
  auto scenario = make_scenario(options.scenario, options.scenario_length);
  if (!scenario) return make_error(scenario.error());
  SimulationOptions sim_options;
  sim_options.seed = options.seed;
  // Drained after every step (recent decisions, recording), so memory stays bounded.
  sim_options.record_requests = true;
  auto sim = Simulation::create(policy, std::move(*scenario), sim_options);
  if (!sim) return make_error(sim.error());

  std::unique_ptr<EmbeddedSimulationSource> src(new EmbeddedSimulationSource());
  src->options_ = options;
  src->decisions_ = RecentDecisions(options.decisions_per_key);
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

EmbeddedSimulationSource::~EmbeddedSimulationSource() {
  if (writer_) stop_recording();
}

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
    record_requests();  // decided during the step, so before its samples (time order)
    const std::size_t refused = recorder_->record(s);
    if (refused > 0) last_error_ = std::to_string(refused) + " samples refused by the series store";
    record_keys(s);
    incidents_now_ = s.incidents;
    const std::int64_t t = recorder_->time_ms(s);
    if (writer_) write_step(t);
    if (alerts_->evaluate_due(t) > 0) {
      for (const auto& rule : alerts_->snapshot()->rules) {
        if (!rule.last_error.empty()) last_error_ = "rule " + rule.name + ": " + rule.last_error;
      }
      if (writer_) write_alerts(t);
    }
    if (writer_ && !writer_->error().empty()) {
      last_error_ = writer_->error();
      writer_.reset();  // the file is unusable from here; keep running without it
    }
    ++steps;
  }
  return steps;
}

void EmbeddedSimulationSource::record_requests() {
  const std::vector<RequestRecord> requests = sim_->take_requests();
  // Without a recording only each key's newest decisions survive in its ring: convert just
  // those (a runaway client decides thousands per step).
  std::vector<bool> wanted;
  if (!writer_) {
    wanted.assign(requests.size(), false);
    std::map<std::string_view, std::size_t> newer;
    for (std::size_t i = requests.size(); i-- > 0;) {
      wanted[i] = newer[requests[i].api_key]++ < decisions_.per_key();
    }
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!wanted.empty() && !wanted[i]) continue;
    const RequestRecord& r = requests[i];
    DecisionRow d;
    d.t_ns = epoch_ms_ * 1'000'000 + r.time.count();
    d.api_key = std::string(r.api_key);
    d.tier = std::string(r.tier);
    d.model = std::string(r.model);
    d.cost = r.cost;
    d.allowed = r.allowed;
    d.degraded = r.degraded;
    if (!r.allowed) d.reason = std::string(to_string(r.reason));
    d.remaining = r.remaining;
    if (!r.allowed && r.retry_after) d.retry_after_s = std::chrono::duration<double>(*r.retry_after).count();
    d.attempt = r.attempt;
    d.llm_tokens = r.llm_tokens;
    d.spend = r.spend;
    if (writer_) writer_->request(d);
    decisions_.add(std::move(d));
  }
}

void EmbeddedSimulationSource::write_step(std::int64_t t_ms) {
  std::vector<KeyRow> rows;
  rows.reserve(keys_.size());
  for (const auto& [id, row] : keys_) rows.push_back(row);
  writer_->step(t_ms, rows, incidents_now_, store_->dropped_samples());
}

void EmbeddedSimulationSource::write_alerts(std::int64_t t_ms) {
  std::vector<AlertRow> rows;
  std::vector<AlertInterval> intervals;
  alert_view(*alerts_->snapshot(), t_ms, rows, intervals);
  writer_->alerts(t_ms, rows, intervals);
}

std::optional<std::string> EmbeddedSimulationSource::start_recording(const std::string& path,
                                                                     const Clock& flush_clock) {
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) return path + ": cannot open for writing";
  start_recording(std::move(out), path, flush_clock);
  if (!writer_->error().empty()) {
    std::string err = writer_->error();
    writer_.reset();
    return err;
  }
  return std::nullopt;
}

void EmbeddedSimulationSource::start_recording(std::unique_ptr<std::ostream> out, const std::string& name,
                                               const Clock& flush_clock) {
  if (writer_) stop_recording();
  writer_ = std::make_unique<RecordingWriter>(std::move(out), name, flush_clock);
  RecordingHeader h;
  h.source = source_name();
  h.start_ms = epoch_ms_;
  h.recording_started_ms = now_ms();
  writer_->header(h);
  write_history();
  recorder_->set_sample_sink([w = writer_.get()](const metrics::Labels& l, metrics::Sample smp) { w->sample(l, smp); });
}

// The store's samples so far, one samples line per time, so a recording started during an
// incident still holds the charts' whole history. The alert engine's own series (ALERTS...)
// are left out: the alerts lines carry the alert states.
void EmbeddedSimulationSource::write_history() {
  const std::int64_t now = now_ms();
  const auto all = store_->select({}, std::numeric_limits<std::int64_t>::min(), now);
  std::map<std::int64_t, std::vector<std::pair<const metrics::Labels*, double>>> by_time;
  for (const auto& series : all) {
    const std::string_view name = series.labels.metric_name();
    if (name == "ALERTS" || name == "ALERTS_FOR_STATE") continue;
    for (const auto& smp : series.samples) by_time[smp.t_ms].emplace_back(&series.labels, smp.value);
  }
  for (const auto& [t, values] : by_time) {
    for (const auto& [labels, v] : values) writer_->sample(*labels, {t, v});
  }
  if (now > epoch_ms_ || !keys_.empty()) write_step(now);
  write_alerts(now);
}

std::optional<std::string> EmbeddedSimulationSource::stop_recording() {
  if (!writer_) return std::nullopt;
  recorder_->set_sample_sink(nullptr);
  writer_->finish(now_ms());
  std::optional<std::string> err;
  if (!writer_->error().empty()) err = writer_->error();
  writer_.reset();
  return err;
}

void EmbeddedSimulationSource::flush_recording_if_due() {
  if (writer_) writer_->flush_if_due();
}

std::string EmbeddedSimulationSource::source_name() const {
  return "embedded simulation: " + options_.scenario + " (seed " + std::to_string(options_.seed) + ")";
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
  snap.view = view;
  snap.now_ms = now_ms();
  snap.start_ms = epoch_ms_;
  snap.charts = dashboard_charts(*store_, view);
  snap.keys.reserve(keys_.size());
  for (const auto& [id, row] : keys_) snap.keys.push_back(row);
  complete_key_rows(snap.keys, *store_, view, nullptr);
  add_alerts(snap);
  snap.source = source_name();
  snap.decisions = decisions_.for_keys(view.selected_keys);
  snap.incidents = incidents_now_;
  const double elapsed_s = static_cast<double>(snap.now_ms - epoch_ms_) / 1000.0;
  snap.samples_per_s = elapsed_s > 0 ? static_cast<double>(recorder_->appended()) / elapsed_s : 0;
  snap.dropped_samples = store_->dropped_samples();
  snap.last_error = last_error_;
  return snap;
}

void EmbeddedSimulationSource::add_alerts(DashboardSnapshot& snap) const {
  alert_view(*alerts_->snapshot(), snap.now_ms, snap.alerts, snap.alert_intervals);
  bind_chart_rules(snap.charts, *alerts_->snapshot());
}

}  // namespace limitscope
