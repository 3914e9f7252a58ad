// Verifies redis::Endpoint on a real 3-master Redis Cluster: a key's call runs on the master
// serving its slot and a rule's call on its shard, "each master" visits every master once,
// TIME is the key's master's, and a master that is down is named in the error of its keys and
// of its turn in the fan-out, while the other masters still answer. The endpoint runs on a
// ManualClock with no retry budget: nothing in it may wait on or read a real clock to finish.
#include <gtest/gtest.h>

#include <set>

#include "cluster_test_support.h"
#include "core/redis/endpoint.h"
#include "core/redis/key_schema.h"
#include "core/redis/redis_limiter.h"

namespace limitscope::redis {
namespace {

using test::RedisCluster;

EndpointOptions options() {
  EndpointOptions o;
  o.connect = {std::chrono::seconds(1), std::chrono::seconds(5)};
  o.reconnect.max = std::chrono::milliseconds(200);
  o.retry_budget = Nanos{0};  // a ManualClock never lets a retry pause end
  return o;
}

// One key per master, master port → key.
std::map<int, std::string> key_per_master(const RedisCluster& cluster) {
  std::map<int, std::string> out;
  for (int n = 0; out.size() < 3 && n < 100000; ++n) {
    const std::string key = "ep-key-" + std::to_string(n);
    out.emplace(cluster.master_port_of_slot(cluster_slot(key)), key);
  }
  return out;
}

std::string port_of(const std::string& peer) {
  return peer.substr(peer.rfind(':') + 1, peer.find('/', peer.rfind(':')) - peer.rfind(':') - 1);
}

class ClusterEndpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = RedisCluster::start().release(); }
  static void TearDownTestSuite() { delete cluster_; }
  static RedisCluster* cluster_;
  ManualClock clock_;
};
RedisCluster* ClusterEndpointTest::cluster_ = nullptr;

TEST_F(ClusterEndpointTest, KeysAndRulesRunOnTheMasterServingTheirSlot) {
  Endpoint endpoint(test::cluster_url(*cluster_), options(), clock_);
  ASSERT_TRUE(endpoint.is_cluster());
  ASSERT_NE(endpoint.cluster(), nullptr);
  for (const auto& [port, key] : key_per_master(*cluster_)) {
    std::string peer;
    auto set = endpoint.on_key<Value>(key, [&](Connection& c) {
      peer = c.peer();
      return c.command({"SET", key, "on-" + std::to_string(port)});
    });
    ASSERT_TRUE(set.ok()) << key << ": " << set.error().message;
    EXPECT_EQ(port_of(peer), std::to_string(port)) << peer;
    auto direct = cluster_->connect(port);
    auto got = direct.command({"GET", key});
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(got->str, "on-" + std::to_string(port));
  }
  const KeySchema schema;
  for (const auto& [port, rules] : test::rules_per_master(*cluster_, schema, "ep-rule", 1)) {
    const std::string& rule = rules.front();
    auto incr = endpoint.on_rule<Value>(schema, rule, [&](Connection& c) {
      return c.command({"INCRBY", schema.config_key(rule) + ":n", "3"});
    });
    ASSERT_TRUE(incr.ok()) << rule << ": " << incr.error().message;
    auto direct = cluster_->connect(port);
    auto got = direct.command({"GET", schema.config_key(rule) + ":n"});
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(got->str, "3");
  }
}

TEST_F(ClusterEndpointTest, EachMasterIsVisitedOnce) {
  Endpoint endpoint(test::cluster_url(*cluster_), options(), clock_);
  std::set<std::string> expected;
  for (int port : cluster_->ports()) expected.insert("127.0.0.1:" + std::to_string(port));
  auto masters = endpoint.masters();
  ASSERT_TRUE(masters.ok()) << masters.error().message;
  EXPECT_EQ(std::set<std::string>(masters->begin(), masters->end()), expected);

  std::multiset<std::string> visited;
  auto each = endpoint.on_each_master([&](Connection& c, const std::string& node) -> Result<void> {
    if (port_of(c.peer()) != node.substr(node.rfind(':') + 1)) {
      return make_redis_error(ErrorKind::usage, "connection " + c.peer() + " is not " + node);
    }
    auto role = c.command({"ROLE"});
    if (!role) return role.error();
    if (!role->is_array() || role->elements.empty() || role->elements[0].str != "master") {
      return make_redis_error(ErrorKind::usage, node + " is not a master");
    }
    visited.insert(node);
    return {};
  });
  ASSERT_TRUE(each.ok()) << each.error().message;
  ASSERT_EQ(each->size(), 3u);
  for (const NodeResult& r : *each)
    EXPECT_TRUE(r.result.ok()) << r.node << ": " << r.result.error().message;
  EXPECT_EQ(std::set<std::string>(visited.begin(), visited.end()), expected);
  EXPECT_EQ(visited.size(), 3u);
}

TEST_F(ClusterEndpointTest, ServerTimeIsTheKeysMasters) {
  Endpoint endpoint(test::cluster_url(*cluster_), options(), clock_);
  for (const auto& [port, key] : key_per_master(*cluster_)) {
    auto direct = cluster_->connect(port);
    auto before = read_server_time_us(direct);
    auto t = endpoint.server_time_us(key);
    auto after = read_server_time_us(direct);
    ASSERT_TRUE(before.ok() && after.ok());
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_LE(*before, *t);
    EXPECT_LE(*t, *after);
  }
}

// Its own cluster: a killed master does not come back.
TEST(ClusterEndpointDown, AMasterThatIsDownIsNamedAndTheOthersAnswer) {
  auto cluster = RedisCluster::start();
  ManualClock clock;
  Endpoint endpoint(test::cluster_url(*cluster), options(), clock);
  const auto keys = key_per_master(*cluster);
  ASSERT_EQ(keys.size(), 3u);
  auto ping = [](Connection& c) { return c.command({"PING"}); };
  for (const auto& [port, key] : keys) ASSERT_TRUE(endpoint.on_key<Value>(key, ping).ok());

  const int dead = keys.begin()->first;
  const std::string dead_address = "127.0.0.1:" + std::to_string(dead);
  cluster->kill(dead);

  auto lost = endpoint.on_key<Value>(keys.at(dead), [&](Connection& c) {
    return c.command({"GET", keys.at(dead)});
  });
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(lost.error().breaks_connection()) << lost.error().message;
  EXPECT_NE(lost.error().message.find(std::to_string(dead)), std::string::npos)
      << lost.error().message;

  auto each = endpoint.on_each_master([&](Connection& c, const std::string&) -> Result<void> {
    auto r = c.command({"PING"});
    if (!r) return r.error();
    return {};
  });
  ASSERT_TRUE(each.ok()) << each.error().message;
  ASSERT_EQ(each->size(), 3u);
  for (const NodeResult& r : *each) {
    if (r.node == dead_address) {
      ASSERT_FALSE(r.result.ok());
      EXPECT_EQ(r.result.error().message.rfind("node " + dead_address + ": ", 0), 0u)
          << r.result.error().message;
    } else {
      EXPECT_TRUE(r.result.ok()) << r.node << ": " << r.result.error().message;
    }
  }
}

}  // namespace
}  // namespace limitscope::redis
