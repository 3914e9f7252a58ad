// Verifies failover: the master serving a rule is killed and its replica promoted; in between
// the guarded limiter's failure policy decides (degraded, never an error reply), and Redis
// decisions resume within a few seconds of the promotion, with the rule's config intact.
#include <gtest/gtest.h>

#include "cluster_test_support.h"
#include "core/redis/guarded_limiter.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;
using test::RedisCluster;

TEST(ClusterFailover, DecisionsResumeAfterAReplicaIsPromoted) {
  RedisCluster::Options o;
  o.replicas = 1;
  o.node_timeout_ms = 1000;
  auto cluster = RedisCluster::start(o);
  const KeySchema schema("lsfail:");
  ClusterClient client(test::cluster_url(*cluster), test::cluster_options(),
                       SteadyClock::instance());
  ClusterLimiter backend(client, RedisLimiter(schema));
  FailurePolicy policy{FailureMode::fail_closed, {}, 1min};
  policy.breaker.cooldown = 200ms;
  GuardedLimiter guarded(backend, policy, SteadyClock::instance());
  const std::string rule =
      test::rules_per_master(*cluster, schema, "fo", 1).begin()->second.front();
  auto set = set_config(client, schema, rule,
                        single_limit(test::bucket(Algorithm::token_bucket, 1e6, 1000)),
                        ChangeInfo{"test", "", std::nullopt});
  ASSERT_TRUE(set.ok()) << set.error().message;
  const int slot = rule_slot(schema, rule);
  const int master = cluster->master_port_of_slot(slot);
  // The config must have reached the replica before its master dies.
  const int replica = cluster->replica_of(master);
  ASSERT_NE(replica, 0);
  ASSERT_TRUE(RedisCluster::wait_for([&] {
    auto c = cluster->connect(replica);
    // A failed READONLY shows as a failed read below, which wait_for retries.
    (void)c.command({"READONLY"});
    auto v = c.command({"HGET", schema.config_key(rule), "version"});
    return v.ok() && v->str == "1";
  }));
  for (int i = 0; i < 5; ++i) {
    const auto d = guarded.decide(rule, "k", 1);
    ASSERT_FALSE(d.guarded.degraded) << d.guarded.error;
  }

  cluster->kill(master);
  SteadyClock& clock = SteadyClock::instance();
  CancelToken never;
  long long degraded = 0, decided_after = 0, backend_errors = 0;
  std::optional<Nanos> promoted_at;
  std::optional<Nanos> resumed_at;
  const Nanos deadline = clock.now() + 40s;
  // Bounded polling of the real processes: a decision, then the promotion check, ~20 ms apart.
  while (clock.now() < deadline && !resumed_at) {
    const auto d = guarded.decide(rule, "k", 1);
    if (d.guarded.decision.reason == DenyReason::backend_error) ++backend_errors;
    if (d.guarded.degraded) ++degraded;
    if (!promoted_at && cluster->master_port_of_slot(slot) == replica) promoted_at = clock.now();
    if (!d.guarded.degraded && d.guarded.decision.reason != DenyReason::backend_error &&
        promoted_at) {
      ++decided_after;
      resumed_at = clock.now();
      EXPECT_EQ(d.config_version, 1);
      EXPECT_TRUE(d.guarded.decision.allowed);
    }
    clock.wait_until(clock.now() + 20ms, never);
  }
  ASSERT_TRUE(promoted_at.has_value()) << "the replica was not promoted within 40 s";
  ASSERT_TRUE(resumed_at.has_value()) << "decisions did not resume after the promotion";
  EXPECT_LE(*resumed_at - *promoted_at, 5s);
  EXPECT_GT(degraded, 0) << "the failure policy never applied";
  EXPECT_EQ(backend_errors, 0);
  EXPECT_GT(client.stats().refreshes, 1u);
}

}  // namespace
}  // namespace limitscope::redis
