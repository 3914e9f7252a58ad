#include "core/sources/dashboard_charts.h"

#include <algorithm>
#include <cmath>

#include "core/sources/simulation_recorder.h"

namespace limitscope {
namespace {

using metrics::LabelMatcher;
using metrics::MatchOp;
using metrics::SeriesSamples;

bool is_selected(const ChartView& view, std::string_view key) {
  return std::find(view.selected_keys.begin(), view.selected_keys.end(), key) !=
         view.selected_keys.end();
}

std::vector<metrics::Point> decimated(const SeriesSamples& s, const ChartView& view) {
  std::vector<metrics::Point> pts;
  pts.reserve(s.samples.size());
  for (const auto& smp : s.samples) {
    if (metrics::is_stale_marker(smp.value)) continue;
    pts.push_back({static_cast<double>(smp.t_ms), smp.value});
  }
  return metrics::decimate_min_max(pts, static_cast<double>(view.start_ms),
                                   static_cast<double>(view.end_ms), std::max(1, view.columns));
}

std::string key_line_name(const metrics::Labels& l) {
  std::string name(l.get("api_key"));
  if (!l.get("model").empty()) {  // live Redis keys have no model
    name += " / ";
    name += l.get("model");
  }
  return name;
}

enum class Rank { lowest, highest };

// Chooses the `max_lines` series with the lowest (or highest) latest value at the view's end,
// plus every selected key's series (highlighted), and turns them into decimated lines. Only
// the chosen series are read over the whole window: ranking reads the last seconds only, so
// the cost follows the lines drawn, not the keys tracked.
template <class Finish>
std::vector<ChartLine> pick_lines(const metrics::SeriesStore& store, std::string_view name,
                                  const ChartView& view, Rank rank, std::size_t& points_in,
                                  Finish finish) {
  constexpr std::int64_t kRankWindowMs = 30'000;  // covers 1 s steps and 15 s scrapes
  auto m = LabelMatcher::make("__name__", MatchOp::equal, std::string(name));
  std::vector<LabelMatcher> by_name{*m};
  const auto recent = store.select(by_name, std::max(view.start_ms, view.end_ms - kRankWindowMs), view.end_ms);
  std::vector<std::pair<double, std::size_t>> ranked;
  ranked.reserve(recent.size());
  for (std::size_t i = 0; i < recent.size(); ++i) {
    double v = NAN;
    for (auto it = recent[i].samples.rbegin(); it != recent[i].samples.rend() && std::isnan(v); ++it) {
      if (!std::isnan(it->value)) v = it->value;
    }
    if (std::isnan(v)) continue;
    ranked.emplace_back(rank == Rank::lowest ? v : -v, i);
  }
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<const metrics::Labels*> chosen;
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    const metrics::Labels& l = recent[ranked[r].second].labels;
    if (r < static_cast<std::size_t>(std::max(0, view.max_lines)) || is_selected(view, l.get("api_key"))) {
      chosen.push_back(&l);
    }
  }
  std::vector<ChartLine> lines;
  for (const metrics::Labels* l : chosen) {
    std::vector<LabelMatcher> exact;
    for (const auto& [n, v] : l->pairs()) exact.push_back(*LabelMatcher::make(n, MatchOp::equal, v));
    for (const SeriesSamples& s : store.select(exact, view.start_ms, view.end_ms)) {
      if (!(s.labels == *l)) continue;  // a series with more labels matched too
      points_in += s.samples.size();
      ChartLine line;
      line.name = key_line_name(s.labels);
      line.api_key = std::string(s.labels.get("api_key"));
      line.series = s.labels;
      line.selected = is_selected(view, line.api_key);
      line.points = decimated(s, view);
      finish(line, s);
      lines.push_back(std::move(line));
    }
  }
  std::sort(lines.begin(), lines.end(),
            [](const ChartLine& a, const ChartLine& b) { return a.name < b.name; });
  return lines;
}

void no_finish(ChartLine&, const SeriesSamples&) {}

}  // namespace

