// Verifies discovery's adaptive SCAN budget: the budget follows the time SCAN takes and the CPU
// discovery costs the dashboard, the tighter of the two (exact arithmetic on given costs,
// smoothing, bounds, at most doubling, the split), and on a real redis-server a probe
// under a budget asks for no more than it, finds every key eventually, finds a key added
// later within one pass's worth of refreshes, and scans a small keyspace whole each refresh.
#include <gtest/gtest.h>

#include "core/probe/redis_probe.h"
#include "core/probe/scan_budget.h"
#include "support/redis_server.h"

namespace limitscope::probe {
namespace {

using std::chrono::milliseconds;

/// A refresh's discovery that took `spent` of wall time and no CPU worth counting.
ScanCost wall(Nanos spent) {
  return {spent, Nanos{0}};
}
/// ... and one that cost `cpu` of the dashboard's CPU, SCAN taking `spent`.
ScanCost costs(Nanos spent, Nanos cpu) {
  return {spent, cpu};
}

ScanBudgetOptions budget_options() {
  ScanBudgetOptions o;
  o.time_per_refresh = milliseconds(100);
  o.cpu_per_refresh = milliseconds(10);
  o.min_keys = 1000;
  o.max_keys = 50000;
  o.initial_keys = 10000;
  return o;
}

TEST(ScanBudget, FollowsTheTimeShareAtTheCostSeen) {
  ScanBudget b(budget_options());
  EXPECT_EQ(b.keys(), 10000u);
  b.observe(wall(milliseconds(50)), 10000);  // 5 µs a key: 20,000 fit in 100 ms (= the 2x cap)
  EXPECT_EQ(b.keys(), 20000u);
  b.observe(wall(milliseconds(100)), 20000);  // same cost: stays
  EXPECT_EQ(b.keys(), 20000u);
  b.observe(wall(milliseconds(400)), 20000);  // 20 µs now; smoothed 12.5 µs: 8,000 fit
  EXPECT_EQ(b.keys(), 8000u);
}

TEST(ScanBudget, StaysWithinItsBoundsAndGrowsAtMostTwofold) {
  ScanBudget b(budget_options());
  b.observe(wall(std::chrono::seconds(100)),
            10000);  // a very slow server: the floor, still progressing
  EXPECT_EQ(b.keys(), 1000u);
  ScanBudget fast(budget_options());
  std::vector<std::size_t> seen;
  for (int i = 0; i < 6; ++i) {
    fast.observe(wall(Nanos{0}), fast.keys());  // free SCANs (a clock that does not move)
    seen.push_back(fast.keys());
  }
  EXPECT_EQ(seen, (std::vector<std::size_t>{20000, 40000, 50000, 50000, 50000, 50000}));
  b.observe(wall(milliseconds(5)), 0);  // nothing asked: nothing learnt
  EXPECT_EQ(b.keys(), 1000u);
  ScanBudgetOptions odd = budget_options();
  odd.min_keys = 0;
  odd.max_keys = 0;
  EXPECT_EQ(ScanBudget(odd).keys(), 1u);  // never a refresh that cannot scan at all
}

TEST(ScanBudget, TheTighterOfTheTimeAndCpuCapsWins) {
  ScanBudget b(budget_options());  // 100 ms of SCAN, 10 ms of the dashboard's CPU
  // A fast server (5 µs a key: 20,000 would fit the time) but 2 µs of CPU a key: 5,000 fit.
  b.observe(costs(milliseconds(50), milliseconds(20)), 10000);
  EXPECT_EQ(b.keys(), 5000u);
  // A slow server (40 µs a key; smoothed 22.5 µs: 4,444 fit) and cheap keys (0.2 µs; smoothed
  // 1.1 µs: 9,090 fit): the time binds again.
  b.observe(costs(milliseconds(200), milliseconds(1)), 5000);
  EXPECT_EQ(b.keys(), 4444u);
}

TEST(ScanBudget, SmoothsTheCpuCostAndKeepsItsBounds) {
  ScanBudget b(budget_options());
  b.observe(costs(Nanos{0}, milliseconds(10)), 10000);  // 1 µs a key: 10,000 fit
  EXPECT_EQ(b.keys(), 10000u);
  b.observe(costs(Nanos{0}, milliseconds(50)), 10000);  // 5 µs; smoothed 3 µs: 3,333 fit
  EXPECT_EQ(b.keys(), 3333u);
  b.observe(costs(Nanos{0}, milliseconds(3333)), 3333);  // 1 ms a key: the floor
  EXPECT_EQ(b.keys(), 1000u);
  ScanBudget cheap(budget_options());
  std::vector<std::size_t> seen;
  for (int i = 0; i < 4; ++i) {
    cheap.observe(costs(Nanos{0}, Nanos{0}), cheap.keys());  // keys that cost nothing
    seen.push_back(cheap.keys());
  }
  EXPECT_EQ(seen, (std::vector<std::size_t>{20000, 40000, 50000, 50000})) << "twofold, to max";
  ScanBudget negative(budget_options());
  negative.observe(costs(Nanos{0}, Nanos{-5}), 10000);  // a clock read on two threads: free
  EXPECT_EQ(negative.keys(), 20000u);
}

TEST(ScanBudget, ReshapeKeepsTheCpuCostLearnt) {
  ScanBudget b(budget_options());
  b.observe(costs(Nanos{0}, milliseconds(5)), 10000);  // 0.5 µs a key: 20,000 fit in 10 ms
  ASSERT_EQ(b.keys(), 20000u);
  b.reshape(ScanBudget::split(budget_options(), 2));    // 5 ms of CPU now
  b.observe(costs(Nanos{0}, milliseconds(10)), 20000);  // 0.5 µs again: 10,000 fit in 5 ms
  EXPECT_EQ(b.keys(), 10000u);
}

TEST(ScanBudget, SplitGivesScannersAtOnceOneShareBetweenThem) {
  const ScanBudgetOptions third = ScanBudget::split(budget_options(), 3);
  EXPECT_EQ(third.time_per_refresh, Nanos{33'333'333});
  EXPECT_EQ(third.cpu_per_refresh, Nanos{3'333'333});
  EXPECT_EQ(third.min_keys, 333u);
  EXPECT_EQ(third.max_keys, 16666u);
  EXPECT_EQ(third.initial_keys, 3333u);
  const ScanBudgetOptions whole = ScanBudget::split(budget_options(), 0);  // as one
  EXPECT_EQ(whole.time_per_refresh, milliseconds(100));
  EXPECT_EQ(whole.cpu_per_refresh, milliseconds(10));
  EXPECT_EQ(whole.max_keys, 50000u);
  ScanBudgetOptions few = budget_options();
  few.min_keys = 2;
  EXPECT_EQ(ScanBudget::split(few, 5).min_keys, 1u);  // never a scanner that cannot scan
}

TEST(ScanBudget, ReshapeKeepsTheCostLearntAndTheNewBounds) {
  ScanBudget b(budget_options());
  b.observe(wall(milliseconds(50)), 10000);  // 5 µs a key
  ASSERT_EQ(b.keys(), 20000u);
  b.reshape(ScanBudget::split(budget_options(), 2));  // 50 ms, at most 25,000 keys
  EXPECT_EQ(b.keys(), 20000u);
  b.observe(wall(milliseconds(100)), 20000);  // 5 µs again: 10,000 fit in the 50 ms now
  EXPECT_EQ(b.keys(), 10000u);
  b.reshape(ScanBudget::split(budget_options(), 20));  // at most 2,500
  EXPECT_EQ(b.keys(), 2500u);
}

class AdaptiveScan : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = test::RedisServer::start();
    redis::RedisUrl url;
    url.port = server_->port();
    auto c = redis::Connection::open(url, {std::chrono::seconds(2), std::chrono::seconds(30)});
    ASSERT_TRUE(c.ok()) << c.error().message;
    conn_.emplace(std::move(c).value());
  }
  void seed(int gateway_keys, int other_keys) {
    redis::CommandBatch b;
    for (int i = 0; i < gateway_keys; ++i)
      b.add({"HSET", "rl:free-" + std::to_string(i), "tokens", "30", "ts", "1"});
    for (int i = 0; i < other_keys; ++i) b.add({"SET", "other:" + std::to_string(i), "x"});
    ASSERT_TRUE(conn_->pipeline(b).ok());
  }
  static std::vector<LimiterProfile> profiles() {
    return *parse_profiles(
        R"({"profiles": [{"name": "gw", "match": "rl:free-*", "kind": "token_bucket_hash",
        "time_unit": "ms", "capacity": 60, "refill": "1/s"}]})");
  }
  ProbeOptions options(std::size_t budget_keys) {
    ProbeOptions o;
    o.scan_count = 100;
    o.max_tracked = 100000;
    o.read_ttl = false;
    ScanBudgetOptions b;
    b.min_keys = b.max_keys = b.initial_keys = budget_keys;
    o.adaptive_scan = b;
    o.clock = &clock_;
    return o;
  }
  static bool has(const ProbeSnapshot& s, const std::string& key) {
    for (const auto& k : s.keys) {
      if (k.key == key) return true;
    }
    return false;
  }

  ManualClock clock_{Nanos{0}};
  std::unique_ptr<test::RedisServer> server_;
  std::optional<redis::Connection> conn_;
};

