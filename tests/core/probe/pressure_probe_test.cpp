// Verifies that RedisProbe finds an emptied own-schema key through the rule's pressure index
// (written by the real decide script on a real redis-server) without scanning for it: with a
// SCAN budget of 10 keys a refresh over 3,000 keys, a key drained by a decision is the top row
// at the next refresh, counted as found through the index, though it is none of the keys the
// same SCAN budget reaches in those refreshes (a probe without the index shows which); a
// foreign schema beside it is still found by SCAN. Among keys under equal pressure, the one
// emptied last is listed first: a key emptied after a dozen others is not hidden below the top
// rows by a tie broken by key name.
#include <gtest/gtest.h>

#include <set>

#include "core/probe/redis_probe.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"
#include "support/redis_time.h"

namespace limitscope::probe {
namespace {

using redis::Connection;
using test::RedisServer;

constexpr int kKeys = 3000;

ProbeOptions small_scan(bool index) {
  ProbeOptions o;
  o.scan_count = 10;
  o.scan_calls_per_refresh = 1;  // 10 keys a refresh: a pass takes 300 refreshes
  o.read_ttl = false;
  o.pressure_index = index;
  return o;
}

std::set<std::string> keys_of(const ProbeSnapshot& s) {
  std::set<std::string> out;
  for (const auto& k : s.keys) out.insert(k.key);
  return out;
}

TEST(PressureProbe, ADrainedKeyIsTheTopRowAtTheNextRefreshWithoutAScan) {
  auto server = RedisServer::start();
  Connection c = test::connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter(schema);
  auto set = redis::set_config(c, schema, "pro",
                               redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 1)),
                               redis::ChangeInfo{"test", "pressure probe", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  std::vector<redis::DecideRequest> seed;
  for (int i = 0; i < kKeys; ++i)
    seed.push_back(redis::DecideRequest{"k" + std::to_string(i), {1.0}});
  auto seeded = limiter.decide_batch(c, "pro", seed, 16);
  ASSERT_TRUE(seeded.ok()) << seeded.error().message;
  test::must(c, {"HSET", "rl:foreign", "tokens", "3", "ts", "0"});

  // What two refreshes of a 10-key SCAN budget see without the index.
  RedisProbe plain(builtin_profiles(), small_scan(false));
  std::set<std::string> scanned;
  for (int r = 0; r < 2; ++r) {
    auto s = plain.refresh(c);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->index_reads, 0u);
    for (const auto& k : keys_of(*s)) scanned.insert(k);
  }
  ASSERT_LT(scanned.size(), 100u);  // COUNT is a hint: about 10 a refresh, far from 3,000
  std::string victim;
  for (int i = 0; i < kKeys && victim.empty(); ++i) {
    const std::string key = schema.state_key("pro", "k" + std::to_string(i));
    if (scanned.count(key) == 0) victim = "k" + std::to_string(i);
  }
  const std::string victim_key = schema.state_key("pro", victim);

  RedisProbe probe(builtin_profiles(), small_scan(true));
  auto first = probe.refresh(c);  // learns the rule from the keys its SCAN found
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(keys_of(*first).count(victim_key), 0u);
  auto drained = limiter.decide(c, "pro", victim, 95);
  ASSERT_TRUE(drained.ok() && drained->decision.allowed);

  auto second = probe.refresh(c);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_LT(second->scanned, 100u);  // the budget (about 10), not a pass
  EXPECT_FALSE(second->discovery_complete);
  EXPECT_EQ(second->index_reads, 1u);
  EXPECT_EQ(second->from_index, 1u);
  ASSERT_FALSE(second->keys.empty());
  EXPECT_EQ(second->keys.front().key, victim_key);
  ASSERT_TRUE(second->keys.front().level);
  EXPECT_LT(*second->keys.front().level, 10);

  // A foreign schema has no index: SCAN still finds it.
  auto all = probe.probe_all(c);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(keys_of(*all).count("rl:foreign"), 1u);
}

// Fixed windows whose start is ahead of the server's clock keep their count whatever the time:
// full ones are under pressure exactly 1.0 (a tie no refill breaks), in the rule's own schema.
TEST(PressureProbe, AKeyEmptiedAfterOthersAtTheSamePressureComesFirst) {
  auto server = RedisServer::start();
  Connection c = test::connect(*server);
  const redis::KeySchema schema;
  auto set = redis::set_config(
      c, schema, "win",
      redis::single_limit(test::window(Algorithm::fixed_window, 5, std::chrono::hours(1))),
      redis::ChangeInfo{"test", "ties", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  const std::string ahead = std::to_string(test::server_time_us(c) + 3'600'000'000LL);
  for (int i = 0; i < 12; ++i) {
    test::must(c, {"HSET", schema.state_key("win", "a" + std::to_string(10 + i)), "ws", ahead,
                   "count", "5"});
  }
  const std::string last = schema.state_key("win", "z");  // after every "a…" by name
  test::must(c, {"HSET", last, "ws", ahead, "count", "0"});

  ProbeOptions o = small_scan(true);
  o.scan_count = 1000;  // every key at every refresh
  RedisProbe probe(builtin_profiles(), o);
  auto before = probe.refresh(c);
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_EQ(before->keys.size(), 13u);
  EXPECT_EQ(before->keys.back().key, last);
  ASSERT_TRUE(before->keys.front().occupancy);
  EXPECT_EQ(*before->keys.front().occupancy, 1.0);

  test::must(c, {"HSET", last, "count", "5"});  // emptied now: the 13th key at pressure 1.0
  auto after = probe.refresh(c);
  ASSERT_TRUE(after.ok()) << after.error().message;
  ASSERT_EQ(after->keys.size(), 13u);
  EXPECT_EQ(after->keys.front().key, last);
  EXPECT_EQ(*after->keys.front().occupancy, 1.0);
  EXPECT_GT(after->keys.front().pressure_rose_us, after->keys[1].pressure_rose_us);
  // The others keep their order among themselves (by name, all risen at the first refresh).
  EXPECT_EQ(after->keys[1].key, schema.state_key("win", "a10"));
}

// The same order where readings of several servers are merged (ClusterProbe).
TEST(PressureProbe, SortByPressureListsTheLatestRiseFirstAmongEqualPressures) {
  std::vector<KeyReading> keys(4);
  keys[0].key = "a";
  keys[0].fill = 0.0;
  keys[0].pressure_rose_us = 100;
  keys[1].key = "b";
  keys[1].fill = 3e-4;  // equal to a thousandth (the key table's 0.1%): a tie
  keys[1].pressure_rose_us = 300;
  keys[2].key = "c";
  keys[2].fill = 0.5;
  keys[2].pressure_rose_us = 900;
  keys[3].key = "d";
  keys[3].fill = 0.002;  // two thousandths: less pressure, whenever it rose
  keys[3].pressure_rose_us = 1000;
  sort_by_pressure(keys);
  EXPECT_EQ(keys[0].key, "b");
  EXPECT_EQ(keys[1].key, "a");
  EXPECT_EQ(keys[2].key, "d");
  EXPECT_EQ(keys[3].key, "c");
}

}  // namespace
}  // namespace limitscope::probe
