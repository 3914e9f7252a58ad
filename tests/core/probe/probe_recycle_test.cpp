// Verifies RedisProbe's recycled readings on a real redis-server: readings handed back are
// written over, figures only where a position holds the same key as before, and whole where
// the order changed, the vector came back in another order, or the rule's config changed (its
// parameters text is part of every reading). Every reading must say its own key's figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/probe/redis_probe.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"

namespace limitscope::probe {
namespace {

using redis::Connection;
using test::RedisServer;

constexpr int kKeys = 6;

Status set_capacity(Connection& c, double capacity) {
  auto set = redis::set_config(
      c, redis::KeySchema{}, "rc",
      // Refilled at 1/min: the levels stay where the decisions left them during the test.
      redis::single_limit(
          test::bucket(Algorithm::token_bucket, capacity, 1, std::chrono::minutes(1))),
      redis::ChangeInfo{"test", "probe recycle", std::nullopt});
  if (!set) return make_error(set.error().message);
  return {};
}

// Each reading against the level its key was left at (of the 100 tokens it started with, it
// drew `drawn`; a larger capacity keeps the tokens stored) under a rule of `capacity`.
void expect_levels(const ProbeSnapshot& s, const std::map<std::string, double>& drawn,
                   double capacity) {
  ASSERT_EQ(s.keys.size(), drawn.size());
  for (const KeyReading& r : s.keys) {
    const auto it = drawn.find(r.key);
    ASSERT_NE(it, drawn.end()) << r.key;
    ASSERT_TRUE(r.level && r.capacity) << r.key << ": " << r.error;
    EXPECT_NEAR(*r.level, 100 - it->second, 0.1) << r.key;
    EXPECT_EQ(*r.capacity, capacity) << r.key;
    EXPECT_NE(r.parameters.find("capacity=" + std::to_string(static_cast<int>(capacity))),
              std::string::npos)
        << r.key << ": " << r.parameters;
  }
  for (std::size_t i = 1; i < s.keys.size(); ++i)
    EXPECT_GE(*s.keys[i - 1].pressure(), *s.keys[i].pressure()) << "most pressure first";
}

TEST(ProbeRecycle, ReadingsHandedBackSayTheirOwnKeysAfterReordersAndAConfigChange) {
  auto server = RedisServer::start();
  Connection c = test::connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter(schema);
  ASSERT_TRUE(set_capacity(c, 100).ok());
  std::map<std::string, double> drawn;  // state key → tokens drawn
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "u" + std::to_string(i);
    ASSERT_TRUE(limiter.decide(c, "rc", key, 1.0 + i).ok());
    drawn[schema.state_key("rc", key)] = 1.0 + i;
  }
  ProbeOptions o;
  o.read_ttl = false;
  RedisProbe probe(builtin_profiles(), o);
  auto first = probe.refresh(c);
  ASSERT_TRUE(first.ok()) << first.error().message;
  expect_levels(*first, drawn, 100);
  EXPECT_EQ(first->keys.front().key, schema.state_key("rc", "u5"));

  // Handed back as handed out: the same keys at the same places.
  probe.recycle(std::move(first->keys));
  auto same = probe.refresh(c);
  ASSERT_TRUE(same.ok()) << same.error().message;
  expect_levels(*same, drawn, 100);

  // Handed back reversed, and the least drawn key drained: it moves to the top.
  std::reverse(same->keys.begin(), same->keys.end());
  probe.recycle(std::move(same->keys));
  ASSERT_TRUE(limiter.decide(c, "rc", "u0", 50).ok());
  drawn[schema.state_key("rc", "u0")] += 50;
  auto reordered = probe.refresh(c);
  ASSERT_TRUE(reordered.ok()) << reordered.error().message;
  expect_levels(*reordered, drawn, 100);
  EXPECT_EQ(reordered->keys.front().key, schema.state_key("rc", "u0"));

  // The rule's capacity doubles: every reading says so (its parameters and its capacity).
  probe.recycle(std::move(reordered->keys));
  ASSERT_TRUE(set_capacity(c, 200).ok());
  auto changed = probe.refresh(c);
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  expect_levels(*changed, drawn, 200);
}

}  // namespace
}  // namespace limitscope::probe
