// Verifies the keyed limiter: per-key isolation, tier and cost from the policy, expiry of idle
// states, the key cap, live policy updates and bounds under concurrency.

#include "core/limiter/keyed_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "support/must.h"
#include "support/threads.h"

namespace limitscope {
namespace {

constexpr Nanos kMs{1'000'000};
constexpr Nanos kSec{1'000'000'000};

Policy must_parse(const std::string& text) {
  auto p = parse_policy(text, "test-policy");
  if (!p) throw std::runtime_error(p.error());
  return std::move(p).value();
}

// free: 10 per bucket refilled 1/s; pro: 100, 10/s. Models cost 1 and 4.
Policy small_policy(bool with_default = true, double free_capacity = 10,
                    const char* free_algorithm = "token-bucket") {
  return must_parse(std::string(R"({
    "tiers": {
      "free": { "requests": { "algorithm": ")") +
                    free_algorithm + R"(", "capacity": )" + std::to_string(free_capacity) +
                    R"(, "refill": "1/s" } },
      "pro": { "requests": { "algorithm": "token-bucket", "capacity": 100, "refill": "10/s" } }
    },
    "models": { "mini": { "cost": 1 }, "large": { "cost": 4 } },
    "keys": { "k-pro": "pro", "k-free": "free" })" +
                    (with_default ? R"(, "default_tier": "free")" : "") + "}");
}

int admitted(KeyedLimiter& lim, std::string_view key, std::string_view model, int tries, Nanos now,
             double multiplier = 1) {
  int n = 0;
  for (int i = 0; i < tries; ++i)
    n += lim.decide(key, model, now, multiplier).decision.allowed ? 1 : 0;
  return n;
}

TEST(KeyedLimiter, KeysAndModelsHaveSeparateStates) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  EXPECT_EQ(admitted(lim, "alice", "mini", 20, Nanos{0}), 10);
  EXPECT_EQ(admitted(lim, "bob", "mini", 20, Nanos{0}), 10);
  EXPECT_EQ(admitted(lim, "alice", "large", 5, Nanos{0}), 2);  // 10 / 4
  EXPECT_EQ(lim.size(), 3u);
  const auto d = lim.decide("alice", "mini", Nanos{0});
  EXPECT_FALSE(d.decision.allowed);
  EXPECT_EQ(d.decision.reason, DenyReason::exhausted);
  ASSERT_TRUE(d.decision.retry_after.has_value());
  EXPECT_EQ(*d.decision.retry_after, kSec);
  EXPECT_TRUE(lim.decide("alice", "mini", kSec).decision.allowed);
}

TEST(KeyedLimiter, TierComesFromThePolicy) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  const auto pro = lim.decide("k-pro", "mini", Nanos{0});
  ASSERT_NE(pro.tier, nullptr);
  EXPECT_EQ(pro.tier->name, "pro");
  EXPECT_EQ(pro.decision.limit, 100);
  EXPECT_EQ(admitted(lim, "k-pro", "mini", 200, Nanos{0}), 99);
  const auto stranger = lim.decide("pro", "mini", Nanos{0});  // a tier name is not a key
  ASSERT_NE(stranger.tier, nullptr);
  EXPECT_EQ(stranger.tier->name, "free");

  const auto strict_owned = test::must(KeyedLimiter::create(small_policy(/*with_default=*/false)));
  KeyedLimiter& strict = *strict_owned;
  const auto unknown = strict.decide("stranger", "mini", Nanos{0});
  EXPECT_FALSE(unknown.decision.allowed);
  EXPECT_EQ(unknown.decision.reason, DenyReason::unknown_key);
  EXPECT_EQ(unknown.tier, nullptr);
  EXPECT_EQ(strict.size(), 0u);
  EXPECT_TRUE(strict.decide("k-free", "mini", Nanos{0}).decision.allowed);
}

TEST(KeyedLimiter, UnknownModelIsRefusedWithoutState) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  const auto d = lim.decide("alice", "gpt-99", Nanos{0});
  EXPECT_FALSE(d.decision.allowed);
  EXPECT_EQ(d.decision.reason, DenyReason::unknown_model);
  EXPECT_EQ(d.model, nullptr);
  ASSERT_NE(d.tier, nullptr);
  EXPECT_EQ(lim.size(), 0u);
}

struct CostRow {
  const char* model;
  double multiplier;
  double cost;
  int admitted_of_20;
  DenyReason then;
};

class KeyedCost : public ::testing::TestWithParam<CostRow> {};

