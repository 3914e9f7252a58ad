#pragma once
// The Redis limiter on a Redis Cluster. Every key of a rule carries the hash tag {rule}
// (key_schema.h), so a rule lives on one shard and decide.lua runs there unchanged; this layer
// only routes: it builds the same script calls RedisLimiter sends, pipelines each master's
// calls to it (all masters at once), and re-sends just the calls a MOVED, ASK, TRYAGAIN or
// CLUSTERDOWN reply refused (such a call did not run, so nothing is decided twice). Config
// reads and changes run the rule_config functions on the rule's shard.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/redis/cluster_client.h"
#include "core/redis/decision_backend.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"

namespace limitscope::redis {

/// One request of a multi-rule batch.
struct RuleRequest {
  std::string rule;
  DecideRequest request;
};

/// One decide.lua call still to be made on a cluster, and the requests it decides.
struct PendingScriptCall {
  int slot = 0;
  ScriptCall call;
  std::vector<std::size_t> requests;  ///< indices of the requests it decides
  std::optional<ClusterNode> ask;     ///< send once to this node with ASKING
};

class ClusterLimiter final : public DecisionBackend {
 public:
  /// @param cluster must outlive this
  ClusterLimiter(ClusterClient& cluster, RedisLimiter limiter)
      : cluster_(cluster), limiter_(std::move(limiter)) {}

  /// One decision on the rule's shard.
  Result<RedisDecision> decide(const std::string& rule, const DecideRequest& request,
                               const DecideOptions& options = {}) override;
  /// Many requests of one rule (one shard). A shard that cannot decide (unreachable, still
  /// migrating or down after the retry budget) fails the whole batch, so the failure policy
  /// applies; error replies stay per request, as on one server.
  Result<std::vector<Result<RedisDecision>>> decide_batch(
      const std::string& rule, const std::vector<DecideRequest>& requests,
      std::size_t per_call = 16, const DecideOptions& options = {}) override;
  /// Requests of any rules: each rule's requests become script calls of `per_call`, the calls
  /// of each master go to it in one pipeline, all masters in parallel.
  /// @return per-request results, in order; a shard's failure fails only its requests
  std::vector<Result<RedisDecision>> decide_many(const std::vector<RuleRequest>& requests,
                                                 std::size_t per_call = 16,
                                                 const DecideOptions& options = {});

  /// Settles on the rule's shard.
  Result<std::optional<double>> settle(const std::string& rule, const SettleRequest& request,
                                       const DecideOptions& options = {}) override;
  const RedisLimiter& limiter() const override { return limiter_; }
  /// The config of `rule`, read on its shard.
  Result<std::optional<RuleConfig>> get_config(const std::string& rule) override;
  /// Writes the config of `rule` on its shard.
  Result<RuleConfig> set_config(const std::string& rule, const RuleConfig& config,
                                const ChangeInfo& change) override;
  /// The stored version field of `rule`, read on its shard.
  Result<std::string> stored_version_field(const std::string& rule) override;
  std::string peer() const override { return cluster_.url().redacted(); }
  /// TIME on the rule's master.
  Result<std::int64_t> server_time_us(const std::string& rule) override;
  /// check_decision_log_write() on the rule's master.
  Result<void> check_decision_log_write(const std::string& rule) override;
  ClusterClient& cluster() { return cluster_; }

 private:
  /// Sends the calls, each master's in one pipeline (all masters at once), re-sending the
  /// ones a redirection or TRYAGAIN refused; fills `out` per request.
  void route_calls(std::vector<PendingScriptCall> pending,
                   std::vector<std::optional<Result<RedisDecision>>>& out);

  ClusterClient& cluster_;
  RedisLimiter limiter_;
};

/// The cluster slot of every key of `rule` under `schema`.
int rule_slot(const KeySchema& schema, std::string_view rule);

/// rule_config.h's functions on the rule's shard (same results and errors).
Result<std::optional<RuleConfig>> get_config(ClusterClient& cluster, const KeySchema& schema,
                                             std::string_view rule);
Result<RuleConfig> set_config(ClusterClient& cluster, const KeySchema& schema,
                              std::string_view rule, const RuleConfig& config,
                              const ChangeInfo& change);
Result<std::string> stored_version_field(ClusterClient& cluster, const KeySchema& schema,
                                         std::string_view rule);
Result<std::vector<AuditEntry>> config_history(ClusterClient& cluster, const KeySchema& schema,
                                               std::string_view rule, std::size_t count);
Result<RuleConfig> undo_config(ClusterClient& cluster, const KeySchema& schema,
                               std::string_view rule, const ChangeInfo& change);

/// Runs `op` (any function of a Connection returning Result<T>) on the shard of `rule`, with
/// the cluster's redirection handling. `op` must be safe to repeat when it failed with a
/// redirection (true when its writes are single commands or scripts).
template <class T, class Op>
Result<T> on_rule_shard(ClusterClient& cluster, const KeySchema& schema, std::string_view rule,
                        Op&& op) {
  std::optional<Result<T>> out;
  auto ran = cluster.run(rule_slot(schema, rule), [&](Connection& c) -> Result<void> {
    Result<T> r = op(c);
    if (!r.ok()) return r.error();
    out.emplace(std::move(r));
    return {};
  });
  if (!ran.ok()) return ran.error();
  return std::move(*out);
}

}  // namespace limitscope::redis
