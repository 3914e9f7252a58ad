#include "core/sources/session_state.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "core/dashboard/alert_no_data.h"
#include "core/dashboard/alert_view.h"
#include "core/metrics/alert_engine.h"
#include "core/metrics/default_rules.h"
#include "core/metrics/metric_names.h"
#include "core/metrics/rule_file.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {

namespace {

constexpr std::size_t kEventsInSnapshot = 50;

constexpr std::string_view kLiveRules = R"(groups:
  - name: limitscope-live
    interval: 15s
    rules:
      - alert: LimiterKeyNearlyEmpty
        expr: limitscope_key_level_ratio < 0.1
        for: 1m
        labels:
          severity: warning
        annotations:
          summary: "{{ $labels.api_key }} ({{ $labels.tier }}) has {{ $value | humanizePercentage }} of its capacity left"
      - alert: LimiterWindowFull
        expr: limitscope_key_window_occupancy_ratio > 0.9
        for: 1m
        labels:
          severity: warning
        annotations:
          summary: "{{ $labels.api_key }} ({{ $labels.tier }}) has used {{ $value | humanizePercentage }} of its window"
)";

}  // namespace

std::string_view live_rules_yaml() {
  return kLiveRules;
}

Expected<std::shared_ptr<SessionState>> SessionState::create(const SessionOptions& options) {
  std::shared_ptr<SessionState> s(new SessionState());
  s->options_ = options;
  metrics::SeriesStoreOptions so;
  so.samples_per_series = options.samples_per_series;
  if (options.max_series > 0) so.max_series = options.max_series;
  if (options.key_samples_per_series > 0) {
    for (std::string_view name : {dashboard_series::kKeyLevel, dashboard_series::kKeyOccupancy,
                                  dashboard_series::kKeyRejectedRate, live_series::kKeyAdmittedRate,
                                  dashboard_series::kKeyShadowWouldRefuseRate}) {
      so.samples_by_name.emplace(std::string(name), options.key_samples_per_series);
    }
  }
  s->store_ = std::make_unique<metrics::SeriesStore>(so);
  s->decisions_ = RecentDecisions(options.decisions_per_key);
  std::vector<metrics::RuleGroup> groups;
  if (options.rules_text.empty()) {
    std::vector<std::pair<std::string_view, std::string_view>> files{
        {metrics::default_rules_yaml(), "<default rules>"}};
    if (options.live_rules) files.emplace_back(live_rules_yaml(), "<live rules>");
    for (auto [text, name] : files) {
      auto rules = metrics::parse_rule_file(text, name);
      if (!rules) return make_error(rules.error());
      for (auto& g : rules->groups) groups.push_back(std::move(g));
    }
  } else {
    auto rules = metrics::parse_rule_file(options.rules_text, options.rules_source);
    if (!rules) return make_error(rules.error());
    groups = std::move(rules->groups);
  }
  s->alerts_ = std::make_unique<metrics::AlertEngine>(*s->store_, std::move(groups));
  return s;
}

SessionState::~SessionState() {
  if (writer_) (void)stop_recording(last_ms_);  // nothing to report to any more
}

bool SessionState::append(const metrics::Labels& labels, metrics::Sample sample) {
  if (!store_->append(labels, sample).ok()) {
    ++refused_;
    return false;
  }
  ++appended_;
  ++revision_;
  if (!key_info_seen_ && labels.metric_name() == metrics::names::kKeyInfo) key_info_seen_ = true;
  if (!writer_source_.empty()) {
    auto& mine = series_of_[writer_source_];
    if (mine.find(labels) == mine.end()) {
      mine.insert(labels);
      sources_of_metric_[std::string(labels.metric_name())].insert(writer_source_);
    }
  }
  if (!first_ms_) first_ms_ = sample.t_ms;
  last_ms_ = std::max(last_ms_, sample.t_ms);
  // A sample older than the last recorded line (another source's clock) stays out of the
  // recording: its lines must be in time order.
  if (writer_ && sample.t_ms * 1'000'000 >= rec_ns_) {
    written(writer_->sample(labels, sample));
    rec_ns_ = sample.t_ms * 1'000'000;
  }
  return true;
}

