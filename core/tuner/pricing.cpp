#include "core/tuner/pricing.h"

#include <algorithm>

namespace limitscope::tuner {

Pricing Pricing::for_trace(const trace::Trace& trace, const PricingOptions& options) {
  Pricing p;
  p.per_token_.assign(trace.models.size(), 0);
  if (options.policy != nullptr) {
    for (std::size_t m = 0; m < trace.models.size(); ++m) {
      const auto index = options.policy->model_index(trace.models[m]);
      if (index) p.per_token_[m] = options.policy->models[*index].price_per_million_tokens / 1e6;
    }
  }
  const bool assumed = options.tokens_per_request.has_value();
  p.fallback_tokens_ = options.tokens_per_request.value_or(0);
  std::vector<bool> model_seen(trace.models.size(), false);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const auto model = trace.events[i].model;
    model_seen[model] = true;
    const bool has_tokens = assumed || trace.tokens_of(i).has_value();
    if (!has_tokens) ++p.events_without_tokens_;
    if (p.per_token_[model] > 0 && has_tokens) {
      ++p.priced_events_;
    } else {
      ++p.unpriced_events_;
    }
  }
  for (std::size_t m = 0; m < trace.models.size(); ++m) {
    if (model_seen[m] && !(p.per_token_[m] > 0)) p.unpriced_models_.push_back(trace.models[m]);
  }
  return p;
}

std::string Pricing::unpriced_reason() const {
  if (unpriced_events_ == 0) return "";
  std::string why = std::to_string(unpriced_events_) + " requests have no price:";
  if (events_without_tokens_ > 0) {
    why += " " + std::to_string(events_without_tokens_) +
           " carry no token count (give tokens per request to assume one)";
  }
  if (!unpriced_models_.empty()) {
    if (events_without_tokens_ > 0) why += ";";
    why += " the policy has no price for model";
    why += unpriced_models_.size() == 1 ? " " : "s ";
    for (std::size_t i = 0; i < unpriced_models_.size(); ++i) {
      if (i > 0) why += ", ";
      why += unpriced_models_[i].empty() ? "(none given)" : "'" + unpriced_models_[i] + "'";
    }
  }
  return why;
}

std::vector<double> Pricing::key_quotas(const trace::Trace& trace, const Policy& policy) {
  std::vector<double> quota(trace.keys.size(), 0);
  std::vector<bool> done(trace.keys.size(), false);
  for (const trace::TraceEvent& e : trace.events) {
    if (done[e.key]) continue;
    done[e.key] = true;
    const TierPolicy* tier = policy.find_tier(trace.tiers[e.tier]);
    if (tier == nullptr) tier = policy.tier_for_key(trace.keys[e.key]);
    if (tier != nullptr && tier->daily_quota) quota[e.key] = *tier->daily_quota;
  }
  return quota;
}

void KeyMinuteSpend::add(std::uint32_t key, std::int64_t t_ns, double dollars) {
  const std::int64_t minute = t_ns / kMinuteNs;
  if (minute != minute_[key]) {
    fold(key);
    minute_[key] = minute;
  }
  spend_[key] += dollars;
}

void KeyMinuteSpend::finish() {
  for (std::uint32_t k = 0; k < spend_.size(); ++k) fold(k);
}

void KeyMinuteSpend::fold(std::uint32_t key) {
  if (spend_[key] > worst) {
    worst = spend_[key];
    worst_key = key;
    worst_minute_ns = minute_[key] * kMinuteNs;
  }
  spend_[key] = 0;
}

void DailyQuotaBurn::admit(std::uint32_t key, std::int64_t t_ns, double cost) {
  const std::int64_t day = t_ns / kDayNs;
  if (day != day_) {  // requests come in time order: a new day for every key at once
    day_ = day;
    std::fill(used_.begin(), used_.end(), 0);
    max_burn = 0;
    over = 0;
  }
  if (quota_[key] <= 0) return;
  const double before = used_[key] / quota_[key];
  used_[key] += cost;
  const double burn = used_[key] / quota_[key];
  max_burn = std::max(max_burn, burn);
  if (before < 1 && burn >= 1) ++over;
}

SpendTracker::SpendTracker(const trace::Trace& trace, const PricingOptions& options)
    : trace_(trace), pricing_(Pricing::for_trace(trace, options)), minute_(trace.keys.size()) {
  if (options.policy != nullptr) quota_.emplace(Pricing::key_quotas(trace, *options.policy));
}

void SpendTracker::admit(std::size_t i, double dollars) {
  const trace::TraceEvent& e = trace_.events[i];
  minute_.add(e.key, e.t_ns, dollars);
  if (quota_) quota_->admit(e.key, e.t_ns, e.cost);
}

SpendSummary SpendTracker::finish() {
  minute_.finish();
  SpendSummary s;
  s.priced = pricing_.priced();
  s.worst_key_per_min = minute_.worst;
  s.worst_key = minute_.worst_key;
  s.worst_minute_ns = minute_.worst_minute_ns;
  s.unpriced_requests = pricing_.unpriced_events();
  s.unpriced_reason = pricing_.unpriced_reason();
  return s;
}

}  // namespace limitscope::tuner
