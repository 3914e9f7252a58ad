#pragma once
// One limiter state per (API key, model), with the parameters of the key's tier and the
// model's cost weight, both taken from the Policy (never from anything the client sends).
//
// Concurrency: N shards (a power of two), each with its own mutex and its own compact tables
// (core/limiter/state_table.h), chosen by the top bits of a 64-bit hash of (key, model).
// Memory: a token-bucket state takes one 24-byte slot (GCRA: 16 bytes) at a table load of
// 0.4-0.8 (lower right after a sweep-then-grow), i.e. 30-60 bytes per key including the index
// (measured by limitscope-bench, docs/benchmarks.md).
//
// Expiry: a state is dropped once the algorithm says it is idle (indistinguishable from a
// fresh one: bucket full, window passed), so dropping it changes no future decision. Every
// 32nd decision in a shard sweeps the next 32·sweep_per_decision slots of its table; a table about
// to grow, or a shard at the key cap, is swept whole first; sweep() sweeps everything on demand.
//
// Key cap (max_keys, over all shards): when a decision needs a new state and max_keys states
// exist, the shard first drops its idle states; if it is still at the cap, the request is
// refused with DenyReason::key_limit and overflows() counts it. Keys that already have a
// state keep working; new keys get states again as soon as others expire. Keys listed in the
// policy's `keys` are never refused by the cap (their states are counted, but their number is
// bounded by the policy: listed keys × models): only keys given a tier by default_tier are, so
// random unlisted keys filling the cap cannot lock out a listed key.
//
// Live policy update: set_policy() carries every state over with its algorithm's reconfigure
// rule (matching tiers by name). States of a tier that disappeared, or whose algorithm
// changed, are dropped (the key starts fresh under its new limit). A key that a new policy
// moves to another tier is reconfigured on its next decision (same algorithm) or starts
// fresh (different algorithm). Policies stay alive for the limiter's lifetime, so the tier
// and model pointers in a KeyedDecision never dangle.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.h"
#include "core/limiter/decision.h"
#include "core/limiter/policy.h"

namespace limitscope {

struct KeyedLimiterOptions {
  /// Number of shards, rounded up to a power of two (1..4096). 16 keeps two threads (or a
  /// gateway's handful) rarely contending, and lets a million keys' tables reach the 2 MiB
  /// that huge pages need (state_table.h).
  std::size_t shards = 16;
  /// Most (key, model) states held at once; see the overflow policy above.
  std::size_t max_keys = 4'000'000;
  /// Slots of a table examined for expiry per decision (swept in batches of 32 decisions).
  std::size_t sweep_per_decision = 2;
  /// Remember the API key text of up to this many states, so the dashboard can show names;
  /// 0 (the default) keeps no names (the million-key benchmark runs without).
  std::size_t remember_names = 0;
};

struct KeyedDecision {
  Decision decision;
  /// The key's tier; nullptr when the key is refused as unknown.
  const TierPolicy* tier = nullptr;
  /// The requested model; nullptr when it is not in the policy.
  const ModelPolicy* model = nullptr;
  /// Cost units asked for: model cost weight × cost multiplier.
  double cost = 0;
  /// Identifies the (key, model) state: the hash's shard bits and 48-bit fingerprint (the
  /// same value KeyStateView::key_id shows).
  std::uint64_t key_id = 0;
  /// The key is listed in the policy's `keys` (not given its tier by default_tier): the key
  /// cap never refuses it.
  bool listed = false;
};

/// One request of a batch (KeyedLimiter::decide_batch): decide()'s arguments.
struct KeyedRequest {
  std::string_view api_key;
  std::string_view model;
  Nanos now{0};
  double cost_multiplier = 1;
};

/// One state as the dashboard and the simulation see it.
struct KeyStateView {
  std::uint64_t key_id = 0;
  /// The API key when the name registry remembered it, else empty.
  std::string_view api_key;
  const TierPolicy* tier = nullptr;
  /// nullptr when the model left the policy (or beyond the 255th model).
  const ModelPolicy* model = nullptr;
  Algorithm algorithm = Algorithm::token_bucket;
  /// Cost units that could be admitted now, and the most there can be (capacity / limit).
  double available = 0;
  double capacity = 0;
};

class KeyedLimiter {
 public:
  /// @return the limiter, or an error naming the policy when it has more than kMaxTiers tiers
  static Expected<std::unique_ptr<KeyedLimiter>> create(Policy policy,
                                                        KeyedLimiterOptions options = {});
  ~KeyedLimiter();
  KeyedLimiter(const KeyedLimiter&) = delete;
  KeyedLimiter& operator=(const KeyedLimiter&) = delete;

