// Verifies settle.lua on a real redis-server: a key's token-bucket limit corrected after the
// fact equals the core's settlement (TokenBucket::settle: refilled to now, minus the delta, kept
// in [-one hour of refill, capacity]) over random decisions and settlements, a refund to an
// expired key changes nothing while a charge starts from a full bucket, and bad requests are clear
// errors that write nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/limiter/token_bucket.h"
#include "core/redis/redis_limiter.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000'000;  // µs

// The gateway's shape: a composite of "requests" (never binding here) and "llm_tokens".
RuleConfig gateway_rule(const LimitParams& tokens) {
  RuleConfig c;
  c.limits.push_back(NamedLimit{"requests", test::bucket(Algorithm::token_bucket, 1e9, 1e9)});
  c.limits.push_back(NamedLimit{"llm_tokens", tokens});
  return c;
}

DecideOptions at(std::int64_t t_us) {
  DecideOptions o;
  o.now_us = t_us;
  o.ttl_pad_ms = 3'600'000;  // test-mode instants: keep keys while the test runs
  return o;
}

TEST(RedisSettle, RandomDecisionsAndSettlementsEqualTheCore) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  const RedisLimiter limiter;
  const LimitParams p = test::bucket(Algorithm::token_bucket, 5000, 1000, std::chrono::minutes(1));
  put(c, limiter.schema(), "gw-pro", gateway_rule(p));

  std::mt19937_64 rng(7);
  TokenBucket::State core = TokenBucket::fresh(p, Nanos{kT0 * 1000});
  std::int64_t t = kT0;
  int admitted = 0, refused = 0, settled = 0;
  double min_level = p.capacity;
  for (int i = 0; i < 800; ++i) {
    t += static_cast<std::int64_t>(rng() % 3'000'000);  // up to 3 s between steps
    const Nanos now{t * 1000};
    if (rng() % 2 == 0) {
      const double cost = static_cast<double>(1 + rng() % 2500);
      DecideRequest r;
      r.key = "k";
      r.costs = {1, cost};
      auto d = limiter.decide(c, "gw-pro", r, at(t));
      ASSERT_TRUE(d.ok()) << d.error().message;
      const Decision want = TokenBucket::decide(p, core, now, cost);
      ASSERT_EQ(d->decision.allowed, want.allowed) << "step " << i;
      (want.allowed ? admitted : refused) += 1;
    } else {
      // Refunds and extra charges, some past capacity, some into a debt, a few past the
      // deepest debt (one hour of refill: 60,000).
      const double delta =
          rng() % 50 == 0 ? 70'000.0
                          : static_cast<double>(static_cast<std::int64_t>(rng() % 12'000) - 7000);
      auto s = limiter.settle(c, "gw-pro", SettleRequest{"k", "llm_tokens", delta}, at(t));
      ASSERT_TRUE(s.ok()) << s.error().message;
      TokenBucket::settle(p, core, now, delta);
      min_level = std::min(min_level, core.tokens);
      if (delta == 0) {
        EXPECT_FALSE(s->has_value());
        continue;
      }
      ASSERT_TRUE(s->has_value()) << "step " << i;
      EXPECT_DOUBLE_EQ(**s, core.tokens) << "step " << i;
      ++settled;
    }
  }
  EXPECT_GT(admitted, 20);
  EXPECT_GT(refused, 20);
  EXPECT_GT(settled, 100);
  EXPECT_EQ(min_level, -TokenBucket::max_debt(p)) << "the sequence reached the debt bound";
}

TEST(RedisSettle, AnExpiredKeyIsFullSoARefundChangesNothingAndAChargeStartsFromFull) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  const RedisLimiter limiter;
  put(c, limiter.schema(), "gw-free", gateway_rule(test::bucket(Algorithm::token_bucket, 100, 10)));
  const std::string state = limiter.schema().state_key("gw-free", "new") + ":llm_tokens";

  auto refund = limiter.settle(c, "gw-free", SettleRequest{"new", "llm_tokens", -30}, at(kT0));
  ASSERT_TRUE(refund.ok()) << refund.error().message;
  EXPECT_FALSE(refund->has_value());
  EXPECT_EQ(must(c, {"EXISTS", state}).integer, 0) << "nothing written";

  auto charge = limiter.settle(c, "gw-free", SettleRequest{"new", "llm_tokens", 30}, at(kT0));
  ASSERT_TRUE(charge.ok()) << charge.error().message;
  ASSERT_TRUE(charge->has_value());
  EXPECT_EQ(**charge, 70);
  EXPECT_GT(must(c, {"PTTL", state}).integer, 0) << "the state expires when full again";
  // The next decision sees the charge: 70 tokens, so 71 is refused and 70 admitted.
  DecideRequest r;
  r.key = "new";
  r.costs = {1, 71};
  auto d = limiter.decide(c, "gw-free", r, at(kT0));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->decision.allowed);
  r.costs = {1, 70};
  d = limiter.decide(c, "gw-free", r, at(kT0));
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->decision.allowed);
}

