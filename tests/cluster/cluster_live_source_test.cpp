// Verifies RedisLiveSource on a real Redis Cluster: keys on all three shards are found, read and
// shown with their shard, each rule's decision stream is read on the master owning it, a slot
// migration leaves the key table whole and error-free, and a master killed between refreshes
// (its open connection dies under the next refresh) is reported in the event log while its
// keys stay in the table, and the source recovers once its replica is promoted, with nothing
// recorded before lost. The cluster client runs on the source's clock, not the real one: the
// slot map is re-read after a failover when the injected clock says 100 ms have passed, not
// 99, however long the failover took in real time.
#include <gtest/gtest.h>

#include <algorithm>

#include "cluster_test_support.h"
#include "core/metrics/metric_names.h"
#include "core/sources/redis_live_source.h"
#include "core/sources/simulation_recorder.h"
#include "support/series_lookup.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;
using test::samples_of;

RedisLiveOptions options_for(const RedisCluster& cluster) {
  RedisLiveOptions o;
  o.url = test::cluster_url(cluster);
  o.connect = {std::chrono::milliseconds(1000), std::chrono::milliseconds(2000)};
  o.backoff.initial = 20ms;
  o.backoff.max = 200ms;
  o.profiles = probe::builtin_profiles();
  return o;
}

