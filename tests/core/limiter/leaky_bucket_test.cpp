// Verifies the leaky bucket as a shaper: delays until a request leaves the queue, queue_full
// with an exact retry_after, pacing at depth 1, weighted costs and reconfigure.

#include "core/limiter/leaky_bucket.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket_of;

TEST(LeakyBucket, BurstIsQueuedAndSpacedAtTheDrainRate) {
  const LimitParams p = bucket_of<LeakyBucket>(5, 1);
  auto s = LeakyBucket::fresh(p, 0s);
  for (int i = 0; i < 5; ++i) {
    const Decision d = LeakyBucket::decide(p, s, 0s, 1);
    ASSERT_TRUE(d.allowed);
    EXPECT_EQ(d.delay, Nanos{std::chrono::seconds(i)});
    EXPECT_DOUBLE_EQ(d.remaining, 4 - i);
    EXPECT_EQ(d.reset_after, Nanos{std::chrono::seconds(i + 1)});
  }
  const Decision full = LeakyBucket::decide(p, s, 0s, 1);
  EXPECT_FALSE(full.allowed);
  EXPECT_EQ(full.reason, DenyReason::queue_full);
  EXPECT_EQ(full.retry_after, Nanos{1s});
  EXPECT_EQ(full.delay, Nanos{0});
  EXPECT_FALSE(LeakyBucket::decide(p, s, 999ms, 1).allowed);
  const Decision next = LeakyBucket::decide(p, s, 1000ms, 1);
  EXPECT_TRUE(next.allowed);
  EXPECT_EQ(next.delay, Nanos{4s});
}

struct ArrivalRow {
  Nanos at;
  double cost;
  bool allowed;
  Nanos delay;        // when allowed
  Nanos retry_after;  // when refused
};

TEST(LeakyBucket, ArrivalsEvery100msAtOnePerSecondWithDepth3) {
  const LimitParams p = bucket_of<LeakyBucket>(3, 1);
  auto s = LeakyBucket::fresh(p, 0s);
  const ArrivalRow rows[] = {
      {0ms, 1, true, 0ms, 0ms},       {100ms, 1, true, 900ms, 0ms},
      {200ms, 1, true, 1800ms, 0ms},  {300ms, 1, false, 0ms, 700ms},
      {1000ms, 1, true, 2000ms, 0ms}, {1000ms, 2, false, 0ms, 2000ms},
      {3000ms, 2, true, 1000ms, 0ms}, {3000ms, 1, false, 0ms, 1000ms},
      {6000ms, 1, true, 0ms, 0ms},
  };
  for (const ArrivalRow& r : rows) {
    const Decision d = LeakyBucket::decide(p, s, r.at, r.cost);
    EXPECT_EQ(d.allowed, r.allowed) << r.at.count();
    if (r.allowed) {
      EXPECT_EQ(d.delay, r.delay) << r.at.count();
    } else {
      EXPECT_EQ(d.reason, DenyReason::queue_full);
      EXPECT_EQ(d.retry_after, r.retry_after) << r.at.count();
    }
  }
}

TEST(LeakyBucket, DepthOnePacesWithoutQueueing) {
  const LimitParams p = bucket_of<LeakyBucket>(1, 10);  // one request per 100 ms, no waiting room
  auto s = LeakyBucket::fresh(p, 0s);
  for (int i = 0; i < 20; ++i) {
    const Nanos t = std::chrono::milliseconds(100 * i);
    const Decision d = LeakyBucket::decide(p, s, t, 1);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.delay, Nanos{0});
    EXPECT_FALSE(LeakyBucket::decide(p, s, t + 50ms, 1).allowed);
  }
}

TEST(LeakyBucket, ReconfigureKeepsTheOccupiedFractionOfTheQueue) {
  const LimitParams p = bucket_of<LeakyBucket>(10, 1);
  const LimitParams q = bucket_of<LeakyBucket>(20, 2);
  auto s = LeakyBucket::fresh(p, 0s);
  ASSERT_TRUE(LeakyBucket::decide(p, s, 0s, 5).allowed);  // half full: 5 s of backlog
  LeakyBucket::reconfigure(p, q, s, 0s);
  EXPECT_DOUBLE_EQ(LeakyBucket::available(q, s, 0s), 10);
  EXPECT_EQ(LeakyBucket::peek(q, s, 0s, 1).delay, Nanos{5s});  // 10 units at 2/s
  EXPECT_TRUE(LeakyBucket::idle(q, s, 5s));
}

}  // namespace
}  // namespace limitscope
