#pragma once
// What the gateway exports on /metrics (DESIGN.md section 5; names from metric_names.h):
//   gateway_rate_limit_hits_total{tier,model}      429 answers of the limiter
//   gateway_token_bucket_usage{tier,model}         histogram of the requests rule's remaining
//                                                  cost units after each admitted request
//   gateway_quota_burn_ratio{api_key_hash,model}   cost units admitted today (UTC) for this
//                                                  key and model / the tier's daily quota
//   limitscope_requests_total{tier,model,decision} every limiter decision
//   limitscope_bucket_level_tokens{tier,model}     remaining after the latest decision
//   limitscope_window_occupancy_ratio{tier,model}  window algorithms: 1 - remaining / limit
//   limitscope_llm_tokens_total{tier,model}        LLM tokens settled from upstream usage
//   limitscope_spend_dollars_total{tier,model}     those tokens at the model's price
//   limitscope_gateway_responses_total{code}       every HTTP answer by status code
//   limitscope_key_admitted_cost_total{api_key_hash,model}  cost units admitted per key
//   limitscope_redis_batch_size                    histogram: decisions per round trip to
//                                                  Redis (the Redis backend's coalescing)
//   limitscope_shadow_decisions_total{rule,decision}   the rule's shadow config's decisions
//                                                  (allowed|rejected), never enforced
//   limitscope_shadow_disagreements_total{rule,kind}   would_reject: live admitted, shadow
//                                                  refused; would_admit: the reverse
//   limitscope_redis_settlements_total{way}        token settlements that reached Redis:
//                                                  way="ride" on a decision, "alone" by a call
//   limitscope_gateway_time_seconds                the gateway's wall clock at the scrape
//   limitscope_gateway_start_time_seconds          when it started (its own wall clock)
//   limitscope_key_info{api_key_hash,name,tier} 1  one per key the policy lists (an info
//                                                  metric, as kube-state-metrics writes them):
//                                                  what dashboards join names and tiers from
// Every family caps its series (FamilyOptions::max_series); past the cap observations go to
// the "__overflow__" series and limitscope_metric_series_overflow_total counts them. The
// quota table is capped the same way: keys past the cap share one "__overflow__" row.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/gateway/admission.h"
#include "core/limiter/policy.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/standard_metrics.h"

namespace limitscope::gateway {

class GatewayMetrics {
 public:
  /// @param max_series per family, and the number of API keys the quota table tracks
  explicit GatewayMetrics(std::size_t max_series = 10'000);

  /// Counts one decision of the limiter (an admission result with a known tier and model).
  /// @param api_key_hash api_key_hash() of the key (never the key itself)
  /// @param wall_now wall time, for the UTC day of the daily quota
  /// A degraded decision counts as decision="degraded" and, with `backend`, one
  /// limitscope_backend_errors_total{backend, reason="unavailable"}; a refusal by the store's
  /// error reply reason="error", by its ACL or authentication reason="forbidden".
  void on_decision(const AdmissionResult& r, std::string_view api_key_hash, Nanos wall_now,
                   std::string_view backend = "in-process");
  /// Counts LLM tokens settled after the upstream answered, and their price.
  void on_tokens(const TierPolicy& tier, const ModelPolicy& model, std::int64_t tokens);
  /// A settlement the backend could not make (backend_errors_total{reason="settle"}).
  void on_settle_failed(std::string_view backend);
  /// Counts one HTTP answer.
  void on_response(int status);
  /// Observes one round trip of `decisions` decisions to Redis (limitscope_redis_batch_size).
  void on_redis_round_trip(std::size_t decisions);
  /// Counts one token settlement that reached Redis: riding on a decision, or alone.
  void on_redis_settlement(bool rode);
  /// Sets limitscope_circuit_state{backend}.
  void set_circuit_state(std::string_view backend, double state);
  /// Sets limitscope_gateway_time_seconds (call just before render(), on a scrape).
  void set_wall_time(Nanos wall_now);
  /// Sets limitscope_gateway_start_time_seconds.
  void set_start_time(Nanos wall_start);

  /// Sets limitscope_key_info from the policy's listed keys (its names, if any), replacing
  /// what an earlier policy set. Keys appear hashed (api_key_hash()), never themselves; past
  /// max_series keys, the rest are left out.
  void set_key_info(const Policy& policy);

  /// The exposition text (format 0.0.4).
  std::string render() const;
  const metrics::MetricsRegistry& registry() const { return registry_; }

 private:
  struct QuotaRow {
    std::int64_t day = 0;
    std::unordered_map<std::string, double> used_by_model;  // cost units today
  };
  // Adds today's use; key_hash becomes the row's label (the overflow row past the cap).
  double add_quota_use(std::string_view& key_hash, std::string_view model, double cost,
                       std::int64_t day);

  std::size_t max_series_;
  metrics::MetricsRegistry registry_;
  metrics::GatewayMetrics gateway_;
  metrics::LimitscopeMetrics own_;
  metrics::CounterFamily* llm_tokens_ = nullptr;
  metrics::CounterFamily* responses_ = nullptr;
  metrics::CounterFamily* key_admitted_cost_ = nullptr;
  metrics::HistogramFamily* redis_batch_size_ = nullptr;
  metrics::CounterFamily* shadow_decisions_ = nullptr;
  metrics::CounterFamily* shadow_disagreements_ = nullptr;
  metrics::CounterFamily* redis_settlements_ = nullptr;
  metrics::GaugeFamily* wall_time_ = nullptr;
  metrics::GaugeFamily* start_time_ = nullptr;
  std::mutex quota_mu_;
  std::unordered_map<std::string, QuotaRow> quota_;  // api_key_hash -> today's use
  mutable std::mutex key_info_mu_;
  std::string key_info_;  // the rendered limitscope_key_info family
};

}  // namespace limitscope::gateway
