#include "core/sources/simulation_recorder.h"

#include "core/common/number_format.h"
#include "core/common/sha256.h"
#include "core/metrics/metric_names.h"

namespace limitscope {
namespace names = metrics::names;

SimulationRecorder::SimulationRecorder(SessionState& session, const Policy& policy,
                                       std::int64_t wall_epoch_ms)
    : session_(session), policy_(policy), wall_epoch_ms_(wall_epoch_ms) {}

std::int64_t SimulationRecorder::time_ms(const StepSample& sample) const {
  return wall_epoch_ms_ +
         std::chrono::duration_cast<std::chrono::milliseconds>(sample.time).count();
}

void SimulationRecorder::add(std::string_view name,
                             std::initializer_list<std::pair<std::string, std::string>> labels,
                             double value, std::int64_t t_ms) {
  metrics::Labels l(labels);
  l.set("__name__", name);
  if (!session_.append(l, {t_ms, value})) ++refused_;
}

std::size_t SimulationRecorder::record(const StepSample& s) {
  const std::size_t refused_before = refused_;
  const std::int64_t t = time_ms(s);
  const double step_s = std::chrono::duration<double>(s.step).count();
  namespace ds = dashboard_series;

  std::map<std::string, std::pair<std::string, double>> burn_by_key;  // key -> (tier, burn)
  for (const KeyStepSample& k : s.keys) {
    const auto key_tier_model = std::initializer_list<std::pair<std::string, std::string>>{
        {"api_key", k.api_key}, {"tier", k.tier}, {"model", k.model}};
    add(ds::kKeyLevel, key_tier_model, k.level, t);
    if (k.occupancy) add(ds::kKeyOccupancy, key_tier_model, *k.occupancy, t);
    add(ds::kKeyRejectedRate, key_tier_model, step_s > 0 ? k.rejected / step_s : 0, t);
    burn_by_key[k.api_key] = {k.tier, k.quota_burn};
    add(names::kGatewayQuotaBurnRatio,
        {{std::string(names::kApiKeyHash), api_key_hash(k.api_key)}, {"model", k.model}},
        k.quota_burn, t);

    const auto tm = std::make_pair(k.tier, k.model);
    hits_[tm] += static_cast<double>(k.rejected);
    allowed_[tm] += static_cast<double>(k.admitted - k.degraded);
    denied_[tm] += static_cast<double>(k.rejected);
    degraded_[tm] += static_cast<double>(k.degraded);
    spend_[tm] += k.spend;

    // Tokens left after the step, observed once per decision of the step.
    const TierPolicy* tier = policy_.find_tier(k.tier);
    const double decisions = static_cast<double>(k.admitted - k.degraded + k.rejected);
    Histogram& h = usage_[tm];
    if (tier != nullptr && decisions > 0) {
      const double tokens = k.level * tier->requests.max_cost();
      for (std::size_t i = 0; i < names::kGatewayTokenBucketUsageBuckets.size(); ++i) {
        if (tokens <= names::kGatewayTokenBucketUsageBuckets[i]) h.buckets[i] += decisions;
      }
      h.buckets.back() += decisions;
      h.sum += tokens * decisions;
      h.count += decisions;
    }
  }
  for (const auto& [key, tier_burn] : burn_by_key) {
    add(ds::kKeyQuotaBurn, {{"api_key", key}, {"tier", tier_burn.first}}, tier_burn.second, t);
  }

  for (const auto& [tm, v] : hits_) {
    const auto& [tier, model] = tm;
    add(names::kGatewayRateLimitHits, {{"tier", tier}, {"model", model}}, v, t);
    add(names::kRequests, {{"tier", tier}, {"model", model}, {"decision", "allowed"}}, allowed_[tm],
        t);
    add(names::kRequests, {{"tier", tier}, {"model", model}, {"decision", "denied"}}, denied_[tm],
        t);
    add(names::kRequests, {{"tier", tier}, {"model", model}, {"decision", "degraded"}},
        degraded_[tm], t);
    add(names::kSpendDollars, {{"tier", tier}, {"model", model}}, spend_[tm], t);
    const Histogram& h = usage_[tm];
    const std::string bucket = std::string(names::kGatewayTokenBucketUsage) + "_bucket";
    for (std::size_t i = 0; i < names::kGatewayTokenBucketUsageBuckets.size(); ++i) {
      add(bucket,
          {{"tier", tier},
           {"model", model},
           {"le", significant_text(names::kGatewayTokenBucketUsageBuckets[i])}},
          h.buckets[i], t);
    }
    add(bucket, {{"tier", tier}, {"model", model}, {"le", "+Inf"}}, h.buckets.back(), t);
    add(std::string(names::kGatewayTokenBucketUsage) + "_sum", {{"tier", tier}, {"model", model}},
        h.sum, t);
    add(std::string(names::kGatewayTokenBucketUsage) + "_count", {{"tier", tier}, {"model", model}},
        h.count, t);
  }
  for (const GroupStepSample& g : s.by_tier) {
    add(ds::kTierRejectedRate, {{"tier", g.name}}, step_s > 0 ? g.rejected / step_s : 0, t);
  }
  add(ds::kRejectedRatio, {}, s.ratio_429, t);
  return refused_ - refused_before;
}

}  // namespace limitscope