void SessionState::source_down(const std::string& source, std::int64_t t_ms) {
  auto& outages = outages_[source];
  if (!outages.empty() && !outages.back().end_ms) return;
  outages.push_back({t_ms, std::nullopt});
  ++revision_;
  // Stale from now on: an alert's `for` must not run on the last values read, and the charts
  // draw the history up to here, not a flat line through the gap.
  for (const metrics::Labels& l : series_of_[source]) store_->append_stale(l, t_ms);
}

void SessionState::source_up(const std::string& source, std::int64_t t_ms) {
  auto it = outages_.find(source);
  if (it == outages_.end() || it->second.empty() || it->second.back().end_ms) return;
  it->second.back().end_ms = std::max(t_ms, it->second.back().start_ms);
  ++revision_;
}

std::vector<SourceStatus::Interval> SessionState::outages(const std::string& source) const {
  const auto it = outages_.find(source);
  return it != outages_.end() ? it->second : std::vector<SourceStatus::Interval>{};
}

std::vector<std::string> SessionState::metrics_of(const std::string& source) const {
  std::vector<std::string> out;
  for (const auto& [metric, sources] : sources_of_metric_) {
    if (sources.count(source)) out.push_back(metric);
  }
  return out;
}

void SessionState::mark_stale(const metrics::Labels& labels, std::int64_t t_ms) {
  // Not recorded: a recording holds values only (docs/recording.md has no stale marker).
  store_->append_stale(labels, t_ms);
  ++revision_;
}

Status SessionState::evaluate(std::int64_t t_ms) {
  if (alerts_->evaluate_due(t_ms) == 0) return {};
  ++revision_;
  Status first_error;
  for (const auto& rule : alerts_->snapshot()->rules) {
    if (!rule.last_error.empty() && first_error.ok())
      first_error = make_error("rule " + rule.name + ": " + rule.last_error);
  }
  if (writer_ && t_ms * 1'000'000 >= rec_ns_) {
    write_alerts(t_ms);
    rec_ns_ = t_ms * 1'000'000;
  }
  return first_error;
}

void SessionState::event(std::int64_t t_ms, std::string text) {
  events_.push_back(SourceEvent{t_ms, std::move(text), ++event_seq_});
  while (events_.size() > options_.max_events) events_.pop_front();
  ++revision_;
}

void SessionState::set_incidents(std::vector<std::string> incidents) {
  if (incidents == incidents_) return;
  incidents_ = std::move(incidents);
  ++revision_;
}

void SessionState::set_names(KeyNames names) {
  names_ = std::move(names);
  ++revision_;
}

void SessionState::name_key(std::string_view hash, std::string name) {
  if (names_.set(hash, std::move(name))) ++revision_;
}

std::int64_t SessionState::session_start_ms(std::int64_t now_ms) const {
  if (options_.start_ms) return *options_.start_ms;
  return first_ms_.value_or(now_ms);
}

void SessionState::decision(DecisionRow row, std::int64_t upto_ms) {
  if (writer_) {
    DecisionRow rec = row;
    rec.t_ns = std::max(std::min(rec.t_ns, upto_ms * 1'000'000), rec_ns_);
    written(writer_->request(rec));
    rec_ns_ = rec.t_ns;
  }
  decisions_.add(std::move(row));
  ++revision_;
}

