#pragma once
// The dashboard on a live Redis: every refresh interval, RedisProbe reads the tracked limiter
// keys at the server's TIME and their levels and occupancy are recorded under the same series
// the simulation records (limitscope_key_level_ratio, ..._window_occupancy_ratio; labels
// api_key = the limited key, tier = the rule or profile, model = a composite's limit name), so
// every chart and the key table work unchanged. The connection comes from a pool with
// jittered reconnect backoff; a disconnect keeps the recorded history, and an event log says
// what happened. Not thread-safe: one worker owns it (as every DashboardSource).
//
// When a rule of our own schema logs decisions ("<prefix>{R}:decisions"), each refresh also
// reads the stream's new entries (DecisionStreamTail: XRANGE after the last id, a COUNT
// budget, never blocking) and records admitted and rejected per second per key
// (limitscope_key_admitted_per_second, limitscope_key_rejected_per_second), per rule
// (limitscope_tier_rejected_per_second: the 429 chart; tier = the rule), the rejected ratio,
// and a gateway_rate_limit_hits_total{tier=rule} counter so the default 429 rule runs on it;
// the entries fill the recent-decisions view. While a rule's decisions carry a shadow outcome
// (issue 19: its shadow config, evaluated and never enforced), the same entries give what the
// shadow would refuse per second (limitscope_tier_shadow_rejected_per_second{tier=rule}, drawn
// beside the rule's 429s) and, per key, the requests admitted that it would have refused
// (limitscope_key_shadow_would_refuse_per_second). The live rules (live_rules_yaml) alert on
// levels and occupancy.
//
// On a Redis Cluster (a redis+cluster:// URL) the same runs per shard: ClusterProbe scans every
// master with its own cursor and budget and reads each key (and each rule's config) on the
// master holding it, each rule's decision stream is read on the master owning its slot, and
// each key row names its shard (KeyRow::node). A master that does not answer is an event and
// the last error, not a failed refresh, while another answers; the keys last read on it stay
// in the key table, marked as kept, with their last reading (no new samples), until it answers
// again or its keys are found on the master that took its slots (a promoted replica). Keys
// whose slot is migrating are kept the same way until the new owner's scan finds them.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/probe/endpoint_probe.h"
#include "core/redis/endpoint.h"
#include "core/sources/decision_stream_tail.h"
#include "core/sources/live_source.h"

namespace limitscope {

struct RedisLiveOptions {
  redis::RedisUrl url;
  redis::ConnectOptions connect;
  redis::BackoffOptions backoff;
  std::vector<probe::LimiterProfile> profiles;  ///< tried in order; add builtin_profiles()
  probe::ProbeOptions probe;                    ///< probe.read_ttl is overridden by read_ttl below
  /// PTTL of every key at every refresh doubles the commands (docs/benchmarks-dashboard.md: 28 ms
  /// vs 19 ms for 10,000 keys); the charts and the key table do not show TTLs, so it is off unless
  /// a view that shows them (the key browser) asks.
  bool read_ttl = false;
  Nanos refresh_interval = std::chrono::seconds(1);
  /// Discovery spends at most a tenth of the refresh interval on SCAN and at most
  /// discovery_cpu_share of it on the dashboard's CPU (core/probe/scan_budget.h), unless
  /// probe.adaptive_scan is set already; off: probe.scan_calls_per_refresh calls.
  bool adaptive_scan = true;
  /// Discovery's CPU per refresh, a fraction of refresh_interval (so of one core): what SCAN's
  /// replies and the keys it finds may cost the dashboard, whatever the server's speed.
  double discovery_cpu_share = 0.05;
  /// Follow the decision streams of our own rules (when they exist).
  bool tail_decisions = true;
  DecisionStreamOptions streams;
  /// Samples carry the server's TIME (alone, the server's clock is the one clock); beside
  /// other live sources they carry the local wall clock, so all series share one time base.
  bool stamp_with_server_time = true;
};

class RedisLiveSource final : public LiveSource {
 public:
  /// @param clock wall time for refresh pacing, reconnect backoff and (on a cluster) slot-map
  ///              reads (must outlive this)
  /// @param series shared with other live sources, or null for its own
  RedisLiveSource(RedisLiveOptions options, Clock& clock,
                  std::shared_ptr<SessionState> series = nullptr);

  /// Accumulates `d`; refreshes once the refresh interval has passed (at most one refresh per
  /// call). @return 1 when a refresh ran (successful or not), else 0.
  int advance(Nanos d) override;
  /// The server's time at the last good refresh (the clock's wall time before the first).
  std::int64_t now_ms() const override { return now_ms_; }

