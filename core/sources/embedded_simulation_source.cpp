#include "core/sources/embedded_simulation_source.h"

#include <algorithm>
#include <optional>

#include "core/common/sha256.h"
#include "core/dashboard/key_row_figures.h"

namespace limitscope {
namespace {

// The extra traffic each incident kind brings when the operator injects it: who sends it, on
// which tier and model, how fast. A backend outage brings no traffic.
Incident incident_for(IncidentKind kind, Nanos now, Nanos length) {
  struct Traffic {
    const char* api_key;
    const char* tier;
    const char* model;
    double rate_per_s;
  };
  Incident i;
  i.kind = kind;
  i.at = now;
  i.length = length;
  std::optional<Traffic> t;
  switch (kind) {
    case IncidentKind::runaway_client:
      t = Traffic{"loop-bot", "free", "gpt-4.1", 2000};
      break;
    case IncidentKind::burst:
      t = Traffic{"pro-agency", "pro", "claude-sonnet-4.5", 120};
      break;
    case IncidentKind::misconfigured_tenant:
      t = Traffic{"newco-prod", "free", "gpt-4.1", 10};
      break;
    case IncidentKind::backend_outage:
      break;
  }
  if (t) {
    i.api_key = t->api_key;
    i.tier = t->tier;
    i.model = t->model;
    i.rate_per_s = t->rate_per_s;
  }
  return i;
}

}  // namespace

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
  src->sim_ = std::move(*sim);
  src->epoch_ms_ =
      std::chrono::duration_cast<std::chrono::milliseconds>(sim_options.wall_epoch).count();
  SessionOptions so;
  so.samples_per_series = options.samples_per_series;
  so.rules_text = options.rules_text;
  so.rules_source = options.rules_source;
  so.live_rules = false;  // the simulation's keys are levels of its own limiter, not Redis'
  so.decisions_per_key = options.decisions_per_key;
  so.start_ms = src->epoch_ms_;
  so.watch_protection = false;  // its backend outage is an incident of its own
  auto session = SessionState::create(so);
  if (!session) return make_error(session.error());
  src->session_ = std::move(*session);
  src->session_->set_key_rows([s = src.get()] { return s->key_rows(); });
  src->recorder_ =
      std::make_unique<SimulationRecorder>(*src->session_, src->sim_->policy(), src->epoch_ms_);
  return src;
}

std::int64_t EmbeddedSimulationSource::now_ms() const {
  return epoch_ms_ + std::chrono::duration_cast<std::chrono::milliseconds>(sim_->now()).count();
}

std::string EmbeddedSimulationSource::name() const {
  return "embedded simulation: " + options_.scenario + " (seed " + std::to_string(options_.seed) +
         ")";
}

int EmbeddedSimulationSource::advance(Nanos d) {
  carry_ += d;
  int steps = 0;
  const Nanos step = sim_->options().step;
  while (carry_ >= step) {
    carry_ -= step;
    const StepSample s = sim_->step();
    const std::int64_t t = recorder_->time_ms(s);
    record_requests();  // decided during the step, so before its samples (time order)
    const std::size_t refused = recorder_->record(s);
    if (refused > 0) last_error_ = std::to_string(refused) + " samples refused by the series store";
    record_keys(s);
    session_->set_incidents(s.incidents);
    session_->refreshed(t);  // the step line of a recording
    if (const Status err = session_->evaluate(t); !err.ok()) last_error_ = err.error();
    ++steps;
  }
  return steps;
}

void EmbeddedSimulationSource::record_requests() {
  const std::vector<RequestRecord> requests = sim_->take_requests();
  // Without a recording only each key's newest decisions survive in its ring: convert just
  // those (a runaway client decides thousands per step).
  std::vector<bool> wanted;
  if (!session_->recording()) {
    wanted.assign(requests.size(), false);
    std::map<std::string_view, std::size_t> newer;
    for (std::size_t i = requests.size(); i-- > 0;) {
      wanted[i] = newer[requests[i].api_key]++ < session_->decisions().per_key();
    }
  }
  const std::int64_t upto_ms = now_ms();
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
    if (!r.allowed) {
      d.reason = std::string(to_string(r.reason));
      d.limit = std::string(r.limit);
      d.cost = r.limit_cost;  // a 429's cost and remaining are of the limit that refused it
    }
    d.remaining = r.remaining;
    if (!r.allowed && r.retry_after)
      d.retry_after_s = std::chrono::duration<double>(*r.retry_after).count();
    d.attempt = r.attempt;
    d.llm_tokens = r.llm_tokens;
    d.spend = r.spend;
    session_->decision(std::move(d), upto_ms);
  }
}

std::vector<KeyRow> EmbeddedSimulationSource::key_rows() const {
  std::vector<KeyRow> rows;
  rows.reserve(keys_.size());
  for (const auto& [id, row] : keys_) rows.push_back(row);
  return rows;
}

void EmbeddedSimulationSource::record_keys(const StepSample& s) {
  const double step_s = std::chrono::duration<double>(s.step).count();
  const std::int64_t t = recorder_->time_ms(s);
  for (const KeyStepSample& k : s.keys) {
    KeyRow& row = keys_[{k.api_key, k.model}];
    if (row.api_key.empty()) {
      row.api_key = k.api_key;
      row.model = k.model;
      // Its exported series carry api_key_hash (quota burn): alerts on them name the key.
      session_->name_key(api_key_hash(k.api_key), k.api_key);
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
      row.sparkline.erase(
          row.sparkline.begin(),
          row.sparkline.begin() +
              static_cast<std::ptrdiff_t>(row.sparkline.size() - options_.sparkline_points));
    }
  }
}

Status EmbeddedSimulationSource::inject(IncidentKind kind, Nanos length) {
  Status injected = sim_->inject(incident_for(kind, sim_->now(), length));
  if (!injected.ok()) last_error_ = injected.error();
  return injected;
}

DashboardSnapshot EmbeddedSimulationSource::snapshot(const ChartView& view) const {
  DashboardSnapshot snap;
  session_->fill(snap, view, now_ms());
  snap.keys = key_rows();
  complete_key_rows(snap.keys, session_->store(), view, &session_->names());
  snap.source = name();
  snap.last_error = last_error_;
  return snap;
}

}  // namespace limitscope
