// Verifies FailureGuard's policy on scripted outcomes and a ManualClock: fail-open admits
// marked degraded, fail-closed refuses with backend_unavailable, the breaker stops attempts
// while open and probes after the cooldown, error replies are refused (never admitted) without
// tripping the breaker, permission refusals are refused in any mode as a misconfiguration, and
// failures are logged at most once per interval.
#include "core/redis/failure_guard.h"

#include <gtest/gtest.h>

namespace limitscope::redis {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

FailurePolicy policy(FailureMode mode) {
  FailurePolicy p;
  p.mode = mode;
  p.breaker = {3, milliseconds(500)};
  p.log_interval = seconds(60);
  return p;
}

Decision admitted() {
  Decision d;
  d.allowed = true;
  d.limit = 10;
  d.remaining = 9;
  return d;
}

struct Script {
  int calls = 0;
  std::vector<Result<Decision>> outcomes;  // consumed in order; the last one repeats
  Result<Decision> operator()() {
    const std::size_t i =
        std::min<std::size_t>(static_cast<std::size_t>(calls), outcomes.size() - 1);
    ++calls;
    return outcomes[i];
  }
};

const RedisError kTimeout{ErrorKind::timeout, "redis x: no answer within the command timeout"};

TEST(FailureGuard, SuccessPassesThroughUndegraded) {
  ManualClock clock;
  FailureGuard guard("api", policy(FailureMode::fail_closed), clock);
  Script s{0, {admitted()}};
  const auto g = guard.decide_one(std::ref(s));
  EXPECT_TRUE(g.decision.allowed);
  EXPECT_FALSE(g.degraded);
  EXPECT_EQ(g.decision.remaining, 9);
}

struct ModeRow {
  FailureMode mode;
  bool allowed;
  DenyReason reason;
};

TEST(FailureGuard, OutageFollowsTheModeAndTheBreakerStopsAttempts) {
  for (const ModeRow row :
       {ModeRow{FailureMode::fail_open, true, DenyReason::none},
        ModeRow{FailureMode::fail_closed, false, DenyReason::backend_unavailable}}) {
    SCOPED_TRACE(std::string(to_string(row.mode)));
    ManualClock clock;
    std::vector<std::string> logs;
    FailureGuard guard("api", policy(row.mode), clock,
                       [&](const std::string& line) { logs.push_back(line); });
    Script s{0, {kTimeout}};
    for (int i = 0; i < 10; ++i) {
      const auto g = guard.decide_one(std::ref(s));
      EXPECT_TRUE(g.degraded);
      EXPECT_EQ(g.decision.allowed, row.allowed);
      EXPECT_EQ(g.decision.reason, row.reason);
    }
    EXPECT_EQ(s.calls, 3) << "attempts must stop once the breaker opens";
    EXPECT_EQ(guard.stats().state, BreakerState::open);
    EXPECT_EQ(guard.stats().degraded_total, 10u);
    EXPECT_EQ(guard.stats().breaker.short_circuited_total, 7u);
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_NE(logs[0].find("rule api: timeout"), std::string::npos) << logs[0];

    // After the cooldown one probe goes through; the server is back, so the breaker closes.
    clock.advance(milliseconds(500));
    s.outcomes = {admitted()};
    const auto probe = guard.decide_one(std::ref(s));
    EXPECT_FALSE(probe.degraded);
    EXPECT_EQ(guard.stats().state, BreakerState::closed);
    EXPECT_EQ(s.calls, 4);
  }
}

TEST(FailureGuard, ErrorRepliesAreRefusedAndDoNotTripTheBreaker) {
  ManualClock clock;
  FailureGuard guard("api", policy(FailureMode::fail_open), clock);
  Script s{0, {RedisError{ErrorKind::reply, "script token_bucket: state is not a number"}}};
  for (int i = 0; i < 10; ++i) {
    const auto g = guard.decide_one(std::ref(s));
    EXPECT_FALSE(g.decision.allowed) << "fail-open must not admit on bad data";
    EXPECT_EQ(g.decision.reason, DenyReason::backend_error);
    EXPECT_NE(g.error.find("not a number"), std::string::npos);
  }
  EXPECT_EQ(s.calls, 10);
  EXPECT_EQ(guard.stats().state, BreakerState::closed);
  EXPECT_EQ(guard.stats().backend_errors_total, 10u);
}

TEST(FailureGuard, PermissionRefusalsAreMisconfigurationRefusedInAnyModeUntilASuccess) {
  for (const FailureMode mode : {FailureMode::fail_open, FailureMode::fail_closed}) {
    ManualClock clock;
    FailureGuard guard("api", policy(mode), clock);
    Script s{0,
             {RedisError{ErrorKind::auth,
                         "NOPERM this user has no permissions to run the "
                         "'evalsha' command"}}};
    for (int i = 0; i < 10; ++i) {
      const auto g = guard.decide_one(std::ref(s));
      EXPECT_FALSE(g.decision.allowed) << "a read-only user must not fail open";
      EXPECT_FALSE(g.degraded);
      EXPECT_EQ(g.decision.reason, DenyReason::backend_forbidden);
    }
    EXPECT_EQ(s.calls, 10) << "every request tries again: a fixed ACL is used at once";
    EXPECT_EQ(guard.stats().state, BreakerState::closed);
    EXPECT_EQ(guard.stats().forbidden_total, 10u);
    EXPECT_NE(guard.stats().forbidden.find("NOPERM"), std::string::npos);
    s.outcomes = {admitted()};
    EXPECT_TRUE(guard.decide_one(std::ref(s)).decision.allowed);
    EXPECT_TRUE(guard.stats().forbidden.empty());
  }
}

TEST(FailureGuard, LogsAtMostOncePerIntervalWithTheSuppressedCount) {
  ManualClock clock;
  std::vector<std::string> logs;
  FailurePolicy p = policy(FailureMode::fail_open);
  p.breaker.failure_threshold = 1000;  // keep attempting, so every call fails
  FailureGuard guard("api", p, clock, [&](const std::string& line) { logs.push_back(line); });
  Script s{0, {kTimeout}};
  for (int i = 0; i < 5; ++i) guard.decide_one(std::ref(s));
  clock.advance(seconds(59));
  guard.decide_one(std::ref(s));
  EXPECT_EQ(logs.size(), 1u);
  clock.advance(seconds(1));
  guard.decide_one(std::ref(s));
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_NE(logs[1].find("(5 more failures since the last report)"), std::string::npos) << logs[1];
  EXPECT_EQ(guard.stats().suppressed_total, 5u);
}

TEST(FailureGuard, BatchOutcomesApplyToEveryDecision) {
  ManualClock clock;
  FailureGuard guard("api", policy(FailureMode::fail_closed), clock);
  auto ok = guard.decide(
      3, [] { return Result<std::vector<Decision>>(std::vector<Decision>(3, admitted())); });
  ASSERT_EQ(ok.size(), 3u);
  EXPECT_TRUE(ok[2].decision.allowed);
  auto short_reply =
      guard.decide(3, [] { return Result<std::vector<Decision>>(std::vector<Decision>(2)); });
  ASSERT_EQ(short_reply.size(), 3u);
  EXPECT_TRUE(short_reply[0].degraded);
  EXPECT_EQ(short_reply[0].decision.reason, DenyReason::backend_unavailable);
}

TEST(FailureMode, Parses) {
  EXPECT_EQ(*parse_failure_mode("fail-open"), FailureMode::fail_open);
  EXPECT_EQ(*parse_failure_mode("closed"), FailureMode::fail_closed);
  auto bad = parse_failure_mode("maybe");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("'maybe'"), std::string::npos);
}

}  // namespace
}  // namespace limitscope::redis
