#include "core/sources/playback_source.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "core/dashboard/alert_no_data.h"

namespace limitscope {

namespace {
constexpr std::size_t kEventsShown = 50;  // as a live snapshot's newest events
}  // namespace

Expected<std::unique_ptr<PlaybackSource>> PlaybackSource::open(const std::string& path,
                                                               const PlaybackOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open the recording");
  return read(in, path, options);
}

Expected<std::unique_ptr<PlaybackSource>> PlaybackSource::read(std::istream& in,
                                                               const std::string& name,
                                                               const PlaybackOptions& options) {
  RecordingLoad load = read_recording(in, name);
  if (!load.has_header) return make_error(load.error);
  std::unique_ptr<PlaybackSource> src(new PlaybackSource());
  src->options_ = options;
  src->name_ = name;
  src->load_error_ = std::move(load.error);
  src->recording_ = std::move(load.recording);
  src->build();
  return src;
}

void PlaybackSource::build() {
  // A store that holds the whole recording (the live one kept a bounded window of it).
  std::vector<std::size_t> per_series(recording_.series.size(), 0);
  for (const RecordedSamples& line : recording_.samples) {
    for (const auto& [id, v] : line.values) ++per_series[id];
  }
  SessionOptions so;
  so.samples_per_series = std::max<std::size_t>(
      1, per_series.empty() ? 1 : *std::max_element(per_series.begin(), per_series.end()));
  so.max_series = std::max(metrics::SeriesStoreOptions{}.max_series, recording_.series.size());
  // A recording holds alert states, not the rules' expressions: the session's engine holds
  // the shipped rules, never evaluated, so the charts are bound to the rules of those names,
  // with their threshold lines (a renamed rule of a --rules file shades no chart on playback;
  // docs/recording.md). The simulation evaluates the default rules, a live source the live
  // rules too: a recording of the simulation draws no live rule's line.
  so.live_rules = !recording_.header.source.starts_with("embedded simulation");
  so.start_ms = recording_.header.start_ms;
  so.watch_protection = false;
  so.decisions_per_key = 0;  // decisions come from the recording, up to the cursor
  auto made = SessionState::create(so);
  // The shipped rules are compiled in and tested; failing to parse them is a build defect.
  if (!made) throw std::logic_error("built-in alert rules: " + made.error());
  session_ = std::move(*made);
  std::uint64_t total = 0;
  samples_through_.reserve(recording_.samples.size());
  for (const RecordedSamples& line : recording_.samples) {
    for (const auto& [id, v] : line.values) {
      if (session_->append(recording_.series[id], {line.t_ms, v})) ++total;
    }
    samples_through_.push_back(total);
  }
  requests_by_key_.assign(recording_.names.size(), {});
  for (std::size_t i = 0; i < recording_.requests.size(); ++i) {
    requests_by_key_[recording_.requests[i].key].push_back(static_cast<std::uint32_t>(i));
  }
  cursor_ms_ = end_ms();
}

int PlaybackSource::advance(Nanos d) {
  if (d.count() <= 0 || at_end()) return 0;
  carry_ += d;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(carry_);
  carry_ -= ms;
  const std::int64_t before = cursor_ms_;
  seek(cursor_ms_ + ms.count());
  return cursor_ms_ != before ? 1 : 0;
}

int PlaybackSource::fast_forward(Nanos d) {
  const std::int64_t before = cursor_ms_;
  seek(d.count() > 0 ? begin_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(d).count()
                     : end_ms());
  return cursor_ms_ != before ? 1 : 0;
}

void PlaybackSource::seek(std::int64_t t_ms) {
  cursor_ms_ = std::clamp(t_ms, begin_ms(), end_ms());
  if (at_end()) carry_ = Nanos{0};
}

template <class V>
std::ptrdiff_t PlaybackSource::last_at_or_before(const V& v) const {
  const auto it = std::upper_bound(v.begin(), v.end(), cursor_ms_,
                                   [](std::int64_t t, const auto& e) { return t < e.t_ms; });
  return (it - v.begin()) - 1;
}

DashboardSnapshot PlaybackSource::snapshot(const ChartView& view) const {
  DashboardSnapshot snap;
  ChartView v = view;
  v.end_ms = std::min(v.end_ms, cursor_ms_);  // nothing after the cursor is shown
  v.start_ms = std::min(v.start_ms, v.end_ms);
  session_->fill(snap, v, cursor_ms_);  // charts, bound to the rules; the rest is recorded
  snap.view = view;
  snap.alerts.clear();
  snap.alert_intervals.clear();
  snap.decisions.clear();

  // Key table: the last step at or before the cursor, sparklines from the steps before it.
  const std::ptrdiff_t step = last_at_or_before(recording_.steps);
  if (step >= 0) {
    const RecordedStep& s = recording_.steps[static_cast<std::size_t>(step)];
    const std::ptrdiff_t first = std::max<std::ptrdiff_t>(
        0, step + 1 - static_cast<std::ptrdiff_t>(options_.sparkline_points));
    for (const RecordedKeyValues& k : s.keys) {
      const RecordedKey& def = recording_.keys[k.id];
      KeyRow row;
      row.api_key = def.api_key;
      row.tier = def.tier;
      row.model = def.model;
      row.algorithm = def.algorithm;
      row.parameters = def.parameters;
      row.capacity = def.capacity;
      row.node = def.node;
      row.name = def.name;
      row.level = k.level;
      row.occupancy = k.occupancy;
      row.requests_per_s = k.requests_per_s;
      row.rejected_per_s = k.rejected_per_s;
      row.spend = k.spend;
      row.quota_burn = k.quota_burn;
      row.last_seen_ms = k.last_seen_ms;
      for (std::ptrdiff_t i = first; i <= step; ++i) {
        for (const RecordedKeyValues& p : recording_.steps[static_cast<std::size_t>(i)].keys) {
          if (p.id == k.id) row.sparkline.push_back(p.level);
        }
      }
      snap.keys.push_back(std::move(row));
    }
    snap.incidents = s.incidents;
    snap.dropped_samples = s.dropped_samples;
    // What the live session saw of its sources and the gateway: the same no-data bands, Sources
    // and UNPROTECTED banner, and its event log up to here.
    if (s.sources) {
      snap.sources = *s.sources;
      add_no_data_bands(snap.charts, snap.sources, cursor_ms_);
    }
    if (s.protection) snap.protection = *s.protection;
    const std::size_t from = s.events_through > kEventsShown ? s.events_through - kEventsShown : 0;
    snap.events.assign(recording_.events.begin() + static_cast<std::ptrdiff_t>(from),
                       recording_.events.begin() + static_cast<std::ptrdiff_t>(s.events_through));
  }

  // Alerts as of the last evaluation before the cursor; bands clipped to the cursor. Before
  // the first alerts line (history recorded when recording began) its bands still apply.
  const std::ptrdiff_t a = last_at_or_before(recording_.alerts);
  if (a >= 0 || !recording_.alerts.empty()) {
    const RecordedAlerts& line =
        recording_.alerts[static_cast<std::size_t>(std::max<std::ptrdiff_t>(a, 0))];
    if (a >= 0) {
      snap.alerts = line.alerts;
      set_pending_progress(snap.alerts, cursor_ms_);
    }
    for (AlertInterval iv : line.intervals) {
      if (iv.start_ms > cursor_ms_) continue;
      if (iv.open || iv.end_ms > cursor_ms_) {
        iv.end_ms = cursor_ms_;
        iv.open = true;
      }
      snap.alert_intervals.push_back(std::move(iv));
    }
  }

  // Recent decisions of the selected keys up to the cursor, newest first.
  for (const std::string& key : view.selected_keys) {
    std::vector<DecisionRow>& out = snap.decisions[key];
    const auto it = std::find(recording_.names.begin(), recording_.names.end(), key);
    if (it == recording_.names.end()) continue;
    const auto& idx = requests_by_key_[static_cast<std::size_t>(it - recording_.names.begin())];
    const std::int64_t cursor_ns = cursor_ms_ * 1'000'000;
    auto end = std::upper_bound(
        idx.begin(), idx.end(), cursor_ns,
        [this](std::int64_t t, std::uint32_t i) { return t < recording_.requests[i].t_ns; });
    for (std::size_t n = 0; end != idx.begin() && n < options_.decisions_per_key; ++n) {
      --end;
      out.push_back(recording_.decision(recording_.requests[*end]));
    }
  }

  snap.source = name();
  snap.connection = at_end() ? "end of recording" : "playback";
  const std::ptrdiff_t sl = last_at_or_before(recording_.samples);
  const double elapsed_s = static_cast<double>(cursor_ms_ - recording_.header.start_ms) / 1000.0;
  if (sl >= 0 && elapsed_s > 0) {
    snap.samples_per_s =
        static_cast<double>(samples_through_[static_cast<std::size_t>(sl)]) / elapsed_s;
  }
  snap.last_error = load_error_;
  return snap;
}

}  // namespace limitscope
