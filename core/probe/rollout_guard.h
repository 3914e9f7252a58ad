#pragma once
// The guard of a staged rollout (issue 19 item 3): a PromQL expression over the gateway's
// metrics. Two sources:
//  - a gateway's /metrics ("http://gw:8080/metrics"): scraped at every check into a series
//    store (so rate() and increase() see history) and evaluated by the core's engine
//    (core/metrics/promql.h);
//  - a Prometheus server ("prometheus=http://prom:9090"): evaluated by the server through its
//    HTTP query API (GET /api/v1/query, at the server's now), on everything it scrapes.
// Like an alerting rule, it trips when the expression returns a sample (a comparison that
// filters, `... > 0.05`), or a scalar other than 0.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/http/http_fetch.h"
#include "core/metrics/promql.h"
#include "core/metrics/series_store.h"
#include "core/probe/prometheus_client.h"
#include "core/redis/rollout_controller.h"

namespace limitscope::probe {

/// Whether the guard trips, and the value it read.
using GuardReading = redis::GuardCheck;

/// How a rollout's state names a Prometheus source: "prometheus=" then the server's URL.
inline constexpr std::string_view kPrometheusSource = "prometheus=";

class RolloutGuard {
 public:
  /// @param source a /metrics URL, or "prometheus=URL" (kPrometheusSource)
  /// @param auth credentials for the source (never stored in the rollout's state)
  /// @return the guard, or an error naming what does not parse (the expression, the URL); an
  ///   expression for a Prometheus server is parsed by the server, at the first check
  static Expected<std::unique_ptr<RolloutGuard>> make(const std::string& expr,
                                                      const std::string& source,
                                                      const http::HttpAuth& auth = {});

  /// Reads the source at `now_ms` and evaluates the expression (a /metrics source: on
  /// everything scraped so far; Prometheus: at the server's now).
  /// @return the reading, or why there is none (the source could not be read, the query failed)
  Expected<GuardReading> check(std::int64_t now_ms);

 private:
  RolloutGuard(std::string expr, metrics::ExprPtr parsed, http::HttpUrl url,
               http::FetchOptions options, bool prometheus);
  std::string expr_;
  metrics::ExprPtr parsed_;  // the /metrics source only
  http::HttpUrl url_;
  http::FetchOptions options_;
  std::optional<PrometheusClient> prometheus_;
  metrics::SeriesStore store_;
};

/// The guard as one controller tick asks it (redis::GuardFn): read at most once per tick. The
/// tick runs inside an Endpoint call, which runs it again after a cluster's redirection or a
/// reconnect; the retry reuses `memo` instead of reading the source a second time (a second
/// scrape would also put its samples into the series store twice). `memo` lives for one tick.
redis::GuardFn guard_once(RolloutGuard& guard, const std::int64_t& now_ms,
                          std::optional<Expected<redis::GuardCheck>>& memo);

}  // namespace limitscope::probe
