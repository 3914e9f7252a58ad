#include "core/dashboard/dashboard_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "core/common/sha256.h"
#include "core/metrics/metric_names.h"

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

// The line of series `s` called `name`, its points decimated to the view; the samples it read
// are added to `points_in`.
ChartLine line_of(const SeriesSamples& s, std::string name, const ChartView& view,
                  std::size_t& points_in) {
  points_in += s.samples.size();
  ChartLine line;
  line.name = std::move(name);
  line.series = s.labels;
  line.points = decimated(s, view);
  return line;
}

std::string key_line_name(const metrics::Labels& l, const KeyNames* names) {
  const std::string_view key = l.get("api_key");
  std::string name = names != nullptr ? names->display(key) : std::string(key);
  for (std::string_view part : {l.get("model"), l.get("limit")}) {
    if (part.empty()) continue;  // live Redis keys of other schemas have no model
    name += " / ";
    name += part;
  }
  return name;
}

// Two lines with one label (two keys with one name, or hashes cut short) get what tells them
// apart: the key as stored, then a number as the last resort.
void make_names_unique(std::vector<ChartLine>& lines) {
  std::map<std::string, int> seen;
  for (const ChartLine& l : lines) ++seen[l.name];
  for (ChartLine& l : lines) {
    if (seen[l.name] > 1 && !l.api_key.empty()) l.name += " (" + l.api_key.substr(0, 16) + ")";
  }
  std::map<std::string, int> again;
  for (ChartLine& l : lines) {
    if (const int n = ++again[l.name]; n > 1) l.name += " #" + std::to_string(n);
  }
}

enum class Rank { lowest, highest };

// Chooses the `max_lines` series with the lowest (or highest) latest value at the view's end,
// plus every selected key's series (highlighted), and turns them into decimated lines. Only
// the chosen series are read over the whole window: ranking reads the last seconds only, so
// the cost follows the lines drawn, not the keys tracked.
template <class Finish>
std::vector<ChartLine> pick_lines(const metrics::SeriesStore& store, std::string_view name,
                                  const ChartView& view, Rank rank, std::size_t& points_in,
                                  const KeyNames* names, Finish finish) {
  constexpr std::int64_t kRankWindowMs = 30'000;  // covers 1 s steps and 15 s scrapes
  // The max_lines lowest (highest) by the last number of the last seconds, ties in label
  // order; when nothing arrived in them (a source that stopped answering), by the last number
  // in the window, so its history stays on the chart. Plus the keys the operator selected,
  // wherever they rank. The store visits every series of the metric in place; only the labels
  // of the lines drawn (and of candidates that were later outranked) are copied.
  struct Ranked {
    double v;
    std::size_t order;  // label order: the tie-break
    metrics::Labels labels;
  };
  auto drawn_before = [](const Ranked& a, const Ranked& b) {
    return std::tie(a.v, a.order) < std::tie(b.v, b.order);
  };
  const auto keep = static_cast<std::size_t>(std::max(0, view.max_lines));
  std::vector<Ranked> top;     // a heap whose front is the last drawn (the first to go)
  std::vector<Ranked> chosen;  // selected keys outside top
  for (const std::int64_t from :
       {std::max(view.start_ms, view.end_ms - kRankWindowMs), view.start_ms}) {
    std::size_t seen = 0;
    top.clear();
    chosen.clear();
    store.visit_newest_numbers(
        name, from, view.end_ms, [&](const metrics::Labels& l, metrics::Sample s) {
          Ranked r{rank == Rank::lowest ? s.value : -s.value, seen++, {}};
          if (top.size() == keep && (keep == 0 || !drawn_before(r, top.front()))) {
            if (is_selected(view, l.get("api_key"))) {
              r.labels = l;
              chosen.push_back(std::move(r));
            }
            return;
          }
          r.labels = l;
          if (top.size() == keep) {
            std::pop_heap(top.begin(), top.end(), drawn_before);
            if (is_selected(view, top.back().labels.get("api_key")))
              chosen.push_back(std::move(top.back()));
            top.pop_back();
          }
          top.push_back(std::move(r));
          std::push_heap(top.begin(), top.end(), drawn_before);
        });
    if (seen > 0) break;
  }
  for (Ranked& r : top) chosen.push_back(std::move(r));
  std::sort(chosen.begin(), chosen.end(), drawn_before);  // rank order: make_names_unique's
  std::vector<ChartLine> lines;
  for (const Ranked& r : chosen) {
    const std::optional<SeriesSamples> s =
        store.select_series(r.labels, view.start_ms, view.end_ms);
    if (!s) continue;
    ChartLine line = line_of(*s, key_line_name(s->labels, names), view, points_in);
    line.api_key = std::string(s->labels.get("api_key"));
    line.selected = is_selected(view, line.api_key);
    finish(line, *s);
    lines.push_back(std::move(line));
  }
  make_names_unique(lines);
  std::sort(lines.begin(), lines.end(),
            [](const ChartLine& a, const ChartLine& b) { return a.name < b.name; });
  return lines;
}

