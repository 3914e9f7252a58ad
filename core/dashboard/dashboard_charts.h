#pragma once
// What the four dashboard charts show, computed from a SeriesStore off the GUI thread:
// which lines, decimated to the chart's pixel width, thresholds, and quota projections.
// Widgets only draw these structs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dashboard/key_names.h"
#include "core/metrics/decimate.h"
#include "core/metrics/metric_names.h"
#include "core/metrics/promql_ast.h"
#include "core/metrics/series_store.h"

namespace limitscope {

/// The visible window and what the operator picked.
struct ChartView {
  std::int64_t start_ms = 0;  // wall time, ms since the Unix epoch
  std::int64_t end_ms = 0;
  int columns = 800;  // chart plot width in pixels
  int max_lines = 8;  // lines chosen automatically per chart ("the N lowest")
  std::vector<std::string>
      selected_keys;  // api keys shown (highlighted) beside the automatic choice
};

struct ChartLine {
  std::string name;                    // legend text, e.g. "acme-prod / gpt-4.1"
  std::string api_key;                 // empty for tier/aggregate lines
  metrics::Labels series;              // the store series drawn (for export and details)
  std::vector<metrics::Point> points;  // x = ms since epoch, y = value; decimated
  bool selected = false;
  /// Quota chart: wall time (ms) when the line is projected to reach 1.0, if it rises.
  std::optional<std::int64_t> projected_exhaustion_ms;
  /// A shadow config's line (issue 19: what it would refuse, never enforced): the name of the
  /// line it is drawn beside (dashed, in that line's colour; "" when that line is not drawn);
  /// nullopt for every other line.
  std::optional<std::string> shadow_of;
};

enum class ChartKind { bucket_levels, window_occupancy, rejections, quota_burn };

/// A time a source that feeds the chart did not answer: "no data from redis since 10:42:13".
struct NoDataBand {
  std::string source;  // "redis"
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;  // still down: the snapshot's now
  bool open = false;        // still down
};

/// A time a rule the chart is bound to was pending or firing, on what its alert's labels
/// select: one line of the chart (the firing tier's 429 line, a key's level), drawn along that
/// line in its colour; or, when the labels select nothing drawn, a marker on the chart's edge.
struct AlertBand {
  std::string rule;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;  // still open: the snapshot's now
  bool firing = false;
  bool open = false;
  std::string line;   // ChartLine::name it applies to; empty: no line drawn
  std::string about;  // what the alert selects: `tier="free", model="gpt-4.1"`;
                      // empty: the rule as a whole (no tier, model or key)
};

struct ChartData {
  ChartKind kind = ChartKind::bucket_levels;
  std::string title;
  std::string unit;  // axis title
  double y_min = 0;
  std::optional<double> y_max;  // nullopt: fit the data
  std::vector<ChartLine> lines;
  std::vector<double> thresholds;  // horizontal alert threshold lines, in the chart's unit
  std::vector<std::string> threshold_labels;  // each threshold's value as drawn ("0.5/s", "80%")
  std::size_t points_in = 0;                  // samples read before decimation (status/benchmark)
  std::vector<NoDataBand> no_data;            // live sources: outages of the sources it draws
  /// The alert rules whose expressions read what this chart shows (its bands and markers):
  /// found from the expressions (chart_reads_metric), whatever the rules are called.
  std::vector<std::string> rules;
  /// Their pending and firing times, per line (bind_chart_rules). Empty where no alert engine
  /// evaluated them (playback): the chart shades its rules' intervals over the whole plot.
  std::vector<AlertBand> bands;
  /// Shown instead of the chart while it has no line ("no window-based limits in this
  /// source"): a chart with nothing to show collapses to this one line.
  std::string empty_note;
};

/// The tier a rule's keys belong to: the reference gateway names its Redis rules "gw-<tier>".
std::string_view tier_of_rule(std::string_view tier_or_rule);

/// Whether an alert with labels `alert` is about the series `line` draws: they share at least
/// one of tier (a "gw-<tier>" rule counts as its tier), model and key (api_key, or the
/// api_key_hash of it), and agree on every one they share.
bool alert_selects_line(const metrics::Labels& alert, const metrics::Labels& line);

/// Whether a rule reading `metric` watches what a chart of `kind` shows: the chart's own
/// series and the gateway families it is made from (429s: gateway_rate_limit_hits_total ...).
bool chart_reads_metric(ChartKind kind, std::string_view metric);

/// The metric the chart draws its lines from (the sources that write it feed the chart).
std::string_view chart_metric(ChartKind kind);

/// Fraction of capacity left per (key, model): the N lowest at the view's end, plus selected keys.
/// Key lines are labelled by `names` (KeyNames::display) when given; no two lines of a chart
/// carry the same label.
ChartData bucket_level_chart(const metrics::SeriesStore& store, const ChartView& view,
                             const KeyNames* names = nullptr);
/// Window occupancy per (key, model) for window algorithms: the N fullest at the view's end,
/// plus selected keys.
ChartData window_occupancy_chart(const metrics::SeriesStore& store, const ChartView& view,
                                 const KeyNames* names = nullptr);
/// 429s per second by tier, plus the 429 ratio of all requests; beside a tier's line, dashed,
/// what its rule's shadow config would refuse per second while a live source reports one
/// ("free: would refuse (shadow)").
ChartData rejection_chart(const metrics::SeriesStore& store, const ChartView& view);
/// Quota burn ratio per key (the N highest at the view's end, plus selected keys) with each
/// line's projected exhaustion.
ChartData quota_burn_chart(const metrics::SeriesStore& store, const ChartView& view,
                           const KeyNames* names = nullptr);

/// The threshold a rule draws on a chart of `kind`: the number its expression compares with
/// (`rate(gateway_rate_limit_hits_total[5m]) > 0.5`: 0.5/s on the 429 chart), when the compared
/// side is in the chart's unit; nullopt when the rule has no such simple comparison.
std::optional<double> chart_threshold(ChartKind kind, const metrics::Expr& rule_expr);
/// Adds the threshold line (and its label: "0.5/s", "80%") of a rule bound to the chart, once.
void add_rule_threshold(ChartData& c, const metrics::Expr& rule_expr);

/// The four dashboard charts (bucket levels, occupancy, 429s, quota burn). Their rule
/// threshold lines come from the rules in force (bind_chart_rules), not from here.
std::vector<ChartData> dashboard_charts(const metrics::SeriesStore& store, const ChartView& view,
                                        const KeyNames* names = nullptr);

/// Least-squares line through the last `window_ms` of points; the wall time it reaches
/// `target`, when it rises toward it; nullopt when flat, falling or already past.
std::optional<std::int64_t> project_crossing(const std::vector<metrics::Sample>& samples,
                                             std::int64_t window_ms, double target);

}  // namespace limitscope