TEST(RedisSettle, BadRequestsAreClearErrorsAndWriteNothing) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  const RedisLimiter limiter;
  RuleConfig windowed;
  windowed.limits.push_back(NamedLimit{"requests", test::bucket(Algorithm::token_bucket, 10, 1)});
  LimitParams fw;
  fw.algorithm = Algorithm::fixed_window;
  fw.limit = 100;
  fw.window = std::chrono::minutes(1);
  windowed.limits.push_back(NamedLimit{"llm_tokens", fw});
  put(c, limiter.schema(), "gw-win", windowed);
  put(c, limiter.schema(), "gw-tb", gateway_rule(test::bucket(Algorithm::token_bucket, 10, 1)));

  const struct {
    std::string rule, limit;
    double delta;
    ErrorKind kind;
    std::string says;
  } rows[] = {
      {"gw-win", "llm_tokens", 5, ErrorKind::reply, "token-bucket limits only, got fixed-window"},
      {"gw-tb", "tpm", 5, ErrorKind::reply, "has no limit tpm"},
      {"gw-none", "llm_tokens", 5, ErrorKind::reply, "has no limit llm_tokens"},
      {"gw-tb", "llm_tokens", std::nan(""), ErrorKind::usage, "the delta must be finite"},
      {"bad{rule}", "llm_tokens", 5, ErrorKind::usage, "rule"},
  };
  for (const auto& row : rows) {
    auto s = limiter.settle(c, row.rule, SettleRequest{"k", row.limit, row.delta}, at(kT0));
    ASSERT_FALSE(s.ok()) << row.says;
    EXPECT_EQ(s.error().kind, row.kind) << row.says << ": " << s.error().message;
    EXPECT_NE(s.error().message.find(row.says), std::string::npos) << s.error().message;
  }
  const std::string pattern = limiter.schema().state_key("gw-tb", "*");
  EXPECT_EQ(must(c, {"KEYS", pattern}).elements.size(), 0u);
  EXPECT_EQ(must(c, {"KEYS", limiter.schema().state_key("gw-win", "*")}).elements.size(), 0u);
}

}  // namespace
}  // namespace limitscope::redis

