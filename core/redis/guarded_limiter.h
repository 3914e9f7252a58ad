#pragma once
// The Redis limiter as a gateway uses it: connections from a pool, one FailureGuard (failure
// policy + circuit breaker + throttled log) per rule, decisions that say when they were made
// by the failure policy instead of Redis (degraded). Thread-safe.
//
// The failure policy is the caller's configuration, not Redis data: it must be known exactly
// when Redis cannot be read.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/redis/decision_backend.h"
#include "core/redis/failure_guard.h"
#include "core/redis/pool.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::redis {

struct GuardedRedisDecision {
  GuardedDecision guarded;          ///< decision, degraded flag, error text
  std::int64_t config_version = 0;  ///< 0 when degraded or refused
};

class GuardedLimiter {
 public:
  /// @param pool connections (must outlive this)
  /// @param default_policy for rules without their own (set_failure_policy)
  /// @param clock for the breakers and the log gate (must outlive this)
  GuardedLimiter(ConnectionPool& pool, RedisLimiter limiter, FailurePolicy default_policy,
                 const Clock& clock, LogSink log = {});
  /// The same over any backend (a Redis Cluster: core/redis/cluster_limiter.h).
  /// @param backend must outlive this
  GuardedLimiter(DecisionBackend& backend, FailurePolicy default_policy, const Clock& clock,
                 LogSink log = {});

  /// Gives `rule` its own failure policy (resets its breaker and counters).
  void set_failure_policy(const std::string& rule, FailurePolicy policy);

  GuardedRedisDecision decide(const std::string& rule, const DecideRequest& request,
                              const DecideOptions& options = {});
  GuardedRedisDecision decide(const std::string& rule, const std::string& key, double cost = 1);

  /// Many requests of one rule in one round trip (multi-key script calls of `per_call`).
  std::vector<GuardedRedisDecision> decide_batch(const std::string& rule,
                                                 const std::vector<DecideRequest>& requests,
                                                 std::size_t per_call = 16,
                                                 const DecideOptions& options = {});

  /// Counters of one rule's guard (zeros for a rule never used).
  GuardStats stats(const std::string& rule) const;
  /// Every rule used so far, with its counters.
  std::map<std::string, GuardStats> all_stats() const;

 private:
  FailureGuard& guard(const std::string& rule);

  std::unique_ptr<DecisionBackend> own_backend_;  ///< the pool's, for the first constructor
  DecisionBackend& backend_;
  FailurePolicy default_policy_;
  const Clock& clock_;
  LogSink log_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<FailureGuard>> guards_;
};

}  // namespace limitscope::redis
