#pragma once
// Label sets of the gateway series the outage tests write and read back.

#include <optional>
#include <string>

#include "core/metrics/labels.h"
#include "core/metrics/metric_names.h"

namespace limitscope::test {

/// limitscope_requests_total of tier "free", model gpt-4.1, decided degraded (failing open).
inline metrics::Labels degraded_requests_labels() {
  namespace names = metrics::names;
  return {{"__name__", std::string(names::kRequests)},
          {"tier", "free"},
          {"model", "gpt-4.1"},
          {"decision", std::string(names::kDecisionDegraded)}};
}

/// The gateway's circuit breaker state towards Redis.
inline metrics::Labels redis_circuit_labels() {
  return {{"__name__", std::string(metrics::names::kCircuitState)}, {"backend", "redis"}};
}

/// The gateway's /metrics text for tier "free", model gpt-4.1: the rate-limit hits counter,
/// then (when `allowed` is given) the allowed and denied request counters.
inline std::string gateway_requests_exposition(double hits, std::optional<double> allowed = {},
                                               double denied = 0) {
  std::string text =
      "# TYPE gateway_rate_limit_hits_total counter\n"
      "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} " +
      std::to_string(hits) + "\n";
  if (!allowed) return text;
  return text +
         "# TYPE limitscope_requests_total counter\n"
         "limitscope_requests_total{tier=\"free\",model=\"gpt-4.1\",decision=\"allowed\"} " +
         std::to_string(*allowed) +
         "\n"
         "limitscope_requests_total{tier=\"free\",model=\"gpt-4.1\",decision=\"denied\"} " +
         std::to_string(denied) + "\n";
}

}  // namespace limitscope::test
