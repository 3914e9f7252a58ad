// Verifies that RedisProbe finds an emptied own-schema key through the rule's pressure index
// (written by the real decide script on a real redis-server) without scanning for it: with a
// SCAN budget of 10 keys a refresh over 3,000 keys, a key drained by a decision is the top row
// at the next refresh, counted as found through the index, though it is none of the keys the
// same SCAN budget reaches in those refreshes (a probe without the index shows which); a
// foreign schema beside it is still found by SCAN.
#include <gtest/gtest.h>

#include <set>

#include "core/probe/redis_probe.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

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

}  // namespace
}  // namespace limitscope::probe
