#include "core/gateway/gateway_metrics.h"

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/common/sha256.h"
#include "core/metrics/exposition_writer.h"
#include "core/metrics/metric_names.h"

namespace limitscope::gateway {
namespace {

namespace names = metrics::names;

template <class T>
T unwrap(Expected<T> r) {
  // Registration fails only for a duplicate or invalid name: a defect of this file.
  if (!r) throw std::logic_error(r.error());
  return std::move(r).value();
}

constexpr std::int64_t kNanosPerDay = 86'400LL * 1'000'000'000LL;

}  // namespace

GatewayMetrics::GatewayMetrics(std::size_t max_series) : max_series_(max_series) {
  metrics::FamilyOptions opts;
  opts.max_series = max_series;
  gateway_ = unwrap(metrics::register_gateway_metrics(registry_, opts));
  own_ = unwrap(metrics::register_limitscope_metrics(registry_, opts));
  llm_tokens_ =
      unwrap(registry_.counter(names::kLlmTokens, "LLM tokens consumed, from the upstream's usage.",
                               {std::string(names::kTier), std::string(names::kModel)}, opts));
  responses_ = unwrap(registry_.counter(names::kGatewayResponses,
                                        "HTTP answers of the gateway by status code.",
                                        {std::string(names::kCode)}, opts));
  key_admitted_cost_ = unwrap(
      registry_.counter(names::kKeyAdmittedCost, "Cost units admitted per API key and model.",
                        {std::string(names::kApiKeyHash), std::string(names::kModel)}, opts));
  redis_batch_size_ = unwrap(registry_.histogram(
      names::kRedisBatchSize, "Decisions per round trip to Redis (more than 1: coalesced).", {},
      {1, 2, 4, 8, 16, 32, 64, 128}, opts));
  shadow_decisions_ = unwrap(
      registry_.counter(names::kShadowDecisions,
                        "Decisions of the rule's shadow config on live requests (never enforced).",
                        {std::string(names::kRule), std::string(names::kDecision)}, opts));
  shadow_disagreements_ =
      unwrap(registry_.counter(names::kShadowDisagreements,
                               "Requests the shadow config would have decided otherwise: "
                               "would_reject (live admitted), would_admit (live refused).",
                               {std::string(names::kRule), std::string(names::kKind)}, opts));
  redis_settlements_ = unwrap(registry_.counter(
      names::kRedisSettlements,
      "Token settlements that reached Redis: riding on the key's next decision, or alone.", {"way"},
      opts));
  wall_time_ = unwrap(registry_.gauge(
      names::kGatewayTime, "The gateway's wall clock at this scrape, epoch seconds.", {}, opts));
  start_time_ = unwrap(registry_.gauge(names::kGatewayStartTime,
                                       "When the gateway started, epoch seconds (its wall clock).",
                                       {}, opts));
}

void GatewayMetrics::on_redis_round_trip(std::size_t decisions) {
  redis_batch_size_->with({}).observe(static_cast<double>(decisions));
}

void GatewayMetrics::on_redis_settlement(bool rode) {
  redis_settlements_->with({std::string_view(rode ? "ride" : "alone")}).inc();
}

void GatewayMetrics::set_wall_time(Nanos wall_now) {
  wall_time_->with({}).set(static_cast<double>(wall_now.count()) / 1e9);
}

void GatewayMetrics::set_start_time(Nanos wall_start) {
  start_time_->with({}).set(static_cast<double>(wall_start.count()) / 1e9);
}

double GatewayMetrics::add_quota_use(std::string_view& key_hash, std::string_view model,
                                     double cost, std::int64_t day) {
  std::lock_guard lock(quota_mu_);
  auto it = quota_.find(std::string(key_hash));
  if (it == quota_.end()) {
    const bool full = quota_.size() >= max_series_;
    it = quota_.try_emplace(std::string(full ? names::kOverflowLabelValue : key_hash)).first;
  }
  key_hash = it->first;  // "__overflow__" for a key past the cap; map keys never move
  QuotaRow& row = it->second;
  if (row.day != day) {
    row.day = day;
    row.used_by_model.clear();
  }
  return row.used_by_model[std::string(model)] += cost;
}

void GatewayMetrics::on_settle_failed(std::string_view backend) {
  own_.backend_errors->with({backend, std::string_view("settle")}).inc();
}

void GatewayMetrics::on_decision(const AdmissionResult& r, std::string_view api_key_hash,
                                 Nanos wall_now, std::string_view backend) {
  if (r.tier == nullptr || r.model == nullptr) return;
  const std::string_view tier = r.tier->name;
  const std::string_view model = r.model->name;
  // Fail-open admissions count too: they are admitted cost the limit never saw.
  if (r.allowed) key_admitted_cost_->with({api_key_hash, model}).inc(r.cost);
  if (r.degraded) {
    own_.requests->with({tier, model, names::kDecisionDegraded}).inc();
    own_.backend_errors->with({backend, std::string_view("unavailable")}).inc();
    return;
  }
  if (r.requests.reason == DenyReason::backend_error) {
    own_.backend_errors->with({backend, std::string_view("error")}).inc();
    return;
  }
  if (r.requests.reason == DenyReason::backend_forbidden) {
    own_.backend_errors->with({backend, std::string_view("forbidden")}).inc();
    return;
  }
  own_.requests->with({tier, model, r.allowed ? names::kDecisionAllowed : names::kDecisionDenied})
      .inc();
  if (r.shadow_allowed) {
    const bool s = *r.shadow_allowed;
    shadow_decisions_->with({r.rule, s ? names::kDecisionAllowed : names::kShadowRejected}).inc();
    if (s != r.allowed) {
      shadow_disagreements_
          ->with({r.rule, s ? names::kShadowWouldAdmit : names::kShadowWouldReject})
          .inc();
    }
  }
  const LimitParams& params = r.tier->requests;
  const double remaining = r.requests.remaining;
  if (is_window_algorithm(params.algorithm)) {
    own_.window_occupancy->with({tier, model})
        .set(params.limit > 0 ? 1 - remaining / params.limit : 0);
  } else {
    own_.bucket_level->with({tier, model}).set(remaining);
  }
  if (!r.allowed) {
    gateway_.rate_limit_hits->with({tier, model}).inc();
    return;
  }
  gateway_.token_bucket_usage->with({tier, model}).observe(remaining);
  if (r.tier->daily_quota && *r.tier->daily_quota > 0) {
    const std::int64_t day = wall_now.count() / kNanosPerDay;
    std::string_view label = api_key_hash;
    const double used = add_quota_use(label, model, r.cost, day);
    gateway_.quota_burn_ratio->with({label, model}).set(used / *r.tier->daily_quota);
  }
}

void GatewayMetrics::on_tokens(const TierPolicy& tier, const ModelPolicy& model,
                               std::int64_t tokens) {
  if (tokens <= 0) return;
  const auto t = static_cast<double>(tokens);
  llm_tokens_->with({tier.name, model.name}).inc(t);
  own_.spend_dollars->with({tier.name, model.name}).inc(t * model.price_per_million_tokens / 1e6);
}

void GatewayMetrics::set_circuit_state(std::string_view backend, double state) {
  own_.circuit_state->with({backend}).set(state);
}

void GatewayMetrics::on_response(int status) {
  const std::string code = std::to_string(status);
  responses_->with({std::string_view(code)}).inc();
}

void GatewayMetrics::set_key_info(const Policy& policy) {
  // Sorted by hash, so the exposition is the same for the same policy.
  std::map<std::string, std::pair<std::string, std::string>> rows;  // hash -> (name, tier)
  for (const auto& [key, tier] : policy.keys) {
    if (rows.size() >= max_series_) break;
    const auto name = policy.key_names.find(key);
    rows[api_key_hash(key)] = {name != policy.key_names.end() ? name->second : std::string(),
                               policy.tiers[tier].name};
  }
  std::string out;
  if (!rows.empty()) {
    metrics::append_help_line(out, names::kKeyInfo,
                              "One per API key the policy lists: its hash, name and tier.");
    metrics::append_type_line(out, names::kKeyInfo, metrics::MetricType::kGauge);
    for (const auto& [hash, name_tier] : rows) {
      const metrics::LabelView labels[] = {{names::kApiKeyHash, hash},
                                           {names::kName, name_tier.first},
                                           {names::kTier, name_tier.second}};
      metrics::append_sample_line(out, names::kKeyInfo, labels, 1);
    }
  }
  std::lock_guard lock(key_info_mu_);
  key_info_ = std::move(out);
}

std::string GatewayMetrics::render() const {
  std::string out = registry_.render();
  std::lock_guard lock(key_info_mu_);
  return out + key_info_;
}

}  // namespace limitscope::gateway
