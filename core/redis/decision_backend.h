#pragma once
// Where the guarded limiter's decisions are made: one server through a connection pool
// (PooledDecisions), or a Redis Cluster (core/redis/cluster_limiter.h). Both run the same
// decide.lua and keep rule configs the same way; only the routing differs.

#include <string>
#include <vector>

#include "core/redis/pool.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"

namespace limitscope::redis {

class DecisionBackend {
 public:
  virtual ~DecisionBackend() = default;

  /// One decision. @return it, or the error (kinds as in RedisLimiter::decide)
  virtual Result<RedisDecision> decide(const std::string& rule, const DecideRequest& request,
                                       const DecideOptions& options) = 0;
  /// Many requests of one rule (RedisLimiter::decide_batch semantics).
  virtual Result<std::vector<Result<RedisDecision>>> decide_batch(
      const std::string& rule, const std::vector<DecideRequest>& requests, std::size_t per_call,
      const DecideOptions& options) = 0;
  /// RedisLimiter::settle where the rule lives.
  virtual Result<std::optional<double>> settle(const std::string& rule,
                                               const SettleRequest& request,
                                               const DecideOptions& options) = 0;
  /// The limiter (key schema) the backend runs.
  virtual const RedisLimiter& limiter() const = 0;
  /// rule_config.h's get_config on the server (or shard) holding `rule`.
  virtual Result<std::optional<RuleConfig>> get_config(const std::string& rule) = 0;
  /// rule_config.h's set_config there (audited, compare-and-set as given in `change`).
  virtual Result<RuleConfig> set_config(const std::string& rule, const RuleConfig& config,
                                        const ChangeInfo& change) = 0;
  /// rule_config.h's stored_version_field there.
  virtual Result<std::string> stored_version_field(const std::string& rule) = 0;
  /// Where the decisions are made, for messages (password hidden).
  virtual std::string peer() const = 0;
  /// The server's clock (TIME) where `rule` lives, µs since the epoch; a backend that cannot
  /// read it says so (callers then decide without a deadline).
  virtual Result<std::int64_t> server_time_us(const std::string& rule) {
    (void)rule;
    return make_redis_error(ErrorKind::usage, "this backend does not read the server's clock");
  }
  /// check_decision_log_write() where `rule` lives; a backend that cannot check says so
  /// (usage), and callers then go on unchecked.
  virtual Result<void> check_decision_log_write(const std::string& rule) {
    (void)rule;
    return make_redis_error(ErrorKind::usage, "this backend does not check the decision log's ACL");
  }
};

/// Decisions on one server: a connection leased from `pool` per call.
class PooledDecisions final : public DecisionBackend {
 public:
  /// @param pool must outlive this
  PooledDecisions(ConnectionPool& pool, RedisLimiter limiter)
      : pool_(pool), limiter_(std::move(limiter)) {}

  Result<RedisDecision> decide(const std::string& rule, const DecideRequest& request,
                               const DecideOptions& options) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return limiter_.decide(**lease, rule, request, options);
  }
  Result<std::vector<Result<RedisDecision>>> decide_batch(
      const std::string& rule, const std::vector<DecideRequest>& requests, std::size_t per_call,
      const DecideOptions& options) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return limiter_.decide_batch(**lease, rule, requests, per_call, options);
  }
  Result<std::optional<double>> settle(const std::string& rule, const SettleRequest& request,
                                       const DecideOptions& options) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return limiter_.settle(**lease, rule, request, options);
  }
  const RedisLimiter& limiter() const override { return limiter_; }
  Result<std::optional<RuleConfig>> get_config(const std::string& rule) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return redis::get_config(**lease, limiter_.schema(), rule);
  }
  Result<RuleConfig> set_config(const std::string& rule, const RuleConfig& config,
                                const ChangeInfo& change) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return redis::set_config(**lease, limiter_.schema(), rule, config, change);
  }
  Result<std::string> stored_version_field(const std::string& rule) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return redis::stored_version_field(**lease, limiter_.schema(), rule);
  }
  std::string peer() const override { return pool_.peer(); }
  Result<std::int64_t> server_time_us(const std::string&) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return read_server_time_us(**lease);
  }
  Result<void> check_decision_log_write(const std::string& rule) override {
    auto lease = pool_.acquire();
    if (!lease) return lease.error();
    return redis::check_decision_log_write(**lease, limiter_.schema(), rule);
  }

 private:
  ConnectionPool& pool_;
  RedisLimiter limiter_;
};

}  // namespace limitscope::redis
