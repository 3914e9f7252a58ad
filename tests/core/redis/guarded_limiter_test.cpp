// Verifies GuardedLimiter against a real redis-server that the test kills, restarts and
// SIGSTOPs: timeouts and refused connections open the breaker, fail-open admits marked
// degraded, fail-closed refuses, nothing crashes or hangs past the command timeout, and
// decisions come from Redis again once the server is back and the breaker's cooldown (1 s on
// the injected clock) has passed.
#include "core/redis/guarded_limiter.h"

#include <gtest/gtest.h>

#include "support/redis_server.h"

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;
using test::RedisServer;

void write_token_bucket_config(const RedisServer& server, const std::string& rule,
                               double capacity) {
  RedisUrl url;
  url.port = server.port();
  auto c = Connection::open(url);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto r = c->command({"HSET", KeySchema().config_key(rule), "algorithm", "token-bucket",
                       "capacity", std::to_string(capacity), "refill_amount", "1",
                       "refill_period_ns", "1000000000", "version", "1"});
  ASSERT_TRUE(r.ok()) << r.error().message;
}

struct Fixture {
  explicit Fixture(FailureMode mode) : server(RedisServer::start()) {
    url.port = server->port();
    PoolOptions po;
    po.size = 2;
    po.connect = {milliseconds(200), milliseconds(200)};
    po.backoff.initial = milliseconds(100);
    po.backoff.max = milliseconds(400);
    po.backoff.jitter = 0;
    pool = std::make_unique<ConnectionPool>(url, po, clock);
    FailurePolicy fp;
    fp.mode = mode;
    fp.breaker = {3, std::chrono::seconds(1)};
    limiter = std::make_unique<GuardedLimiter>(*pool, RedisLimiter(), fp, clock,
                                               [this](const std::string& l) { logs.push_back(l); });
  }
  ManualClock clock;
  std::unique_ptr<RedisServer> server;
  RedisUrl url;
  std::unique_ptr<ConnectionPool> pool;
  std::unique_ptr<GuardedLimiter> limiter;
  std::vector<std::string> logs;
};

struct ModeRow {
  FailureMode mode;
  bool admits_when_down;
};

const ModeRow kModes[] = {{FailureMode::fail_open, true}, {FailureMode::fail_closed, false}};

TEST(GuardedLimiter, KilledServerFollowsTheFailurePolicyAndRecoversAfterRestart) {
  for (const auto& row : kModes) {
    SCOPED_TRACE(std::string(to_string(row.mode)));
    Fixture f(row.mode);
    write_token_bucket_config(*f.server, "api", 1000);
    for (int i = 0; i < 5; ++i) {
      const auto d = f.limiter->decide("api", "alice");
      ASSERT_FALSE(d.guarded.degraded) << d.guarded.error;
      EXPECT_TRUE(d.guarded.decision.allowed);
      EXPECT_EQ(d.config_version, 1);
    }

    f.server->kill();
    for (int i = 0; i < 20; ++i) {
      const auto d = f.limiter->decide("api", "alice");
      EXPECT_TRUE(d.guarded.degraded);
      EXPECT_EQ(d.guarded.decision.allowed, row.admits_when_down);
      if (!row.admits_when_down) {
        EXPECT_EQ(d.guarded.decision.reason, DenyReason::backend_unavailable);
      }
    }
    const auto down = f.limiter->stats("api");
    EXPECT_EQ(down.state, BreakerState::open);
    EXPECT_EQ(down.degraded_total, 20u);
    EXPECT_EQ(down.breaker.failures_total, 3u) << "the open breaker must stop attempts";
    EXPECT_EQ(f.logs.size(), 1u) << "failures are logged once a minute at most";

    // Redis loses its memory on restart (no persistence here): write the config again.
    f.server->restart();
    write_token_bucket_config(*f.server, "api", 1000);
    f.clock.advance(std::chrono::seconds(1));  // the breaker's cooldown: one probe goes out
    const auto back = f.limiter->decide("api", "alice");
    EXPECT_FALSE(back.guarded.degraded) << back.guarded.error;
    EXPECT_TRUE(back.guarded.decision.allowed);
    EXPECT_EQ(f.limiter->stats("api").state, BreakerState::closed);
  }
}

TEST(GuardedLimiter, StoppedServerTimesOutOpensTheBreakerAndRecovers) {
  for (const auto& row : kModes) {
    SCOPED_TRACE(std::string(to_string(row.mode)));
    Fixture f(row.mode);
    write_token_bucket_config(*f.server, "api", 1000);
    ASSERT_FALSE(f.limiter->decide("api", "bob").guarded.degraded);

    f.server->pause();
    // Each attempt waits out the 200 ms command timeout; three open the breaker, and the
    // rest are answered at once by the failure policy.
    for (int i = 0; i < 10; ++i) {
      const auto d = f.limiter->decide("api", "bob");
      EXPECT_TRUE(d.guarded.degraded);
      EXPECT_EQ(d.guarded.decision.allowed, row.admits_when_down);
    }
    const auto stats = f.limiter->stats("api");
    EXPECT_EQ(stats.state, BreakerState::open);
    EXPECT_EQ(stats.breaker.failures_total, 3u);
    ASSERT_FALSE(f.logs.empty());
    EXPECT_NE(f.logs[0].find("timeout"), std::string::npos) << f.logs[0];

    f.server->resume();
    f.clock.advance(std::chrono::seconds(1));
    const auto back = f.limiter->decide("api", "bob");
    EXPECT_FALSE(back.guarded.degraded) << back.guarded.error;
    EXPECT_TRUE(back.guarded.decision.allowed);
  }
}

TEST(GuardedLimiter, BadConfigIsRefusedEvenWhenFailOpen) {
  Fixture f(FailureMode::fail_open);
  RedisUrl url;
  url.port = f.server->port();
  auto c = Connection::open(url);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(
      c->command({"HSET", KeySchema().config_key("neg"), "algorithm", "token-bucket", "capacity",
                  "-5", "refill_amount", "1", "refill_period_ns", "1000000000", "version", "1"})
          .ok());
  for (const std::string rule : {"neg", "missing"}) {
    SCOPED_TRACE(rule);
    const auto d = f.limiter->decide(rule, "carol");
    EXPECT_FALSE(d.guarded.decision.allowed);
    EXPECT_FALSE(d.guarded.degraded);
    EXPECT_EQ(d.guarded.decision.reason, DenyReason::backend_error);
    EXPECT_NE(d.guarded.error.find("LSCONFIG"), std::string::npos) << d.guarded.error;
  }
  EXPECT_EQ(f.limiter->stats("neg").state, BreakerState::closed);
}

TEST(GuardedLimiter, BatchDecidesEveryRequestInOrder) {
  Fixture f(FailureMode::fail_closed);
  write_token_bucket_config(*f.server, "api", 3);
  std::vector<DecideRequest> requests;
  for (int i = 0; i < 5; ++i) requests.push_back(DecideRequest{"dave", {1.0}, false});
  requests.push_back(DecideRequest{"erin", {1.0}, false});
  const auto out = f.limiter->decide_batch("api", requests, 4);
  ASSERT_EQ(out.size(), 6u);
  // Capacity 3: dave's first three pass, the next two are refused; erin has her own bucket.
  const bool expected[] = {true, true, true, false, false, true};
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_FALSE(out[i].guarded.degraded);
    EXPECT_EQ(out[i].guarded.decision.allowed, expected[i]) << "request " << i;
  }
}

}  // namespace
}  // namespace limitscope::redis
