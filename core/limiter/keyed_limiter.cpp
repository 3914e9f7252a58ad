#include "core/limiter/keyed_limiter.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "core/limiter/algorithms.h"
#include "core/limiter/state_table.h"

namespace limitscope {
namespace {

// Tier index 255 in a tag marks a state set_policy is about to drop; model index 255 means
// "no model to show" (it left the policy, or it is beyond the 255th).
constexpr unsigned kDropTier = 255;
constexpr unsigned kNoModel = 255;
constexpr std::uint32_t kSweepBatch = 32;  // decisions per incremental sweep (a power of two)

using Tables = std::tuple<StateTable<TokenBucket::State>, StateTable<Gcra::State>,
                          StateTable<SlidingLog::State>, StateTable<SlidingCounter::State>,
                          StateTable<FixedWindow::State>, StateTable<LeakyBucket::State>>;

template <class A>
constexpr std::size_t table_index() {
  return static_cast<std::size_t>(A::kAlgorithm);
}

static_assert(std::is_same_v<std::tuple_element_t<table_index<TokenBucket>(), Tables>,
                             StateTable<TokenBucket::State>> &&
                  std::is_same_v<std::tuple_element_t<table_index<Gcra>(), Tables>,
                                 StateTable<Gcra::State>> &&
                  std::is_same_v<std::tuple_element_t<table_index<SlidingLog>(), Tables>,
                                 StateTable<SlidingLog::State>> &&
                  std::is_same_v<std::tuple_element_t<table_index<SlidingCounter>(), Tables>,
                                 StateTable<SlidingCounter::State>> &&
                  std::is_same_v<std::tuple_element_t<table_index<FixedWindow>(), Tables>,
                                 StateTable<FixedWindow::State>> &&
                  std::is_same_v<std::tuple_element_t<table_index<LeakyBucket>(), Tables>,
                                 StateTable<LeakyBucket::State>>,
              "Tables must follow the order of the Algorithm enum");

constexpr Algorithm kAllAlgorithms[] = {Algorithm::token_bucket, Algorithm::gcra,
                                        Algorithm::sliding_log,  Algorithm::sliding_counter,
                                        Algorithm::fixed_window, Algorithm::leaky_bucket};

// The last n < 8 bytes as one word, with fixed-size loads (a variable-size memcpy is a call);
// the 4-byte reads may overlap, which is fine since the length is hashed too.
std::uint64_t load_tail(const char* p, std::size_t n) {
  if (n >= 4) {
    std::uint32_t lo;
    std::uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (std::uint64_t{hi} << 32);
  }
  if (n == 0) return 0;
  const auto byte = [&](std::size_t k) { return std::uint64_t{static_cast<unsigned char>(p[k])}; };
  return byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
}

// Hash of a byte string, 8 bytes per step (multiply-xorshift); finished by final_mix.
std::uint64_t hash_bytes(std::string_view s, std::uint64_t h) {
  constexpr std::uint64_t kMul = 0x9fb21c651e98df25ULL;
  h ^= (s.size() + 1) * 0x9e3779b97f4a7c15ULL;  // length first: ("ab","c") != ("a","bc")
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  h = (h ^ load_tail(s.data() + i, s.size() - i)) * kMul;
  return h ^ (h >> 32);
}

constexpr std::uint64_t kKeySeed = 0x2545f4914f6cdd1dULL;
constexpr std::uint64_t kModelSeed = 0x853c49e6748fea9bULL;

std::uint64_t final_mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

Decision refusal(DenyReason reason, double limit) {
  Decision d;
  d.allowed = false;
  d.limit = limit;
  d.reason = reason;
  return d;  // retry_after stays empty: waiting does not help this request by itself
}

std::uint64_t combine(std::uint64_t key_hash, std::uint64_t model_hash) {
  return final_mix(key_hash ^ ((model_hash << 23) | (model_hash >> 41)));
}

// Resolves API key -> tier and model name -> model for one policy version with the hashes the
// decision computes anyway (open addressing, load <= 0.5, the name compared on a hash match),
// instead of std::hash + a prime modulo + a binary search of names on every decision.
class PolicyIndex {
 public:
  explicit PolicyIndex(const Policy& p) : default_tier_(p.default_tier) {
    std::vector<std::pair<const std::string*, std::size_t>> keys;
    for (const auto& [key, tier] : p.keys) keys.emplace_back(&key, tier);
    fill(keys_, keys, kKeySeed);
    std::vector<std::pair<const std::string*, std::size_t>> models;
    for (std::size_t i = 0; i < p.models.size(); ++i) models.emplace_back(&p.models[i].name, i);
    fill(models_, models, kModelSeed);
  }

