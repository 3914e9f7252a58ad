#include "core/redis/guarded_limiter.h"

namespace limitscope::redis {

GuardedLimiter::GuardedLimiter(ConnectionPool& pool, RedisLimiter limiter,
                               FailurePolicy default_policy, const Clock& clock, LogSink log)
    : own_backend_(std::make_unique<PooledDecisions>(pool, std::move(limiter))),
      backend_(*own_backend_),
      default_policy_(default_policy),
      clock_(clock),
      log_(std::move(log)) {}

GuardedLimiter::GuardedLimiter(DecisionBackend& backend, FailurePolicy default_policy,
                               const Clock& clock, LogSink log)
    : backend_(backend), default_policy_(default_policy), clock_(clock), log_(std::move(log)) {}

void GuardedLimiter::set_failure_policy(const std::string& rule, FailurePolicy policy) {
  std::lock_guard lock(mu_);
  guards_[rule] = std::make_unique<FailureGuard>(rule, policy, clock_, log_);
}

FailureGuard& GuardedLimiter::guard(const std::string& rule) {
  std::lock_guard lock(mu_);
  auto& g = guards_[rule];
  if (!g) g = std::make_unique<FailureGuard>(rule, default_policy_, clock_, log_);
  return *g;
}

GuardedRedisDecision GuardedLimiter::decide(const std::string& rule, const DecideRequest& request,
                                            const DecideOptions& options) {
  std::int64_t version = 0;
  GuardedRedisDecision out;
  out.guarded = guard(rule).decide_one([&]() -> Result<Decision> {
    auto d = backend_.decide(rule, request, options);
    if (!d) return d.error();
    version = d->config_version;
    return d->decision;
  });
  out.config_version = out.guarded.degraded ? 0 : version;
  return out;
}

GuardedRedisDecision GuardedLimiter::decide(const std::string& rule, const std::string& key,
                                            double cost) {
  DecideRequest request;
  request.key = key;
  request.costs = {cost};
  return decide(rule, request);
}

std::vector<GuardedRedisDecision> GuardedLimiter::decide_batch(
    const std::string& rule, const std::vector<DecideRequest>& requests, std::size_t per_call,
    const DecideOptions& options) {
  if (requests.empty()) return {};
  std::vector<Result<RedisDecision>> results;
  auto guarded = guard(rule).decide(requests.size(), [&]() -> Result<std::vector<Decision>> {
    auto batch = backend_.decide_batch(rule, requests, per_call, options);
    if (!batch) return batch.error();
    results = std::move(batch).value();
    // A per-request error reply refuses that request only (see below); the others stand.
    std::vector<Decision> ds;
    ds.reserve(results.size());
    for (const auto& r : results) ds.push_back(r ? r->decision : Decision{});
    return ds;
  });
  std::vector<GuardedRedisDecision> out(guarded.size());
  for (std::size_t i = 0; i < guarded.size(); ++i) {
    out[i].guarded = std::move(guarded[i]);
    if (out[i].guarded.degraded || i >= results.size()) continue;
    if (!results[i]) {
      out[i].guarded.decision = Decision{};
      out[i].guarded.decision.reason = DenyReason::backend_error;
      out[i].guarded.error = results[i].error().message;
    } else {
      out[i].config_version = results[i]->config_version;
    }
  }
  return out;
}

GuardStats GuardedLimiter::stats(const std::string& rule) const {
  std::lock_guard lock(mu_);
  auto it = guards_.find(rule);
  return it == guards_.end() ? GuardStats{} : it->second->stats();
}

std::map<std::string, GuardStats> GuardedLimiter::all_stats() const {
  std::lock_guard lock(mu_);
  std::map<std::string, GuardStats> out;
  for (const auto& [rule, g] : guards_) out[rule] = g->stats();
  return out;
}

}  // namespace limitscope::redis
