#include "core/metrics/standard_metrics.h"

#include "core/metrics/metric_names.h"

namespace limitscope::metrics {

namespace {

std::vector<std::string> labels(std::initializer_list<std::string_view> names) {
  return {names.begin(), names.end()};
}

// Unwraps a registration or returns its error from the enclosing function.
#define LIMITSCOPE_TRY_ASSIGN(dst, expr)    \
  do {                                      \
    auto r_ = (expr);                       \
    if (!r_) return make_error(r_.error()); \
    (dst) = *r_;                            \
  } while (false)

}  // namespace

Expected<GatewayMetrics> register_gateway_metrics(MetricsRegistry& registry,
                                                  FamilyOptions options) {
  GatewayMetrics m;
  LIMITSCOPE_TRY_ASSIGN(
      m.rate_limit_hits,
      registry.counter(names::kGatewayRateLimitHits, "Requests answered 429 by the rate limiter.",
                       labels({names::kTier, names::kModel}), options));
  LIMITSCOPE_TRY_ASSIGN(m.token_bucket_usage,
                        registry.histogram(names::kGatewayTokenBucketUsage,
                                           "Tokens left in the bucket after a rate-limit decision.",
                                           labels({names::kTier, names::kModel}),
                                           {names::kGatewayTokenBucketUsageBuckets.begin(),
                                            names::kGatewayTokenBucketUsageBuckets.end()},
                                           options));
  LIMITSCOPE_TRY_ASSIGN(m.quota_burn_ratio,
                        registry.gauge(names::kGatewayQuotaBurnRatio,
                                       "Spend divided by the daily quota (above 1 when over).",
                                       labels({names::kApiKeyHash, names::kModel}), options));
  return m;
}

Expected<LimitscopeMetrics> register_limitscope_metrics(MetricsRegistry& registry,
                                                        FamilyOptions options) {
  LimitscopeMetrics m;
  LIMITSCOPE_TRY_ASSIGN(
      m.requests,
      registry.counter(names::kRequests, "Rate-limit decisions by outcome.",
                       labels({names::kTier, names::kModel, names::kDecision}), options));
  LIMITSCOPE_TRY_ASSIGN(
      m.bucket_level,
      registry.gauge(names::kBucketLevel, "Tokens left in the bucket after the latest decision.",
                     labels({names::kTier, names::kModel}), options));
  LIMITSCOPE_TRY_ASSIGN(m.window_occupancy,
                        registry.gauge(names::kWindowOccupancy,
                                       "Cost admitted in the current window divided by its limit.",
                                       labels({names::kTier, names::kModel}), options));
  LIMITSCOPE_TRY_ASSIGN(m.spend_dollars,
                        registry.counter(names::kSpendDollars, "Spend in US dollars.",
                                         labels({names::kTier, names::kModel}), options));
  LIMITSCOPE_TRY_ASSIGN(
      m.backend_errors,
      registry.counter(names::kBackendErrors, "Failed calls to a limiter backend.",
                       labels({names::kBackend, names::kReason}), options));
  LIMITSCOPE_TRY_ASSIGN(
      m.circuit_state,
      registry.gauge(names::kCircuitState, "Circuit breaker state: 0 closed, 1 half-open, 2 open.",
                     labels({names::kBackend}), options));
  return m;
}

#undef LIMITSCOPE_TRY_ASSIGN

}  // namespace limitscope::metrics
