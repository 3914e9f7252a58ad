// Verifies the staged rollout's enforcement in decide.lua (issue 19 item 3) on a real
// redis-server: inside the share a key is decided by the shadow config, outside by the live
// one, and the partition is in_rollout_share() (the same SHA-1 split on every gateway); a
// trip, an abort or a new shadow returns every key to the live config at the next decision;
// a completed rollout makes the shadow the live config, undoable with `config undo`.
#include "core/redis/rollout.h"

#include <gtest/gtest.h>

#include "core/redis/redis_limiter.h"
#include "core/redis/rollout_controller.h"
#include "core/redis/shadow_config.h"
#include "limiter_test_support.h"
#include "support/limit_params_builders.h"

namespace limitscope::redis {
namespace {

using namespace std::chrono_literals;

const ChangeInfo kChange{"test", "rollout test", std::nullopt};
constexpr std::int64_t kT0 = 1'700'000'000'000'000;

class Rollout : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = test::RedisServer::start();
    conn_ = std::make_unique<Connection>(testing::connect(*server_));
    // Live: 100 per key; shadow: 1 per key (refill 1/min). Two decisions of cost 1: the live
    // config admits both, the shadow the first only.
    testing::put(*conn_, schema_, "r", single_limit(bucket(Algorithm::token_bucket, 100, 1, 1s)));
    auto s = set_shadow(*conn_, schema_, "r",
                        single_limit(bucket(Algorithm::token_bucket, 1, 1, 1min)), kChange);
    ASSERT_TRUE(s) << s.error().message;
  }
  // The second of two decisions of `key`: refused exactly when the shadow is enforced on it.
  bool second_admitted(const std::string& key) {
    DecideRequest r;
    r.key = key;
    r.now_us = kT0;
    auto a = RedisLimiter().decide(*conn_, "r", r);
    auto b = RedisLimiter().decide(*conn_, "r", r);
    EXPECT_TRUE(a && b);
    return b->decision.allowed;
  }
  RolloutState plan(std::vector<std::int64_t> steps) {
    RolloutState p;
    p.steps_bp = std::move(steps);
    p.hold_ms = 1000;
    p.guard = "up";
    p.source = "http://127.0.0.1:1/metrics";
    return p;
  }
  KeySchema schema_;
  std::unique_ptr<test::RedisServer> server_;
  std::unique_ptr<Connection> conn_;
};

TEST_F(Rollout, InsideTheShareTheShadowDecidesAndThePartitionIsTheSameEverywhere) {
  auto s = start_rollout(*conn_, schema_, "r", plan({5000, kAllKeys}), 0, "test");
  ASSERT_TRUE(s) << s.error().message;
  int inside = 0;
  for (int k = 0; k < 40; ++k) {
    const std::string key = "key" + std::to_string(k);
    const bool in = in_rollout_share(key, 5000);
    inside += in ? 1 : 0;
    EXPECT_EQ(second_admitted(key), !in) << key;
  }
  EXPECT_GT(inside, 5);
  EXPECT_LT(inside, 35);
}

TEST_F(Rollout, ATripReturnsEveryKeyToTheLiveConfigAtTheNextDecision) {
  ASSERT_TRUE(start_rollout(*conn_, schema_, "r", plan({kAllKeys}), 0, "test"));
  EXPECT_FALSE(second_admitted("a"));
  const GuardFn tripped = []() -> Expected<GuardCheck> { return GuardCheck{true, 0.25}; };
  auto t = rollout_tick(*conn_, schema_, "r", tripped, 10, "test");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->state, "rolled_back");
  EXPECT_NE(t->reason.find("= 0.25"), std::string::npos) << t->reason;
  EXPECT_TRUE(second_admitted("b"));
  auto h = rollout_history(*conn_, schema_, "r", 10);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ(h->at(0).action, "trip");
  EXPECT_EQ(h->at(1).action, "start");
  EXPECT_EQ(get_config(*conn_, schema_, "r")->value().version, 1)
      << "a trip leaves the live config";
}

