#pragma once
// AdmissionBackend on the shared Redis limiter (core/redis): every gateway in front of one
// Redis shares the limits. Each tier is one composite rule in Redis, "gw-<tier>", with the
// limits "requests" (cost = the model's weight) and, when the tier has one, "llm_tokens"
// (cost = the estimate); decide.lua admits only when both admit and consumes from both or
// neither, in one atomic script on the server's clock. The limited key is
// "<first 32 hex digits of SHA-256(api key)>:<model>": no raw key is ever stored in Redis.
//
// Rules: sync_rules() (at start and on every policy reload) writes a tier's rule when Redis
// lacks it or holds other limits (audited, by "limitscope-gateway", compare-and-set on the
// version read: a rule changed meanwhile is left as it is); between reloads, a change
// made in Redis (the tuner's apply) is used at the next decision. A decision refused because
// the rule's config is missing (Redis restarted without persistence) triggers one resync (at
// most one per second) and is decided again. A stored config that does not parse (a field
// set by hand to "nan", a garbage version) is logged and repaired from the policy, audited,
// with compare-and-set on the stored version field as read; one that cannot be repaired fails
// its own tier's decisions only (the gateway still starts for the others).
//
// Failures follow the FailurePolicy: fail-open admits with AdmissionResult::degraded set (the
// gateway answers with "X-Circuit-Open: true"), fail-closed refuses with backend_unavailable
// (503); a circuit breaker per rule keeps a dead Redis from costing a timeout per request.
// A refusal of the gateway's credentials or permissions (NOPERM, WRONGPASS, NOAUTH) is a
// misconfiguration, not an outage: that rule refuses with backend_forbidden whatever the mode,
// not_ready() says why (re-probing the rule at most once a second until it decides again),
// and check_access() at start refuses a user that cannot run the decision script (or, when
// decisions are logged, XADD to the decision stream).
//
// Coalescing (RedisAdmissionOptions::batch_window, decision_coalescer.h): concurrent
// decisions of one rule go to Redis as one decide_batch round trip (a lone one at once, as
// a single call). Inside a batch each request meets the failure policy as a single call
// would: a round trip that fails (connection, timeout, open circuit) degrades all its
// requests by the FailurePolicy; an error reply, an ACL refusal or a late call (LSLATE)
// concerns only the requests of the script call it answered, which are refused, or decided
// once more after the clock offset was learnt, exactly as a single decision is.
//
// Decisions and rule configs go through the redis::Endpoint's DecisionBackend, which decides
// once whether it is one server (a connection pool) or a Redis Cluster (ClusterLimiter: each
// tier's rule lives on the shard of its hash tag, so the gateway's tiers spread over the
// masters); this class never chooses between the two.
//
// Settlement: after the upstream answered, settle() corrects the key's llm_tokens limit by
// the difference between its usage and the estimate (a refund when the upstream failed). With
// a settle delay (RedisAdmissionOptions::settle_delay, default 1 s) the correction waits in
// memory (pending_settlements.h) and rides on the key's next decision, in the same script call
// (DecideRequest::settle_delta): a key that keeps sending pays no round trip for settling. A
// correction no decision took within the delay is sent alone (settle.lua) by a flusher thread
// (checking every delay / 4 on the injected clock, so it waits at most 1.25 delays; a test's
// ManualClock moves it), and all of them at destruction
// (the gateway's shutdown). Past max_pending_settlements keys, and with a delay of 0, every
// request settles alone at once, as before. A carried correction
//   - whose call was answered is applied (counted "ride");
//   - whose call wrote nothing is kept: not sent (the circuit is open) or refused as late, it
//     waits for the key's next decision again; refused by an error reply (which a bad
//     settlement also causes), it is sent alone and the request is decided again without it;
//   - whose round trip failed after sending (timeout, lost connection) may or may not have
//     been applied: it is dropped, counted as a failed settlement and logged, never sent twice.
// A settle call is skipped while the rule's circuit is open and for degraded admissions; a
// failed one is counted and logged (at most once per FailurePolicy::log_interval), never
// retried: the estimate then stands.
//
// Decision log (RedisAdmissionOptions::log_decisions): the sampled keys' decisions go to the
// rule's decision stream with the model and the token estimate (the tuner's "decision stream"
// trace source). The logged tokens are the admission estimate (prompt + max tokens), known at
// decision time; the settled usage is not in the stream.
//
// Headers: the script reports one limit of the composite (RedisDecision::binding_limit): on a
// refusal the one that refused, so a 429 of the token limit names llm_tokens with its headers;
// on an admission the one with the least remaining. The other limit's state is not known.

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/gateway/admission.h"
#include "core/gateway/decision_coalescer.h"
#include "core/gateway/pending_settlements.h"
#include "core/redis/decision_backend.h"
#include "core/redis/endpoint.h"
#include "core/redis/failure_guard.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::gateway {