  std::optional<std::size_t> tier(std::string_view key, std::uint64_t key_hash) const {
    if (auto idx = find(keys_, key, key_hash)) return idx;
    return default_tier_;
  }
  bool listed(std::string_view key, std::uint64_t key_hash) const {
    return find(keys_, key, key_hash).has_value();
  }
  std::optional<std::size_t> model(std::string_view name, std::uint64_t model_hash) const {
    return find(models_, name, model_hash);
  }

 private:
  struct Entry {
    std::uint64_t hash = 0;
    const std::string* name = nullptr;  // nullptr = empty
    std::size_t index = 0;
  };

  static void fill(std::vector<Entry>& table,
                   const std::vector<std::pair<const std::string*, std::size_t>>& items,
                   std::uint64_t seed) {
    std::size_t cap = 4;
    while (cap < items.size() * 2) cap *= 2;
    table.assign(cap, Entry{});
    for (const auto& [name, index] : items) {
      const std::uint64_t h = hash_bytes(*name, seed);
      std::size_t i = h & (cap - 1);
      while (table[i].name != nullptr) i = (i + 1) & (cap - 1);
      table[i] = Entry{h, name, index};
    }
  }

  static std::optional<std::size_t> find(const std::vector<Entry>& table, std::string_view name,
                                         std::uint64_t h) {
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = h & mask; table[i].name != nullptr; i = (i + 1) & mask) {
      if (table[i].hash == h && *table[i].name == name) return table[i].index;
    }
    return std::nullopt;
  }

  std::vector<Entry> keys_;
  std::vector<Entry> models_;
  std::optional<std::size_t> default_tier_;
};

}  // namespace

// One policy and its lookup index; kept for the limiter's lifetime (decisions point into it).
struct KeyedLimiter::Version {
  explicit Version(Policy p)
      : policy(std::make_shared<const Policy>(std::move(p))), index(*policy) {}
  std::shared_ptr<const Policy> policy;
  PolicyIndex index;
};

struct KeyedLimiter::Hashes {
  std::uint64_t key = 0;
  std::uint64_t model = 0;
  std::uint64_t both = 0;
};

struct alignas(64) KeyedLimiter::Shard {
  std::mutex mu;
  const Policy* policy = nullptr;      // the version this shard's states follow
  const PolicyIndex* index = nullptr;  // and its lookup index
  Tables tables;
  std::size_t cursors[std::tuple_size_v<Tables>] = {};
  std::unordered_map<std::uint64_t, std::string> names;  // fingerprint -> API key
  std::uint32_t decisions = 0;                           // paces the incremental sweep

  template <class A>
  StateTable<typename A::State>& table() {
    return std::get<table_index<A>()>(tables);
  }
  template <class A>
  std::size_t& cursor() {
    return cursors[table_index<A>()];
  }
};

// Everything a decision needs once the policy has been consulted.
struct KeyedLimiter::Lookup {
  bool ok = false;
  std::uint64_t fp = 0;
  unsigned tier = 0;
  unsigned model = kNoModel;
  const LimitParams* params = nullptr;
  double cost = 0;
  std::string_view api_key;
  bool listed = false;  // in the policy's keys: never refused by the key cap
};

std::uint64_t KeyedLimiter::hash_key(std::string_view api_key, std::string_view model) {
  return combine(hash_bytes(api_key, kKeySeed), hash_bytes(model, kModelSeed));
}

Status KeyedLimiter::check_tiers(const Policy& policy) {
  if (policy.tiers.size() <= kMaxTiers) return {};
  return make_error(policy.source + ": the keyed limiter takes at most 255 tiers, got " +
                    std::to_string(policy.tiers.size()));
}