TEST_F(Rollout, ItStepsAfterTheHoldCompletesAndConfigUndoReturnsToTheOldConfig) {
  ASSERT_TRUE(start_rollout(*conn_, schema_, "r", plan({1000, kAllKeys}), 0, "test"));
  const GuardFn quiet = []() -> Expected<GuardCheck> { return GuardCheck{false, std::nullopt}; };
  auto held = rollout_tick(*conn_, schema_, "r", quiet, 999, "test");
  ASSERT_TRUE(held);
  EXPECT_EQ(held->share_bp, 1000) << "not held long enough";
  auto stepped = rollout_tick(*conn_, schema_, "r", quiet, 1000, "test");
  ASSERT_TRUE(stepped);
  EXPECT_EQ(stepped->share_bp, kAllKeys);
  EXPECT_FALSE(second_admitted("c"));
  const GuardFn unknown = []() -> Expected<GuardCheck> { return make_error("connection refused"); };
  EXPECT_EQ(rollout_tick(*conn_, schema_, "r", unknown, 5000, "test")->state, "running")
      << "never steps blind";
  auto done = rollout_tick(*conn_, schema_, "r", quiet, 5000, "test");
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done->state, "completed");
  auto live = get_config(*conn_, schema_, "r");
  ASSERT_TRUE(live && *live);
  EXPECT_EQ((*live)->limits.front().params.capacity, 1);
  EXPECT_FALSE(get_shadow(*conn_, schema_, "r")->config.has_value());
  auto undone = undo_config(*conn_, schema_, "r", kChange);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(undone->limits.front().params.capacity, 100);
  EXPECT_TRUE(second_admitted("d"));
}

TEST_F(Rollout, ANewShadowStopsTheRolloutAndAbortIsAudited) {
  ASSERT_TRUE(start_rollout(*conn_, schema_, "r", plan({kAllKeys}), 0, "test"));
  ASSERT_TRUE(set_shadow(*conn_, schema_, "r",
                         single_limit(bucket(Algorithm::token_bucket, 2, 1, 1min)), kChange));
  EXPECT_TRUE(second_admitted("e")) << "a rollout enforces only the shadow version it started with";
  const GuardFn quiet = []() -> Expected<GuardCheck> { return GuardCheck{false, std::nullopt}; };
  EXPECT_EQ(rollout_tick(*conn_, schema_, "r", quiet, 10, "test")->state, "aborted");
  ASSERT_TRUE(start_rollout(*conn_, schema_, "r", plan({kAllKeys}), 20, "test"));
  auto a = abort_rollout(*conn_, schema_, "r", "test", "by hand");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->state, "aborted");
  EXPECT_TRUE(second_admitted("f"));
  EXPECT_FALSE(abort_rollout(*conn_, schema_, "r", "test", "again"));
}