// 5 tokens refilled one per hour: real time between calls refills next to nothing (levels are
// compared within 1e-4), and state keys outlive the test.
void configure(redis::ClusterClient& client, const std::string& rule) {
  auto set = redis::set_config(client, redis::KeySchema{}, rule,
                               redis::single_limit(test::bucket(Algorithm::token_bucket, 5, 1, 1h)),
                               redis::ChangeInfo{"test", "", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
}

// `n` logged decisions of `key` under `rule`. @return how many were refused
int decide_logged(redis::ClusterLimiter& limiter, const std::string& rule, const std::string& key,
                  int n) {
  int refused = 0;
  for (int i = 0; i < n; ++i) {
    redis::DecideRequest r;
    r.key = key;
    r.log = true;
    auto d = limiter.decide(rule, r);
    if (!d) throw std::runtime_error(d.error().message);
    if (!d->decision.allowed) ++refused;
  }
  return refused;
}

const KeyRow* row_of(const DashboardSnapshot& s, const std::string& rule) {
  for (const auto& r : s.keys) {
    if (r.tier == rule) return &r;
  }
  return nullptr;
}

std::string node_name(int port) {
  return "127.0.0.1:" + std::to_string(port);
}

bool has_event(const RedisLiveSource& source, const std::string& part) {
  for (const auto& e : source.events()) {
    if (e.text.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(ClusterLiveSource, ReadsEveryShardNamesItAndKeepsTheTableWholeThroughAMigration) {
  test::ClusterRig rig;
  auto& [cluster, schema, client, limiter] = rig;
  const auto per_master = test::rules_per_master(*cluster, schema, "live", 1);
  ASSERT_EQ(per_master.size(), 3u);
  std::map<std::string, int> port_of;  // rule → its master's port
  for (const auto& [port, rules] : per_master) {
    configure(client, rules.front());
    ASSERT_EQ(decide_logged(limiter, rules.front(), "alice", 2), 0);  // the backlog
    port_of[rules.front()] = port;
  }

  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*cluster), clock);
  EXPECT_EQ(source.name(), "redis: " + cluster->url());
  source.advance(Nanos{0});
  ASSERT_TRUE(source.connected()) << source.last_error();
  EXPECT_EQ(source.last_error(), "");
  EXPECT_EQ(source.decisions_read(), 0u) << "the backlog is not new traffic";
  DashboardSnapshot snap = source.snapshot(ChartView{});
  for (const auto& [rule, port] : port_of) {
    const KeyRow* row = row_of(snap, rule);
    ASSERT_NE(row, nullptr) << rule;
    EXPECT_EQ(row->api_key, "alice");
    EXPECT_EQ(row->node, node_name(port)) << rule;
    EXPECT_DOUBLE_EQ(row->capacity, 5);
    EXPECT_NEAR(row->level, 3.0 / 5.0, 1e-4) << rule;
  }

  // Each shard's stream: 3 tokens left for 7 requests, so 4 refusals per rule.
  for (const auto& [rule, port] : port_of) EXPECT_EQ(decide_logged(limiter, rule, "alice", 7), 4);
  clock.advance(1s);
  source.advance(1s);
  EXPECT_EQ(source.decisions_read(), 21u);
  EXPECT_EQ(source.rejections_read(), 12u);
  for (const auto& [rule, port] : port_of) {
    const auto hits =
        samples_of(source.store(), metrics::names::kGatewayRateLimitHits, {{"tier", rule}});
    ASSERT_FALSE(hits.empty()) << rule << " on " << node_name(port);
    EXPECT_DOUBLE_EQ(hits.back().value, 4.0) << rule;
  }

  // Move the first rule's slot (config, state and stream: one key per step) to the second
  // master, refreshing between the steps: the row never leaves the table, nothing is an error.
  const std::string moved = per_master.begin()->second.front();
  const int to = std::next(per_master.begin())->first;
  std::size_t refreshes = 0;
  bool kept_seen = false;
  cluster->migrate_slot(redis::rule_slot(schema, moved), to, 1, [&] {
    clock.advance(1s);
    source.advance(1s);
    ++refreshes;
    EXPECT_TRUE(source.connected());
    EXPECT_EQ(source.last_error(), "");
    const DashboardSnapshot during = source.snapshot(ChartView{});
    EXPECT_EQ(during.keys.size(), 3u);
    EXPECT_NE(row_of(during, moved), nullptr);
    kept_seen = kept_seen || source.kept().count(schema.state_key(moved, "alice")) == 1;
  });
  EXPECT_GE(refreshes, 3u);
  EXPECT_TRUE(kept_seen) << "a half-moved slot's key is shown from its last reading";
  // A decision on the moved rule after the move is read from its new master's stream, and
  // the row names the new master once its scan has found the key.
  EXPECT_EQ(decide_logged(limiter, moved, "alice", 1), 1);
  const std::uint64_t before = source.decisions_read();
  bool settled = false;
  for (int i = 0; i < 10 && !settled; ++i) {
    clock.advance(1s);
    source.advance(1s);
    snap = source.snapshot(ChartView{});
    const KeyRow* row = row_of(snap, moved);
    settled = row != nullptr && row->node == node_name(to) && source.kept().empty() &&
              source.decisions_read() == before + 1;
  }
  EXPECT_TRUE(settled) << "decisions read " << source.decisions_read() - before << ", kept "
                       << source.kept().size();
  EXPECT_EQ(source.last_error(), "");
  EXPECT_EQ(snap.keys.size(), 3u);
  for (const auto& e : source.events())
    EXPECT_EQ(e.text.find("decision stream"), std::string::npos) << e.text;
}

TEST(ClusterLiveSource, AKilledMasterIsReportedItsKeysKeptAndTheSourceRecoversAfterPromotion) {
  RedisCluster::Options o;
  o.replicas = 1;
  o.node_timeout_ms = 1000;
  test::ClusterRig rig(o);
  auto& [cluster, schema, client, limiter] = rig;
  const auto per_master = test::rules_per_master(*cluster, schema, "fail", 1);
  for (const auto& [port, rules] : per_master) {
    configure(client, rules.front());
    ASSERT_EQ(decide_logged(limiter, rules.front(), "bob", 1), 0);
  }
  const std::string victim_rule = per_master.begin()->second.front();
  const int victim = per_master.begin()->first;
  const int replica = cluster->replica_of(victim);
  ASSERT_NE(replica, 0);
  // The rule's config, state and stream must have reached the replica before its master dies.
  ASSERT_TRUE(RedisCluster::wait_for([&] {
    auto c = cluster->connect(replica);
    // A failed READONLY shows as a failed read below, which wait_for retries.
    (void)c.command({"READONLY"});
    auto n = c.command({"EXISTS", schema.config_key(victim_rule),
                        schema.state_key(victim_rule, "bob"), schema.decisions_key(victim_rule)});
    return n.ok() && n->integer == 3;
  }));

  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*cluster), clock);
  for (int i = 0; i < 3; ++i) {
    clock.advance(1s);
    source.advance(1s);
  }
  ASSERT_TRUE(source.connected()) << source.last_error();
  ASSERT_EQ(source.snapshot(ChartView{}).keys.size(), 3u);
  const metrics::Labels victim_series{{"api_key", "bob"}, {"tier", victim_rule}};
  const auto recorded = samples_of(source.store(), dashboard_series::kKeyLevel, victim_series);
  ASSERT_FALSE(recorded.empty());

  cluster->kill(victim);
  clock.advance(1s);
  source.advance(1s);
  EXPECT_TRUE(source.connected()) << "two masters still answer";
  EXPECT_NE(source.last_error().find(node_name(victim)), std::string::npos) << source.last_error();
  EXPECT_TRUE(has_event(source, "node " + node_name(victim) + ": "))
      << "the failure is in the event log";
  DashboardSnapshot snap = source.snapshot(ChartView{});
  ASSERT_EQ(snap.keys.size(), 3u) << "the dead master's key stays in the table";
  const KeyRow* kept = row_of(snap, victim_rule);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->node, node_name(victim));
  EXPECT_NE(kept->parameters.find("did not answer"), std::string::npos) << kept->parameters;
  EXPECT_NEAR(kept->level, 4.0 / 5.0, 1e-4) << "its last reading";

  // Bounded polling of the real processes until the replica serves the key: a refresh every
  // (manual) second, ~100 ms of real time apart, for at most 30 s.
  SteadyClock& real = SteadyClock::instance();
  CancelToken never;
  const Nanos deadline = real.now() + 30s;
  bool recovered = false;
  while (!recovered && real.now() < deadline) {
    real.wait_until(real.now() + 100ms, never);
    clock.advance(1s);
    source.advance(1s);
    const DashboardSnapshot now = source.snapshot(ChartView{});
    const KeyRow* row = row_of(now, victim_rule);
    recovered = row != nullptr && row->node == node_name(replica) && source.kept().empty();
  }
  ASSERT_TRUE(recovered) << "the key was not read on the promoted replica within 30 s; last error: "
                         << source.last_error();
  EXPECT_EQ(source.last_error(), "");
  EXPECT_TRUE(has_event(source, "cluster masters now: ")) << "the promotion is in the event log";
  EXPECT_EQ(source.snapshot(ChartView{}).keys.size(), 3u);
  // Nothing recorded before the failure is lost, and recording resumed.
  const auto after = samples_of(source.store(), dashboard_series::kKeyLevel, victim_series);
  ASSERT_GT(after.size(), recorded.size());
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(after[i].t_ms, recorded[i].t_ms);
    EXPECT_EQ(after[i].value, recorded[i].value);
  }
  // The promoted master's stream is read from where the dead one left off.
  const std::uint64_t read_before = source.decisions_read();
  ASSERT_TRUE(RedisCluster::wait_for(
      [&] {
        try {
          return decide_logged(limiter, victim_rule, "bob", 1) >= 0;
        } catch (const std::exception&) {
          return false;  // the client's map may still name the dead master for a moment
        }
      },
      10s));
  clock.advance(1s);
  source.advance(1s);
  EXPECT_EQ(source.decisions_read(), read_before + 1);
}

