#pragma once
// One immutable picture of everything the dashboard shows, published by a source's worker
// and drawn by the UI. Plain data, no Qt.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dashboard/dashboard_charts.h"
#include "core/metrics/alert_state.h"

namespace limitscope {

struct KeyTableUpdate;  // core/dashboard/key_table_order.h

/// One (API key, model) row of the key table.
struct KeyRow {
  std::string api_key;  // identity: the key (live sources: its hash)
  std::string name;     // what operators call it ("acme-prod"), or its short
                        // hash; empty: api_key is shown
  std::string tier;
  std::string model;
  std::string limit;  // our schema's composite limit ("requests", "llm_tokens")
  std::string algorithm;
  std::string parameters;           // LimitParams::describe()
  double level = 1;                 // fraction of capacity available, 0..1
  double capacity = 0;              // cost units (capacity or window limit)
  std::optional<double> occupancy;  // window algorithms, 0..1
  double rejected_per_s = 0;        // over the last step
  double requests_per_s = 0;        // over the last step
  double spend = 0;                 // dollars since the run began
  double quota_burn = 0;            // today's cost units / daily quota
  /// What the source reports for this row; a figure it does not report is shown as "—",
  /// never as 0 (a live Redis knows a key's rates only from its rule's decision stream).
  bool rates_reported = true;  // requests_per_s, rejected_per_s
  bool spend_reported = true;
  bool quota_reported = true;
  /// Highest 429/s of this key in the chart window (its rejected-rate series), if any: a
  /// burst that has ended still points at its cause.
  std::optional<double> peak_rejected_per_s;
  /// 429s of this key in the chart window (its rejected-rate series times each step), if any.
  std::optional<double> rejected_in_view;
  /// Requests of this key in the chart window that the live config admitted and the rule's
  /// shadow config would have refused (its decision stream's `shadow` field): the tenants a
  /// candidate would start refusing. Unset when no decision of the key in view evaluated a
  /// shadow.
  std::optional<double> shadow_would_refuse_in_view;
  std::int64_t last_seen_ms = 0;  // last step with traffic, ms since the epoch
  std::vector<double> sparkline;  // recent levels, oldest first
  std::string node;               // Redis Cluster: the shard (master "host:port") holding
                                  // the key; empty elsewhere

