// Verifies the replica audit on canned scrapes: the per-algorithm bound is one a real limiter
// never exceeds (and nearly reaches), windows come from two scrapes, from one scrape since
// start, or from quota burn; two replicas at the full limit each are a ~2x leak named as
// per-replica counting; one shared limit is not flagged.

#include "core/audit/replica_audit.h"

#include <gtest/gtest.h>

#include "core/common/sha256.h"
#include "core/limiter/limiter.h"
#include "support/limit_params_builders.h"

namespace limitscope::test {
namespace {

using audit::ReplicaWindow;

Policy policy() {
  auto p = parse_policy(R"({
    "default_tier": "free",
    "tiers": {
      "free": { "requests": { "algorithm": "token-bucket", "capacity": 10, "refill": "1/s" },
                "daily_quota": 1000 },
      "pro": { "requests": { "algorithm": "fixed-window", "limit": 100, "window": "1m" } } },
    "models": { "m": { "cost": 1 }, "big": { "cost": 5 } },
    "keys": { "alice": { "tier": "free", "name": "acme-prod" }, "bob": "pro" } })",
                        "test");
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p).value();
}

probe::Scrape scrape(const std::string& text, std::int64_t at_ms) {
  auto s = probe::parse_scrape(text, "text/plain", at_ms, "test");
  EXPECT_TRUE(s.ok()) << s.error();
  return std::move(s).value();
}

std::string admitted(const std::string& key, double cost) {
  return "limitscope_key_admitted_cost_total{api_key_hash=\"" + api_key_hash(key) +
         "\",model=\"m\"} " + std::to_string(cost) + "\n";
}

TEST(ReplicaAudit, BoundIsNeverExceededByOneLimiterAndNearlyReached) {
  // A steady stream reaches the bucket and log bounds; the fixed-window bound assumes a burst
  // on each side of a boundary, which a steady stream does not make.
  const std::pair<Algorithm, double> rows[] = {{Algorithm::token_bucket, 0.95},
                                               {Algorithm::gcra, 0.95},
                                               {Algorithm::sliding_log, 0.8},
                                               {Algorithm::sliding_counter, 0.6},
                                               {Algorithm::fixed_window, 0.6}};
  for (const auto& [a, reached] : rows) {
    const LimitParams p = typical(a);
    ManualClock clock;
    auto limiter = make_limiter(p, clock);
    ASSERT_TRUE(limiter.ok()) << limiter.error();
    // Ask every 10 ms for 10 s: far more than any of them admits.
    double taken = 0;
    for (int i = 0; i <= 1000; ++i) {
      if ((*limiter)->try_acquire(1).allowed) ++taken;
      if (i < 1000) clock.advance(std::chrono::milliseconds(10));
    }
    const double bound = audit::admissible_cost(p, 10.0);
    EXPECT_LE(taken, bound) << to_string(a);
    EXPECT_GE(taken, reached * bound) << to_string(a);
  }
}

TEST(ReplicaAudit, TwoReplicasAtTheFullLimitAreATwoFoldLeakCountedPerReplica) {
  const Policy pol = policy();
  // 10 s: one free limiter admits at most 10 + 10 = 20; each replica admitted 20.
  std::vector<ReplicaWindow> ws(2);
  ws[0].replica = "a";
  ws[1].replica = "b";
  for (auto& w : ws) {
    w.window_s = 10;
    w.admitted_cost[{api_key_hash("alice"), "m"}] = 20;
  }
  const auto a = audit::audit_replicas(ws, pol);
  ASSERT_EQ(a.keys.size(), 1u);
  EXPECT_EQ(a.leaks, 1u);
  EXPECT_DOUBLE_EQ(a.keys[0].bound_cost, 20);
  EXPECT_DOUBLE_EQ(a.keys[0].ratio, 2);
  EXPECT_EQ(a.keys[0].replicas_admitting, 2);
  EXPECT_EQ(a.keys[0].tier, "free");
  EXPECT_EQ(a.keys[0].name, "acme-prod");  // the tenant, as the policy names it
  EXPECT_NE(a.likely_cause.find("per replica"), std::string::npos) << a.likely_cause;
  ASSERT_EQ(a.tiers.size(), 1u);
  EXPECT_EQ(a.tiers[0].leaks, 1u);
}

TEST(ReplicaAudit, OneSharedLimitSplitOverReplicasIsNotALeak) {
  std::vector<ReplicaWindow> ws(2);
  for (auto& w : ws) {
    w.window_s = 10;
    w.admitted_cost[{api_key_hash("alice"), "m"}] = 10;  // 20 in all: exactly the bound
  }
  const auto a = audit::audit_replicas(ws, policy());
  EXPECT_EQ(a.leaks, 0u);
  EXPECT_TRUE(a.likely_cause.empty());
}