// The cluster client's pacing (slot-map reads at most every min_refresh_interval, 100 ms;
// reconnect backoffs) reads the clock the source was given. Real time runs for seconds while
// the replica is promoted; the injected clock does not, so the map must not be re-read until
// that clock has moved 100 ms, and must be at exactly 100 ms.
TEST(ClusterLiveSource, ItsClusterClientPacesMapReadsOnTheInjectedClockNotRealTime) {
  RedisCluster::Options o;
  o.replicas = 1;
  o.node_timeout_ms = 1000;
  auto cluster = RedisCluster::start(o);
  const int victim = cluster->master_port_of_slot(0);
  const int replica = cluster->replica_of(victim);
  ASSERT_NE(replica, 0);

  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  RedisLiveSource source(options_for(*cluster), clock);
  source.advance(1s);  // reads the map at (manual) time 0
  ASSERT_TRUE(source.connected()) << source.last_error();

  cluster->kill(victim);
  ASSERT_TRUE(RedisCluster::wait_for(
      [&] { return cluster->master_port_of_slot(0) == replica && cluster->all_ok(); }, 30s))
      << "the replica was not promoted";

  auto masters_changed = [&] { return has_event(source, "cluster masters now: "); };
  source.advance(1s);  // manual time 0: the dead master fails, the map is not due
  EXPECT_TRUE(has_event(source, "node " + node_name(victim) + ": "));
  EXPECT_FALSE(masters_changed()) << "the map was re-read on real time";
  clock.advance(99ms);
  source.advance(1s);
  EXPECT_FALSE(masters_changed()) << "the map was re-read 99 ms after the last read";
  EXPECT_NE(source.last_error().find(node_name(victim)), std::string::npos) << source.last_error();
  clock.advance(1ms);
  source.advance(1s);
  EXPECT_TRUE(masters_changed()) << "the map was not re-read 100 ms after the last read";
  EXPECT_TRUE(has_event(source, node_name(replica))) << "the promoted replica is named";
}

}  // namespace
}  // namespace limitscope