/// How a token correction went (RedisAdmissionOptions::on_settlement).
enum class SettleWay { ride, alone, lost };

struct RedisAdmissionOptions {
  redis::KeySchema schema;       // key prefix
  redis::FailurePolicy failure;  // fail-open by default
  /// The fraction of API keys (0..1) whose decisions are logged to their rule's decision
  /// stream, with the request's model and token estimate, for the tuner to replay and price.
  /// Sampled by key, not by request: a sampled key's every decision is logged, so its replay
  /// sees the sequence its limiter saw. The same keys are sampled by every gateway process.
  double log_decisions = 0;
  /// How long the gateway waits for a decision (the Redis command timeout). When set, each
  /// decision carries a deadline on the server's clock (decide.lua's "by:"), so a call the
  /// server runs after the gateway gave up on it (a stalled Redis resumed) decides and charges
  /// nothing. The server's clock offset is read per rule (TIME, at start and at most every
  /// 10 s) and corrected by any call refused as late, which is then decided once more; refused
  /// as late again, the decision is a timeout (ErrorKind::timeout): the FailurePolicy decides.
  std::optional<Nanos> decision_deadline;
  /// Coalescing of concurrent decisions into batched calls per rule (decision_coalescer.h):
  /// the longest a decision waits to be sent while a batch of its rule is in flight; 0 sends
  /// every decision alone. A lone request is sent at once whatever the window.
  std::chrono::microseconds batch_window{500};
  /// Most requests in one batch (script calls of 16 requests each, pipelined).
  std::size_t max_batch = 64;
  /// Batches of one rule in flight at once before requests wait to be coalesced
  /// (CoalescerOptions::max_in_flight; measured in docs/benchmarks.md, "Gateway"). The gateway
  /// sets it to its Redis connections unless told otherwise (--redis-batches-in-flight), so a
  /// decision is coalesced only when every connection is busy.
  std::size_t max_batches_in_flight = 4;
  /// Called with the number of decisions in each round trip of decisions to Redis (1 for a
  /// single call): limitscope_redis_batch_size. Must be thread-safe.
  std::function<void(std::size_t)> on_round_trip;
  /// How long a request's token correction may wait to ride on its key's next decision before
  /// it is sent alone (see the file comment); 0: each request settles with a call of its own.
  std::chrono::milliseconds settle_delay{1000};
  /// Most keys with a correction waiting; past it a request settles alone at once.
  std::size_t max_pending_settlements = 100'000;
  /// Called for every correction that reached Redis (rode on a decision, or alone) and for
  /// every one lost after the request was answered (its round trip failed after sending, or
  /// its flush failed); one settle() reports as failed by its return value is not reported
  /// here. Must be thread-safe.
  std::function<void(SettleWay)> on_settlement;
};

/// Whether `api_key`'s decisions are logged at sampling fraction `fraction` (by the first 32
/// bits of SHA-256 of the key, so every gateway process agrees).
bool decision_logged(std::string_view api_key_sha256_hex, double fraction);