void SessionState::fill(DashboardSnapshot& s, const ChartView& view, std::int64_t now_ms) const {
  s.view = view;
  s.now_ms = now_ms;
  s.start_ms = session_start_ms(now_ms);
  s.charts = dashboard_charts(*store_, view, &names_);
  alert_view(*alerts_->snapshot(), now_ms, s.alerts, s.alert_intervals, &names_);
  bind_chart_rules(s.charts, *alerts_->snapshot());
  fill_outages(s, now_ms);
  s.protection = protection_;
  s.decisions = decisions_.for_keys(view.selected_keys);
  const std::size_t from =
      events_.size() > kEventsInSnapshot ? events_.size() - kEventsInSnapshot : 0;
  s.events.assign(events_.begin() + static_cast<std::ptrdiff_t>(from), events_.end());
  s.incidents = incidents_;
  const double elapsed_s = static_cast<double>(now_ms - s.start_ms) / 1000.0;
  s.samples_per_s = elapsed_s > 0 ? static_cast<double>(appended_) / elapsed_s : 0;
  s.dropped_samples = store_->dropped_samples();
}

void SessionState::fill_outages(DashboardSnapshot& s, std::int64_t now_ms) const {
  // Each chart: a band per outage of a source that wrote the metric it draws.
  std::vector<SourceStatus> sources;
  for (const auto& [source, outages] : outages_) {
    SourceStatus st;
    st.kind = source;
    st.outages = outages;
    st.metrics = metrics_of(source);
    sources.push_back(std::move(st));
  }
  add_no_data_bands(s.charts, sources, now_ms);
  apply_no_data(s.alerts, now_ms);
}

void SessionState::apply_no_data(std::vector<AlertRow>& rows, std::int64_t now_ms) const {
  std::set<std::string> down;
  for (const auto& [source, outages] : outages_) {
    if (!outages.empty() && !outages.back().end_ms) down.insert(source);
  }
  if (down.empty()) return;
  // Alert instances fed only by a down source's series: their state now would be a guess. One
  // still fed by a source that answers (the free tier's 429s from /metrics while Redis is
  // down) keeps its state.
  std::map<std::string, SourceFeed> feeds;
  for (const auto& [source, series] : series_of_) {
    feeds[source] =
        SourceFeed{&series, down.count(source) ? std::optional(outages_.at(source).back().start_ms)
                                               : std::nullopt};
  }
  const auto snapshot = alerts_->snapshot();
  std::map<std::pair<std::string, std::string>, std::int64_t>
      blind_since;  // (rule, row labels) → since
  for (const metrics::Alert& alert : snapshot->alerts) {
    const auto rule =
        std::find_if(snapshot->rules.begin(), snapshot->rules.end(),
                     [&](const metrics::RuleStatus& r) { return r.name == alert.rule; });
    if (rule == snapshot->rules.end()) continue;
    if (const auto since = alert_blind_since(alert.labels, rule->reads, feeds, *store_, now_ms)) {
      blind_since[{alert.rule, alert_row_labels(alert.labels)}] = *since;
    }
  }
  for (AlertRow& a : rows) {
    const auto it = blind_since.find({a.rule, a.labels});
    if (it == blind_since.end() || !a.origin.empty()) continue;
    // Firing or pending on frozen values, or resolved only because the series went stale.
    if (a.state == AlertState::firing || a.state == AlertState::pending ||
        (a.state == AlertState::resolved && a.since_ms >= it->second)) {
      a.state = AlertState::no_data;
      a.since_ms = it->second;
    }
  }
}