Expected<std::unique_ptr<KeyedLimiter>> KeyedLimiter::create(Policy policy,
                                                             KeyedLimiterOptions options) {
  if (Status st = check_tiers(policy); !st.ok()) return make_error(st.error());
  return std::unique_ptr<KeyedLimiter>(new KeyedLimiter(std::move(policy), options));
}

KeyedLimiter::KeyedLimiter(Policy policy, KeyedLimiterOptions options) : options_(options) {
  shard_count_ = 1;
  int bits = 0;
  while (shard_count_ < options_.shards && bits < 12) {
    shard_count_ *= 2;
    ++bits;
  }
  options_.shards = shard_count_;
  shard_shift_ = 64 - bits;
  shards_ = std::make_unique<Shard[]>(shard_count_);
  versions_.push_back(std::make_unique<Version>(std::move(policy)));
  newest_.store(versions_.back().get(), std::memory_order_release);
  for (std::size_t i = 0; i < shard_count_; ++i) {
    shards_[i].policy = versions_.back()->policy.get();
    shards_[i].index = &versions_.back()->index;
  }
}

KeyedLimiter::~KeyedLimiter() = default;

std::uint64_t KeyedLimiter::key_id_of(std::uint64_t hash) const {
  const std::uint64_t shard_bits = shard_shift_ >= 64 ? 0 : (hash >> shard_shift_) << shard_shift_;
  return shard_bits | StateTable<TokenBucket::State>::fingerprint_of(hash);
}

KeyedLimiter::Shard& KeyedLimiter::shard_for(std::uint64_t hash) const {
  // A shift by 64 is undefined: one shard means index 0.
  return shards_[shard_shift_ >= 64 ? 0 : static_cast<std::size_t>(hash >> shard_shift_)];
}

std::shared_ptr<const Policy> KeyedLimiter::policy() const {
  std::lock_guard lock(policy_mu_);
  return versions_.back()->policy;
}

KeyedLimiter::Lookup KeyedLimiter::resolve(Shard& shard, std::string_view api_key,
                                           std::string_view model, const Hashes& hashes,
                                           double cost_multiplier, KeyedDecision& out) const {
  Lookup lk;
  const Policy& pol = *shard.policy;
  const auto tier = shard.index->tier(api_key, hashes.key);
  const auto model_idx = shard.index->model(model, hashes.model);
  if (tier) out.tier = &pol.tiers[*tier];
  out.listed = tier && shard.index->listed(api_key, hashes.key);
  if (model_idx) out.model = &pol.models[*model_idx];
  if (!tier) {
    out.decision = refusal(DenyReason::unknown_key, 0);
    return lk;
  }
  const LimitParams& params = pol.tiers[*tier].requests;
  if (!model_idx) {
    out.decision = refusal(DenyReason::unknown_model, params.max_cost());
    return lk;
  }
  out.cost = pol.models[*model_idx].cost * cost_multiplier;
  if (!std::isfinite(out.cost) || !(out.cost > 0)) {
    out.decision = refusal(DenyReason::invalid_cost, params.max_cost());
    return lk;
  }
  lk.ok = true;
  lk.fp = StateTable<TokenBucket::State>::fingerprint_of(out.key_id);
  lk.tier = static_cast<unsigned>(*tier);
  lk.model = *model_idx < kNoModel ? static_cast<unsigned>(*model_idx) : kNoModel;
  lk.params = &params;
  lk.cost = out.cost;
  lk.api_key = api_key;
  lk.listed = out.listed;
  return lk;
}

void KeyedLimiter::forget_name(Shard& shard, std::uint64_t fp) {
  if (!shard.names.empty() && shard.names.erase(fp) > 0) {
    names_.fetch_sub(1, std::memory_order_relaxed);
  }
}

template <class A>
auto KeyedLimiter::idle_dropper(Shard& shard, Nanos now) {
  // True (and the name forgotten) for a state indistinguishable from a fresh one.
  return [this, &shard, now](auto& slot) {
    using Table = StateTable<typename A::State>;
    if (!A::idle(shard.policy->tiers[Table::tier(slot.tag)].requests, slot.state, now))
      return false;
    forget_name(shard, Table::fingerprint(slot.tag));
    return true;
  };
}

