// Verifies ClusterProbe: every limiter key of every shard is found and read on the master that
// holds it, and refreshes keep working while a slot migrates (no failed refresh, no error line;
// keys in flight are counted as moving) and then find the keys on their new master; the masters
// share one discovery budget, its keys, its time and its CPU.
#include "core/probe/cluster_probe.h"

#include <gtest/gtest.h>

#include <set>

#include "cluster_test_support.h"
#include "core/redis/key_schema.h"
#include "support/cpu_per_look.h"

namespace limitscope::probe {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

TEST(ClusterProbe, FindsEveryKeyOnItsShardAndKeepsWorkingDuringAMigration) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;  // schema: the built-in profile's prefix
  const auto per_master = test::rules_per_master(*cluster, schema, "pr", 1);
  std::map<std::string, std::string> key_node;  // state key → "127.0.0.1:port"
  for (const auto& [port, rules] : per_master) {
    const std::string& rule = rules.front();
    auto set = redis::set_config(
        client, schema, rule,
        // Refilled at 1/min, so a state key lives for a minute, longer than the test.
        redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 1, 1min)),
        redis::ChangeInfo{"test", "", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
    for (int k = 0; k < 8; ++k) {
      const std::string key = "u" + std::to_string(k);
      ASSERT_TRUE(limiter.decide(rule, {key, {1.0}, false, std::nullopt}).ok());
      key_node[schema.state_key(rule, key)] = "127.0.0.1:" + std::to_string(port);
    }
  }
  ProbeOptions po;
  po.scan_count = 4;  // several SCAN calls per master
  po.scan_calls_per_refresh = 2;
  ClusterProbe probe(builtin_profiles(), po);
  auto all = probe.probe_all(client);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_TRUE(all->errors.empty());
  EXPECT_TRUE(all->discovery_complete);
  std::map<std::string, std::string> seen;
  for (const auto& k : all->keys) seen[k.key] = k.node;
  for (const auto& [key, node] : key_node) {
    ASSERT_TRUE(seen.count(key)) << key;
    EXPECT_EQ(seen[key], node) << key;
  }

  // Move the first rule's slot, refreshing between every key moved.
  const std::string rule = per_master.begin()->second.front();
  const int slot = redis::rule_slot(schema, rule);
  const int to = std::next(per_master.begin())->first;
  std::size_t refreshes = 0;
  cluster->migrate_slot(slot, to, 1, [&] {
    auto snap = probe.refresh(client);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    EXPECT_TRUE(snap->errors.empty()) << snap->errors.front();
    for (const auto& k : snap->keys) EXPECT_TRUE(k.error.empty()) << k.key << ": " << k.error;
    ++refreshes;
  });
  EXPECT_GT(refreshes, 0u);
  // Within a few budgeted refreshes the new master's scan has found the moved keys.
  std::map<std::string, std::string> after;
  ASSERT_TRUE(RedisCluster::wait_for(
      [&] {
        auto snap = probe.refresh(client);
        if (!snap.ok()) return false;
        after.clear();
        for (const auto& k : snap->keys) after[k.key] = k.node;
        for (int k = 0; k < 8; ++k) {
          if (after[schema.state_key(rule, "u" + std::to_string(k))] !=
              "127.0.0.1:" + std::to_string(to))
            return false;
        }
        return true;
      },
      10s));
  EXPECT_EQ(after.size(), key_node.size());
}

// A cluster's masters are scanned at once; the discovery budget is one share between them, so
// the dashboard's discovery work does not triple on a 3-master cluster.
TEST(ClusterProbe, SplitsOneScanBudgetBetweenItsMasters) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;
  const auto per_master = test::rules_per_master(*cluster, schema, "sb", 1);
  ASSERT_EQ(per_master.size(), 3u);
  ProbeOptions po;
  po.scan_count = 100;
  ScanBudgetOptions budget;
  budget.min_keys = budget.max_keys = budget.initial_keys = 3000;
  po.adaptive_scan = budget;
  ClusterProbe probe(builtin_profiles(), po);
  for (int i = 0; i < 3; ++i) {
    auto snap = probe.refresh(client);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    EXPECT_EQ(snap->scan_budget, 3000u) << "1,000 COUNT units on each of 3 masters";
    EXPECT_LE(snap->scan_calls, 30u) << "COUNT 100: at most 10 calls per master";
  }
}

// The CPU share is split too: 30 ms for the cluster is 10 ms a master, so 20 ms of CPU for a
// master's SCAN calls of 1,000 keys halves its budget (one 30 ms share each would grow it by
// half); then 20 ms for 500 keys, smoothed 30 µs a key, lets 333 through.
TEST(ClusterProbe, SplitsTheCpuShareBetweenItsMasters) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;
  std::set<int> seeded;
  for (int tag = 0; seeded.size() < 3 && tag < 1000; ++tag) {
    // 3,000 keys no profile matches in one slot of each master (a hash tag it owns).
    const std::string prefix = "other:{" + std::to_string(tag) + "}:";
    const int port = cluster->master_port_of_slot(redis::cluster_slot(prefix));
    if (!seeded.insert(port).second) continue;
    redis::RedisUrl url;
    url.port = port;
    auto c = redis::Connection::open(url, {std::chrono::seconds(2), std::chrono::seconds(30)});
    ASSERT_TRUE(c.ok()) << c.error().message;
    redis::CommandBatch b;
    for (int i = 0; i < 3000; ++i) b.add({"SET", prefix + std::to_string(i), "x"});
    ASSERT_TRUE(c->pipeline(b).ok());
  }
  ASSERT_EQ(seeded.size(), 3u);
  ManualClock still{Nanos{0}};       // SCAN takes no time: the time share never binds
  const test::CpuPerLook cpu(20ms);  // each master's SCAN calls: 20 ms (its own thread)
  ProbeOptions po;
  po.scan_count = 100;
  po.clock = &still;
  po.cpu_clock = &cpu;
  ScanBudgetOptions budget;
  budget.cpu_per_refresh = 30ms;
  budget.min_keys = 30;
  budget.max_keys = 30000;
  budget.initial_keys = 3000;
  po.adaptive_scan = budget;
  ClusterProbe probe(builtin_profiles(), po);
  std::vector<std::size_t> budgets;
  for (int i = 0; i < 3; ++i) {
    auto snap = probe.refresh(client);
    ASSERT_TRUE(snap.ok()) << snap.error().message;
    budgets.push_back(snap->scan_budget);
    EXPECT_EQ(snap->discovery_cpu_ns, 60'000'000) << "20 ms on each master, no key found";
  }
  EXPECT_EQ(budgets, (std::vector<std::size_t>{3000, 1500, 999})) << "summed over 3 masters";
}

}  // namespace
}  // namespace limitscope::probe
