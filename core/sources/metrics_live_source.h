#pragma once
// The dashboard on a gateway's /metrics: every scrape interval (paced by advance(), timed by
// the injected clock) one GET, parsed whole (a truncated or garbled body is refused, nothing
// of it recorded). Every scraped sample goes into the store under its own name, so the alert
// rules read gateway_rate_limit_hits_total and friends exactly as Prometheus would; from two
// scrapes come the dashboard's series: 429s per second by tier (the 429 chart), admitted and
// rejected per second by tier and model, the rejected ratio, and quota burn per key; while the
// gateway counts a rule's shadow config (limitscope_shadow_decisions_total), what it would refuse
// per second (limitscope_tier_shadow_rejected_per_second{tier=rule, source="metrics"}). Counter
// resets (a restarted gateway) count the new value as the increase, as Prometheus's rate()
// does. Gateways that do not export gateway_rate_limit_hits_total are read through a table of
// known 429 counters (envoy, Kong, NGINX ingress, plain http_requests_total{code="429"}),
// whose increases are recorded as gateway_rate_limit_hits_total{tier,model} so the rules
// work on them too. A failed scrape is logged with its reason and retried after an
// exponential backoff with jitter; the history recorded before is kept.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/http/http_fetch.h"
#include "core/probe/metrics_scrape.h"
#include "core/redis/backoff.h"
#include "core/sources/live_source.h"
#include "core/sources/poll_rhythm.h"

namespace limitscope {

struct MetricsLiveOptions {
  http::HttpUrl url;
  /// Timeouts, in-scrape retries on a connection failure, body cap, auth.
  http::FetchOptions fetch{std::chrono::milliseconds(1000),
                           std::chrono::milliseconds(3000),
                           1,
                           64u << 20,
                           {},
                           {},
                           {},
                           {}};
  Nanos scrape_interval = std::chrono::seconds(1);
  /// Between failed scrapes (the first retry after `initial`, growing to `max`).
  redis::BackoffOptions backoff{std::chrono::seconds(1), std::chrono::seconds(30), 2.0, 0.5};
};

/// A foreign gateway's counter of 429 answers, read as gateway_rate_limit_hits_total.
struct ForeignHitsCounter {
  std::string family;      ///< e.g. "nginx_ingress_controller_requests"
  std::string code_label;  ///< label holding the HTTP status ("" = every sample is a 429)
  std::string tier_label;  ///< label shown as the tier ("" = the family's name)
};

/// The table of known foreign 429 counters, tried when a scrape has no
/// gateway_rate_limit_hits_total.
const std::vector<ForeignHitsCounter>& foreign_hits_counters();

class MetricsLiveSource final : public LiveSource {
 public:
  /// @param clock wall time for sample times and scrape pacing (must outlive this)
  /// @param series shared with other live sources, or null for its own
  MetricsLiveSource(MetricsLiveOptions options, const Clock& clock,
                    std::shared_ptr<SessionState> series = nullptr);

  /// Accumulates `d`; scrapes when the interval (or, after a failure, the backoff delay) has
  /// passed, at most once per call; the first call scrapes at once.
  /// @return 1 when a scrape ran (good or not), else 0
  int advance(Nanos d) override;
  /// Wall time of the last good scrape (the clock's now before the first).
  std::int64_t now_ms() const override { return now_ms_; }

  std::string name() const override { return "metrics: " + options_.url.to_string(); }
  std::string connection() const override { return rhythm_.connection(); }
  std::string last_error() const override { return last_error_; }
  void contribute(DashboardSnapshot& s) const override;

  bool connected() const { return rhythm_.connected(); }
  std::uint64_t scrapes() const { return rhythm_.reads(); }
  std::uint64_t failures() const { return rhythm_.failures(); }
  /// Counter resets seen (a counter lower than at the scrape before).
  std::uint64_t counter_resets() const { return counter_resets_; }
  /// 429s counted since the source started (sum of the hits counters' increases).
  double rejected_total() const { return rejected_total_; }

 private:
  struct TierModel {
    double admitted_per_s = 0;
    double rejected_per_s = 0;
    double requests_per_s = 0;
    double quota_burn = 0;  // the highest key's
  };

  void scrape();
  void record(const probe::Scrape& s);
  /// Increase of a counter since the last scrape (reset-aware); nullopt for a new series.
  std::optional<double> increase(const metrics::Labels& l, double v);

  MetricsLiveOptions options_;
  const Clock& clock_;
  PollRhythm rhythm_;
  std::int64_t now_ms_ = 0;
  std::int64_t last_scrape_ms_ = 0;
  std::uint64_t counter_resets_ = 0;
  double rejected_total_ = 0;
  std::string last_error_;
  std::map<metrics::Labels, double> counters_;        // last value of every counter read
  std::map<metrics::Labels, double> foreign_totals_;  // synthetic hits counters
  std::vector<metrics::Labels> last_series_;          // the previous scrape's series (staleness)
  std::map<std::pair<std::string, std::string>, TierModel> rows_;  // (tier, model)
  std::map<std::pair<std::string, std::string>, double> burns_;    // (key hash, model)
};

}  // namespace limitscope