namespace limitscope::redis {
namespace {

// The gateway's rule on a fresh server, with the core's twin of its llm_tokens bucket.
struct GatewayBucket {
  std::unique_ptr<test::RedisServer> server = test::RedisServer::start();
  Connection c = connect(*server);
  RedisLimiter limiter;
  LimitParams p = test::bucket(Algorithm::token_bucket, 5000, 1000, std::chrono::minutes(1));
  TokenBucket::State core = TokenBucket::fresh(p, Nanos{kT0 * 1000});
  GatewayBucket() { put(c, limiter.schema(), "gw-pro", gateway_rule(p)); }
};

TEST(RedisSettle, RidingOnADecisionEqualsSettleThenDecide) {
  GatewayBucket g;
  auto& [server, c, limiter, p, core] = g;
  std::mt19937_64 rng(11);
  std::int64_t t = kT0;
  int admitted = 0, refused = 0, refused_with_settlement = 0;
  for (int i = 0; i < 800; ++i) {
    t += static_cast<std::int64_t>(rng() % 3'000'000);
    const Nanos now{t * 1000};
    DecideRequest r;
    r.key = "k";
    const double cost = static_cast<double>(1 + rng() % 2500);
    r.costs = {1, cost};
    if (rng() % 2 == 0) {
      r.settle_delta = rng() % 50 == 0
                           ? 70'000.0
                           : static_cast<double>(static_cast<std::int64_t>(rng() % 12'000) - 7000);
      r.settle_limit = "llm_tokens";
      TokenBucket::settle(p, core, now, r.settle_delta);
    }
    // Batched with a decision of another key, as a coalescing gateway sends them.
    DecideRequest other;
    other.key = "other";
    auto ds = limiter.decide_batch(c, "gw-pro", {r, other}, 16, at(t));
    ASSERT_TRUE(ds.ok()) << ds.error().message;
    ASSERT_TRUE((*ds)[0].ok()) << (*ds)[0].error().message;
    const Decision got = (*ds)[0]->decision;
    const Decision want = TokenBucket::decide(p, core, now, cost);
    ASSERT_EQ(got.allowed, want.allowed) << "step " << i;
    ASSERT_EQ(got.remaining, want.remaining) << "step " << i;
    ASSERT_EQ(got.retry_after, want.retry_after) << "step " << i;
    (want.allowed ? admitted : refused) += 1;
    if (!want.allowed && r.settle_delta != 0) ++refused_with_settlement;
  }
  EXPECT_GT(admitted, 20);
  EXPECT_GT(refused, 20);
  EXPECT_GT(refused_with_settlement, 5)
      << "settlements stored by refusals were checked by the next step";
}

TEST(RedisSettle, ABadSettlementFailsItsDecisionAloneAndWritesNothing) {
  auto server = test::RedisServer::start();
  Connection c = connect(*server);
  const RedisLimiter limiter;
  put(c, limiter.schema(), "gw-tb", gateway_rule(test::bucket(Algorithm::token_bucket, 10, 1)));
  DecideRequest bad;
  bad.key = "a";
  bad.settle_delta = 5;
  bad.settle_limit = "nope";
  DecideRequest fine;
  fine.key = "b";
  fine.settle_delta = 4;
  fine.settle_limit = "llm_tokens";
  auto ds = limiter.decide_batch(c, "gw-tb", {bad, fine}, 16, at(kT0));
  ASSERT_TRUE(ds.ok()) << ds.error().message;
  ASSERT_FALSE((*ds)[0].ok());
  EXPECT_NE((*ds)[0].error().message.find("has no limit nope"), std::string::npos)
      << (*ds)[0].error().message;
  EXPECT_EQ(must(c, {"EXISTS", limiter.schema().state_key("gw-tb", "a") + ":llm_tokens"}).integer,
            0);
  EXPECT_EQ(must(c, {"EXISTS", limiter.schema().state_key("gw-tb", "a") + ":requests"}).integer, 0);
  ASSERT_TRUE((*ds)[1].ok()) << (*ds)[1].error().message;
  EXPECT_EQ((*ds)[1]->decision.remaining, 5)
      << "10, minus the settlement of 4, minus the cost of 1";
  // A single-limit rule settles without a name; a composite needs one.
  bad.settle_limit.clear();
  ds = limiter.decide_batch(c, "gw-tb", {bad}, 16, at(kT0));
  ASSERT_TRUE(ds.ok());
  ASSERT_FALSE((*ds)[0].ok());
  EXPECT_NE((*ds)[0].error().message.find("name the limit to settle"), std::string::npos);
  bad.settle_delta = NAN;
  EXPECT_EQ(limiter.decide_batch(c, "gw-tb", {bad}, 16, at(kT0)).error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace limitscope::redis
