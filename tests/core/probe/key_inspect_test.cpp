// Verifies the key browser's reads against a real redis-server seeded with limiter keys of
// several kinds, a key of the wrong type for its profile, a big sorted set and a key that
// vanishes: the listing has profile, kind, level/occupancy, TTL and sampled memory (at most N
// MEMORY USAGE calls per refresh, round robin), filtering by pattern, discovery within its
// SCAN budget; raw reads are bounded and say what is wrong; a dead server is an error.
#include "core/probe/key_inspect.h"

#include <gtest/gtest.h>

#include "support/redis_server.h"
#include "support/redis_time.h"

namespace limitscope::probe {
namespace {

using redis::Connection;
using test::must;
using test::RedisServer;

std::vector<LimiterProfile> test_profiles() {
  auto p = parse_profiles(R"({"profiles": [
    {"name": "gw-free", "match": "rl:free-*", "kind": "token_bucket_hash",
     "fields": {"tokens": "tokens", "updated": "ts"}, "time_unit": "ms", "capacity": 60, "refill": "1/s"},
    {"name": "sw", "match": "sw:*", "kind": "sliding_window_zset", "time_unit": "ms", "window": "60s", "limit": 100},
    {"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 50}]})");
  EXPECT_TRUE(p.ok()) << p.error();
  auto all = *p;
  for (auto& b : builtin_profiles()) all.push_back(b);
  return all;
}

void seed(Connection& c) {
  const std::string now = std::to_string(test::server_time_us(c) / 1000);
  must(c, {"HSET", "rl:free-alice", "tokens", "0.17499999999999447", "ts", now});
  must(c, {"PEXPIRE", "rl:free-alice", "60000"});
  must(c, {"HSET", "rl:free-bob", "tokens", "42", "ts", now});
  must(c, {"SET", "rl:free-wrong", "not a hash"});  // matches gw-free, holds a string
  must(c, {"SET", "rlflx:carol", "12", "PX", "30000"});
  for (int i = 0; i < 30; ++i) {
    must(c, {"ZADD", "sw:dave", now, "req-" + std::to_string(i)});
  }
  must(c, {"SET", "unrelated:thing", "x"});
}

const BrowsedKey* find(const KeyListing& l, const std::string& key) {
  for (const auto& k : l.keys) {
    if (k.reading.key == key) return &k;
  }
  return nullptr;
}

TEST(KeyInspect, ListsLimiterKeysWithLevelsTtlsAndSampledMemory) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  seed(c);
  KeyBrowserOptions o;
  o.memory_samples_per_refresh = 2;
  KeyBrowser browser(test_profiles(), o);
  auto l = browser.refresh(c);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_TRUE(l->discovery_complete);
  EXPECT_EQ(l->unmatched, 1u);  // unrelated:thing
  ASSERT_EQ(l->keys.size(), 5u);
  EXPECT_EQ(l->keys.front().reading.key, "rl:free-alice");  // sorted by name
  EXPECT_EQ(l->memory_sampled, 2u);

  const BrowsedKey* alice = find(*l, "rl:free-alice");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->reading.profile, "gw-free");
  EXPECT_EQ(alice->reading.kind, ProfileKind::token_bucket_hash);
  ASSERT_TRUE(alice->reading.level.has_value());
  EXPECT_GE(*alice->reading.level, 0.17);
  EXPECT_LT(*alice->reading.level, 5.0);
  ASSERT_TRUE(alice->reading.ttl_ms.has_value());
  EXPECT_GT(*alice->reading.ttl_ms, 50'000);
  ASSERT_TRUE(alice->memory_bytes.has_value());
  EXPECT_GT(*alice->memory_bytes, 0);

  const BrowsedKey* dave = find(*l, "sw:dave");
  ASSERT_NE(dave, nullptr);
  EXPECT_EQ(dave->reading.count.value_or(-1), 30);
  EXPECT_DOUBLE_EQ(dave->reading.occupancy.value_or(-1), 0.3);
  EXPECT_FALSE(dave->reading.ttl_ms.has_value());

  const BrowsedKey* wrong = find(*l, "rl:free-wrong");
  ASSERT_NE(wrong, nullptr);
  EXPECT_NE(wrong->reading.error.find("wrong type"), std::string::npos) << wrong->reading.error;

  // Memory is sampled round robin: after three refreshes of two samples every key has one.
  ASSERT_TRUE(browser.refresh(c).ok());
  auto third = browser.refresh(c);
  ASSERT_TRUE(third.ok());
  for (const BrowsedKey& k : third->keys) EXPECT_TRUE(k.memory_bytes.has_value()) << k.reading.key;
}

TEST(KeyInspect, FiltersByPatternAndKeepsToItsScanBudget) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  seed(c);
  for (int i = 0; i < 3000; ++i) must(c, {"SET", "filler:" + std::to_string(i), "1"});
  KeyBrowserOptions o;
  o.match = "rl:*";
  o.scan_count = 100;
  o.scan_calls_per_refresh = 3;
  KeyBrowser browser(test_profiles(), o);
  auto first = browser.refresh(c);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->scan_calls, 3u);
  EXPECT_FALSE(first->discovery_complete);
  std::size_t refreshes = 1;
  KeyListing last = *first;
  while (!last.discovery_complete && refreshes < 100) {
    auto next = browser.refresh(c);
    ASSERT_TRUE(next.ok()) << next.error().message;
    EXPECT_LE(next->scan_calls, 3u);
    last = *next;
    ++refreshes;
  }
  ASSERT_TRUE(last.discovery_complete);
  ASSERT_EQ(last.keys.size(), 3u);  // only rl:* keys, whatever else the keyspace holds
  for (const BrowsedKey& k : last.keys)
    EXPECT_EQ(k.reading.key.rfind("rl:", 0), 0u) << k.reading.key;
}