ChartData bucket_level_chart(const metrics::SeriesStore& store, const ChartView& view) {
  ChartData c;
  c.kind = ChartKind::bucket_levels;
  c.title = "Bucket levels (lowest keys)";
  c.unit = "share of capacity";
  c.y_max = 1.0;
  c.lines = pick_lines(store, dashboard_series::kKeyLevel, view, Rank::lowest, c.points_in, no_finish);
  return c;
}

ChartData window_occupancy_chart(const metrics::SeriesStore& store, const ChartView& view) {
  ChartData c;
  c.kind = ChartKind::window_occupancy;
  c.title = "Window occupancy (fullest keys)";
  c.unit = "share of limit";
  c.y_max = 1.0;
  c.thresholds = {1.0};
  c.lines = pick_lines(store, dashboard_series::kKeyOccupancy, view, Rank::highest, c.points_in, no_finish);
  if (c.lines.empty()) c.title += ": no window-based limits in this source";
  return c;
}

ChartData rejection_chart(const metrics::SeriesStore& store, const ChartView& view,
                          double threshold_per_s) {
  ChartData c;
  c.kind = ChartKind::rejections;
  c.title = "429 rate by tier";
  c.unit = "429s per second";
  c.thresholds = {threshold_per_s};
  auto m = LabelMatcher::make("__name__", MatchOp::equal, std::string(dashboard_series::kTierRejectedRate));
  std::vector<LabelMatcher> ms{*m};
  for (const SeriesSamples& s : store.select(ms, view.start_ms, view.end_ms)) {
    c.points_in += s.samples.size();
    ChartLine line;
    line.name = std::string(s.labels.get("tier"));
    line.series = s.labels;
    line.points = decimated(s, view);
    c.lines.push_back(std::move(line));
  }
  return c;
}

ChartData quota_burn_chart(const metrics::SeriesStore& store, const ChartView& view,
                           double threshold_ratio) {
  ChartData c;
  c.kind = ChartKind::quota_burn;
  c.title = "Daily quota burn (highest keys)";
  c.unit = "share of daily quota";
  c.thresholds = {threshold_ratio, 1.0};
  c.lines = pick_lines(store, dashboard_series::kKeyQuotaBurn, view, Rank::highest, c.points_in,
                       [](ChartLine& line, const SeriesSamples& s) {
                         line.projected_exhaustion_ms = project_crossing(s.samples, 5 * 60 * 1000, 1.0);
                       });
  return c;
}
std::vector<ChartData> dashboard_charts(const metrics::SeriesStore& store, const ChartView& view) {
  std::vector<ChartData> charts;
  charts.reserve(4);
  charts.push_back(bucket_level_chart(store, view));
  charts.push_back(window_occupancy_chart(store, view));
  charts.push_back(rejection_chart(store, view, kRejectionThresholdPerS));
  charts.push_back(quota_burn_chart(store, view, kQuotaBurnThreshold));
  return charts;
}

std::optional<std::int64_t> project_crossing(const std::vector<metrics::Sample>& samples,
                                             std::int64_t window_ms, double target) {
  if (samples.size() < 2) return std::nullopt;
  const std::int64_t t_end = samples.back().t_ms;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& s : samples) {
    if (s.t_ms < t_end - window_ms || std::isnan(s.value)) continue;
    const double x = static_cast<double>(s.t_ms - t_end) / 1000.0;  // seconds, <= 0
    n += 1;
    sx += x;
    sy += s.value;
    sxx += x * x;
    sxy += x * s.value;
  }
  const double denom = n * sxx - sx * sx;
  if (n < 2 || denom <= 0) return std::nullopt;
  const double slope = (n * sxy - sx * sy) / denom;  // per second
  const double intercept = (sy - slope * sx) / n;    // fitted value at t_end
  if (!(slope > 1e-12) || intercept >= target) return std::nullopt;
  const double seconds = (target - intercept) / slope;
  if (seconds > 365.0 * 86400) return std::nullopt;
  return t_end + static_cast<std::int64_t>(std::llround(seconds * 1000));
}

}  // namespace limitscope