class RedisAdmission final : public AdmissionBackend {
 public:
  /// @param policy checked with check_policy() by the caller
  /// @param endpoint the Redis server or cluster (must outlive this): decisions and rule
  ///        configs go through its decision backend (redis::Endpoint::decisions), with the key
  ///        prefix of options.schema
  /// @param clock for the breakers, the log gate and the settlement flusher's waits (must
  ///        outlive this)
  /// @param log receives failure lines (at most one per FailurePolicy::log_interval per rule)
  RedisAdmission(Policy policy, redis::Endpoint& endpoint, RedisAdmissionOptions options,
                 Clock& clock, redis::LogSink log = {});
  /// The same over a given backend (a test's, wrapping one to inject races); the key prefix
  /// is the backend's (options.schema is replaced by it).
  /// @param backend must outlive this
  RedisAdmission(Policy policy, redis::DecisionBackend& backend, RedisAdmissionOptions options,
                 Clock& clock, redis::LogSink log = {});
  ~RedisAdmission() override;

  /// Writes each tier's rule config where Redis lacks it, differs from the policy, or holds
  /// one that does not parse (repaired, logged).
  /// @return an error naming the rule when Redis cannot be reached, refuses the credentials,
  /// or refuses the config
  Status sync_rules();
  /// Decides a probe key (a cost of 1e-9, never a client's key) on every tier's rule, as a
  /// request would: a user that may read and write the configs but not run the script, or not
  /// write state keys, is found before the first request. With log_decisions, also checks that
  /// the user may XADD to each rule's decision stream (check_decision_log_write: writes nothing).
  /// @return an error naming the rule (and the stream) when Redis refuses the probe
  Status check_access();
  /// The rules Redis refused for credentials or permissions, re-probed (see the file comment;
  /// with log_decisions the probe also checks XADD on the decision stream).
  Status not_ready() override;
  /// The limited key of probes (check_access, not_ready); a hash of no API key looks like it.
  static constexpr std::string_view kProbeKey = "limitscope-access-probe";

  AdmissionResult admit(const AdmissionRequest& request) override;
  /// Corrects the key's llm_tokens limit in Redis (see the file comment).
  bool settle(std::string_view api_key, std::string_view model, double token_delta,
              Nanos now) override;
  /// Settlements that reached Redis (alone or riding), and those that failed or were lost.
  std::uint64_t settled() const { return settled_.load(std::memory_order_relaxed); }
  std::uint64_t settle_failures() const { return settle_failures_.load(std::memory_order_relaxed); }
  /// Keys with a correction waiting for their next decision.
  std::size_t pending_settlements() const { return pending_ ? pending_->size() : 0; }
  /// Sends alone the corrections waiting since `now` - settle_delay or earlier (the flusher
  /// thread calls it; tests with an injected clock too). @return how many were sent
  std::size_t flush_due_settlements(Nanos now);
  /// Sends every waiting correction alone (at destruction). @return how many were sent
  std::size_t flush_settlements();
  /// Replaces the policy and syncs its rules; the old policy stays on error.
  Status set_policy(Policy policy, Nanos now) override;
  std::shared_ptr<const Policy> policy() const override;
  std::string_view name() const override { return "redis"; }
  std::optional<double> circuit_state() const override;

  /// Counters of every tier rule's guard (breaker state, failures, degraded decisions).
  std::map<std::string, redis::GuardStats> stats() const;
  /// Decisions of tier rule `rule` waiting to be coalesced into a batch (not yet sent).
  std::size_t queued_decisions(const std::string& rule) { return coalescer_->queued(rule); }

  /// @return ok, or why a policy's tier names cannot name Redis rules.
  static Status check_policy(const Policy& policy);
  /// "gw-<tier>".
  static std::string rule_name(std::string_view tier);
  /// The limited key for (api key, model): no raw key in Redis.
  static std::string limited_key(std::string_view api_key, std::string_view model);