// The watched gateway's fail-open, from what its metrics say: decisions counted
// decision="degraded" were made without the limiter, and limitscope_circuit_state 2 means its
// breaker is open. Read once per new scrape of those series.
void SessionState::note_protection(std::int64_t t_ms) {
  namespace names = metrics::names;
  const auto latest = [&](std::vector<metrics::LabelMatcher> ms, bool sum) {
    std::optional<double> v;
    std::int64_t at = 0;
    for (const auto& s :
         store_->select_latest(ms, std::numeric_limits<std::int64_t>::min(), t_ms)) {
      if (s.samples.empty() || std::isnan(s.samples.back().value)) continue;
      const double x = s.samples.back().value;
      v = !v ? x : sum ? *v + x : std::max(*v, x);
      at = std::max(at, s.samples.back().t_ms);
    }
    return std::pair{v, at};
  };
  const auto name_is = [](std::string_view n) {
    return *metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, std::string(n));
  };
  const auto [circuit, circuit_ms] = latest({name_is(names::kCircuitState)}, false);
  const auto [degraded, degraded_ms] =
      latest({name_is(names::kRequests),
              *metrics::LabelMatcher::make(std::string(names::kDecision), metrics::MatchOp::equal,
                                           std::string(names::kDecisionDegraded))},
             true);
  const std::int64_t at = std::max(circuit_ms, degraded_ms);
  if (at == 0 || at <= degraded_seen_ms_) return;  // nothing new from the gateway
  const double total = degraded.value_or(0);
  double increase = 0;
  if (degraded_seen_) {
    increase = total >= *degraded_seen_ ? total - *degraded_seen_ : total;  // a restart resets it
    const double dt = static_cast<double>(at - degraded_seen_ms_) / 1000.0;
    append({{"__name__", std::string(live_series::kUncheckedAdmittedRate)}},
           {at, dt > 0 ? increase / dt : 0});
  }
  degraded_seen_ = total;
  degraded_seen_ms_ = at;
  ++revision_;
  protection_.circuit_state = circuit.value_or(0);
  const bool failing = increase > 0 || circuit.value_or(0) >= names::kCircuitOpen;
  if (failing && !protection_.unprotected) {
    protection_.unprotected = true;
    protection_.since_ms = at;
    protection_.admitted_unchecked = 0;
    protection_.intervals.push_back({at, std::nullopt, 0});
  }
  if (protection_.unprotected) {
    protection_.admitted_unchecked += increase;
    protection_.intervals.back().admitted_unchecked = protection_.admitted_unchecked;
    if (!failing) {
      protection_.unprotected = false;
      protection_.intervals.back().end_ms = at;
    }
  }
}

void SessionState::drop_idle_series(std::int64_t t_ms) {
  constexpr std::int64_t kEveryMs = 60'000;
  if (options_.idle_series_ms <= 0 || t_ms - idle_checked_ms_ < kEveryMs) return;
  idle_checked_ms_ = t_ms;
  const std::vector<metrics::Labels> gone = store_->drop_idle(t_ms - options_.idle_series_ms);
  if (gone.empty()) return;
  for (auto& [source, mine] : series_of_) {
    for (const metrics::Labels& l : gone) mine.erase(l);
  }
  ++revision_;
}

void SessionState::refreshed(std::int64_t t_ms) {
  drop_idle_series(t_ms);
  if (key_info_seen_) names_.join_key_info(*store_);
  if (options_.watch_protection) note_protection(t_ms);
  if (!writer_ || t_ms * 1'000'000 < rec_ns_) return;
  rec_ns_ = t_ms * 1'000'000;
  const StepStatus status = step_status();
  written(writer_->step(t_ms, named_key_rows(), incidents_, store_->dropped_samples(), &status));
}

StepStatus SessionState::step_status() {
  StepStatus st;
  if (sources_) st.sources = sources_();
  st.protection = protection_;
  for (const SourceEvent& e : events_) {
    if (e.seq > events_recorded_) st.events.push_back(e);
  }
  events_recorded_ = event_seq_;
  return st;
}

std::vector<KeyRow> SessionState::named_key_rows() const {
  std::vector<KeyRow> rows = key_rows_ ? key_rows_() : std::vector<KeyRow>{};
  for (KeyRow& r : rows)
    r.name = names_.display(r.api_key);  // a recording names keys as the table did
  return rows;
}

