// Verifies profile detection: each field schema of DESIGN §4 sampled from a real server gets
// the right kind, fields and time unit, and what the operator must add; keys that are not
// limiter state get no proposal; a proposal round-trips through the profiles parser.
#include "core/probe/profile_detect.h"

#include <gtest/gtest.h>

#include "core/probe/redis_probe.h"
#include "support/redis_server.h"
#include "support/redis_time.h"

namespace limitscope::probe {
namespace {

struct Row {
  std::vector<std::vector<std::string>> setup;
  std::string key;
  std::optional<ProfileKind> kind;
  TimeUnit unit;
  std::vector<std::string> needs;
};

TEST(ProfileDetect, ProposesTheKindAndUnitFromWhatRedisHolds) {
  auto server = test::RedisServer::start();
  redis::Connection c = test::connect(*server);
  const std::int64_t now_s = test::server_time_us(c) / 1'000'000;
  const std::int64_t now_us = now_s * 1'000'000;
  const std::string ms = std::to_string(now_s * 1000);
  const Row rows[] = {
      {{{"HSET", "rl:alice", "tokens", "0.17499999999999447", "ts", ms}},
       "rl:alice",
       ProfileKind::token_bucket_hash,
       TimeUnit::ms,
       {"capacity", "refill"}},
      {{{"HSET", "rate_limit:token_bucket:7", "tokens", "3", "last_update",
         std::to_string(now_s) + ".25"}},
       "rate_limit:token_bucket:7",
       ProfileKind::token_bucket_hash,
       TimeUnit::s,
       {"capacity", "refill"}},
      {{{"ZADD", "sw:bob", ms, "r1"}},
       "sw:bob",
       ProfileKind::sliding_window_zset,
       TimeUnit::ms,
       {"window", "limit"}},
      {{{"SET", "cell:carol", std::to_string(now_us * 1000 + 500)}},
       "cell:carol",
       ProfileKind::gcra_tat,
       TimeUnit::ns,
       {"capacity", "refill"}},
      {{{"SET", "rlflx:dave", "12", "PX", "30000"}},
       "rlflx:dave",
       ProfileKind::counter_ttl,
       TimeUnit::ms,
       {"limit"}},
      {{{"SET", "envoy_dom_k_v_" + std::to_string(now_s - now_s % 60), "4"}},
       "envoy_dom_k_v_" + std::to_string(now_s - now_s % 60),
       ProfileKind::fixed_window_counter,
       TimeUnit::s,
       {"window", "limit"}},
      {{{"SET", "session:x", "hello"}}, "session:x", std::nullopt, TimeUnit::ms, {}},
      {{{"HSET", "user:1", "name", "erin"}}, "user:1", std::nullopt, TimeUnit::ms, {}},
      {{{"SET", "counter:forever", "12"}}, "counter:forever", std::nullopt, TimeUnit::ms, {}},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.key);
    for (const auto& cmd : row.setup) ASSERT_TRUE(c.command(cmd).ok());
    auto sample = sample_key(c, row.key);
    ASSERT_TRUE(sample.ok()) << sample.error().message;
    const auto p = propose_profile(*sample, now_us);
    if (!row.kind) {
      EXPECT_FALSE(p.has_value());
      continue;
    }
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->profile.kind, *row.kind);
    if (row.kind != ProfileKind::counter_ttl) {
      EXPECT_EQ(p->profile.time_unit, row.unit);
    }
    EXPECT_EQ(p->needs, row.needs);
    EXPECT_FALSE(p->evidence.empty());
    // Completed with what it needs, the proposal parses as a profile that matches the key.
    std::string json = profile_to_json(p->profile);
    json.pop_back();
    for (const auto& need : p->needs) {
      json += need == "refill"   ? ",\"refill\":\"1/s\""
              : need == "window" ? ",\"window\":\"60s\""
                                 : ",\"" + need + "\":10";
    }
    json += "}";
    auto parsed = parse_profiles("{\"profiles\": [" + json + "]}");
    ASSERT_TRUE(parsed.ok()) << parsed.error() << " in " << json;
    EXPECT_NE(match_profile(*parsed, row.key), nullptr);
  }
  EXPECT_EQ(pattern_for("rl:free-alice"), "rl:*");
  EXPECT_EQ(time_unit_of(42, now_us), std::nullopt);
}

TEST(ProfileDetect, TheProbeCollectsOneUnmatchedExamplePerPattern) {
  auto server = test::RedisServer::start();
  redis::Connection c = test::connect(*server);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(c.command({"SET", "x:" + std::to_string(i), "1"}).ok());
  ASSERT_TRUE(c.command({"SET", "y:1", "1"}).ok());
  RedisProbe probe({}, ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->unmatched, 51u);
  EXPECT_EQ(snap->unmatched_examples.size(), 2u);
}

}  // namespace
}  // namespace limitscope::probe