 private:
  redis::FailureGuard& guard(const std::string& rule);
  void start_coalescer();
  bool resync_due(Nanos now);
  // One probe decision of `rule` through its guard (updates the guard's forbidden state).
  redis::GuardedDecision probe(const std::string& rule);
  // The deadline of a decision of `rule` sent now, on the server's clock (µs); nullopt without
  // RedisAdmissionOptions::decision_deadline or before the server's clock could be read.
  std::optional<std::int64_t> deadline_us(const std::string& rule);
  // Reads the server's clock where `rule` lives (TIME) and keeps its offset.
  void read_server_clock(const std::string& rule);
  // Keeps the offset implied by `server_us`, read on the server before now: a lower bound of
  // the true offset (so deadlines err early), or the last one aged by the clocks' possible
  // drift when that is tighter (a slow TIME round trip gives a loose bound).
  void learn_offset(const std::string& rule, std::int64_t server_us);
  // Decides one round trip's requests of `rule` through the rule's guard (see the file
  // comment): one decide call for a single request, else one decide_batch.
  std::vector<RuleOutcome> decide_guarded(const std::string& rule,
                                          const std::vector<const redis::DecideRequest*>& requests);
  // The round trip itself: per-request results, or the error that failed it whole.
  redis::Result<std::vector<redis::Result<redis::RedisDecision>>> send(
      const std::string& rule, const std::vector<const redis::DecideRequest*>& requests,
      const redis::DecideOptions& options);

  // Settlement (redis_settlement.cpp): one correction sent alone, through the rule's circuit;
  // `report_lost` reports a failure to on_settlement (one the caller cannot return).
  bool settle_alone(const std::string& rule, const std::string& key, double delta, Nanos now,
                    bool report_lost);
  void report_settle_failure(const std::string& rule, const std::string& why, Nanos now,
                             bool report_lost);
  // Takes the key's waiting correction into `req` when its tier has a token limit.
  void carry_settlement(const std::string& rule, const TierPolicy& tier, redis::DecideRequest& req);
  // Accounts for the correction `req` carried, given what became of its call (see the file
  // comment); may decide `req` again without it.
  void settle_carried(const std::string& rule, redis::DecideRequest& req, RuleOutcome& decided,
                      Nanos now);
  void start_flusher();
  void stop_flusher();

  /// The endpoint's, for the first constructor.
  std::unique_ptr<redis::DecisionBackend> own_backend_;
  redis::DecisionBackend& backend_;
  RedisAdmissionOptions options_;
  Clock& clock_;
  redis::LogSink log_;
  mutable std::mutex mu_;
  std::shared_ptr<const Policy> policy_;
  std::vector<std::shared_ptr<const Policy>> retired_;  // tier pointers of results stay valid
  std::map<std::string, std::unique_ptr<redis::FailureGuard>> guards_;
  struct ServerClock {
    std::int64_t offset_us = 0;  // server's clock minus clock_.wall(), a lower bound
    bool known = false;
    std::int64_t read_at_ns = 0;     // clock_.now() of the last TIME reading (or attempt)
    std::int64_t learned_at_ns = 0;  // clock_.now() when offset_us was set
  };
  std::map<std::string, ServerClock> server_clocks_;  // guarded by mu_
  static constexpr std::int64_t kNeverResynced = INT64_MIN;
  std::atomic<std::int64_t> last_resync_ns_{kNeverResynced};
  std::atomic<std::int64_t> last_probe_ns_{kNeverResynced};
  std::atomic<std::uint64_t> settled_{0}, settle_failures_{0};
  static constexpr std::int64_t kNeverLogged = INT64_MIN;
  std::atomic<std::int64_t> last_settle_log_ns_{kNeverLogged};
  std::unique_ptr<PendingSettlements> pending_;  // null without a settle delay
  CancelToken flusher_stop_;                     // ends the flusher's wait on clock_
  std::thread flusher_;
  std::unique_ptr<DecisionCoalescer> coalescer_;  // last: its batches use the members above
};

}  // namespace limitscope::gateway
