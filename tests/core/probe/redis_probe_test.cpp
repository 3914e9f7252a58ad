// Verifies RedisProbe against a real redis-server seeded with keys of every kind: foreign
// schemas (float strings as gateways write them) and our own (states written by the real
// decide script), read exactly at the server's TIME; unmatched keys counted; wrong types and
// garbage reported per key; discovery within its SCAN budget; the tracked-key cap keeping the
// keys under the most pressure; keys that expire are let go.
#include "core/probe/redis_probe.h"

#include <gtest/gtest.h>

#include "core/limiter/algorithms.h"
#include "core/redis/redis_limiter.h"
#include "core/redis/rule_config.h"
#include "core/redis/state_codec.h"
#include "core/redis/state_format.h"
#include "support/limit_params_builders.h"
#include "support/redis_server.h"
#include "support/redis_time.h"

namespace limitscope::probe {
namespace {

using redis::Connection;
using test::must;
using test::RedisServer;

std::vector<LimiterProfile> profiles(const char* json) {
  auto p = parse_profiles(json);
  EXPECT_TRUE(p.ok()) << p.error();
  auto all = *p;
  for (auto& b : builtin_profiles()) all.push_back(b);
  return all;
}

std::string must_get(Connection& c, const std::string& key) {
  auto v = c.command({"GET", key});
  EXPECT_TRUE(v.ok() && v->is_string()) << key;
  return v.ok() ? v->str : std::string();
}

const KeyReading* find(const ProbeSnapshot& s, const std::string& key) {
  for (const auto& k : s.keys) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

const char* kProfiles = R"({"profiles": [
  {"name": "gw-free", "match": "rl:free-*", "kind": "token_bucket_hash",
   "fields": {"tokens": "tokens", "updated": "ts"}, "time_unit": "ms", "capacity": 60, "refill": "1/s"},
  {"name": "sw", "match": "sw:*", "kind": "sliding_window_zset", "time_unit": "ms", "window": "60s", "limit": 100},
  {"name": "cell", "match": "cell:*", "kind": "gcra_tat", "time_unit": "ns", "capacity": 10, "refill": "5/s"},
  {"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 50},
  {"name": "envoy", "match": "envoy_*", "kind": "fixed_window_counter", "time_unit": "s", "window": "60s", "limit": 10}
]})";

TEST(RedisProbe, ForeignKindsAreReadExactlyAtServerTime) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const std::int64_t t0 = test::server_time_us(c);
  const std::int64_t t0_ms = t0 / 1000;
  must(c, {"HSET", "rl:free-alice", "tokens", "0.17499999999999447", "ts",
           std::to_string(t0_ms - 2500)});
  must(c, {"PEXPIRE", "rl:free-alice", "60000"});
  for (int i = 0; i < 40; ++i) {
    // 30 requests in the last minute, 10 older ones.
    const std::int64_t at = i < 30 ? t0_ms - 1000 * i : t0_ms - 61000 - 1000 * i;
    must(c, {"ZADD", "sw:bob", std::to_string(at), "req" + std::to_string(i)});
  }
  // TAT 600 ms ahead (in ns): 3 of 10 emission intervals used.
  must(c, {"SET", "cell:carol", std::to_string((t0 + 600'000) * 1000)});
  must(c, {"SET", "rlflx:dave", "20", "PX", "5000"});
  const std::int64_t window_start = (t0 / 1'000'000 / 60) * 60;
  must(c, {"SET", "envoy_d_k_v_" + std::to_string(window_start), "8"});
  must(c, {"SET", "envoy_d_k_v_" + std::to_string(window_start - 120), "9"});
  must(c, {"SET", "session:xyz", "not a limiter"});

  RedisProbe probe(profiles(kProfiles), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  const std::int64_t now = snap->server_time_us;
  ASSERT_GE(now, t0);
  EXPECT_TRUE(snap->discovery_complete);
  EXPECT_EQ(snap->unmatched, 1u);

  const auto* alice = find(*snap, "rl:free-alice");
  ASSERT_NE(alice, nullptr);
  ASSERT_TRUE(alice->error.empty()) << alice->error;
  const double elapsed_s = static_cast<double>(now - (t0_ms - 2500) * 1000) / 1e6;
  EXPECT_DOUBLE_EQ(*alice->level, 0.17499999999999447 + elapsed_s);
  EXPECT_GT(*alice->ttl_ms, 0);

  const auto* bob = find(*snap, "sw:bob");
  ASSERT_NE(bob, nullptr);
  // Requests at t0 − 0 … t0 − 29 s stay inside (now − 60 s, now] unless now moved 31 s on.
  EXPECT_EQ(bob->count, 30);
  EXPECT_DOUBLE_EQ(*bob->occupancy, 0.3);

  const auto* carol = find(*snap, "cell:carol");
  ASSERT_NE(carol, nullptr);
  EXPECT_NEAR(*carol->level, 10 - static_cast<double>(t0 + 600'000 - now) / 200'000, 1e-9);

  const auto* dave = find(*snap, "rlflx:dave");
  ASSERT_NE(dave, nullptr);
  EXPECT_DOUBLE_EQ(*dave->occupancy, 0.4);
  EXPECT_LE(*dave->ttl_ms, 5000);

  const auto* live = find(*snap, "envoy_d_k_v_" + std::to_string(window_start));
  const auto* over = find(*snap, "envoy_d_k_v_" + std::to_string(window_start - 120));
  ASSERT_NE(live, nullptr);
  ASSERT_NE(over, nullptr);
  EXPECT_DOUBLE_EQ(*over->occupancy, 0);
  if (now / 1'000'000 < window_start + 60) {
    EXPECT_DOUBLE_EQ(*live->occupancy, 0.8);
  }
}

// Decisions made by the real decide script at explicit past times, mirrored by the C++
// algorithm: the probe's level at the server's time equals the algorithm's available().
TEST(RedisProbe, OwnSchemaLevelsEqualTheCoreAlgorithm) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter(schema);
  const Algorithm algorithms[] = {Algorithm::token_bucket, Algorithm::gcra, Algorithm::sliding_log,
                                  Algorithm::sliding_counter, Algorithm::fixed_window};
  const std::int64_t t0 = test::server_time_us(c) - 3'000'000;  // decisions over the last 3 s
  struct Mirror {
    std::string rule;
    LimitParams params;
    std::vector<bool> allowed;  // the script's decisions, at t0 + i·200 ms
  };
  std::vector<Mirror> mirrors;
  for (Algorithm a : algorithms) {
    Mirror m;
    m.rule = "own-" + std::string(to_string(a));
    m.params = a == Algorithm::token_bucket || a == Algorithm::gcra
                   ? test::bucket(a, 10, 2)
                   : test::window(a, 10, std::chrono::seconds(5));
    auto set = redis::set_config(c, schema, m.rule, redis::single_limit(m.params),
                                 redis::ChangeInfo{"test", "probe test", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
    for (int i = 0; i < 12; ++i) {
      redis::DecideOptions o;
      o.now_us = t0 + i * 200'000;
      o.ttl_pad_ms = 60'000;
      auto d = limiter.decide(c, m.rule, "erin", 1, o);
      ASSERT_TRUE(d.ok()) << d.error().message;
      m.allowed.push_back(d->decision.allowed);
    }
    mirrors.push_back(m);
  }

  RedisProbe probe(builtin_profiles(), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_TRUE(snap->errors.empty()) << snap->errors.front();
  const Nanos now{snap->server_time_us * 1000};
  for (const auto& m : mirrors) {
    SCOPED_TRACE(m.rule);
    const auto* r = find(*snap, schema.state_key(m.rule, "erin"));
    ASSERT_NE(r, nullptr);
    ASSERT_TRUE(r->error.empty()) << r->error;
    EXPECT_EQ(r->profile, "limitscope");
    // The same decisions by the core algorithm, then its level at the probe's time.
    const double available = visit_algorithm(m.params.algorithm, [&](auto algo) {
      using A = decltype(algo);
      auto state = A::fresh(m.params, Nanos{t0 * 1000});
      for (std::size_t i = 0; i < m.allowed.size(); ++i) {
        const auto at = Nanos{(t0 + static_cast<std::int64_t>(i) * 200'000) * 1000};
        EXPECT_EQ(A::decide(m.params, state, at, 1).allowed, m.allowed[i]) << "decision " << i;
      }
      return A::available(m.params, state, now);
    });
    if (is_window_algorithm(m.params.algorithm)) {
      EXPECT_DOUBLE_EQ(*r->count, m.params.limit - available);
    } else {
      EXPECT_DOUBLE_EQ(*r->level, available);
    }
  }
}

// A token-bucket state is read with GET alone where the rule's config stamp says no old hash
// state can remain, and with GET and HMGET where one may (no stamp, or a "legacy" mark not yet
// passed); an old hash is then read as before.
TEST(RedisProbe, TokenBucketStatesAreReadWithOneCommandUnlessOldHashesMayRemain) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter(schema);
  auto set = redis::set_config(
      c, schema, "tb",
      redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1, std::chrono::minutes(1))),
      redis::ChangeInfo{"test", "probe test", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  for (int k = 0; k < 5; ++k) ASSERT_TRUE(limiter.decide(c, "tb", "k" + std::to_string(k), 3).ok());
  ProbeOptions po;
  po.read_ttl = false;
  RedisProbe probe(builtin_profiles(), po);
  auto stamped = probe.probe_all(c);
  ASSERT_TRUE(stamped.ok()) << stamped.error().message;
  ASSERT_EQ(stamped->keys.size(), 5u);

  const std::string stamp = schema.config_stamp_key("tb");
  const std::string kept = must_get(c, stamp);
  test::must(c, {"DEL", stamp});  // a rule not configured since issue 18: hashes may remain
  const std::int64_t now = test::server_time_us(c);
  test::must(c, {"HSET", schema.state_key("tb", "old"), "tokens", "4", "ts", std::to_string(now)});
  auto unstamped = probe.probe_all(c);
  ASSERT_TRUE(unstamped.ok()) << unstamped.error().message;
  const auto* old = find(*unstamped, schema.state_key("tb", "old"));
  ASSERT_NE(old, nullptr);
  ASSERT_TRUE(old->error.empty()) << old->error;
  EXPECT_NEAR(*old->level, 4, 0.1);
  // The refresh that sees the stamp change read the rule's keys with TIME as the stamp was
  // before (GET), then again after it (GET + HMGET); from the next one on, once.
  auto steady = probe.refresh(c);
  ASSERT_TRUE(steady.ok()) << steady.error().message;
  EXPECT_EQ(steady->read_commands,
            stamped->read_commands + 5 + 2);  // HMGET for the 5; GET + HMGET for the new key
  EXPECT_EQ(unstamped->read_commands, steady->read_commands + 6);
  ASSERT_NE(find(*steady, schema.state_key("tb", "old")), nullptr);
  EXPECT_NEAR(*find(*steady, schema.state_key("tb", "old"))->level, 4, 0.1);

  // A legacy mark still ahead: the same two reads; once passed, one.
  test::must(c, {"SET", stamp, kept + " legacy " + std::to_string(now + 3'600'000'000)});
  auto marked = probe.refresh(c);
  ASSERT_TRUE(marked.ok());
  EXPECT_EQ(marked->read_commands, steady->read_commands);
  test::must(c, {"SET", stamp, kept + " legacy " + std::to_string(now - 1)});
  ASSERT_TRUE(probe.refresh(c).ok());  // sees the change
  auto passed = probe.refresh(c);
  ASSERT_TRUE(passed.ok());
  EXPECT_EQ(passed->read_commands, steady->read_commands - 6);
}

// A token-bucket state of either format (docs/redis-state.md) reads as its level: the 24-byte
// string decisions write (with the end of the key's TTL) and the 16-byte one before it.
TEST(RedisProbe, TokenBucketStatesOfBothFormatsAreRead) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const redis::KeySchema schema;
  auto set = redis::set_config(
      c, schema, "tb",
      redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1, std::chrono::minutes(1))),
      redis::ChangeInfo{"test", "probe test", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_TRUE(redis::set_state_format(c, schema, "tb", 2).ok());  // decisions write format 2
  ASSERT_TRUE(redis::RedisLimiter(schema).decide(c, "tb", "decided", 3).ok());
  EXPECT_EQ(must_get(c, schema.state_key("tb", "decided")).size(), 24u);
  const auto now = static_cast<double>(test::server_time_us(c));
  test::must(c,
             {"SET", schema.state_key("tb", "v1"), redis::encode_token_bucket_state_v1({4, now})});
  test::must(c, {"SET", schema.state_key("tb", "v2"),
                 redis::encode_token_bucket_state({4, now, now / 1000 + 60'000})});
  RedisProbe probe(builtin_profiles(), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  for (const char* label : {"decided", "v1", "v2"}) {
    const auto* r = find(*snap, schema.state_key("tb", label));
    ASSERT_NE(r, nullptr) << label;
    ASSERT_TRUE(r->error.empty()) << label << ": " << r->error;
    EXPECT_NEAR(*r->level, label == std::string("decided") ? 7 : 4, 0.1) << label;
  }
}

// A GCRA state of either form reads as its level: format 3's 24 bytes (what decisions write once
// the rule is switched to it) and the TAT's decimal ns text of every version before.
TEST(RedisProbe, GcraStatesOfBothFormsAreRead) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const redis::KeySchema schema;
  auto set = redis::set_config(
      c, schema, "g",
      redis::single_limit(test::bucket(Algorithm::gcra, 10, 1, std::chrono::minutes(1))),
      redis::ChangeInfo{"test", "probe test", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_TRUE(redis::set_state_format(c, schema, "g", 3).ok());  // decisions write format 3
  ASSERT_TRUE(redis::RedisLimiter(schema).decide(c, "g", "decided", 3).ok());
  EXPECT_EQ(must_get(c, schema.state_key("g", "decided")).size(), 24u);
  // 4 units taken (a TAT 4 minutes ahead), written both ways by hand.
  const auto now_us = test::server_time_us(c);
  const std::int64_t tat_us = now_us + 4 * 60'000'000;
  test::must(c, {"SET", schema.state_key("g", "text"), std::to_string(tat_us) + "000"});
  test::must(c, {"SET", schema.state_key("g", "bytes"),
                 redis::encode_gcra_state(
                     {static_cast<double>(tat_us), 0, static_cast<double>(tat_us / 1000 + 1000)})});
  RedisProbe probe(builtin_profiles(), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  for (const char* label : {"decided", "text", "bytes"}) {
    const auto* r = find(*snap, schema.state_key("g", label));
    ASSERT_NE(r, nullptr) << label;
    ASSERT_TRUE(r->error.empty()) << label << ": " << r->error;
    EXPECT_NEAR(*r->level, label == std::string("decided") ? 7 : 6, 0.1) << label;
  }
}

// Keys of a rule read before are read with TIME, planned from its config as last read; a
// config changed since is seen in the same refresh: the keys are read again under it.
TEST(RedisProbe, AChangedConfigIsReadInTheRefreshThatSeesIt) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const redis::KeySchema schema;
  const redis::RedisLimiter limiter(schema);
  const auto configure = [&](double capacity, Algorithm a) {
    auto set = redis::set_config(
        c, schema, "cc", redis::single_limit(test::bucket(a, capacity, 1, std::chrono::hours(1))),
        redis::ChangeInfo{"test", "probe test", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
  };
  configure(10, Algorithm::token_bucket);
  ASSERT_TRUE(limiter.decide(c, "cc", "ann", 4).ok());
  ProbeOptions po;
  po.read_ttl = false;
  RedisProbe probe(builtin_profiles(), po);
  ASSERT_TRUE(probe.probe_all(c).ok());
  const std::string key = schema.state_key("cc", "ann");
  auto before = probe.refresh(c);
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_NE(find(*before, key), nullptr);
  EXPECT_NEAR(*find(*before, key)->level, 6, 0.01);
  EXPECT_DOUBLE_EQ(*find(*before, key)->capacity, 10);

  configure(20, Algorithm::token_bucket);  // the state stays: 6 tokens, now of 20
  auto bigger = probe.refresh(c);
  ASSERT_TRUE(bigger.ok()) << bigger.error().message;
  const KeyReading* r = find(*bigger, key);
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(*r->capacity, 20);
  EXPECT_NEAR(*r->fill, 0.3, 0.001);
  EXPECT_NE(r->parameters.find("capacity=20"), std::string::npos) << r->parameters;

  configure(20, Algorithm::gcra);  // a bucket's 24 bytes are no GCRA time: read as GCRA, refused
  auto other = probe.refresh(c);
  ASSERT_TRUE(other.ok()) << other.error().message;
  ASSERT_NE(find(*other, key), nullptr);
  EXPECT_EQ(find(*other, key)->algorithm, "gcra");
  EXPECT_NE(find(*other, key)->error.find("is neither an integer of ns nor 24 bytes"),
            std::string::npos)
      << find(*other, key)->error;
}

TEST(RedisProbe, BadDataIsReportedPerKeyAndNeverStopsTheProbe) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  must(c, {"SET", "rl:free-wrongtype", "12"});  // a string, not a hash
  must(c, {"HSET", "rl:free-garbage", "tokens", "abc", "ts", "1"});
  must(c, {"HSET", "rl:free-future", "tokens", "5", "ts", "99999999999999"});
  must(c, {"HSET", "rl:free-ok", "tokens", "60", "ts", "1"});
  must(c, {"HSET", "limitscope:{noconfig}:s:frank", "tokens", "1", "ts", "1"});
  RedisProbe probe(profiles(kProfiles), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_NE(find(*snap, "rl:free-wrongtype")->error.find("wrong type"), std::string::npos);
  EXPECT_NE(find(*snap, "rl:free-garbage")->error.find("holds 'abc'"), std::string::npos);
  const auto* future = find(*snap, "rl:free-future");
  EXPECT_NE(future->error.find("ahead of the server's time"), std::string::npos);
  EXPECT_LE(*future->level, 60);
  EXPECT_TRUE(find(*snap, "rl:free-ok")->error.empty());
  EXPECT_NE(find(*snap, "limitscope:{noconfig}:s:frank")->error.find("no readable config"),
            std::string::npos);
  ASSERT_EQ(snap->errors.size(), 1u);
  EXPECT_NE(snap->errors[0].find("{noconfig}:config: no config"), std::string::npos);
  // Errors sort after every key with a known pressure.
  EXPECT_EQ(snap->keys.front().key, "rl:free-ok");
}

TEST(RedisProbe, DiscoveryStaysWithinItsBudgetAndTheCapKeepsThePressure) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  const std::int64_t now_ms = test::server_time_us(c) / 1000;
  std::vector<std::vector<std::string>> seed;
  for (int i = 0; i < 3000; ++i) {
    // Key i holds i % 61 tokens (fresh timestamp): the emptiest are the most interesting.
    seed.push_back({"HSET", "rl:free-" + std::to_string(i), "tokens", std::to_string(i % 61), "ts",
                    std::to_string(now_ms)});
  }
  for (int i = 0; i < 2000; ++i) seed.push_back({"SET", "other:" + std::to_string(i), "x"});
  ASSERT_TRUE(c.pipeline(seed).ok());

  ProbeOptions o;
  o.scan_count = 100;
  o.scan_calls_per_refresh = 5;
  o.max_tracked = 200;
  RedisProbe probe(profiles(kProfiles), o);
  int refreshes = 0;
  ProbeSnapshot last;
  while (refreshes < 1000) {
    auto snap = probe.refresh(c);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    ++refreshes;
    EXPECT_LE(snap->scan_calls, 5u);
    EXPECT_LE(snap->keys.size(), 200u);
    last = *snap;
    if (snap->discovery_complete) break;
  }
  EXPECT_GT(refreshes, 5) << "5000 keys at 500 per refresh need several refreshes";
  EXPECT_EQ(last.unmatched, 2000u);
  ASSERT_EQ(last.keys.size(), 200u);
  // Every key kept holds 0..3 tokens (3000 keys / 61 levels ≈ 49 per level, plus refill).
  for (const auto& k : last.keys) EXPECT_LT(*k.level, 4.5) << k.key;
}

TEST(RedisProbe, ExpiredKeysAreLetGo) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  must(c, {"SET", "rlflx:gone", "3"});
  must(c, {"SET", "rlflx:stays", "3"});
  RedisProbe probe(profiles(kProfiles), ProbeOptions{});
  ASSERT_TRUE(probe.probe_all(c).ok());
  EXPECT_EQ(probe.tracked(), 2u);
  must(c, {"DEL", "rlflx:gone"});
  auto snap = probe.refresh(c);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(probe.tracked(), 1u);
  EXPECT_EQ(find(*snap, "rlflx:gone"), nullptr);
}

}  // namespace
}  // namespace limitscope::probe
