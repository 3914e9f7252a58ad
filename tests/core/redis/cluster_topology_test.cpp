// Verifies the Redis Cluster reply parsing: CLUSTER SLOTS and CLUSTER SHARDS into a slot map
// (canned replies, as Redis 7.0 sends them), MOVED/ASK/TRYAGAIN/CLUSTERDOWN/READONLY error texts
// raw and wrapped, and the redis+cluster:// URL form beside the unchanged redis:// one.
#include "core/redis/cluster_topology.h"

#include <gtest/gtest.h>

#include "core/redis/key_schema.h"
#include "core/redis/redis_url.h"
#include "support/refusals.h"

namespace limitscope::redis {
namespace {

Value node(const std::string& host, std::int64_t port, const std::string& id) {
  // Redis 7 adds a fourth element, a map of metadata (an empty array in RESP2).
  return Value::of_array(
      {Value::of_string(host), Value::of_integer(port), Value::of_string(id), Value::of_array({})});
}

Value range(std::int64_t first, std::int64_t last, std::vector<Value> nodes) {
  std::vector<Value> e{Value::of_integer(first), Value::of_integer(last)};
  for (auto& n : nodes) e.push_back(std::move(n));
  return Value::of_array(std::move(e));
}

Value three_masters() {
  return Value::of_array({
      range(0, 5460, {node("127.0.0.1", 7000, "a"), node("127.0.0.1", 7003, "d")}),
      range(5461, 10922, {node("127.0.0.1", 7001, "b")}),
      range(10923, 16383, {node("", 7002, "c")}),  // unknown endpoint: the host asked
  });
}

struct SlotMaster {
  int slot;
  const char* address;
};

// The three-master layout both replies describe: every slot covered, each slot of `rows` on
// its master's address, and the first range's master "a" with one replica on port 7003.
void expect_three_masters(const ClusterTopology& t, std::initializer_list<SlotMaster> rows) {
  EXPECT_EQ(t.covered_slots(), kClusterSlotCount);
  ASSERT_EQ(t.masters().size(), 3u);
  for (const SlotMaster& row : rows) {
    SCOPED_TRACE(row.slot);
    ASSERT_NE(t.master_of(row.slot), nullptr);
    EXPECT_EQ(t.master_of(row.slot)->address(), row.address);
  }
  ASSERT_EQ(t.ranges().front().replicas.size(), 1u);
  EXPECT_EQ(t.ranges().front().replicas[0].port, 7003);
  EXPECT_EQ(t.ranges().front().master.id, "a");
}

TEST(ClusterTopology, SlotsReplyMapsEverySlotToItsMaster) {
  auto t = ClusterTopology::from_slots_reply(three_masters(), "10.0.0.9");
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_NO_FATAL_FAILURE(expect_three_masters(*t, {{0, "127.0.0.1:7000"},
                                                    {5460, "127.0.0.1:7000"},
                                                    {5461, "127.0.0.1:7001"},
                                                    {10922, "127.0.0.1:7001"},
                                                    {10923, "10.0.0.9:7002"},
                                                    {16383, "10.0.0.9:7002"}}));
  EXPECT_EQ(t->master_of(-1), nullptr);
  EXPECT_EQ(t->master_of(16384), nullptr);
}

TEST(ClusterTopology, PartialCoverageLeavesSlotsWithoutMaster) {
  auto t = ClusterTopology::from_slots_reply(
      Value::of_array({range(100, 199, {node("h", 1, "x")})}), "h");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->covered_slots(), 100);
  EXPECT_EQ(t->master_of(99), nullptr);
  EXPECT_NE(t->master_of(150), nullptr);
}

TEST(ClusterTopology, MovedSlotPatchSplitsItsRange) {
  auto t = ClusterTopology::from_slots_reply(three_masters(), "h");
  ASSERT_TRUE(t.ok());
  const ClusterNode other{"127.0.0.1", 7001, ""};
  const ClusterTopology p = t->with_slot_owner(100, other);
  EXPECT_EQ(p.master_of(100)->address(), "127.0.0.1:7001");
  EXPECT_EQ(p.master_of(99)->address(), "127.0.0.1:7000");
  EXPECT_EQ(p.master_of(101)->address(), "127.0.0.1:7000");
  EXPECT_EQ(p.covered_slots(), kClusterSlotCount);
  EXPECT_EQ(p.masters().size(), 3u);
}

// A reply CLUSTER SLOTS or CLUSTER SHARDS must not be read as a topology, and what the error
// says.
struct RefusedReply {
  Value reply;
  const char* reason;
};

TEST(ClusterTopology, UnusableRepliesAreRefusedWithTheReason) {
  const RefusedReply rows[] = {
      {Value::of_error("ERR This instance has cluster support disabled"),
       "cluster support disabled"},
      {Value::of_array({}), "no slot is assigned"},
      {Value::of_string("x"), "answered"},
      {Value::of_array({range(5, 4, {node("h", 1, "x")})}), "not within 0..16383"},
      {Value::of_array({range(0, 16384, {node("h", 1, "x")})}), "not within 0..16383"},
      {Value::of_array({range(0, 1, {node("h", 0, "x")})}), "master is not"},
      {Value::of_array({Value::of_array({Value::of_integer(0), Value::of_integer(1)})}), "entry 1"},
  };
  for (const auto& row : rows) {
    test::expect_refused(ClusterTopology::from_slots_reply(row.reply, "h"), row.reason);
  }
}

// One node of a CLUSTER SHARDS reply (RESP2 flat map), as Redis 7.0.15 sends it.
Value shard_node(const std::string& id, std::int64_t port, const std::string& ip,
                 const std::string& endpoint, const std::string& role, const std::string& health) {
  return Value::of_array({Value::of_string("id"), Value::of_string(id), Value::of_string("port"),
                          Value::of_integer(port), Value::of_string("ip"), Value::of_string(ip),
                          Value::of_string("endpoint"), Value::of_string(endpoint),
                          Value::of_string("role"), Value::of_string(role),
                          Value::of_string("replication-offset"), Value::of_integer(42),
                          Value::of_string("health"), Value::of_string(health)});
}

Value shard(std::vector<std::int64_t> slots, std::vector<Value> nodes) {
  std::vector<Value> s;
  for (auto v : slots) s.push_back(Value::of_integer(v));
  return Value::of_array({Value::of_string("slots"), Value::of_array(std::move(s)),
                          Value::of_string("nodes"), Value::of_array(std::move(nodes))});
}

TEST(ClusterTopology, ShardsReplyMapsEverySlotToItsMaster) {
  const Value reply = Value::of_array({
      // Two ranges, an online replica and a failed one (left out).
      shard({0, 5000, 5001, 5460},
            {shard_node("r", 7003, "127.0.0.1", "127.0.0.1", "replica", "online"),
             shard_node("a", 7000, "127.0.0.1", "127.0.0.1", "master", "online"),
             shard_node("f", 7006, "127.0.0.1", "127.0.0.1", "replica", "failed")}),
      // A master that failed and has no replica stays the master.
      shard({5461, 10922}, {shard_node("b", 7001, "127.0.0.1", "127.0.0.1", "master", "failed")}),
      // No endpoint, no ip yet (a node that met no peer): the host asked.
      shard({10923, 16383}, {shard_node("c", 7002, "", "?", "master", "online")}),
      // A master without slots is not in the map.
      shard({}, {shard_node("e", 7009, "127.0.0.1", "127.0.0.1", "master", "online")}),
  });
  auto t = ClusterTopology::from_shards_reply(reply, "10.0.0.9");
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_NO_FATAL_FAILURE(expect_three_masters(*t, {{0, "127.0.0.1:7000"},
                                                    {5000, "127.0.0.1:7000"},
                                                    {5001, "127.0.0.1:7000"},
                                                    {5461, "127.0.0.1:7001"},
                                                    {10922, "127.0.0.1:7001"},
                                                    {10923, "10.0.0.9:7002"},
                                                    {16383, "10.0.0.9:7002"}}));
  // A hostname-only endpoint is used as announced.
  auto named = ClusterTopology::from_shards_reply(
      Value::of_array({shard(
          {0, 16383}, {shard_node("a", 6379, "10.1.1.1", "redis-0.example", "master", "online")})}),
      "h");
  ASSERT_TRUE(named.ok()) << named.error();
  EXPECT_EQ(named->master_of(0)->address(), "redis-0.example:6379");
}

TEST(ClusterTopology, UnusableShardsRepliesAreRefusedWithTheReason) {
  const Value master = shard_node("a", 7000, "h", "h", "master", "online");
  const RefusedReply rows[] = {
      {Value::of_error("ERR unknown subcommand 'SHARDS'"),
       "CLUSTER SHARDS: ERR unknown subcommand"},
      {Value::of_array({}), "no slot is assigned"},
      {Value::of_array({shard({}, {master})}), "no slot is assigned"},
      {Value::of_string("x"), "answered"},
      {Value::of_array({shard({5, 4}, {master})}), "not within 0..16383"},
      {Value::of_array({shard({0, 16384}, {master})}), "not within 0..16383"},
      {Value::of_array({shard({0}, {master})}), "not {slots"},
      {Value::of_array({Value::of_array({Value::of_string("slots"), Value::of_array({})})}),
       "shard 1"},
      {Value::of_array({shard({0, 1}, {shard_node("r", 7003, "h", "h", "replica", "online")})}),
       "no master"},
      {Value::of_array({shard({0, 1}, {master, master})}), "two masters"},
      {Value::of_array({shard({0, 1}, {shard_node("a", 0, "h", "h", "master", "online")})}),
       "without a port"},
  };
  for (const auto& row : rows) {
    test::expect_refused(ClusterTopology::from_shards_reply(row.reply, "h"), row.reason);
  }
}

TEST(ClusterError, RedirectionsAndRetriesAreRecognised) {
  const struct {
    const char* text;
    bool recognised;
    ClusterErrorKind kind;
    int slot;
    const char* address;
  } rows[] = {
      {"MOVED 3999 127.0.0.1:6381", true, ClusterErrorKind::moved, 3999, "127.0.0.1:6381"},
      {"ASK 3999 127.0.0.1:6381", true, ClusterErrorKind::ask, 3999, "127.0.0.1:6381"},
      {"MOVED 12 :7002", true, ClusterErrorKind::moved, 12, "answering:7002"},
      {"MOVED 12 ?:7002", true, ClusterErrorKind::moved, 12, "answering:7002"},
      {"MOVED 12 ::1:7002", true, ClusterErrorKind::moved, 12, "[::1]:7002"},
      {"redis redis://127.0.0.1:7000: EVALSHA: MOVED 7 10.1.2.3:7001", true,
       ClusterErrorKind::moved, 7, "10.1.2.3:7001"},
      {"script decide: redis redis://h:1: EVALSHA: ASK 16383 h2:9", true, ClusterErrorKind::ask,
       16383, "h2:9"},
      {"TRYAGAIN Multiple keys request during rehashing of slot", true, ClusterErrorKind::tryagain,
       -1, ""},
      {"redis x: EVALSHA: CLUSTERDOWN The cluster is down", true, ClusterErrorKind::clusterdown, -1,
       ""},
      {"READONLY You can't write against a read only replica.", true, ClusterErrorKind::readonly,
       -1, ""},
      {"MOVED 16384 h:1", false, ClusterErrorKind::moved, 0, ""},
      {"MOVED x h:1", false, ClusterErrorKind::moved, 0, ""},
      {"MOVED 5 h", false, ClusterErrorKind::moved, 0, ""},
      {"MOVED 5 h:0", false, ClusterErrorKind::moved, 0, ""},
      {"ERR unknown command", false, ClusterErrorKind::moved, 0, ""},
      {"LSCONFIG rule has no config; ASKED nothing", false, ClusterErrorKind::moved, 0, ""},
      {"TRYAGAINX", false, ClusterErrorKind::moved, 0, ""},
      {"WRONGTYPE MOVED 1 h:1 is not at the start", false, ClusterErrorKind::moved, 0, ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.text);
    const auto e = parse_cluster_error(row.text, "answering");
    ASSERT_EQ(e.has_value(), row.recognised);
    if (!e) continue;
    EXPECT_EQ(e->kind, row.kind);
    EXPECT_EQ(e->slot, row.slot);
    if (row.slot >= 0) {
      EXPECT_EQ(e->node.address(), row.address);
    }
  }
}

TEST(ClusterSlot, KnownSlotsOfRedisDocumentation) {
  // Values from the Redis Cluster specification and redis-cli CLUSTER KEYSLOT.
  EXPECT_EQ(cluster_slot("123456789"), 0x31C3 % 16384);
  EXPECT_EQ(cluster_slot("foo"), 12182);
  EXPECT_EQ(cluster_slot("{user1000}.following"), cluster_slot("{user1000}.followers"));
  EXPECT_EQ(cluster_slot("foo{}{bar}"), cluster_slot("foo{}{bar}"));
  EXPECT_NE(cluster_slot("foo{}{bar}"), cluster_slot("bar"));
}

TEST(ClusterUrl, SeedsCredentialsAndRedaction) {
  auto u = parse_redis_url("redis+cluster://alice:s3cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002");
  ASSERT_TRUE(u.ok()) << u.error();
  ASSERT_TRUE(u->cluster());
  ASSERT_EQ(u->cluster_seeds.size(), 3u);
  EXPECT_EQ(u->cluster_seeds[1].host, "10.0.0.2");
  EXPECT_EQ(u->cluster_seeds[1].port, 7001);
  EXPECT_EQ(u->cluster_seeds[2].host, "::1");
  EXPECT_EQ(u->host, "10.0.0.1");
  EXPECT_EQ(u->port, 7000);
  EXPECT_EQ(u->user, "alice");
  EXPECT_EQ(u->password, "s3cret");
  EXPECT_EQ(u->redacted(), "redis+cluster://alice:***@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002");
  const RedisUrl n = u->node("10.0.0.3", 7005);
  EXPECT_FALSE(n.cluster());
  EXPECT_EQ(n.redacted(), "redis://alice:***@10.0.0.3:7005");

  auto one = parse_redis_url("redis+cluster://h/0");
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(one->cluster_seeds.size(), 1u);
  EXPECT_EQ(one->port, 6379);

  auto plain = parse_redis_url("redis://h:7000/2");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->cluster());
  EXPECT_EQ(plain->redacted(), "redis://h:7000/2");

  test::expect_refusals(
      {
          {"redis+cluster://:pw@h:1/3", "only database 0"},
          {"redis+cluster://h:1,,h:2", "seed node 2: no host"},
          {"redis+cluster://:hunter2@h:1,h:99999", "seed node 2: port '99999'"},
          {"redis+cluster://", "seed node 1"},
      },
      [](const std::string& text) {
        auto url = parse_redis_url(text);
        if (!url.ok()) {
          EXPECT_EQ(url.error().find("hunter2"), std::string::npos) << url.error();
        }
        return url;
      });
}

}  // namespace
}  // namespace limitscope::redis
