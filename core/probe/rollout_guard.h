#pragma once
// The guard of a staged rollout (issue 19 item 3): a PromQL expression over the gateway's
// metrics, evaluated by the core's engine (core/metrics/promql.h) on the samples of a /metrics
// source scraped at every check, kept in a series store so rate() and increase() see history.
// Like an alerting rule, it trips when the expression returns a sample (a comparison that
// filters, `... > 0.05`), or a scalar other than 0.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/common/expected.h"
#include "core/metrics/promql.h"
#include "core/metrics/series_store.h"
#include "core/probe/http_fetch.h"

namespace limitscope::probe {

struct GuardReading {
  bool tripped = false;
  std::optional<double> value;  ///< the first sample's value (or the scalar); nullopt: none
  std::string error;            ///< the source could not be read or the query failed
};

class RolloutGuard {
 public:
  /// @return the guard, or an error naming what does not parse (the expression, the URL)
  static Expected<std::unique_ptr<RolloutGuard>> make(const std::string& expr, const std::string& source_url);

  /// Scrapes the source at `now_ms` and evaluates the expression on everything scraped so far.
  GuardReading check(std::int64_t now_ms);

 private:
  RolloutGuard(metrics::ExprPtr expr, HttpUrl url) : expr_(std::move(expr)), url_(std::move(url)) {}
  metrics::ExprPtr expr_;
  HttpUrl url_;
  metrics::SeriesStore store_;
};

}  // namespace limitscope::probe
