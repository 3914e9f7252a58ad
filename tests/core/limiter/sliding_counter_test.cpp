// Verifies the sliding window counter's weighted estimate, aligned windows, exact retry_after,
// its documented over-admission after a late burst, and reconfigure.

#include "core/limiter/sliding_counter.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::window_of;

TEST(SlidingCounter, EstimateWeighsThePreviousWindowByTheUnelapsedPart) {
  const LimitParams p = window_of<SlidingCounter>(10, 1s);
  auto s = SlidingCounter::fresh(p, 0s);
  ASSERT_TRUE(SlidingCounter::decide(p, s, 100ms, 8).allowed);
  EXPECT_DOUBLE_EQ(SlidingCounter::available(p, s, 900ms), 2);
  // At 1.25 s: 8 · 0.75 = 6 used.
  EXPECT_DOUBLE_EQ(SlidingCounter::available(p, s, 1250ms), 4);
  const Decision d = SlidingCounter::decide(p, s, 1250ms, 3);
  EXPECT_TRUE(d.allowed);
  EXPECT_DOUBLE_EQ(d.remaining, 1);
  EXPECT_DOUBLE_EQ(s.prev, 8);
  EXPECT_DOUBLE_EQ(s.curr, 3);
  // 8·(1 − e) + 3 + 2 <= 10 from e = 0.375: at 1.375 s.
  const Decision refused = SlidingCounter::decide(p, s, 1250ms, 2);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, Nanos{125ms});
  EXPECT_EQ(refused.reset_after, Nanos{1750ms});  // curr decays to 0 at 3 s
  // Two windows later everything is forgotten.
  EXPECT_TRUE(SlidingCounter::idle(p, s, 3s));
  EXPECT_DOUBLE_EQ(SlidingCounter::available(p, s, 3s), 10);
}

TEST(SlidingCounter, FullCurrentWindowWaitsIntoTheNextOne) {
  const LimitParams p = window_of<SlidingCounter>(10, 1s);
  auto s = SlidingCounter::fresh(p, 0s);
  ASSERT_TRUE(SlidingCounter::decide(p, s, 0s, 10).allowed);
  const Decision d = SlidingCounter::decide(p, s, 500ms, 1);
  // Next window: 10·(1 − e) + 1 <= 10 from e = 0.1, i.e. 1.1 s.
  EXPECT_EQ(d.retry_after, Nanos{600ms});
  EXPECT_FALSE(SlidingCounter::peek(p, s, 1099ms, 1).allowed);
  EXPECT_TRUE(SlidingCounter::peek(p, s, 1100ms, 1).allowed);
}

TEST(SlidingCounter, ALateBurstLetsMoreThanTheLimitThroughAsDocumented) {
  const LimitParams p = window_of<SlidingCounter>(10, 1s);
  auto s = SlidingCounter::fresh(p, 0s);
  ASSERT_TRUE(SlidingCounter::decide(p, s, 999ms, 10).allowed);
  // At 1.5 s the estimate assumes half of the previous 10 has left; the exact log would
  // still hold all 10 in (0.5 s, 1.5 s].
  EXPECT_TRUE(SlidingCounter::decide(p, s, 1500ms, 5).allowed);
}

TEST(SlidingCounter, ReconfigureClampsCountsAndRealignsTheWindow) {
  const LimitParams p = window_of<SlidingCounter>(10, 1s);
  auto s = SlidingCounter::fresh(p, 0s);
  ASSERT_TRUE(SlidingCounter::decide(p, s, 500ms, 6).allowed);
  ASSERT_TRUE(SlidingCounter::decide(p, s, 1500ms, 4).allowed);
  const LimitParams q = window_of<SlidingCounter>(5, 4s);
  SlidingCounter::reconfigure(p, q, s, 1600ms);
  EXPECT_EQ(s.window_start_ns, 0);
  EXPECT_DOUBLE_EQ(s.prev, 5);
  EXPECT_DOUBLE_EQ(s.curr, 4);
  EXPECT_DOUBLE_EQ(SlidingCounter::available(q, s, 1600ms), 0);  // 5·0.6 + 4 > 5
}

}  // namespace
}  // namespace limitscope
