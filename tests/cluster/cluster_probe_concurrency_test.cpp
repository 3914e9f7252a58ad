// Verifies that ClusterProbe reads the masters at once: a master that holds every call (paused)
// does not keep the others from being read, and a master that is gone does not take the
// others' readings with it; the readings a snapshot hands back come round again.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>

#include "cluster_test_support.h"
#include "core/probe/cluster_probe.h"
#include "support/redis_monitor.h"

namespace limitscope::probe {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

constexpr int kKeysPerMaster = 6;

// A cluster whose healthy masters keep serving while one is down (no full coverage needed).
std::unique_ptr<RedisCluster> start_cluster() {
  RedisCluster::Options o;
  o.extra_args = {"--cluster-require-full-coverage", "no"};
  return RedisCluster::start(o);
}

// One rule per master, kKeysPerMaster state keys each, each drawn by a different cost.
std::map<std::string, std::string> seed(RedisCluster& cluster, redis::ClusterClient& client) {
  const redis::KeySchema schema;
  redis::ClusterLimiter limiter(client, redis::RedisLimiter(schema));
  std::map<std::string, std::string> key_node;
  for (const auto& [port, rules] : test::rules_per_master(cluster, schema, "cc", 1)) {
    const std::string& rule = rules.front();
    auto set =
        redis::set_config(client, schema, rule,
                          // Refilled at 1/min: a state key lives for minutes, longer than the test.
                          redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 1, 1min)),
                          redis::ChangeInfo{"test", "", std::nullopt});
    EXPECT_TRUE(set.ok()) << set.error().message;
    for (int k = 0; k < kKeysPerMaster; ++k) {
      const std::string key = "u" + std::to_string(k);
      EXPECT_TRUE(limiter.decide(rule, {key, {1.0 + k}, false, std::nullopt}).ok());
      key_node[schema.state_key(rule, key)] = "127.0.0.1:" + std::to_string(port);
    }
  }
  return key_node;
}

std::map<std::string, std::string> nodes_of(const ProbeSnapshot& snap) {
  std::map<std::string, std::string> out;
  for (const auto& k : snap.keys) {
    EXPECT_TRUE(k.error.empty()) << k.key << ": " << k.error;
    out[k.key] = k.node;
  }
  return out;
}

// A command timeout far longer than any wait below: a probe that read the masters one after
// the other would sit on the paused one that long before asking the next.
redis::ClusterOptions patient_options() {
  redis::ClusterOptions o = test::cluster_options();
  o.connect.command_timeout = 120s;
  return o;
}

// A seeded cluster, a client on it with `options`, and a probe on the client.
struct ProbedCluster {
  explicit ProbedCluster(const redis::ClusterOptions& options)
      : cluster(start_cluster()),
        client(test::cluster_url(*cluster), options, SteadyClock::instance()),
        key_node(seed(*cluster, client)) {}
  std::unique_ptr<RedisCluster> cluster;
  redis::ClusterClient client;
  std::map<std::string, std::string> key_node;
  ClusterProbe probe{builtin_profiles(), ProbeOptions{}};
};

TEST(ClusterProbeConcurrency, APausedMasterDoesNotHoldBackTheOtherMastersReads) {
  ProbedCluster c(patient_options());
  auto& [cluster, client, key_node, probe] = c;
  auto first = probe.refresh(client);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(nodes_of(*first), key_node);

  // The master probed first in the map's order is the one paused.
  auto topo = client.topology();
  ASSERT_TRUE(topo.ok());
  const std::vector<redis::ClusterNode> masters = (*topo)->masters();
  ASSERT_EQ(masters.size(), 3u);
  const int paused = masters.front().port;
  std::vector<std::unique_ptr<test::RedisMonitor>> others;
  for (std::size_t i = 1; i < masters.size(); ++i) {
    others.push_back(std::make_unique<test::RedisMonitor>(masters[i].port));
    ASSERT_TRUE(others.back()->ok());
  }
  cluster->pause(paused);
  auto refreshed = std::async(std::launch::async, [&] { return probe.refresh(client); });
  // Each other master runs the refresh's TIME while the paused one holds its call.
  for (std::size_t i = 0; i < others.size(); ++i) {
    EXPECT_TRUE(others[i]->wait_for_command({"TIME"}, 60s))
        << "master " << masters[i + 1].address() << " was not read while "
        << masters.front().address() << " was paused";
  }
  cluster->resume(paused);
  auto snap = refreshed.get();
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_TRUE(snap->failed_nodes.empty());
  EXPECT_EQ(nodes_of(*snap), key_node) << "every master's keys, each on its master";
}

TEST(ClusterProbeConcurrency, AMasterGoneKeepsNoneOfTheOthersReadingsAndTheirOrderIsWhole) {
  ProbedCluster c(test::cluster_options());
  auto& [cluster, client, key_node, probe] = c;
  auto first = probe.refresh(client);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(nodes_of(*first), key_node);
  probe.recycle(std::move(first->keys));  // written over by the next refresh

  const int gone = cluster->master_port_of_slot(redis::cluster_slot(key_node.begin()->first));
  const std::string gone_node = "127.0.0.1:" + std::to_string(gone);
  cluster->kill(gone);
  auto snap = probe.refresh(client);
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  EXPECT_EQ(snap->failed_nodes, std::vector<std::string>{gone_node});
  std::map<std::string, std::string> expected;
  for (const auto& [key, node] : key_node)
    if (node != gone_node) expected[key] = node;
  ASSERT_EQ(expected.size(), 2u * kKeysPerMaster);
  EXPECT_EQ(nodes_of(*snap), expected) << "the other masters' keys, each read";
  // Merged from the masters' lists: most pressure first over all of them, as one sort gives.
  std::vector<KeyReading> sorted = snap->keys;
  sort_by_pressure(sorted);
  ASSERT_EQ(sorted.size(), snap->keys.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(snap->keys[i].key, sorted[i].key) << i;
  // Each key was drawn once at a different cost, so the pressures differ and order them.
  EXPECT_GT(snap->keys.front().pressure().value_or(0), snap->keys.back().pressure().value_or(1));
}

}  // namespace
}  // namespace limitscope::probe