void no_finish(ChartLine&, const SeriesSamples&) {}

// "0.5/s", "80%": a threshold's value as its line is labelled, in the chart's unit.
std::string per_second(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g/s", v);
  return buf;
}
std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", ratio * 100);
  return buf;
}

// A chart of `kind` with its title and y unit, before its lines.
ChartData chart_of(ChartKind kind, std::string title, std::string unit) {
  ChartData c;
  c.kind = kind;
  c.title = std::move(title);
  c.unit = std::move(unit);
  return c;
}

}  // namespace

ChartData bucket_level_chart(const metrics::SeriesStore& store, const ChartView& view,
                             const KeyNames* names) {
  ChartData c = chart_of(ChartKind::bucket_levels, "Bucket levels (lowest keys)", "of capacity");
  c.y_max = 1.0;
  c.lines = pick_lines(store, dashboard_series::kKeyLevel, view, Rank::lowest, c.points_in, names,
                       no_finish);
  c.empty_note =
      "no bucket levels from this source (a gateway's /metrics reports rates, not levels)";
  return c;
}

ChartData window_occupancy_chart(const metrics::SeriesStore& store, const ChartView& view,
                                 const KeyNames* names) {
  ChartData c =
      chart_of(ChartKind::window_occupancy, "Window occupancy (fullest keys)", "of limit");
  c.y_max = 1.0;
  c.thresholds = {1.0};
  c.threshold_labels = {percent(1.0)};
  c.lines = pick_lines(store, dashboard_series::kKeyOccupancy, view, Rank::highest, c.points_in,
                       names, no_finish);
  c.empty_note = "no window-based limits in this source";
  return c;
}

std::string_view chart_metric(ChartKind kind) {
  switch (kind) {
    case ChartKind::bucket_levels:
      return dashboard_series::kKeyLevel;
    case ChartKind::window_occupancy:
      return dashboard_series::kKeyOccupancy;
    case ChartKind::rejections:
      return dashboard_series::kTierRejectedRate;
    case ChartKind::quota_burn:
      return dashboard_series::kKeyQuotaBurn;
  }
  return {};
}

bool chart_reads_metric(ChartKind kind, std::string_view metric) {
  namespace names = metrics::names;
  // A histogram's series carry _bucket/_count/_sum after the family name.
  const auto family = [&](std::string_view f) {
    return metric == f ||
           (metric.starts_with(f) && metric.size() > f.size() && metric[f.size()] == '_');
  };
  switch (kind) {
    case ChartKind::bucket_levels:
      return metric == dashboard_series::kKeyLevel || family(names::kGatewayTokenBucketUsage) ||
             metric == names::kBucketLevel;
    case ChartKind::window_occupancy:
      return metric == dashboard_series::kKeyOccupancy || metric == names::kWindowOccupancy;
    case ChartKind::rejections:
      return metric == dashboard_series::kTierRejectedRate ||
             metric == names::kGatewayRateLimitHits || metric == dashboard_series::kRejectedRatio ||
             metric == dashboard_series::kKeyRejectedRate || metric == live_series::kRejectedRate;
    case ChartKind::quota_burn:
      return metric == dashboard_series::kKeyQuotaBurn || metric == names::kGatewayQuotaBurnRatio;
  }
  return false;
}