  bool operator==(const KeyRow&) const = default;
};

// AlertState (core/metrics/alert_state.h): no_data when the rule reads series of a source
// that stopped answering; its last state would be a guess (frozen values, or a resolution that
// is only silence).

/// One alert instance (a rule and one label set) as the alerts panel lists it.
struct AlertRow {
  std::string rule;
  AlertState state = AlertState::inactive;
  std::int64_t since_ms = 0;  // active_at (pending) or fired_at (firing), or resolved_at
  /// The rule's `for` (ms a condition must hold before the alert fires); 0: none or unknown.
  std::int64_t for_ms = 0;
  /// Pending: how long it has been pending at the snapshot's now (ms), toward for_ms.
  std::int64_t pending_ms = 0;
  double value = 0;
  /// The side the rule alerts on: true for "x > c" (a higher value is worse), false for
  /// "x < c"; unset when its expression says neither (AlertRow::value orders nothing then).
  std::optional<bool> higher_is_worse;
  std::string labels;  // `{tier="free", model="gpt-4.1"}`
  std::string entity;  // the key it is about, by name ("acme-prod"); empty when
                       // it is about no one key
  std::string severity;
  std::string summary;  // templated annotation
  /// Who evaluated the rule: empty for limitscope's own engine, else the server whose state
  /// this is ("prometheus"); server-side rows are shown beside the local ones, marked.
  std::string origin;
};

/// A time interval when a rule was pending or firing, for shading the charts.
struct AlertInterval {
  std::string rule;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;  // still open: the snapshot's now
  bool firing = false;
  bool open = false;  // still pending/firing at the snapshot's now
};

/// One decided request, as the details pane and a recording's request lines show it.
struct DecisionRow {
  std::int64_t t_ns = 0;  // wall time of the decision, nanoseconds since the epoch
  std::string api_key;
  std::string tier;
  std::string model;
  double cost = 0;  // cost units
  bool allowed = false;
  bool degraded = false;  // admitted without limiting (backend outage, fail-open)
  std::string reason;     // DenyReason text of a 429; empty when allowed
  /// The limit a 429 is of, the one that refused it ("requests", "llm_tokens"); cost and
  /// remaining are that limit's. Empty when allowed or when the source does not say.
  std::string limit;
  double remaining = 0;                 // cost units left after the decision
  std::optional<double> retry_after_s;  // of a 429 that can succeed later
  int attempt = 0;                      // 0 = first try, k = k-th retry
  std::int64_t llm_tokens = -1;  // the request's LLM tokens; -1: unknown (a source without them)
  double spend = 0;              // dollars
  /// What the rule's shadow config (issue 19) decided for the same request, never enforced:
  /// nullopt when no shadow was evaluated (a source without them, a rule without a shadow).
  std::optional<bool> shadow_allowed;
};

/// One line of a live source's event log ("connected to …", "scrape failed: …").
struct SourceEvent {
  std::int64_t t_ms = 0;  ///< wall time (the source's clock), ms since the epoch
  std::string text;
  /// Position in the source's log, from 1 (0: not numbered). A gap between two snapshots'
  /// events means some scrolled out of the snapshot's window in between.
  std::uint64_t seq = 0;
};

/// A live source and its outages ("redis ... down since 10:42:13, no data").
struct SourceStatus {
  std::string name;  // "redis: redis://127.0.0.1:6380"
  std::string kind;  // "redis", "metrics", "prometheus"
  bool down = false;
  struct Interval {
    std::int64_t start_ms = 0;
    std::optional<std::int64_t> end_ms;  // still down: none
  };
  std::vector<Interval> outages;  // oldest first
  /// The metric names this source wrote: a chart drawing one gets its outages' no-data bands.
  std::vector<std::string> metrics;
};

/// The watched gateway failing open: admitting requests without a limit check (circuit open,
/// decision="degraded"), from its metrics.
struct ProtectionStatus {
  bool unprotected = false;       // failing open now
  std::int64_t since_ms = 0;      // of the current (or last) fail-open interval
  double admitted_unchecked = 0;  // requests admitted without a check in that interval
  double circuit_state = 0;       // limitscope_circuit_state: 0 closed, 1 half-open, 2 open
  struct Interval {
    std::int64_t start_ms = 0;
    std::optional<std::int64_t> end_ms;
    double admitted_unchecked = 0;
  };
  std::vector<Interval> intervals;  // every fail-open interval seen, oldest first
};

struct DashboardSnapshot {
  ChartView view;                 // the window the charts were made for, as asked
  std::int64_t now_ms = 0;        // source time, ms since the epoch
  std::int64_t start_ms = 0;      // first recorded sample
  std::vector<ChartData> charts;  // bucket levels, occupancy, 429s, quota burn
  std::vector<KeyRow> keys;
  /// `keys` in the key table's order and what changed since an earlier snapshot, made by the
  /// source worker (KeyTablePublisher); null where no worker made one (the table then works
  /// it out itself).
  std::shared_ptr<const KeyTableUpdate> key_update;
  std::vector<AlertRow> alerts;
  std::vector<AlertInterval> alert_intervals;
  /// Recent decisions of each selected key (ChartView::selected_keys), newest first.
  std::map<std::string, std::vector<DecisionRow>> decisions;
  std::string source;  // "embedded simulation: mixed (seed 1)"
  std::string connection = "running";
  std::vector<std::string> incidents;  // active now
  double samples_per_s = 0;            // series samples recorded per second of source time
  std::uint64_t dropped_samples = 0;
  std::string last_error;
  /// Live sources: the newest events of the event log, oldest first (empty otherwise).
  std::vector<SourceEvent> events;
  /// Live sources: each part's state and outages.
  std::vector<SourceStatus> sources;
  /// Live sources watching a gateway's metrics: whether it fails open.
  ProtectionStatus protection;
};

/// "45s", "3m", "3m12s", "1h5m", "2d3h": a duration in ms (floored to whole seconds) in its two
/// largest units, for progress an operator reads at a glance.
std::string short_duration(std::int64_t ms);

/// The alert's state as the operator reads it: "firing", "pending 3m of 10m" (pending, with
/// its progress toward the rule's `for`; "pending 3m" when the `for` is unknown), "no data",
/// "resolved", "inactive".
std::string alert_state_text(const AlertRow& a);

/// The Retry-After a gateway sends with a 429 that can succeed after `retry_after_s`: whole
/// seconds rounded up, at least 1 (core/gateway/rate_limit_headers.h); nullopt when it never can.
std::optional<std::int64_t> retry_after_header_s(const DecisionRow& d);

/// Sets pending_ms of every pending row from its since_ms (when it became active) at now_ms.
void set_pending_progress(std::vector<AlertRow>& rows, std::int64_t now_ms);

}  // namespace limitscope