  std::string name() const override { return "redis: " + options_.url.redacted(); }
  std::string connection() const override;
  std::string last_error() const override { return last_error_; }
  void contribute(DashboardSnapshot& s) const override;

  bool connected() const { return connected_; }
  std::uint64_t refreshes() const { return refreshes_; }
  /// Keys SCAN returned over all refreshes (discovery's progress through the keyspace).
  std::uint64_t scanned() const { return scanned_; }
  /// The dashboard's CPU discovery took so far (ProbeSnapshot::discovery_cpu_ns summed).
  Nanos discovery_cpu() const { return Nanos{discovery_cpu_ns_}; }
  /// The last refresh's readings (most pressure first), for the key browser.
  const std::vector<probe::KeyReading>& readings() const { return readings_; }
  /// Redis Cluster: readings kept from earlier refreshes (their master did not answer, or
  /// their slot is moving), by key.
  std::map<std::string, probe::KeyReading> kept() const;
  /// Decisions read from the streams since the source started (backlog not counted).
  std::uint64_t decisions_read() const { return decisions_read_; }
  /// 429s among them.
  std::uint64_t rejections_read() const { return rejections_read_; }

 private:
  struct Rates {
    double admitted_per_s = 0;
    double rejected_per_s = 0;
    double shadow_would_refuse_per_s = 0;  // admitted, and the rule's shadow would have refused
    std::string rule, api_key, model;      // whose (the rate series' labels)
  };

  /// A reading kept while its shard cannot be read (Redis Cluster).
  struct Kept {
    probe::KeyReading reading;
    std::int64_t read_ms = 0;        ///< when it was read
    std::string why;                 ///< shown with the row
    std::string owner;               ///< the master that should now hold the key ("" unknown)
    std::uint64_t owner_passes = 0;  ///< the owner's SCAN passes when it became the owner
  };

  void refresh();
  redis::Result<probe::ProbeSnapshot> probe_once();
  void failed(const redis::RedisError& e);
  void cluster_events(const probe::ProbeSnapshot& snap);
  void keep_unread(const probe::ProbeSnapshot& snap);
  /// Records the readings' samples and keeps the readings (moved out of `snap`).
  void record(probe::ProbeSnapshot& snap, std::int64_t t);
  redis::Result<StreamRead> read_streams(const std::map<std::string, std::string>& rules);
  void tail(std::int64_t t, const std::vector<probe::KeyReading>& keys);
  void event(std::string text);

  RedisLiveOptions options_;
  Clock& clock_;              // not const: a cluster client may wait on it
  redis::Endpoint endpoint_;  // one server or a Redis Cluster
  probe::EndpointProbe probe_;
  std::map<std::string, Kept> kept_;     // key → kept reading (cluster)
  std::set<std::string> failing_nodes_;  // masters that failed the last refresh
  std::vector<std::string> masters_;     // the masters of the last refresh
  DecisionStreamTail tail_;
  Nanos pending_{0};
  bool first_ = true;
  bool connected_ = false;
  bool have_server_time_ = false;
  std::int64_t now_ms_ = 0;
  std::optional<std::int64_t> tailed_at_ms_;  // time of the last stream read
  std::uint64_t refreshes_ = 0;
  std::uint64_t scanned_ = 0;
  std::int64_t discovery_cpu_ns_ = 0;
  std::uint64_t decisions_read_ = 0;
  std::uint64_t rejections_read_ = 0;
  std::string last_error_;
  std::string last_stream_error_;
  std::vector<probe::KeyReading> readings_;
  std::map<std::string, Rates> key_rates_;      // rule|key|model → last refresh's rates
  std::map<std::string, double> hits_by_rule_;  // cumulative 429s read, per rule
  std::set<std::string> shadow_rules_;          // rules whose latest decisions evaluated a shadow
  std::set<std::string> shadow_keys_;  // rule|key|model with a would-refuse series since then
  std::map<std::string, std::vector<std::string>>
      limit_order_;  // composite rule → its limits in order
  /// What a tracked key's samples are recorded under, made once when the key is first read
  /// (not parsed and labelled again at every refresh), and its sparkline.
  struct KeySeries {
    std::string limit_name;  ///< the reading's limit name the labels were made for
    metrics::Labels level, occupancy;
    std::deque<double> sparkline;  ///< its levels
  };
  KeySeries& series_of(const probe::KeyReading& r);
  std::map<std::string, KeySeries> key_series_;  // Redis key → its series
};

}  // namespace limitscope