TEST_F(AdaptiveScan, RespectsItsBudgetAndFindsEveryKeyEventually) {
  seed(5000, 2000);
  RedisProbe probe(profiles(), options(500));
  int refreshes = 0;
  ProbeSnapshot last;
  while (refreshes < 100) {
    auto snap = probe.refresh(*conn_);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    ++refreshes;
    EXPECT_EQ(snap->scan_budget, 500u);
    EXPECT_LE(snap->scan_calls, 5u) << "COUNT 100 per call, 500 per refresh";
    last = std::move(*snap);
    if (last.discovery_complete) break;
  }
  // 7,000 keys at 500 COUNT units a refresh: about 14 refreshes (SCAN's COUNT is a hint).
  EXPECT_GE(refreshes, 10);
  EXPECT_LE(refreshes, 20);
  EXPECT_EQ(probe.tracked(), 5000u);
  EXPECT_EQ(last.unmatched, 2000u);
}

TEST_F(AdaptiveScan, FindsAKeyAddedLaterWithinAPassOfRefreshes) {
  seed(3000, 1000);
  RedisProbe probe(profiles(), options(500));
  for (int i = 0; i < 100 && probe.passes() == 0; ++i) ASSERT_TRUE(probe.refresh(*conn_).ok());
  ASSERT_EQ(probe.passes(), 1u);
  ASSERT_TRUE(conn_->command({"HSET", "rl:free-new", "tokens", "0", "ts", "1"}).ok());
  int found_after = 0;
  for (int i = 1; i <= 20 && found_after == 0; ++i) {
    auto snap = probe.refresh(*conn_);
    ASSERT_TRUE(snap.ok());
    if (has(*snap, "rl:free-new")) found_after = i;
  }
  ASSERT_GT(found_after, 0) << "not found within 20 refreshes";
  EXPECT_LE(found_after, 4001 / 500 + 2);  // the rest of this pass and, at worst, the next
}

TEST_F(AdaptiveScan, ScansASmallKeyspaceWholeAtEveryRefresh) {
  seed(300, 100);
  RedisProbe probe(profiles(), options(10000));
  auto first = probe.refresh(*conn_);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->discovery_complete);
  EXPECT_EQ(first->keys.size(), 300u);
  ASSERT_TRUE(conn_->command({"HSET", "rl:free-new", "tokens", "0", "ts", "1"}).ok());
  auto next = probe.refresh(*conn_);
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(has(*next, "rl:free-new")) << "a new key is found at the next refresh";
  EXPECT_EQ(probe.passes(), 2u) << "one pass per refresh, not more";
}

}  // namespace
}  // namespace limitscope::probe