TEST_P(KeyedCost, ChargesModelWeightTimesMultiplier) {
  const CostRow& row = GetParam();
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  const auto first = lim.decide("alice", row.model, Nanos{0}, row.multiplier);
  EXPECT_DOUBLE_EQ(first.cost, row.cost);
  const int n = (first.decision.allowed ? 1 : 0) +
                admitted(lim, "alice", row.model, 19, Nanos{0}, row.multiplier);
  EXPECT_EQ(n, row.admitted_of_20);
  EXPECT_EQ(lim.decide("alice", row.model, Nanos{0}, row.multiplier).decision.reason, row.then);
  // A request that can never fit, or has an invalid cost, leaves no state behind.
  EXPECT_EQ(lim.size(), row.admitted_of_20 > 0 ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(Rows, KeyedCost,
                         ::testing::Values(CostRow{"mini", 1, 1, 10, DenyReason::exhausted},
                                           CostRow{"large", 1, 4, 2, DenyReason::exhausted},
                                           CostRow{"large", 2.5, 10, 1, DenyReason::exhausted},
                                           CostRow{"mini", 0.5, 0.5, 20, DenyReason::exhausted},
                                           CostRow{"large", 3, 12, 0,
                                                   DenyReason::cost_above_capacity},
                                           CostRow{"mini", 0, 0, 0, DenyReason::invalid_cost},
                                           CostRow{"mini", -1, -1, 0, DenyReason::invalid_cost}));

TEST(KeyedLimiter, OneOffKeysExpireSoMemoryStaysBounded) {
  const auto lim_owned =
      test::must(KeyedLimiter::create(small_policy(), KeyedLimiterOptions{.shards = 8}));
  KeyedLimiter& lim = *lim_owned;
  // 100,000 keys, one request each, 1 ms apart; a free bucket (10, 1/s) that lost 1 token is
  // full again 1 s later, so at most ~1,000 states are live at any time.
  std::size_t most = 0;
  Nanos now{0};
  for (int i = 0; i < 100'000; ++i) {
    now += kMs;
    ASSERT_TRUE(lim.decide("one-off-" + std::to_string(i), "mini", now).decision.allowed);
    most = std::max(most, lim.size());
  }
  EXPECT_LE(most, 3'000u);
  // 100,000 live states would need more than 2.4 MB of slots.
  EXPECT_LE(lim.table_bytes(), 512u * 1024);
  lim.sweep(now + 2 * kSec);
  EXPECT_EQ(lim.size(), 0u);
  EXPECT_LE(lim.table_bytes(), 64u * 1024);  // sparse tables shrank
}

TEST(KeyedLimiter, ExpiryIsInvisibleToDecisions) {
  const auto lim_owned = test::must(KeyedLimiter::create(
      small_policy(), KeyedLimiterOptions{.shards = 1, .sweep_per_decision = 64}));
  KeyedLimiter& lim = *lim_owned;
  EXPECT_EQ(admitted(lim, "alice", "mini", 10, Nanos{0}), 10);
  // Half refilled: not idle, must survive any sweep.
  EXPECT_EQ(lim.sweep(5 * kSec), 0u);
  EXPECT_EQ(admitted(lim, "alice", "mini", 10, 5 * kSec), 5);
  EXPECT_EQ(lim.sweep(15 * kSec), 1u);
  EXPECT_EQ(admitted(lim, "alice", "mini", 20, 15 * kSec), 10);
}

TEST(KeyedLimiter, KeyCapRefusesNewKeysButKeepsExistingOnes) {
  const auto lim_owned = test::must(
      KeyedLimiter::create(small_policy(), KeyedLimiterOptions{.shards = 1, .max_keys = 5}));
  KeyedLimiter& lim = *lim_owned;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(lim.decide("key-" + std::to_string(i), "mini", Nanos{0}).decision.allowed);
  }
  const auto refused = lim.decide("key-new", "mini", Nanos{0});
  EXPECT_FALSE(refused.decision.allowed);
  EXPECT_EQ(refused.decision.reason, DenyReason::key_limit);
  EXPECT_FALSE(refused.decision.retry_after.has_value());
  EXPECT_EQ(lim.overflows(), 1u);
  EXPECT_EQ(lim.size(), 5u);
  EXPECT_TRUE(lim.decide("key-3", "mini", Nanos{0}).decision.allowed);  // existing keys work
  // Once the old states are idle (full again after 2 s), the cap evicts them for new keys.
  EXPECT_TRUE(lim.decide("key-new", "mini", 3 * kSec).decision.allowed);
  EXPECT_EQ(lim.overflows(), 1u);
  EXPECT_LE(lim.size(), 5u);
}

TEST(KeyedLimiter, EnumeratesStatesWithNamesWhenAsked) {
  const auto lim_owned = test::must(
      KeyedLimiter::create(small_policy(), KeyedLimiterOptions{.shards = 4, .remember_names = 2}));
  KeyedLimiter& lim = *lim_owned;
  lim.decide("k-pro", "large", Nanos{0});
  lim.decide("alice", "mini", Nanos{0});
  lim.decide("bob", "mini", Nanos{0});  // beyond remember_names: shown without a name
  std::map<std::uint64_t, KeyStateView> seen;
  std::vector<std::string> names;
  lim.for_each_state(Nanos{0}, [&](const KeyStateView& v) {
    seen[v.key_id] = v;
    if (!v.api_key.empty()) names.emplace_back(v.api_key);
  });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(names.size(), 2u);
  const auto pro = lim.peek("k-pro", "large", Nanos{0});
  ASSERT_EQ(seen.count(pro.key_id), 1u);
  const KeyStateView& v = seen[pro.key_id];
  EXPECT_EQ(v.tier->name, "pro");
  ASSERT_NE(v.model, nullptr);
  EXPECT_EQ(v.model->name, "large");
  EXPECT_EQ(v.algorithm, Algorithm::token_bucket);
  EXPECT_DOUBLE_EQ(v.available, 96);
  EXPECT_DOUBLE_EQ(v.capacity, 100);
  EXPECT_EQ(v.api_key, "k-pro");
  // peek consumed nothing.
  EXPECT_DOUBLE_EQ(lim.peek("k-pro", "large", Nanos{0}).decision.remaining, 92);
  EXPECT_TRUE(lim.peek("carol", "mini", Nanos{0}).decision.allowed);
  EXPECT_EQ(lim.size(), 3u);
}

TEST(KeyedLimiter, SetPolicyCarriesStatesOver) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  EXPECT_EQ(admitted(lim, "alice", "mini", 5, Nanos{0}), 5);  // free bucket half full
  EXPECT_EQ(admitted(lim, "k-pro", "mini", 50, Nanos{0}), 50);
  ASSERT_EQ(lim.set_policy(small_policy(true, 20), Nanos{0}), Status{});
  EXPECT_EQ(lim.policy()->find_tier("free")->requests.capacity, 20);
  // Token bucket keeps the fraction: half of 20.
  EXPECT_EQ(admitted(lim, "alice", "mini", 30, Nanos{0}), 10);
  EXPECT_EQ(admitted(lim, "k-pro", "mini", 100, Nanos{0}), 50);

  // The free tier switches algorithm: its states start fresh, pro states stay.
  ASSERT_EQ(lim.set_policy(small_policy(true, 20, "gcra"), Nanos{0}), Status{});
  EXPECT_EQ(lim.size(), 1u);
  EXPECT_EQ(admitted(lim, "alice", "mini", 30, Nanos{0}), 20);
  EXPECT_EQ(admitted(lim, "k-pro", "mini", 10, Nanos{0}), 0);
}

TEST(KeyedLimiter, KeyMovedToAnotherTierIsReconfiguredOnItsNextDecision) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  EXPECT_EQ(admitted(lim, "alice", "mini", 5, Nanos{0}), 5);  // free: 5 of 10 left
  Policy moved = small_policy();
  moved.keys.emplace("alice", *moved.tier_index("pro"));
  ASSERT_EQ(lim.set_policy(std::move(moved), Nanos{0}), Status{});
  const auto d = lim.decide("alice", "mini", Nanos{0});
  ASSERT_TRUE(d.decision.allowed);
  EXPECT_EQ(d.tier->name, "pro");
  EXPECT_DOUBLE_EQ(d.decision.remaining, 49);  // half of 100, minus this request
  EXPECT_EQ(lim.size(), 1u);
}