namespace {

// Whether `e`, aggregations and parentheses aside, is in the chart's unit: a threshold on it
// can be drawn on the chart's axis (not the tokens of a bucket-usage quantile on a chart of
// fractions of capacity, nor a 429 ratio on a chart of 429s per second).
bool in_chart_unit(ChartKind kind, const metrics::Expr* e) {
  while (e != nullptr) {
    if (const auto* p = std::get_if<metrics::ParenExpr>(&e->node)) {
      e = p->inner.get();
    } else if (const auto* a = std::get_if<metrics::Aggregate>(&e->node)) {
      e = a->operand.get();
    } else {
      break;
    }
  }
  if (e == nullptr) return false;
  if (const auto* v = std::get_if<metrics::VectorSelector>(&e->node)) {
    const std::string_view m = v->metric_name;
    switch (kind) {
      case ChartKind::bucket_levels:
        return m == dashboard_series::kKeyLevel;
      case ChartKind::window_occupancy:
        return chart_reads_metric(kind, m);
      case ChartKind::rejections:
        return m == dashboard_series::kTierRejectedRate ||
               m == dashboard_series::kKeyRejectedRate || m == live_series::kRejectedRate;
      case ChartKind::quota_burn:
        return chart_reads_metric(kind, m);
    }
    return false;
  }
  // rate() or irate() of a 429 counter: 429s per second.
  const auto* call = std::get_if<metrics::Call>(&e->node);
  if (kind != ChartKind::rejections || call == nullptr ||
      (call->name != "rate" && call->name != "irate") || call->args.size() != 1 || !call->args[0]) {
    return false;
  }
  const auto* range = std::get_if<metrics::MatrixSelector>(&call->args[0]->node);
  return range != nullptr && range->selector.metric_name == metrics::names::kGatewayRateLimitHits;
}

}  // namespace

std::optional<double> chart_threshold(ChartKind kind, const metrics::Expr& rule_expr) {
  const auto cmp = metrics::constant_comparison(rule_expr);
  if (!cmp || !in_chart_unit(kind, cmp->vector)) return std::nullopt;
  return cmp->constant;
}

void add_rule_threshold(ChartData& c, const metrics::Expr& rule_expr) {
  const auto value = chart_threshold(c.kind, rule_expr);
  if (!value || std::find(c.thresholds.begin(), c.thresholds.end(), *value) != c.thresholds.end())
    return;
  c.thresholds.push_back(*value);
  c.threshold_labels.push_back(c.kind == ChartKind::rejections ? per_second(*value)
                                                               : percent(*value));
}

std::string_view tier_of_rule(std::string_view tier_or_rule) {
  return tier_or_rule.starts_with("gw-") ? tier_or_rule.substr(3) : tier_or_rule;
}

namespace {

// The key a series or an alert is about, as 12 hex digits when it can be said that way (our
// keys are hashes: 12 digits in the gateway's metrics, 32 in Redis; the simulation's raw keys
// by their api_key_hash), else as written.
std::optional<std::string> key_of(const metrics::Labels& l) {
  if (const std::string_view h = l.get(metrics::names::kApiKeyHash); !h.empty()) {
    return key_hash_prefix(h).value_or(std::string(h));
  }
  const std::string_view k = l.get("api_key");
  if (k.empty()) return std::nullopt;
  if (auto h = key_hash_prefix(k)) return h;
  return api_key_hash(k);
}

}  // namespace

bool alert_selects_line(const metrics::Labels& alert, const metrics::Labels& line) {
  int shared = 0;
  for (const std::string_view dim : {"tier", "model"}) {
    std::string_view a = alert.get(dim), l = line.get(dim);
    if (a.empty() || l.empty()) continue;  // one side does not split by it
    if (dim == "tier") {
      a = tier_of_rule(a);
      l = tier_of_rule(l);
    }
    if (a != l) return false;
    ++shared;
  }
  const auto a = key_of(alert), l = key_of(line);
  if (a && l) {
    if (*a != *l) return false;
    ++shared;
  }
  return shared > 0;
}