TEST(KeyInspect, RawFieldsOfEachTypeBoundedAndChecked) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  seed(c);
  for (int i = 0; i < 500; ++i)
    must(c, {"ZADD", "sw:big", std::to_string(1000 + i), "m" + std::to_string(i)});
  must(c, {"RPUSH", "rl:free-list", "a", "b"});
  const auto profiles = test_profiles();

  auto hash = inspect_key(c, "rl:free-alice", match_profile(profiles, "rl:free-alice"));
  ASSERT_TRUE(hash.ok()) << hash.error().message;
  EXPECT_EQ(hash->type, "hash");
  EXPECT_TRUE(hash->problem.empty()) << hash->problem;
  ASSERT_EQ(hash->fields.size(), 2u);
  EXPECT_EQ(hash->fields[0].first, "tokens");
  EXPECT_EQ(hash->fields[0].second, "0.17499999999999447");
  EXPECT_EQ(hash->fields[1].first, "ts");
  EXPECT_EQ(hash->total, 2u);
  EXPECT_FALSE(hash->truncated);
  ASSERT_TRUE(hash->ttl_ms.has_value());
  ASSERT_TRUE(hash->memory_bytes.has_value());

  auto str = inspect_key(c, "rlflx:carol", match_profile(profiles, "rlflx:carol"));
  ASSERT_TRUE(str.ok());
  ASSERT_EQ(str->fields.size(), 1u);
  EXPECT_EQ(str->fields[0], (std::pair<std::string, std::string>{"value", "12"}));
  EXPECT_TRUE(str->problem.empty());

  RawKeyLimits limits;
  limits.zset_head = 5;
  auto big = inspect_key(c, "sw:big", match_profile(profiles, "sw:big"), limits);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->total, 500u);
  ASSERT_EQ(big->fields.size(), 6u);  // the 5 lowest scores and the newest
  EXPECT_EQ(big->fields[0], (std::pair<std::string, std::string>{"m0", "1000"}));
  EXPECT_EQ(big->fields[5], (std::pair<std::string, std::string>{"(newest) m499", "1499"}));
  EXPECT_TRUE(big->truncated);

  auto wrong = inspect_key(c, "rl:free-wrong", match_profile(profiles, "rl:free-wrong"));
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(wrong->type, "string");
  EXPECT_EQ(wrong->problem,
            "wrong type: profile gw-free (token_bucket_hash) reads a hash, the key holds a string");

  auto list = inspect_key(c, "rl:free-list", match_profile(profiles, "rl:free-list"));
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->type, "list");
  EXPECT_EQ(list->total, 2u);
  EXPECT_NE(list->problem.find("wrong type"), std::string::npos);

  auto gone = inspect_key(c, "rl:free-nobody", match_profile(profiles, "rl:free-nobody"));
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->missing);
  EXPECT_NE(gone->problem.find("no longer exists"), std::string::npos);
}

TEST(KeyInspect, VanishedKeysAndADeadServer) {
  auto server = RedisServer::start();
  Connection c = connect(*server);
  seed(c);
  KeyBrowser browser(test_profiles(), {});
  auto before = browser.refresh(c);
  ASSERT_TRUE(before.ok());
  ASSERT_NE(find(*before, "rl:free-bob"), nullptr);
  must(c, {"DEL", "rl:free-bob"});
  auto after = browser.refresh(c);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(find(*after, "rl:free-bob"), nullptr);  // let go, not an error row
  auto raw = inspect_key(c, "rl:free-bob", nullptr);
  ASSERT_TRUE(raw.ok());
  EXPECT_TRUE(raw->missing);

  server->kill();
  auto dead = browser.refresh(c);
  ASSERT_FALSE(dead.ok());
  EXPECT_TRUE(dead.error().breaks_connection()) << dead.error().message;
  auto dead_raw = inspect_key(c, "rl:free-alice", nullptr);
  ASSERT_FALSE(dead_raw.ok());
}

}  // namespace
}  // namespace limitscope::probe
