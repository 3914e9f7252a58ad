#pragma once
// Rate-limit decisions in Redis: each is one atomic run of decide.lua, which reads the rule's
// config hash (so a config change applies at the next decision), reads the time with
// redis.call('TIME') (the server's clock is the one clock) and gives the same Decision as the
// core/limiter algorithm would (docs/redis-schema.md; tests/core/redis/redis_limiter_test.cpp
// checks this on random traces). Batches: pipelined single decisions, or one script call for
// many keys of one rule, which spreads the script's fixed cost.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/redis/connection.h"
#include "core/redis/decision_record.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_error.h"
#include "core/redis/script.h"

namespace limitscope::redis {

struct DecideRequest {
  std::string key;                 ///< the limited key (API key, "key:model", ...)
  std::vector<double> costs{1.0};  ///< one cost for every limit, or one per composite limit
  bool log = false;                ///< XADD this decision to the rule's decision stream
                                   ///< (the caller samples)
  /// Test mode: decide this request at this instant (µs), overriding DecideOptions::now_us.
  std::optional<std::int64_t> now_us = std::nullopt;
  /// Logged with the decision (fields `tokens` and `model`), so a trace read from the stream
  /// can be priced (core/tuner/stream_trace.h); unused when `log` is false.
  std::optional<std::uint32_t> llm_tokens = std::nullopt;
  std::string model = {};
  /// A settlement carried with this decision (the same call, so the same round trip): the
  /// key's token-bucket level now minus this delta, within [-one hour of refill, capacity],
  /// as TokenBucket::settle, then the decision on the settled level. The settled level is
  /// stored even when the decision refuses; an error reply for the decision (a bad limit,
  /// LSLOG, LSLATE) means nothing was written, the settlement included. 0: none.
  double settle_delta = 0;
  /// The limit settled in a composite rule (its name, a token-bucket limit); empty: the rule's
  /// only limit.
  std::string settle_limit = {};
};

/// A correction of one key's token-bucket limit after the fact (settle.lua): a gateway admits on
/// its token estimate, then settles the difference the upstream's usage showed.
struct SettleRequest {
  std::string key;         ///< the limited key, as it was decided
  std::string limit;       ///< the limit's name in a composite rule; empty: the rule's only limit
  double token_delta = 0;  ///< actual minus estimated: > 0 charges more, < 0 refunds
};

struct DecideOptions {
  /// Test mode: decide at this instant (µs on the server's epoch timeline) instead of TIME.
  std::optional<std::int64_t> now_us;
  /// The caller's deadline on the server's clock (µs since the epoch), used when now_us is
  /// not: a call the server runs after it (a stalled server resumed after the caller gave up)
  /// decides and writes nothing and fails with "LSLATE server time <µs> ..." (is_late()).
  std::optional<std::int64_t> deadline_us;
  /// MAXLEN ~ of the rule's decision stream, used when a request has log set.
  std::int64_t log_max_len = 100000;
  /// Test mode: ms added to every state TTL, so keys of a simulated trace that runs slower
  /// than real time do not expire in wall-clock time. 0 in production.
  std::int64_t ttl_pad_ms = 0;
};

class RedisLimiter {
 public:
  /// @param schema where the rules' keys live (prefix)
  explicit RedisLimiter(KeySchema schema = KeySchema{}) : schema_(std::move(schema)) {}

  const KeySchema& schema() const { return schema_; }

  /// One decision: one call of decide.lua (FCALL of the function library, or EVALSHA where
  /// Functions are missing; core/redis/script.h).
  /// @return the decision; usage for a bad rule name or prefix, reply for a missing or
  ///         invalid config (message from the script: "LSCONFIG ..."), or a connection error.
  Result<RedisDecision> decide(Connection& c, std::string_view rule, std::string_view key,
                               double cost = 1, const DecideOptions& options = {}) const;
  /// The same with per-limit costs and the log flag.
  Result<RedisDecision> decide(Connection& c, std::string_view rule, const DecideRequest& request,
                               const DecideOptions& options = {}) const;

  /// Batch (a): one call per request, all pipelined in one round trip. Each request is its
  /// own atomic decision; a failed one (e.g. an error reply) does not fail the others.
  /// @return per-request results, in order; or the connection error that failed the batch.
  Result<std::vector<Result<RedisDecision>>> decide_pipelined(
      Connection& c, std::string_view rule, const std::vector<DecideRequest>& requests,
      const DecideOptions& options = {}) const;

  /// Batch (b): `per_call` requests per script call (one atomic decide.lua run each, deciding
  /// them in order), the calls pipelined in one round trip. Requests may repeat a key.
  /// @param per_call requests per script call, >= 1 (16 measured best, docs/redis-schema.md)
  /// @return per-request results, in order (a call's error reply fails its requests only).
  Result<std::vector<Result<RedisDecision>>> decide_batch(
      Connection& c, std::string_view rule, const std::vector<DecideRequest>& requests,
      std::size_t per_call = 16, const DecideOptions& options = {}) const;

  /// The decide.lua calls decide_batch() sends (`per_call` requests each, in order), for
  /// callers that route them themselves (Redis Cluster: core/redis/cluster_limiter.h).
  /// @return the calls, or usage for a bad rule, prefix, request or per_call
  Result<std::vector<ScriptCall>> batch_calls(std::string_view rule,
                                              const std::vector<DecideRequest>& requests,
                                              std::size_t per_call,
                                              const DecideOptions& options = {}) const;

  /// Settles `request` (settle.lua): the key's level now, minus the delta, kept within
  /// [0, capacity], exactly as InProcessAdmission::settle. Uses options.now_us and ttl_pad_ms.
  /// @return the level after it, or nullopt when nothing changed (a delta of 0, a refund to a
  ///         state that expired, i.e. is full, or an unreadable state the next decision
  ///         resets); usage for a bad rule or delta; reply "LSCONFIG ..." when the limit is
  ///         missing or not a token bucket
  Result<std::optional<double>> settle(Connection& c, std::string_view rule,
                                       const SettleRequest& request,
                                       const DecideOptions& options = {}) const;

 private:
  KeySchema schema_;
};

/// Keys of a decide.lua call before its state keys (config, decision stream, config stamp).
inline constexpr std::size_t kFixedKeys = 3;

/// Spreads one decide.lua call's reply (an array of decisions, or an error reply) over the
/// call's `count` requests, appended to `out`.
void collect_decisions(const Value& reply, std::size_t count,
                       std::vector<Result<RedisDecision>>& out);

/// TIME on `c`, µs since the epoch.
Result<std::int64_t> read_server_time_us(Connection& c);

/// Whether `c`'s user may XADD to `rule`'s decision stream (what a logged decision writes),
/// writing nothing: an XADD with the ID 0-0, which Redis checks against the user's ACL (the
/// command and the key) and then refuses for its ID before it looks the key up, so the stream
/// gets no entry and is not created.
/// @return ok when only the ID was refused; else the error (auth: NOPERM, the ACL denies it)
Result<void> check_decision_log_write(Connection& c, const KeySchema& schema,
                                      std::string_view rule);

/// The server's time named by a decision refused as late (DecideOptions::deadline_us), or
/// nullopt for any other error.
std::optional<std::int64_t> late_server_time_us(const RedisError& e);

}  // namespace limitscope::redis