template <class A>
KeyedDecision KeyedLimiter::decide_in(Shard& shard, const Lookup& lk, Nanos now, bool consume) {
  using Table = StateTable<typename A::State>;
  Table& table = shard.table<A>();
  const LimitParams& p = *lk.params;
  const std::uint64_t tag = Table::make_tag(lk.fp, lk.tier, lk.model);
  KeyedDecision out;

  if (auto* slot = table.find(lk.fp)) {
    const unsigned old_tier = Table::tier(slot->tag);
    if (old_tier != lk.tier) {
      // A new policy moved this key to another tier with the same algorithm.
      if (!consume) {
        auto moved = slot->state;
        A::reconfigure(shard.policy->tiers[old_tier].requests, p, moved, now);
        out.decision = A::peek(p, moved, now, lk.cost);
        return out;
      }
      A::reconfigure(shard.policy->tiers[old_tier].requests, p, slot->state, now);
    }
    if (!consume) {
      out.decision = A::peek(p, slot->state, now, lk.cost);
      return out;
    }
    slot->tag = tag;
    out.decision = A::decide(p, slot->state, now, lk.cost);
  } else {
    typename A::State state = A::fresh(p, now);
    if (!consume) {
      out.decision = A::peek(p, state, now, lk.cost);
      return out;
    }
    out.decision = A::decide(p, state, now, lk.cost);
    // A rejected request consumes nothing, so a refused new key needs no state at all.
    if (out.decision.allowed) {
      // A key moved to a tier with another algorithm leaves a stale state behind: drop it.
      for (Algorithm other : kAllAlgorithms) {
        if (other == A::kAlgorithm) continue;
        visit_algorithm(other, [&](auto algo) {
          auto& stale_table = shard.table<decltype(algo)>();
          if (stale_table.size() > 0 && stale_table.erase(lk.fp)) {
            size_.fetch_sub(1, std::memory_order_relaxed);
          }
        });
      }
      if (size_.fetch_add(1, std::memory_order_relaxed) >= options_.max_keys && !lk.listed) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        sweep_shard(shard, now);
        if (size_.fetch_add(1, std::memory_order_relaxed) >= options_.max_keys) {
          size_.fetch_sub(1, std::memory_order_relaxed);
          overflows_.fetch_add(1, std::memory_order_relaxed);
          out.decision = refusal(DenyReason::key_limit, p.max_cost());
          return out;
        }
      }
      if (table.full()) {
        std::size_t& cursor = shard.cursor<A>();
        const std::size_t dropped =
            table.sweep(cursor, table.capacity(), idle_dropper<A>(shard, now));
        size_.fetch_sub(dropped, std::memory_order_relaxed);
        table.make_room();
      }
      table.insert(tag, std::move(state));
      if (options_.remember_names > 0 &&
          names_.load(std::memory_order_relaxed) < options_.remember_names &&
          shard.names.emplace(lk.fp, std::string(lk.api_key)).second) {
        names_.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  // Incremental expiry keeps one-off keys from piling up: sweep_per_decision slots per
  // decision, done in batches every kSweepBatch decisions so the sweep reads a run of
  // consecutive cache lines instead of touching a new line of a random shard every time.
  if ((++shard.decisions & (kSweepBatch - 1)) == 0) {
    const std::size_t dropped = table.sweep(
        shard.cursor<A>(), kSweepBatch * options_.sweep_per_decision, idle_dropper<A>(shard, now));
    if (dropped > 0) size_.fetch_sub(dropped, std::memory_order_relaxed);
  }
  return out;
}

KeyedLimiter::Hashes KeyedLimiter::hashes_of(std::string_view api_key, std::string_view model) {
  Hashes hashes;
  hashes.key = hash_bytes(api_key, kKeySeed);
  hashes.model = hash_bytes(model, kModelSeed);
  hashes.both = combine(hashes.key, hashes.model);
  return hashes;
}

KeyedDecision KeyedLimiter::run(std::string_view api_key, std::string_view model,
                                const Hashes& hashes, Nanos now, double cost_multiplier,
                                bool consume) {
  Shard& shard = shard_for(hashes.both);
  std::lock_guard lock(shard.mu);
  KeyedDecision head;
  head.key_id = key_id_of(hashes.both);
  const Lookup lk = resolve(shard, api_key, model, hashes, cost_multiplier, head);
  if (!lk.ok) return head;
  KeyedDecision out = visit_algorithm(lk.params->algorithm, [&](auto algo) {
    return decide_in<decltype(algo)>(shard, lk, now, consume);
  });
  out.tier = head.tier;
  out.model = head.model;
  out.cost = head.cost;
  out.key_id = head.key_id;
  out.listed = head.listed;
  return out;
}

KeyedDecision KeyedLimiter::decide(std::string_view api_key, std::string_view model, Nanos now,
                                   double cost_multiplier) {
  return run(api_key, model, hashes_of(api_key, model), now, cost_multiplier, /*consume=*/true);
}

KeyedDecision KeyedLimiter::peek(std::string_view api_key, std::string_view model, Nanos now,
                                 double cost_multiplier) {
  return run(api_key, model, hashes_of(api_key, model), now, cost_multiplier, /*consume=*/false);
}

// Starts loading the slot where the decision of (api_key, hashes) will look, in the table of
// its tier's algorithm under the newest policy. Only a hint: the decision itself looks again
// under its shard's lock, so a policy or table changed meanwhile costs a miss, not an answer.
void KeyedLimiter::prefetch(std::string_view api_key, const Hashes& hashes) const {
  const Version* v = newest_.load(std::memory_order_acquire);
  const auto tier = v->index.tier(api_key, hashes.key);
  if (!tier) return;
  Shard& shard = shard_for(hashes.both);
  const std::uint64_t fp = StateTable<TokenBucket::State>::fingerprint_of(hashes.both);
  visit_algorithm(v->policy->tiers[*tier].requests.algorithm,
                  [&](auto algo) { shard.table<decltype(algo)>().prefetch(fp); });
}

void KeyedLimiter::decide_batch(std::span<const KeyedRequest> requests,
                                std::span<KeyedDecision> out) {
  if (out.size() != requests.size()) {
    throw std::invalid_argument("KeyedLimiter::decide_batch: " + std::to_string(requests.size()) +
                                " requests but room for " + std::to_string(out.size()) +
                                " decisions");
  }
  // Requests ahead whose slots are in flight: about one memory latency of decisions.
  constexpr std::size_t kAhead = 8;
  Hashes ahead[kAhead];
  const std::size_t n = requests.size();
  const auto start = [&](std::size_t i) {
    ahead[i % kAhead] = hashes_of(requests[i].api_key, requests[i].model);
    prefetch(requests[i].api_key, ahead[i % kAhead]);
  };
  for (std::size_t i = 0; i < n && i < kAhead; ++i) start(i);
  for (std::size_t i = 0; i < n; ++i) {
    const KeyedRequest& r = requests[i];
    const Hashes hashes = ahead[i % kAhead];
    if (i + kAhead < n) start(i + kAhead);
    out[i] = run(r.api_key, r.model, hashes, r.now, r.cost_multiplier, /*consume=*/true);
  }
}

std::size_t KeyedLimiter::sweep_shard(Shard& shard, Nanos now) {
  std::size_t dropped = 0;
  for (Algorithm a : kAllAlgorithms) {
    visit_algorithm(a, [&](auto algo) {
      using A = decltype(algo);
      auto& table = shard.table<A>();
      if (table.size() == 0) return;
      std::size_t& cursor = shard.cursor<A>();
      dropped += table.sweep(cursor, table.capacity(), idle_dropper<A>(shard, now));
      table.shrink_if_sparse();
    });
  }
  size_.fetch_sub(dropped, std::memory_order_relaxed);
  return dropped;
}

std::size_t KeyedLimiter::sweep(Nanos now) {
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    dropped += sweep_shard(shards_[i], now);
  }
  return dropped;
}

void KeyedLimiter::reconfigure_shard(Shard& shard, const Policy& next, Nanos now) {
  const Policy& prev = *shard.policy;
  // Old tier index -> new index by name (kDropTier when the tier is gone); same for models.
  std::vector<unsigned> tier_map(prev.tiers.size(), kDropTier);
  for (std::size_t i = 0; i < prev.tiers.size(); ++i) {
    if (auto j = next.tier_index(prev.tiers[i].name)) tier_map[i] = static_cast<unsigned>(*j);
  }
  std::vector<unsigned> model_map(kNoModel + 1, kNoModel);
  for (std::size_t i = 0; i < prev.models.size() && i < kNoModel; ++i) {
    if (auto j = next.model_index(prev.models[i].name); j && *j < kNoModel) {
      model_map[i] = static_cast<unsigned>(*j);
    }
  }
  std::size_t dropped = 0;
  for (Algorithm a : kAllAlgorithms) {
    visit_algorithm(a, [&](auto algo) {
      using A = decltype(algo);
      using Table = StateTable<typename A::State>;
      auto& table = shard.table<A>();
      if (table.size() == 0) return;
      // First carry every state over (each slot exactly once), then drop the marked ones.
      table.for_each([&](auto& slot) {
        const unsigned from = Table::tier(slot.tag);
        const unsigned to = tier_map[from];
        const std::uint64_t fp = Table::fingerprint(slot.tag);
        if (to == kDropTier || next.tiers[to].requests.algorithm != A::kAlgorithm) {
          slot.tag = Table::make_tag(fp, kDropTier, kNoModel);
          return;
        }
        A::reconfigure(prev.tiers[from].requests, next.tiers[to].requests, slot.state, now);
        slot.tag = Table::make_tag(fp, to, model_map[Table::model(slot.tag)]);
      });
      std::size_t cursor = 0;
      dropped += table.sweep(cursor, table.capacity(), [&](auto& slot) {
        if (Table::tier(slot.tag) != kDropTier) return false;
        forget_name(shard, Table::fingerprint(slot.tag));
        return true;
      });
    });
  }
  size_.fetch_sub(dropped, std::memory_order_relaxed);
}

Status KeyedLimiter::set_policy(Policy policy, Nanos now) {
  if (Status st = check_tiers(policy); !st.ok()) return st;
  std::lock_guard policy_lock(policy_mu_);
  versions_.push_back(std::make_unique<Version>(std::move(policy)));
  const Version& next = *versions_.back();
  newest_.store(&next, std::memory_order_release);
  for (std::size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    reconfigure_shard(shards_[i], *next.policy, now);
    shards_[i].policy = next.policy.get();
    shards_[i].index = &next.index;
  }
  return {};
}

void KeyedLimiter::for_each_state(Nanos now, const std::function<void(const KeyStateView&)>& f) {
  for (std::size_t i = 0; i < shard_count_; ++i) {
    Shard& shard = shards_[i];
    std::lock_guard lock(shard.mu);
    const Policy& pol = *shard.policy;
    const std::uint64_t shard_bits =
        shard_shift_ >= 64 ? 0 : static_cast<std::uint64_t>(i) << shard_shift_;
    for (Algorithm a : kAllAlgorithms) {
      visit_algorithm(a, [&](auto algo) {
        using A = decltype(algo);
        using Table = StateTable<typename A::State>;
        shard.table<A>().for_each([&](auto& slot) {
          const std::uint64_t fp = Table::fingerprint(slot.tag);
          const TierPolicy& tier = pol.tiers[Table::tier(slot.tag)];
          const unsigned model = Table::model(slot.tag);
          KeyStateView view;
          view.key_id = shard_bits | fp;
          if (!shard.names.empty()) {
            if (auto it = shard.names.find(fp); it != shard.names.end()) view.api_key = it->second;
          }
          view.tier = &tier;
          view.model =
              model < pol.models.size() && model != kNoModel ? &pol.models[model] : nullptr;
          view.algorithm = A::kAlgorithm;
          view.available = A::available(tier.requests, slot.state, now);
          view.capacity = tier.requests.max_cost();
          f(view);
        });
      });
    }
  }
}

std::size_t KeyedLimiter::table_bytes() const {
  std::size_t bytes = shard_count_ * sizeof(Shard);
  for (std::size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    std::apply([&](const auto&... t) { ((bytes += t.bytes()), ...); }, shards_[i].tables);
  }
  return bytes;
}

}  // namespace limitscope