  /// Decides one request and, only when allowed, consumes its cost.
  /// @param api_key the authenticated key; its tier comes from the policy
  /// @param model model name; its cost weight comes from the policy
  /// @param now limiter time (Clock::now() or the simulation's ManualClock)
  /// @param cost_multiplier scales the model's cost (e.g. for batch requests); must be > 0
  KeyedDecision decide(std::string_view api_key, std::string_view model, Nanos now,
                       double cost_multiplier = 1);
  /// Decides requests[i] into out[i], exactly as decide() called on each request in order
  /// would (same answers, same states after). Faster over many keys: while one request is
  /// decided, the table slots of the next few are already being loaded from memory, so a
  /// batch pays the cache misses of a million-key table in parallel instead of one by one.
  /// Locks one shard at a time, like decide().
  /// @param out as many elements as requests (else std::invalid_argument, nothing decided)
  void decide_batch(std::span<const KeyedRequest> requests, std::span<KeyedDecision> out);
  /// What decide() would answer now, consuming nothing and creating no state.
  KeyedDecision peek(std::string_view api_key, std::string_view model, Nanos now,
                     double cost_multiplier = 1);

  /// Replaces the policy, carrying states over (see the file comment).
  /// @return an error (and no change) when the policy has more than 255 tiers
  Status set_policy(Policy policy, Nanos now);
  /// The policy decisions currently use.
  std::shared_ptr<const Policy> policy() const;

  /// Drops every idle state now and shrinks sparse tables.
  /// @return the number of states dropped
  std::size_t sweep(Nanos now);
  /// Calls f for every state, one shard at a time (that shard is locked during its calls:
  /// f must not call back into the limiter).
  void for_each_state(Nanos now, const std::function<void(const KeyStateView&)>& f);

  /// (key, model) states held now.
  std::size_t size() const { return size_.load(std::memory_order_relaxed); }
  /// Requests refused with key_limit so far.
  std::uint64_t overflows() const { return overflows_.load(std::memory_order_relaxed); }
  /// Bytes of the state tables and shards (not counting the policy or the name registry).
  std::size_t table_bytes() const;
  std::size_t shard_count() const { return shard_count_; }
  const KeyedLimiterOptions& options() const { return options_; }

  /// The 64-bit hash of (api key, model) the tables are keyed by.
  static std::uint64_t hash_key(std::string_view api_key, std::string_view model);
  /// Largest number of tiers a policy may have here (tier index is 8 bits in a slot's tag).
  static constexpr std::size_t kMaxTiers = 255;

 private:
  struct Shard;
  struct Lookup;
  struct Version;
  struct Hashes;

  /// @param policy at most kMaxTiers tiers (create() checks)
  KeyedLimiter(Policy policy, KeyedLimiterOptions options);
  /// @return ok, or why the keyed limiter cannot take `policy` (more than kMaxTiers tiers)
  static Status check_tiers(const Policy& policy);

  template <class A>
  KeyedDecision decide_in(Shard& shard, const Lookup& lk, Nanos now, bool consume);
  Lookup resolve(Shard& shard, std::string_view api_key, std::string_view model,
                 const Hashes& hashes, double cost_multiplier, KeyedDecision& out) const;
  static Hashes hashes_of(std::string_view api_key, std::string_view model);
  KeyedDecision run(std::string_view api_key, std::string_view model, const Hashes& hashes,
                    Nanos now, double cost_multiplier, bool consume);
  void prefetch(std::string_view api_key, const Hashes& hashes) const;
  std::size_t sweep_shard(Shard& shard, Nanos now);
  void reconfigure_shard(Shard& shard, const Policy& next, Nanos now);
  Shard& shard_for(std::uint64_t hash) const;
  std::uint64_t key_id_of(std::uint64_t hash) const;
  template <class A>
  auto idle_dropper(Shard& shard, Nanos now);
  void forget_name(Shard& shard, std::uint64_t fp);

  KeyedLimiterOptions options_;
  std::size_t shard_count_ = 1;
  int shard_shift_ = 64;  // hash >> shard_shift_ = shard index
  std::unique_ptr<Shard[]> shards_;
  std::atomic<std::size_t> size_{0};
  std::atomic<std::uint64_t> overflows_{0};
  std::atomic<std::size_t> names_{0};

  mutable std::mutex policy_mu_;  // guards versions_; set_policy calls are serialized by it
  std::vector<std::unique_ptr<Version>> versions_;  // every policy version, newest last
  // The newest version, for decide_batch's prefetch hints without policy_mu_ (versions are
  // never freed before the limiter).
  std::atomic<const Version*> newest_{nullptr};
};

}  // namespace limitscope
