#pragma once
// The dashboard on a Prometheus server that scrapes the gateways: every refresh interval,
// range queries (the first one backfilling the last `backfill` of history, later ones only
// the steps since) fill the dashboard's series (429s per second by tier, admitted and
// rejected per second by tier and model, rejected ratio, quota burn per key) and the raw
// gateway families the local alert rules read; /api/v1/rules and /api/v1/alerts give the
// server's own alert states, shown beside the local ones as rows whose origin is
// "prometheus" (inactive server rules too, so the operator sees which rules the server has).
// Basic auth or a bearer token go in the fetch options and are never shown. A failed request
// (transport, HTTP error, a Prometheus error document, malformed JSON) is logged with the
// server's reason and retried after an exponential backoff with jitter; history is kept.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.h"
#include "core/probe/prometheus_client.h"
#include "core/redis/backoff.h"
#include "core/sources/live_source.h"
#include "core/sources/poll_rhythm.h"

namespace limitscope {

struct PrometheusLiveOptions {
  http::HttpUrl url;  ///< the server, e.g. http://127.0.0.1:9090 (a path prefix is kept)
  /// Timeouts and auth (bearer_token, or basic_user + basic_password).
  http::FetchOptions fetch{std::chrono::milliseconds(1000),
                           std::chrono::milliseconds(5000),
                           1,
                           64u << 20,
                           {},
                           {},
                           {},
                           {}};
  Nanos refresh_interval = std::chrono::seconds(5);
  Nanos step = std::chrono::seconds(5);       ///< query_range resolution
  Nanos backfill = std::chrono::minutes(15);  ///< history read by the first refresh
  std::string rate_window = "1m";             ///< the [range] of every rate()
  redis::BackoffOptions backoff{std::chrono::seconds(1), std::chrono::seconds(30), 2.0, 0.5};
};

/// One panel query: a PromQL expression and the store series its results become.
struct PrometheusPanel {
  std::string expr;
  std::string series;  ///< the __name__ written ("" = keep the result's own labels and name)
  /// Result label renamed on the way in (from → to), e.g. api_key_hash → api_key.
  std::vector<std::pair<std::string, std::string>> rename;
};

/// The queries for the dashboard's series and the raw families the default rules read.
std::vector<PrometheusPanel> prometheus_panels(const std::string& rate_window);

/// "2026-11-29T19:40:01.5Z" or with a "+01:00" offset → ms since the epoch.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

class PrometheusLiveSource final : public LiveSource {
 public:
  /// @param clock wall time for the query windows and pacing (must outlive this)
  /// @param series shared with other live sources, or null for its own
  PrometheusLiveSource(PrometheusLiveOptions options, const Clock& clock,
                       std::shared_ptr<SessionState> series = nullptr);

  /// Accumulates `d`; refreshes when the interval (after a failure: the backoff delay) has
  /// passed, at most once per call; the first call refreshes at once.
  /// @return 1 when a refresh ran (good or not), else 0
  int advance(Nanos d) override;
  std::int64_t now_ms() const override { return now_ms_; }

  std::string name() const override { return "prometheus: " + client_.base_url(); }
  std::string connection() const override { return rhythm_.connection(); }
  std::string last_error() const override { return last_error_; }
  void contribute(DashboardSnapshot& s) const override;

  bool connected() const { return rhythm_.connected(); }
  std::uint64_t refreshes() const { return rhythm_.reads(); }
  /// The server's alert rows of the last good refresh (origin "prometheus").
  const std::vector<AlertRow>& server_alerts() const { return server_alerts_; }

 private:
  void refresh();
  Status query_panels(std::int64_t end_ms);
  Status read_alerts();

  PrometheusLiveOptions options_;
  const Clock& clock_;
  probe::PrometheusClient client_;
  PollRhythm rhythm_;
  std::vector<PrometheusPanel> panels_;
  std::int64_t now_ms_ = 0;
  std::optional<std::int64_t> queried_to_ms_;  // end of the last range read
  std::string last_error_;
  std::vector<AlertRow> server_alerts_;
  std::map<std::string, std::string> rule_health_;  // rule → last health text (events on change)
  std::map<std::pair<std::string, std::string>, std::pair<double, double>>
      rates_;  // (tier, model) → admitted, rejected
};

}  // namespace limitscope
