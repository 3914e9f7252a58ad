#include "core/sources/live_series.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>

#include "core/metrics/alert_engine.h"
#include "core/metrics/default_rules.h"
#include "core/metrics/rule_file.h"
#include "core/sources/alert_view.h"

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

std::string_view live_rules_yaml() { return kLiveRules; }

Expected<std::shared_ptr<LiveSeries>> LiveSeries::create(const LiveSeriesOptions& options) {
  std::shared_ptr<LiveSeries> s(new LiveSeries());
  s->options_ = options;
  metrics::SeriesStoreOptions so;
  so.samples_per_series = options.samples_per_series;
  s->store_ = std::make_unique<metrics::SeriesStore>(so);
  s->decisions_ = RecentDecisions(options.decisions_per_key);
  std::vector<metrics::RuleGroup> groups;
  if (options.rules_text.empty()) {
    for (auto [text, name] : {std::pair{metrics::default_rules_yaml(), std::string_view("<default rules>")},
                              std::pair{live_rules_yaml(), std::string_view("<live rules>")}}) {
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

LiveSeries::~LiveSeries() {
  if (writer_) stop_recording(last_ms_);
}

bool LiveSeries::append(const metrics::Labels& labels, metrics::Sample sample) {
  if (!store_->append(labels, sample).ok()) {
    ++refused_;
    return false;
  }
  ++appended_;
  if (!first_ms_) first_ms_ = sample.t_ms;
  last_ms_ = std::max(last_ms_, sample.t_ms);
  // A sample older than the last recorded line (another source's clock) stays out of the
  // recording: its lines must be in time order.
  if (writer_ && sample.t_ms * 1000 >= rec_us_) {
    writer_->sample(labels, sample);
    rec_us_ = sample.t_ms * 1000;
  }
  return true;
}

void LiveSeries::mark_stale(const metrics::Labels& labels, std::int64_t t_ms) {
  // Not recorded: a recording holds values only (docs/recording.md has no stale marker).
  store_->append_stale(labels, t_ms);
}

std::string LiveSeries::evaluate(std::int64_t t_ms) {
  if (alerts_->evaluate_due(t_ms) == 0) return {};
  std::string first_error;
  for (const auto& rule : alerts_->snapshot()->rules) {
    if (!rule.last_error.empty() && first_error.empty()) first_error = "rule " + rule.name + ": " + rule.last_error;
  }
  if (writer_ && t_ms * 1000 >= rec_us_) {
    write_alerts(t_ms);
    rec_us_ = t_ms * 1000;
  }
  check_writer();
  return first_error;
}

void LiveSeries::event(std::int64_t t_ms, std::string text) {
  events_.push_back(SourceEvent{t_ms, std::move(text), ++event_seq_});
  while (events_.size() > options_.max_events) events_.pop_front();
}

void LiveSeries::decision(DecisionRow row, std::int64_t upto_ms) {
  if (writer_) {
    DecisionRow rec = row;
    rec.t_us = std::max(std::min(rec.t_us, upto_ms * 1000), rec_us_);
    writer_->request(rec);
    rec_us_ = rec.t_us;
  }
  decisions_.add(std::move(row));
}

void LiveSeries::fill(DashboardSnapshot& s, const ChartView& view, std::int64_t now_ms) const {
  s.view = view;
  s.now_ms = now_ms;
  s.start_ms = first_ms_.value_or(now_ms);
  s.charts = dashboard_charts(*store_, view);
  alert_view(*alerts_->snapshot(), now_ms, s.alerts, s.alert_intervals);
  s.decisions = decisions_.for_keys(view.selected_keys);
  const std::size_t from = events_.size() > kEventsInSnapshot ? events_.size() - kEventsInSnapshot : 0;
  s.events.assign(events_.begin() + static_cast<std::ptrdiff_t>(from), events_.end());
  const double elapsed_s = static_cast<double>(now_ms - s.start_ms) / 1000.0;
  s.samples_per_s = elapsed_s > 0 ? static_cast<double>(appended_) / elapsed_s : 0;
  s.dropped_samples = store_->dropped_samples();
}

void LiveSeries::refreshed(std::int64_t t_ms) {
  if (!writer_ || t_ms * 1000 < rec_us_) return;
  rec_us_ = t_ms * 1000;
  writer_->step(t_ms, key_rows_ ? key_rows_() : std::vector<KeyRow>{}, {}, store_->dropped_samples());
  check_writer();
}

void LiveSeries::write_alerts(std::int64_t t_ms) {
  std::vector<AlertRow> rows;
  std::vector<AlertInterval> intervals;
  alert_view(*alerts_->snapshot(), t_ms, rows, intervals);
  writer_->alerts(t_ms, rows, intervals);
}

void LiveSeries::check_writer() {
  if (writer_ && !writer_->error().empty()) {
    recording_error_ = writer_->error();
    writer_.reset();  // unusable from here; the source keeps running without it
  }
}

std::optional<std::string> LiveSeries::start_recording(const std::string& path, const std::string& source_name,
                                                       std::int64_t now_ms, const Clock& flush_clock) {
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) return path + ": cannot open for writing";
  start_recording(std::move(out), path, source_name, now_ms, flush_clock);
  if (!writer_) return recording_error_;
  return std::nullopt;
}

void LiveSeries::start_recording(std::unique_ptr<std::ostream> out, const std::string& name,
                                 const std::string& source_name, std::int64_t now_ms, const Clock& flush_clock) {
  if (writer_) stop_recording(now_ms);
  recording_error_.clear();
  // Samples may carry times a little after the wall clock (the Redis server's TIME): the
  // recording starts at the latest of both, so its lines stay in time order.
  now_ms = std::max(now_ms, last_ms_);
  rec_us_ = now_ms * 1000;
  writer_ = std::make_unique<RecordingWriter>(std::move(out), name, flush_clock);
  RecordingHeader h;
  h.source = source_name;
  h.start_ms = first_ms_.value_or(now_ms);
  h.recording_started_ms = now_ms;
  writer_->header(h);
  // The history held so far, one samples line per time; the alert engine's own series are
  // left out (the alerts lines carry the states).
  const auto all = store_->select({}, std::numeric_limits<std::int64_t>::min(), now_ms);
  std::map<std::int64_t, std::vector<std::pair<const metrics::Labels*, double>>> by_time;
  for (const auto& series : all) {
    const std::string_view n = series.labels.metric_name();
    if (n == "ALERTS" || n == "ALERTS_FOR_STATE") continue;
    for (const auto& smp : series.samples) {
      if (!metrics::is_stale_marker(smp.value)) by_time[smp.t_ms].emplace_back(&series.labels, smp.value);
    }
  }
  for (const auto& [t, values] : by_time) {
    for (const auto& [labels, v] : values) writer_->sample(*labels, {t, v});
  }
  writer_->step(now_ms, key_rows_ ? key_rows_() : std::vector<KeyRow>{}, {}, store_->dropped_samples());
  write_alerts(now_ms);
  check_writer();
}

std::optional<std::string> LiveSeries::stop_recording(std::int64_t now_ms) {
  if (!writer_) return std::nullopt;
  writer_->finish(std::max({now_ms, last_ms_, rec_us_ / 1000}));
  std::optional<std::string> err;
  if (!writer_->error().empty()) err = writer_->error();
  writer_.reset();
  return err;
}

void LiveSeries::flush_recording_if_due() {
  if (writer_) writer_->flush_if_due();
  check_writer();
}

}  // namespace limitscope