TEST(KeyedLimiter, EveryAlgorithmServesATier) {
  auto policy = must_parse(R"({
    "tiers": {
      "tb": { "requests": { "algorithm": "token-bucket", "capacity": 5, "refill": "1/s" } },
      "gc": { "requests": { "algorithm": "gcra", "capacity": 5, "refill": "1/s" } },
      "lb": { "requests": { "algorithm": "leaky-bucket", "capacity": 5, "refill": "1/s" } },
      "sl": { "requests": { "algorithm": "sliding-log", "limit": 5, "window": "10s" } },
      "sc": { "requests": { "algorithm": "sliding-counter", "limit": 5, "window": "10s" } },
      "fw": { "requests": { "algorithm": "fixed-window", "limit": 5, "window": "10s" } }
    },
    "models": { "m": { "cost": 1 } },
    "keys": { "tb": "tb", "gc": "gc", "lb": "lb", "sl": "sl", "sc": "sc", "fw": "fw" }
  })");
  const auto lim_owned = test::must(KeyedLimiter::create(std::move(policy)));
  KeyedLimiter& lim = *lim_owned;
  for (const char* key : {"tb", "gc", "lb", "sl", "sc", "fw"}) {
    EXPECT_EQ(admitted(lim, key, "m", 5, Nanos{0}), 5) << key;
    const auto d = lim.decide(key, "m", Nanos{0});
    EXPECT_FALSE(d.decision.allowed) << key;
    EXPECT_EQ(d.tier->name, key);
  }
  std::map<Algorithm, double> levels;
  lim.for_each_state(Nanos{0}, [&](const KeyStateView& v) { levels[v.algorithm] = v.available; });
  EXPECT_EQ(levels.size(), 6u);
  for (const auto& [alg, level] : levels) EXPECT_DOUBLE_EQ(level, 0) << to_string(alg);
  EXPECT_EQ(lim.size(), 6u);
  EXPECT_EQ(lim.sweep(Nanos{3600} * 1'000'000'000), 6u);
  EXPECT_EQ(lim.size(), 0u);
}

TEST(KeyedLimiter, ThreadsOnOneKeyNeverOveradmit) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  // Time frozen: exactly the capacity is admitted however the threads interleave.
  std::atomic<int> total{0};
  test::on_threads(4, [&](int) { total += admitted(lim, "k-pro", "mini", 500, Nanos{0}); });
  EXPECT_EQ(total.load(), 100);
}