ChartData rejection_chart(const metrics::SeriesStore& store, const ChartView& view) {
  ChartData c = chart_of(ChartKind::rejections, "429 rate by tier", "429/s");
  c.empty_note = "no 429 counts from this source yet";
  auto m = LabelMatcher::make("__name__", MatchOp::equal,
                              std::string(dashboard_series::kTierRejectedRate));
  std::vector<LabelMatcher> ms{*m};
  const std::vector<SeriesSamples> all = store.select(ms, view.start_ms, view.end_ms);
  // One line per tier: a gateway's /metrics (or Prometheus) counts every 429 of the tier, a
  // rule's decision stream only the keys it logs, so when both report a tier the metrics'
  // line is drawn, named for its source.
  std::map<std::string, int> sources_of_tier;
  for (const SeriesSamples& s : all)
    ++sources_of_tier[std::string(tier_of_rule(s.labels.get("tier")))];
  for (const SeriesSamples& s : all) {
    const std::string_view label = s.labels.get("tier");
    const std::string tier(tier_of_rule(label));
    const bool from_stream = label != tier;
    if (sources_of_tier[tier] > 1 && from_stream) continue;
    // Named for its tier, and for its source when a live source could give it two ways.
    std::string name = sources_of_tier[tier] > 1 ? tier + " (metrics)"
                       : from_stream             ? tier + " (redis)"
                                                 : tier;
    c.lines.push_back(line_of(s, std::move(name), view, c.points_in));
  }
  // A rule's shadow config: what it would refuse, from the same decisions as the rule's line,
  // drawn beside the tier's line.
  auto sh = LabelMatcher::make("__name__", MatchOp::equal,
                               std::string(dashboard_series::kTierShadowRejectedRate));
  std::vector<LabelMatcher> shs{*sh};
  const std::size_t tier_lines = c.lines.size();
  const std::vector<SeriesSamples> shadows = store.select(shs, view.start_ms, view.end_ms);
  // As above: when the gateway's metrics and a rule's decision stream both report it, the
  // metrics' line is drawn (the same gateway as the tier's metrics line).
  std::map<std::string, int> shadow_sources;
  for (const SeriesSamples& s : shadows)
    ++shadow_sources[std::string(tier_of_rule(s.labels.get("tier")))];
  for (const SeriesSamples& s : shadows) {
    const std::string tier(tier_of_rule(s.labels.get("tier")));
    if (shadow_sources[tier] > 1 && s.labels.get("source") != "metrics") continue;
    ChartLine line = line_of(s, tier + ": would refuse (shadow)", view, c.points_in);
    line.shadow_of = "";
    for (std::size_t i = 0; i < tier_lines; ++i) {
      if (tier_of_rule(c.lines[i].series.get("tier")) == tier) line.shadow_of = c.lines[i].name;
    }
    c.lines.push_back(std::move(line));
  }
  // Admitted without a limit check (a gateway failing open): beside the 429s it hides.
  auto u = LabelMatcher::make("__name__", MatchOp::equal,
                              std::string(live_series::kUncheckedAdmittedRate));
  std::vector<LabelMatcher> us{*u};
  for (const SeriesSamples& s : store.select(us, view.start_ms, view.end_ms)) {
    // Drawn only when the gateway did fail open in the window: a flat zero line is noise.
    if (std::none_of(s.samples.begin(), s.samples.end(),
                     [](const metrics::Sample& x) { return x.value > 0; }))
      continue;
    c.lines.push_back(line_of(s, "admitted unchecked (fail-open)", view, c.points_in));
  }
  return c;
}

ChartData quota_burn_chart(const metrics::SeriesStore& store, const ChartView& view,
                           const KeyNames* names) {
  ChartData c =
      chart_of(ChartKind::quota_burn, "Daily quota burn (highest keys)", "of daily quota");
  c.thresholds = {1.0};  // the quota itself; the rules' thresholds come from add_rule_threshold
  c.threshold_labels = {percent(1.0)};
  c.empty_note =
      "no quota burn from this source (Redis holds levels, not spend: add the gateway's /metrics)";
  c.lines = pick_lines(store, dashboard_series::kKeyQuotaBurn, view, Rank::highest, c.points_in,
                       names, [](ChartLine& line, const SeriesSamples& s) {
                         line.projected_exhaustion_ms =
                             project_crossing(s.samples, 5 * 60 * 1000, 1.0);
                       });
  return c;
}
std::vector<ChartData> dashboard_charts(const metrics::SeriesStore& store, const ChartView& view,
                                        const KeyNames* names) {
  std::vector<ChartData> charts;
  charts.reserve(4);
  charts.push_back(bucket_level_chart(store, view, names));
  charts.push_back(window_occupancy_chart(store, view, names));
  charts.push_back(rejection_chart(store, view));
  charts.push_back(quota_burn_chart(store, view, names));
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
