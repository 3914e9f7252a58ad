// Verifies the connection check and the key browser on a real Redis Cluster: test-connection
// counts the masters and the limiter keys of every shard (and names a master that does not
// answer), the browser lists every shard's keys with their node and samples their memory on
// it, and a raw read of a key goes to the master owning it, also for a user whose ACL allows
// CLUSTER SLOTS but not CLUSTER SHARDS (the slot map falls back to SLOTS).
#include <gtest/gtest.h>

#include "cluster_test_support.h"
#include "core/connections/connection_check.h"
#include "core/probe/key_inspect.h"
#include "support/counting_clock.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

connections::ResolvedConnection target(const RedisCluster& cluster) {
  connections::SavedConnection c;
  c.name = "cluster";
  c.kind = connections::ConnectionKind::redis;
  c.url = cluster.url();
  auto r = connections::resolve_connection(c, connections::process_env(), std::nullopt);
  if (!r) throw std::runtime_error(r.error());
  return *r;
}

// Every key of the node on `port` (a full SCAN from the test's side).
std::vector<std::string> all_keys(const RedisCluster& cluster, int port) {
  auto c = cluster.connect(port);
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    auto r = c.command({"SCAN", cursor, "COUNT", "1000"});
    if (!r) throw std::runtime_error(r.error().message);
    cursor = r->elements[0].str;
    for (const auto& k : r->elements[1].elements) out.push_back(k.str);
  } while (cursor != "0");
  return out;
}

TEST(ClusterInspect, ConnectionCheckKeyBrowserAndASlotsOnlyUserSeeEveryShard) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;
  std::map<std::string, int> state_port;  // state key → its master's port
  for (const auto& [port, rules] : test::rules_per_master(*cluster, schema, "ins", 1)) {
    const std::string& rule = rules.front();
    auto set = redis::set_config(
        client, schema, rule, redis::single_limit(test::bucket(Algorithm::token_bucket, 10, 1, 1h)),
        redis::ChangeInfo{"test", "", std::nullopt});
    ASSERT_TRUE(set.ok()) << set.error().message;
    for (const std::string key : {"a", "b"}) {
      ASSERT_TRUE(limiter.decide(rule, {key, {1.0}, false, std::nullopt}).ok());
      state_port[schema.state_key(rule, key)] = port;
    }
  }
  // What the check should count: every key of every master, by whether a profile matches it.
  const auto profiles = probe::builtin_profiles();
  std::size_t limiter_keys = 0, other_keys = 0;
  for (int port : cluster->ports()) {
    for (const auto& k : all_keys(*cluster, port))
      ++(probe::match_profile(profiles, k) ? limiter_keys : other_keys);
  }
  ASSERT_GE(limiter_keys, state_port.size());

  // On a clock that stands still: every PING takes 0 ms, and the cluster client paces its
  // connects and map reads on that clock too (it is read more than the PINGs' two reads per
  // master; on the real clock it would not be).
  connections::CheckOptions co;
  co.timeout = 2000ms;
  test::CountingClock still;
  const auto check = connections::check_connection(target(*cluster), co, still);
  ASSERT_TRUE(check.ok) << check.error_kind << ": " << check.message;
  EXPECT_EQ(check.figure("ping_ms"), "0.000");
  EXPECT_GT(still.reads(), 2 * cluster->size())
      << "the cluster client did not read the injected clock";
  EXPECT_EQ(check.figure("masters"), "3");
  EXPECT_EQ(check.figure("slots_covered"), "16384");
  EXPECT_EQ(check.figure("limiter_keys"), std::to_string(limiter_keys));
  EXPECT_EQ(check.figure("other_keys"), std::to_string(other_keys));
  EXPECT_EQ(check.figure("scan_complete"), "1");
  EXPECT_NE(check.message.find("cluster of 3 masters"), std::string::npos) << check.message;
  EXPECT_NE(check.figure("redis_version"), "");

  // The browser: two budgeted refreshes list every state key with its node; memory is sampled
  // on each key's master.
  probe::KeyBrowserOptions bo;
  bo.scan_count = 2;  // several SCAN calls per master
  probe::KeyBrowser browser(profiles, bo);
  auto listing = browser.refresh(client);
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  listing = browser.refresh(client);
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_TRUE(listing->errors.empty()) << listing->errors.front();
  EXPECT_TRUE(listing->discovery_complete);
  std::map<std::string, const probe::BrowsedKey*> listed;
  for (const auto& k : listing->keys) listed[k.reading.key] = &k;
  for (const auto& [key, port] : state_port) {
    ASSERT_TRUE(listed.count(key)) << key;
    EXPECT_EQ(listed[key]->reading.node, "127.0.0.1:" + std::to_string(port)) << key;
    EXPECT_TRUE(listed[key]->memory_bytes.has_value()) << key << " was not sampled on its master";
    EXPECT_EQ(listed[key]->reading.error, "") << key;
  }

  // A raw read on every master, through the cluster client.
  for (const auto& [key, port] : state_port) {
    auto raw = probe::inspect_key(client, key, probe::match_profile(profiles, key));
    ASSERT_TRUE(raw.ok()) << key << ": " << raw.error().message;
    EXPECT_FALSE(raw->missing) << key;
    EXPECT_EQ(raw->problem, "") << key;
    EXPECT_EQ(raw->node, "127.0.0.1:" + std::to_string(port)) << key;
    EXPECT_FALSE(raw->fields.empty()) << key;
    EXPECT_TRUE(raw->ttl_ms.has_value()) << key;
  }
  auto gone = probe::inspect_key(client, schema.state_key("nothing-here", "x"), nullptr);
  ASSERT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_TRUE(gone->missing);

  // A user whose ACL allows CLUSTER SLOTS but not CLUSTER SHARDS (ACLs are per node): the
  // client falls back to SLOTS and routes as well.
  for (int port : cluster->ports()) {
    auto c = cluster->connect(port);
    auto acl = c.command(
        {"ACL", "SETUSER", "slotsonly", "on", ">pw", "~*", "&*", "+@all", "-cluster|shards"});
    ASSERT_TRUE(acl.ok()) << acl.error().message;
  }
  std::string slots_only_url = cluster->url();
  slots_only_url.insert(slots_only_url.find("://") + 3, "slotsonly:pw@");
  auto parsed = redis::parse_redis_url(slots_only_url);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  redis::ClusterClient slots_only(*parsed, test::cluster_options(), SteadyClock::instance());
  auto topo = slots_only.topology();
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  EXPECT_EQ((*topo)->masters().size(), 3u);
  EXPECT_EQ((*topo)->covered_slots(), redis::kClusterSlotCount);
  for (const auto& [key, port] : state_port) {
    auto raw = probe::inspect_key(slots_only, key, nullptr);
    ASSERT_TRUE(raw.ok()) << key << ": " << raw.error().message;
    EXPECT_EQ(raw->node, "127.0.0.1:" + std::to_string(port)) << key;
  }

  // A master that does not answer fails the check, named.
  const int dead = state_port.begin()->second;
  cluster->kill(dead);
  const auto failed = connections::check_connection(target(*cluster), co, SteadyClock::instance());
  EXPECT_FALSE(failed.ok);
  EXPECT_NE(failed.message.find("node 127.0.0.1:" + std::to_string(dead)), std::string::npos)
      << failed.message;
}

}  // namespace
}  // namespace limitscope
