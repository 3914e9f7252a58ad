// Verifies RedisProbe on hostile data and faults with a real server: a sorted set of a million
// members is read with one ZCOUNT (no member transfer); 100,000 keys are discovered in budgeted
// steps; a server killed or stopped mid-run gives an error within the command timeout, keeps
// what was tracked, and the next refresh after a restart works.
#include <gtest/gtest.h>

#include "core/probe/redis_probe.h"
#include "support/redis_server.h"
#include "support/redis_time.h"

namespace limitscope::probe {
namespace {

using redis::Connection;
using std::chrono::milliseconds;

std::vector<LimiterProfile> profiles() {
  auto p = parse_profiles(R"({"profiles": [
    {"name": "sw", "match": "sw:*", "kind": "sliding_window_zset", "time_unit": "ms", "window": "60s", "limit": 1000000},
    {"name": "flex", "match": "rlflx:*", "kind": "counter_ttl", "limit": 100}]})");
  EXPECT_TRUE(p.ok()) << p.error();
  return *p;
}

TEST(RedisProbeFaults, MillionMemberSortedSetIsCountedServerSide) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  const std::int64_t now_ms = test::server_time_us(c) / 1'000'000 * 1000;  // whole seconds
  std::vector<std::vector<std::string>> cmds;
  for (int batch = 0; batch < 1000; ++batch) {
    std::vector<std::string> zadd{"ZADD", "sw:huge"};
    for (int i = 0; i < 1000; ++i) {
      const int n = batch * 1000 + i;
      // Half inside the last minute, half older.
      zadd.push_back(std::to_string(n % 2 == 0 ? now_ms - 1000 : now_ms - 120000));
      zadd.push_back("m" + std::to_string(n));
    }
    cmds.push_back(std::move(zadd));
  }
  ASSERT_TRUE(c.pipeline(cmds).ok());
  RedisProbe probe(profiles(), ProbeOptions{});
  auto snap = probe.probe_all(c);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_EQ(snap->keys.size(), 1u);
  EXPECT_EQ(snap->keys[0].count, 500000);
  EXPECT_DOUBLE_EQ(*snap->keys[0].occupancy, 0.5);
  EXPECT_LT(snap->read_commands, 10u);
}

TEST(RedisProbeFaults, HundredThousandKeysAreDiscoveredWithinTheBudget) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 100000; ++i) {
    cmds.push_back({"SET", (i % 10 == 0 ? "rlflx:" : "session:") + std::to_string(i), "5"});
    if (cmds.size() == 10000) {
      ASSERT_TRUE(c.pipeline(cmds).ok());
      cmds.clear();
    }
  }
  ProbeOptions o;
  o.scan_count = 1000;
  o.scan_calls_per_refresh = 10;
  RedisProbe probe(profiles(), o);
  int refreshes = 0;
  std::size_t max_scanned = 0;
  for (; refreshes < 100; ++refreshes) {
    auto snap = probe.refresh(c);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    EXPECT_LE(snap->scan_calls, 10u);
    max_scanned = std::max(max_scanned, snap->scanned);
    if (snap->discovery_complete) {
      EXPECT_EQ(snap->unmatched, 90000u);
      EXPECT_EQ(snap->keys.size(), 10000u);
      break;
    }
  }
  EXPECT_GE(refreshes, 8) << "100,000 keys at about 10,000 per refresh";
  EXPECT_LT(max_scanned, 15000u) << "one refresh examined more than its budget allows";
}

TEST(RedisProbeFaults, KilledOrStoppedServerGivesAnErrorAndTheProbeRecovers) {
  auto server = test::RedisServer::start();
  {
    Connection c = connect(*server);
    ASSERT_TRUE(c.command({"SET", "rlflx:a", "50"}).ok());
  }
  RedisProbe probe(profiles(), ProbeOptions{});
  {
    Connection c = connect(*server, {milliseconds(500), milliseconds(300)});
    ASSERT_TRUE(probe.probe_all(c).ok());
    server->pause();
    auto stalled = probe.refresh(c);
    server->resume();
    ASSERT_FALSE(stalled.ok());
    EXPECT_EQ(stalled.error().kind, redis::ErrorKind::timeout) << stalled.error().message;
  }
  EXPECT_EQ(probe.tracked(), 1u) << "what was tracked is kept";
  {
    Connection c = connect(*server, {milliseconds(500), milliseconds(300)});
    server->kill();
    auto dead = probe.refresh(c);
    ASSERT_FALSE(dead.ok());
    EXPECT_TRUE(dead.error().breaks_connection()) << dead.error().message;
  }
  server->restart();
  Connection c = connect(*server);
  ASSERT_TRUE(c.command({"SET", "rlflx:a", "25"}).ok());
  auto back = probe.refresh(c);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->keys.size(), 1u);
  EXPECT_DOUBLE_EQ(*back->keys[0].occupancy, 0.25);
}

}  // namespace
}  // namespace limitscope::probe
