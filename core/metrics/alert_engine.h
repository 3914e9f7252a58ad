#pragma once
// AlertEngine: evaluates rule groups over a SeriesStore at times the caller passes (no clock
// is read here), with Prometheus 2.42's semantics (rules/alerting.go, rules/group.go):
//  - recording rules write their result into the store at the evaluation time, visible to
//    later rules of the same group and to later groups; series that disappear get a stale
//    marker, as Prometheus writes one;
//  - alerting rules keep one alert per label set: inactive -> pending (active_at = first
//    evaluation that returned it) -> firing at the first evaluation where
//    t - active_at >= for; a pending alert whose series disappears is dropped; a firing one
//    becomes inactive with resolved_at = t, unless keep_firing_for holds it: it keeps firing
//    while t - keep_firing_since < keep_firing_for, where keep_firing_since is the first
//    evaluation without the series (reset when the series returns); resolved alerts stay
//    listed for 15 minutes (Prometheus's resolvedRetention) and a returning series then
//    starts a new pending alert;
//  - ALERTS{alertstate=...} = 1 and ALERTS_FOR_STATE = active_at (Unix seconds) are written
//    into the store for pending and firing alerts, as a restored Prometheus rule does.
// Evaluation runs on one thread; snapshot() may be called from any thread at any time.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/metrics/alert_state.h"
#include "core/metrics/labels.h"
#include "core/metrics/promql.h"
#include "core/metrics/rule_file.h"
#include "core/metrics/series_store.h"

namespace limitscope::metrics {

/// The engine's alerts are inactive, pending or firing (core/metrics/alert_state.h).
using limitscope::AlertState;

/// One alert instance: Prometheus's rules.Alert.
struct Alert {
  std::string rule;   ///< the alert name
  std::string group;  ///< the group it belongs to
  Labels labels;      ///< series labels without __name__, plus rule labels and alertname
  Labels annotations;
  AlertState state = AlertState::pending;
  std::int64_t active_at_ms = 0;                     ///< first evaluation that returned it
  std::optional<std::int64_t> fired_at_ms;           ///< when it turned firing
  std::optional<std::int64_t> resolved_at_ms;        ///< when it turned inactive
  std::optional<std::int64_t> keep_firing_since_ms;  ///< first evaluation without the series
  std::optional<std::int64_t> last_eval_ms;          ///< last evaluation that updated it
  double value = 0;                                  ///< the series value at the last evaluation
};

/// A pending or firing stretch of one alert, for chart shading. end_ms is absent while open.
struct StateInterval {
  Labels labels;
  AlertState state = AlertState::pending;
  std::int64_t start_ms = 0;
  std::optional<std::int64_t> end_ms;
};

struct RuleStatus {
  std::string group;
  std::string name;
  RuleKind kind = RuleKind::alerting;
  ExprPtr expr;  ///< the parsed expression (immutable, shared with the rule)
  AlertState state = AlertState::inactive;  ///< highest state of its alerts
  std::string last_error;                   ///< "" when the last evaluation succeeded
  std::optional<std::int64_t> last_eval_ms;
  std::size_t output_series = 0;        ///< recording: series written; alerting: pending + firing
  std::vector<StateInterval> history;   ///< alerting: oldest first, bounded per rule
  std::vector<std::string> reads;       ///< the metric names its expression reads (metric_names())
  std::int64_t for_ms = 0;              ///< alerting: pending time before firing
  std::optional<bool> higher_is_worse;  ///< alerting: alerts_when_higher() of its expression
};

/// An immutable picture of the engine after an evaluation, shared with the dashboard.
struct AlertSnapshot {
  std::optional<std::int64_t> evaluated_at_ms;
  std::vector<Alert> alerts;      ///< pending, firing and recently resolved; by rule then labels
  std::vector<RuleStatus> rules;  ///< in group order, rule order
};

struct AlertEngineOptions {
  std::int64_t default_interval_ms = 60'000;  ///< for groups without `interval`
  std::int64_t resolved_retention_ms = 15 * 60'000;
  EvalOptions eval;
  Labels external_labels;               ///< $externalLabels in templates
  std::string external_url;             ///< $externalURL in templates
  bool write_alert_series = true;       ///< ALERTS and ALERTS_FOR_STATE into the store
  std::size_t history_per_rule = 1000;  ///< closed intervals kept per alerting rule
};

class AlertEngine {
 public:
  /// @param store where rules read series and recording rules write theirs; must outlive this.
  AlertEngine(SeriesStore& store, std::vector<RuleGroup> groups, AlertEngineOptions options = {});

  const std::vector<RuleGroup>& groups() const { return groups_; }

  /// Evaluates every rule of group `group` at t_ms, in order.
  /// @return the number of rules whose evaluation failed (see RuleStatus::last_error).
  std::size_t evaluate_group(std::size_t group, std::int64_t t_ms);
  /// Evaluates every group in order at t_ms (what promtool does at each step).
  std::size_t evaluate_all(std::int64_t t_ms);
  /// Evaluates each group whose next slot is due: slots are multiples of the group interval
  /// since the epoch; a group is evaluated at the latest slot <= t_ms it has not evaluated yet
  /// (missed slots are skipped, as Prometheus skips missed iterations).
  /// @return the number of groups evaluated.
  std::size_t evaluate_due(std::int64_t t_ms);

  /// Alerts of one alerting rule (pending, firing and resolved kept), sorted by labels.
  /// Call from the evaluating thread.
  std::vector<Alert> alerts_of(std::size_t group, std::size_t rule) const;
  /// The last evaluation error of a rule, "" when healthy. Evaluating thread only.
  const std::string& last_error(std::size_t group, std::size_t rule) const;

  /// The state after the latest evaluation; thread-safe, cheap (shares an immutable object).
  std::shared_ptr<const AlertSnapshot> snapshot() const;

 private:
  struct RuleState {
    std::unordered_map<Labels, Alert, LabelsHash> active;
    std::unordered_set<Labels, LabelsHash> previous_series;  // written last time: staleness
    std::string last_error;
    std::optional<std::int64_t> last_eval_ms;
    std::size_t output_series = 0;
    std::deque<StateInterval> history;                           // closed intervals
    std::unordered_map<Labels, StateInterval, LabelsHash> open;  // by alert labels
  };

  std::size_t run_group(std::size_t group, std::int64_t t_ms);  // without publish()
  void eval_recording(const RuleGroup& g, const Rule& r, RuleState& s, std::int64_t t);
  void eval_alerting(const RuleGroup& g, const Rule& r, RuleState& s, std::int64_t t);
  void write_series(RuleState& s, const std::vector<InstantSample>& out, std::int64_t t);
  void open_interval(RuleState& s, const Labels& l, AlertState st, std::int64_t t);
  void close_interval(RuleState& s, const Labels& l, std::int64_t t);
  void publish(std::optional<std::int64_t> t);  // none: before the first evaluation

  SeriesStore& store_;
  std::vector<RuleGroup> groups_;
  AlertEngineOptions options_;
  std::vector<std::vector<RuleState>> states_;          // [group][rule]
  std::vector<std::optional<std::int64_t>> last_slot_;  // per group, evaluate_due
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const AlertSnapshot> snapshot_;
};

}  // namespace limitscope::metrics