TEST_F(Rollout, PauseHoldsTheStepWithItsHoldFrozenAndResumeServesTheRest) {
  ASSERT_TRUE(start_rollout(*conn_, schema_, "r", plan({1000, kAllKeys}), 0, "alice"));
  const GuardFn quiet = []() -> Expected<GuardCheck> { return GuardCheck{false, 0.0}; };
  auto p = pause_rollout(*conn_, schema_, "r", 400, "bob", "looking at the 429s");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->state, "paused");
  EXPECT_EQ(p->held_ms, 400);
  EXPECT_EQ(hold_left_ms(*p, 50'000), 600) << "the hold timer is frozen while paused";
  EXPECT_FALSE(pause_rollout(*conn_, schema_, "r", 500, "bob", ""))
      << "only a running rollout pauses";
  // Long after the hold: a paused rollout never steps, and the share stays enforced.
  auto held = rollout_tick(*conn_, schema_, "r", quiet, 50'000, "ctl");
  ASSERT_TRUE(held);
  EXPECT_EQ(held->state, "paused");
  EXPECT_EQ(held->share_bp, 1000);
  auto r = resume_rollout(*conn_, schema_, "r", 60'000, "carol");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->state, "running");
  EXPECT_EQ(hold_left_ms(*r, 60'000), 600);
  EXPECT_FALSE(resume_rollout(*conn_, schema_, "r", 60'001, "carol"))
      << "only a paused rollout resumes";
  EXPECT_EQ(rollout_tick(*conn_, schema_, "r", quiet, 60'599, "ctl")->share_bp, 1000)
      << "600 ms were left";
  EXPECT_EQ(rollout_tick(*conn_, schema_, "r", quiet, 60'600, "ctl")->share_bp, kAllKeys);
  auto h = rollout_history(*conn_, schema_, "r", 10);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->size(), 4u);
  EXPECT_EQ(h->at(0).action, "step");
  EXPECT_EQ(h->at(1).action, "resume");
  EXPECT_EQ(h->at(1).by, "carol");
  EXPECT_EQ(h->at(2).action, "pause");
  EXPECT_EQ(h->at(2).by, "bob");
  EXPECT_NE(h->at(2).reason.find("looking at the 429s at step 1 (10% of the keys)"),
            std::string::npos)
      << h->at(2).reason;
  EXPECT_EQ(get_rollout(*conn_, schema_, "r")->value().started_by, "alice");
}

TEST_F(Rollout, APausedRolloutStillTripsAndAStaleWriterIsRefused) {
  auto started = start_rollout(*conn_, schema_, "r", plan({kAllKeys}), 0, "test");
  ASSERT_TRUE(started);
  // A check between steps records the guard's value without moving the seq.
  const GuardFn low = []() -> Expected<GuardCheck> { return GuardCheck{false, 0.125}; };
  ASSERT_TRUE(rollout_tick(*conn_, schema_, "r", low, 5, "test"));
  EXPECT_EQ(get_rollout(*conn_, schema_, "r")->value().guard_value, 0.125);
  EXPECT_EQ(get_rollout(*conn_, schema_, "r")->value().seq, started->seq);
  EXPECT_GT(get_rollout(*conn_, schema_, "r")->value().guard_checked_ms, 0);
  ASSERT_TRUE(pause_rollout(*conn_, schema_, "r", 10, "test", ""));
  // A controller that read the state before the pause: its value is refused too.
  auto late = write_guard_value(*conn_, schema_, "r", 0.5, started->seq);
  ASSERT_FALSE(late);
  EXPECT_TRUE(is_version_conflict(late.error())) << late.error().message;
  EXPECT_EQ(get_rollout(*conn_, schema_, "r")->value().guard_value, 0.125);
  // A controller that read the state before the pause writes with the seq it read.
  RolloutState stale = *started;
  stale.share_bp = 0;
  auto w = write_rollout(*conn_, schema_, "r", stale, started->seq, "step", "late");
  ASSERT_FALSE(w);
  EXPECT_TRUE(is_version_conflict(w.error())) << w.error().message;
  EXPECT_EQ(get_rollout(*conn_, schema_, "r")->value().state, "paused");
  const GuardFn tripped = []() -> Expected<GuardCheck> { return GuardCheck{true, 3.0}; };
  auto t = rollout_tick(*conn_, schema_, "r", tripped, 20, "test");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->state, "rolled_back")
      << "the share is still enforced while paused, so the guard still watches";
  EXPECT_TRUE(second_admitted("g"));
}

TEST(RolloutSteps, ParsesIncreasingPercentagesEndingAt100) {
  EXPECT_EQ(*parse_rollout_steps("1,10,50,100"),
            (std::vector<std::int64_t>{100, 1000, 5000, 10000}));
  for (const char* bad : {"", "10,5,100", "10,50", "0,100", "abc", "50,,100", "101"}) {
    EXPECT_FALSE(parse_rollout_steps(bad)) << bad;
  }
}

}  // namespace
}  // namespace limitscope::redis
