#pragma once
// Registers the families of DESIGN.md section 5 with exactly the names, labels and buckets
// of metric_names.h: the gateway_* families every gateway exports, and limitscope's own.

#include "core/common/expected.h"
#include "core/metrics/metrics_registry.h"

namespace limitscope::metrics {

struct GatewayMetrics {
  CounterFamily* rate_limit_hits = nullptr;       // {tier, model}
  HistogramFamily* token_bucket_usage = nullptr;  // {tier, model}, buckets 0..5000
  GaugeFamily* quota_burn_ratio = nullptr;        // {api_key_hash, model}
};

struct LimitscopeMetrics {
  CounterFamily* requests = nullptr;        // {tier, model, decision}
  GaugeFamily* bucket_level = nullptr;      // {tier, model}
  GaugeFamily* window_occupancy = nullptr;  // {tier, model}
  CounterFamily* spend_dollars = nullptr;   // {tier, model}
  CounterFamily* backend_errors = nullptr;  // {backend, reason}
  GaugeFamily* circuit_state = nullptr;     // {backend}
};

/// @param options the series cap applies to each family (api_key_hash is unbounded input)
/// @return the families, or an error when one of the names is already registered
Expected<GatewayMetrics> register_gateway_metrics(MetricsRegistry& registry,
                                                  FamilyOptions options = {});
Expected<LimitscopeMetrics> register_limitscope_metrics(MetricsRegistry& registry,
                                                        FamilyOptions options = {});

}  // namespace limitscope::metrics