TEST(ReplicaAudit, ToleranceIsTheStatedMargin) {
  std::vector<ReplicaWindow> ws(1);
  ws[0].window_s = 10;
  ws[0].admitted_cost[{api_key_hash("alice"), "m"}] = 23.9;  // 1.195x
  EXPECT_EQ(audit::audit_replicas(ws, policy(), {0.2}).leaks, 0u);
  ws[0].admitted_cost[{api_key_hash("alice"), "m"}] = 24.1;
  const auto a = audit::audit_replicas(ws, policy(), {0.2});
  EXPECT_EQ(a.leaks, 1u);
  // One replica over the limit on its own is not per-replica counting.
  EXPECT_NE(a.likely_cause.find("policy differs"), std::string::npos) << a.likely_cause;
}

TEST(ReplicaAudit, UnlistedKeysTakeTheDefaultTierAndOverflowIsNoted) {
  std::vector<ReplicaWindow> ws(1);
  ws[0].window_s = 60;
  ws[0].admitted_cost[{api_key_hash("stranger"), "m"}] = 5;
  ws[0].admitted_cost[{"__overflow__", "m"}] = 5;
  ws[0].admitted_cost[{api_key_hash("bob"), "m"}] = 150;  // fixed window: 100 x (1 + 2) = 300
  const auto a = audit::audit_replicas(ws, policy());
  ASSERT_EQ(a.keys.size(), 2u);
  EXPECT_EQ(a.leaks, 0u);
  EXPECT_EQ(a.notes.size(), 1u);
  for (const auto& k : a.keys) {
    if (k.api_key_hash == api_key_hash("bob")) {
      EXPECT_DOUBLE_EQ(k.bound_cost, 300);
    } else {
      EXPECT_EQ(k.tier, "free");
    }
  }
}

TEST(ReplicaAudit, WindowBetweenTwoScrapesHandlesResetsAndDegraded) {
  const Policy pol = policy();
  const auto before =
      scrape(admitted("alice", 100) + admitted("bob", 50) +
                 "limitscope_requests_total{tier=\"free\",model=\"m\",decision=\"degraded\"} 2\n",
             1'000'000);
  const auto after =
      scrape(admitted("alice", 130) + admitted("bob", 7) +
                 "limitscope_requests_total{tier=\"free\",model=\"m\",decision=\"degraded\"} 5\n",
             1'010'000);
  auto w = audit::window_between(before, after, pol, "a");
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_DOUBLE_EQ(w->window_s, 10);
  EXPECT_DOUBLE_EQ((w->admitted_cost[{api_key_hash("alice"), "m"}]), 30);
  EXPECT_DOUBLE_EQ((w->admitted_cost[{api_key_hash("bob"), "m"}]), 7);  // restarted
  EXPECT_TRUE(w->counter_reset);
  EXPECT_DOUBLE_EQ(w->degraded_decisions, 3);
  EXPECT_FALSE(audit::window_between(after, before, pol, "a").ok());
  auto none = audit::window_between(scrape("x 1\n", 0), scrape("x 2\n", 1000), pol, "gw");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("gw: neither"), std::string::npos) << none.error();
}

TEST(ReplicaAudit, QuotaBurnOfForeignGatewaysGivesCostUnits) {
  const std::string h = api_key_hash("alice");
  const auto before =
      scrape("gateway_quota_burn_ratio{api_key_hash=\"" + h + "\",model=\"m\"} 0.01\n", 0);
  const auto after =
      scrape("gateway_quota_burn_ratio{api_key_hash=\"" + h + "\",model=\"m\"} 0.035\n", 5000);
  auto w = audit::window_between(before, after, policy(), "foreign");
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_NEAR((w->admitted_cost[{h, "m"}]), 25, 1e-9);  // 0.025 of a 1000 quota
}

TEST(ReplicaAudit, SinceStartUsesTheGatewaysOwnClock) {
  const auto s = scrape(admitted("alice", 12) +
                            "limitscope_gateway_time_seconds 1700000010.5\n"
                            "limitscope_gateway_start_time_seconds 1700000000.5\n",
                        0);
  auto w = audit::window_since_start(s, "a");
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_DOUBLE_EQ(w->window_s, 10);
  EXPECT_DOUBLE_EQ((w->admitted_cost[{api_key_hash("alice"), "m"}]), 12);
  auto old = audit::window_since_start(scrape(admitted("alice", 1), 0), "old-gw");
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error().find("old-gw"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::test