void SessionState::write_alerts(std::int64_t t_ms) {
  std::vector<AlertRow> rows;
  std::vector<AlertInterval> intervals;
  alert_view(*alerts_->snapshot(), t_ms, rows, intervals, &names_);
  apply_no_data(rows, t_ms);  // what the panel showed: a blind alert is recorded as no data
  written(writer_->alerts(t_ms, rows, intervals));
}

void SessionState::written(Status outcome) {
  if (outcome.ok()) return;
  if (!unreturned_failure_) unreturned_failure_ = make_error(outcome.error());
  writer_.reset();  // unusable from here (what it wrote stays); the source runs on without it
}

Status SessionState::take_failure() {
  if (!unreturned_failure_) return {};
  Status failure = *unreturned_failure_;
  unreturned_failure_.reset();
  return failure;
}

Status SessionState::start_recording(const std::string& path, const std::string& source_name,
                                     std::int64_t now_ms, const Clock& flush_clock) {
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) return make_error(path + ": cannot open for writing");
  return start_recording(std::move(out), path, source_name, now_ms, flush_clock);
}

Status SessionState::start_recording(std::unique_ptr<std::ostream> out, const std::string& name,
                                     const std::string& source_name, std::int64_t now_ms,
                                     const Clock& flush_clock) {
  // A write error of the recording this one replaces is dropped with it (as the operator
  // starting another recording would).
  if (writer_) (void)stop_recording(now_ms);
  unreturned_failure_.reset();
  // Samples may carry times a little after the wall clock (the Redis server's TIME): the
  // recording starts at the latest of both, so its lines stay in time order.
  now_ms = std::max(now_ms, last_ms_);
  rec_ns_ = now_ms * 1'000'000;
  writer_ = std::make_unique<RecordingWriter>(std::move(out), name, flush_clock,
                                              std::chrono::seconds(1), options_.recording_rows);
  RecordingHeader h;
  h.source = source_name;
  h.start_ms = session_start_ms(now_ms);
  h.recording_started_ms = now_ms;
  written(writer_->header(h));
  // The history held so far, one samples line per time; the alert engine's own series are
  // left out (the alerts lines carry the states).
  const auto all = store_->select({}, std::numeric_limits<std::int64_t>::min(), now_ms);
  const std::vector<KeyRow> rows = named_key_rows();
  std::set<std::string, std::less<>>
      recorded_keys;  // with recording_rows: the keys whose history is written
  for (std::size_t i = 0; i < std::min(rows.size(), options_.recording_rows); ++i)
    recorded_keys.insert(rows[i].api_key);
  std::map<std::int64_t, std::vector<std::pair<const metrics::Labels*, double>>> by_time;
  for (const auto& series : all) {
    const std::string_view n = series.labels.metric_name();
    if (n == "ALERTS" || n == "ALERTS_FOR_STATE") continue;
    const std::string_view key = series.labels.get("api_key");
    if (options_.recording_rows > 0 && !key.empty() && recorded_keys.count(key) == 0) continue;
    for (const auto& smp : series.samples) {
      if (!metrics::is_stale_marker(smp.value))
        by_time[smp.t_ms].emplace_back(&series.labels, smp.value);
    }
  }
  for (const auto& [t, values] : by_time) {
    for (const auto& [labels, v] : values) {
      if (writer_) written(writer_->sample(*labels, {t, v}));
    }
  }
  if (!writer_) return take_failure();
  events_recorded_ = 0;  // the log held so far goes with the first step
  const StepStatus status = step_status();
  written(writer_->step(now_ms, rows, incidents_, store_->dropped_samples(), &status));
  if (writer_) write_alerts(now_ms);
  return take_failure();
}

Status SessionState::stop_recording(std::int64_t now_ms) {
  if (writer_) {
    written(writer_->finish(std::max({now_ms, last_ms_, rec_ns_ / 1'000'000})));
    writer_.reset();
  }
  return take_failure();
}

Status SessionState::flush_recording_if_due() {
  if (writer_) written(writer_->flush_if_due());
  return take_failure();
}

}  // namespace limitscope
