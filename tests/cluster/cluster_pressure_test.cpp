// Verifies the pressure index on a real 3-master cluster: a rule's index is written on the
// master that owns the rule's slot (and nowhere else) by the decision that drains a key, and
// ClusterProbe, scanning about 4 keys per master a refresh over 600 keys, has each drained key
// as a top row at the next refresh, read on its own master, through the index of each shard.
#include <gtest/gtest.h>

#include <set>

#include "cluster_test_support.h"
#include "core/probe/cluster_probe.h"

namespace limitscope::probe {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

bool holds(const RedisCluster& cluster, int port, const std::string& key) {
  redis::Connection c = cluster.connect(port);
  std::string cursor = "0";
  do {
    auto r = c.command({"SCAN", cursor, "MATCH", key, "COUNT", "1000"});
    if (!r.ok()) throw std::runtime_error(r.error().message);
    if (!r->elements[1].elements.empty()) return true;
    cursor = r->elements[0].str;
  } while (cursor != "0");
  return false;
}

TEST(ClusterPressure, EachShardKeepsItsRulesIndexAndTheProbeReadsItThere) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;
  const auto per_master = test::rules_per_master(*cluster, schema, "pp", 1);
  ASSERT_EQ(per_master.size(), 3u);
  for (const auto& [port, rules] : per_master) {
    auto set =
        redis::set_config(client, schema, rules.front(),
                          redis::single_limit(test::bucket(Algorithm::token_bucket, 100, 1, 1min)),
                          redis::ChangeInfo{"test", "", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
    for (int k = 0; k < 200; ++k) {
      ASSERT_TRUE(
          limiter.decide(rules.front(), {"u" + std::to_string(k), {1.0}, false, std::nullopt})
              .ok());
    }
  }
  ProbeOptions po;
  po.scan_count = 4;
  po.scan_calls_per_refresh = 1;
  po.read_ttl = false;
  ClusterProbe probe(builtin_profiles(), po);
  auto first = probe.refresh(client);  // each master's probe learns the rule it holds keys of
  ASSERT_TRUE(first.ok()) << first.error().message;
  std::set<std::string> seen;
  for (const auto& k : first->keys) seen.insert(k.key);

  std::map<std::string, std::string> victims;  // state key → its master
  for (const auto& [port, rules] : per_master) {
    const std::string& rule = rules.front();
    std::string victim;
    for (int k = 0; k < 200 && victim.empty(); ++k) {
      if (seen.count(schema.state_key(rule, "u" + std::to_string(k))) == 0)
        victim = "u" + std::to_string(k);
    }
    auto d = limiter.decide(rule, {victim, {95.0}, false, std::nullopt});
    ASSERT_TRUE(d.ok() && d->decision.allowed);
    victims[schema.state_key(rule, victim)] = "127.0.0.1:" + std::to_string(port);
    // The index is on the rule's master only (SCAN sees a node's own keys, whatever it serves).
    for (int other : cluster->ports()) {
      EXPECT_EQ(holds(*cluster, other, schema.pressure_key(rule)), other == port)
          << rule << " on " << other;
    }
  }

  auto second = probe.refresh(client);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_LT(second->scanned, 100u);  // a few keys per master, far from 600
  EXPECT_EQ(second->index_reads, 3u);
  EXPECT_EQ(second->index_entries, 3u);
  ASSERT_GE(second->keys.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& row = second->keys[i];
    ASSERT_TRUE(victims.count(row.key)) << row.key;
    EXPECT_EQ(row.node, victims[row.key]);
    ASSERT_TRUE(row.level);
    EXPECT_LT(*row.level, 10);
  }
}

}  // namespace
}  // namespace limitscope::probe