TEST(KeyedLimiter, ThreadsOnOneKeyWithMovingTimeStayWithinCapacityPlusRefill) {
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  ManualClock clock;
  std::atomic<int> total{0};
  std::atomic<int> running{4};
  test::on_threads(
      4,
      [&](int) {
        int mine = 0;
        for (int i = 0; i < 5'000; ++i)
          mine += lim.decide("k-pro", "mini", clock.now()).decision.allowed ? 1 : 0;
        total += mine;
        --running;
      },
      [&] {
        // 0.1 ms: 1 token per 1,000 steps
        while (running.load() > 0) clock.advance(Nanos{100'000});
      });
  const double elapsed_s = static_cast<double>(clock.now().count()) / 1e9;
  EXPECT_GE(total.load(), 100);
  EXPECT_LE(total.load(), 100 + 10.0 * elapsed_s + 1e-9);  // pro: C = 100, r = 10/s
}

TEST(KeyedLimiter, ThreadsOnManyKeysStayWithinCapacityPlusRefill) {
  const auto lim_owned =
      test::must(KeyedLimiter::create(small_policy(), KeyedLimiterOptions{.shards = 4}));
  KeyedLimiter& lim = *lim_owned;
  ManualClock clock;
  constexpr int kKeys = 32;
  std::vector<std::atomic<int>> per_key(kKeys);
  std::atomic<int> running{4};
  test::on_threads(
      4,
      [&](int t) {
        for (int i = 0; i < 20'000; ++i) {
          const int k = (i * 7 + t) % kKeys;
          if (lim.decide("key-" + std::to_string(k), "mini", clock.now()).decision.allowed)
            ++per_key[k];
        }
        --running;
      },
      [&] {
        // The driver moves time while the workers run; they read it concurrently.
        while (running.load() > 0) clock.advance(kMs);
      });
  const double elapsed_s = static_cast<double>(clock.now().count()) / 1e9;
  int total = 0;
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_LE(per_key[k].load(), 10 + 1.0 * elapsed_s + 1e-9) << k;
    EXPECT_GE(per_key[k].load(), 10) << k;
    total += per_key[k].load();
  }
  EXPECT_LE(total, kKeys * (10 + elapsed_s) + 1e-9);
}

TEST(KeyedLimiter, HashSeparatesKeyFromModel) {
  EXPECT_NE(KeyedLimiter::hash_key("ab", "c"), KeyedLimiter::hash_key("a", "bc"));
  EXPECT_NE(KeyedLimiter::hash_key("alice", "mini"), KeyedLimiter::hash_key("alice", "large"));
  EXPECT_EQ(KeyedLimiter::hash_key("alice", "mini"), KeyedLimiter::hash_key("alice", "mini"));
}

TEST(KeyedLimiter, RefusesPoliciesWithTooManyTiers) {
  Policy big = small_policy();
  for (int i = 0; i < 300; ++i)
    big.tiers.push_back(TierPolicy{"t" + std::to_string(i), big.tiers[0].requests, {}});
  const auto lim_owned = test::must(KeyedLimiter::create(small_policy()));
  KeyedLimiter& lim = *lim_owned;
  const Status err = lim.set_policy(big, Nanos{0});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().find("at most 255 tiers"), std::string::npos) << err;
  EXPECT_EQ(lim.policy()->tiers.size(), 2u);
  const auto refused = KeyedLimiter::create(big);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), err.error());
}

}  // namespace
}  // namespace limitscope
