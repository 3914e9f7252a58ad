// Verifies the exact sliding log: the half-open window (t − W, t], exact retry_after, shared
// entries per nanosecond, bounded memory, reset_after, and reconfigure clamping.

#include "core/limiter/sliding_log.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::window_of;

TEST(SlidingLog, AnEntryLeavesTheWindowExactlyWAfterIt) {
  const LimitParams p = window_of<SlidingLog>(3, 1s);
  auto s = SlidingLog::fresh(p, 0s);
  ASSERT_TRUE(SlidingLog::decide(p, s, 0ms, 1).allowed);
  ASSERT_TRUE(SlidingLog::decide(p, s, 400ms, 1).allowed);
  ASSERT_TRUE(SlidingLog::decide(p, s, 999ms, 1).allowed);
  const Decision d = SlidingLog::decide(p, s, 999ms, 1);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, Nanos{1ms});  // the entry at 0 leaves at 1000 ms
  EXPECT_EQ(d.reset_after, Nanos{1s});   // the newest (999 ms) leaves at 1999 ms
  EXPECT_TRUE(SlidingLog::decide(p, s, 1000ms, 1).allowed);
  // A cost of 2 needs the entries at 400 ms and 999 ms gone: 1999 ms.
  const Decision two = SlidingLog::decide(p, s, 1000ms, 2);
  EXPECT_EQ(two.retry_after, Nanos{999ms});
}

TEST(SlidingLog, RequestsAtTheSameNanosecondShareOneEntry) {
  const LimitParams p = window_of<SlidingLog>(10, 1s);
  auto s = SlidingLog::fresh(p, 0s);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(SlidingLog::decide(p, s, 5ms, 1).allowed);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s.entries.back().cost, 4);
  EXPECT_DOUBLE_EQ(SlidingLog::available(p, s, 5ms), 6);
  EXPECT_TRUE(SlidingLog::idle(p, s, 1005ms));
}

TEST(SlidingLog, MemoryStaysBoundedByTheLimit) {
  const LimitParams p = window_of<SlidingLog>(50, 1s);
  auto s = SlidingLog::fresh(p, 0s);
  std::size_t most = 0;
  for (int i = 0; i < 20'000; ++i) {
    SlidingLog::decide(p, s, std::chrono::milliseconds(i), 1);
    most = std::max(most, s.entries.size());
    ASSERT_LE(s.size(), 50u + 32u);
  }
  EXPECT_LE(most, 2 * 50u + 32u);
}

TEST(SlidingLog, FractionalCostsAreExact) {
  const LimitParams p = window_of<SlidingLog>(1, 1s);
  auto s = SlidingLog::fresh(p, 0s);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(SlidingLog::decide(p, s, i * 1ms, 0.25).allowed);
  EXPECT_FALSE(SlidingLog::decide(p, s, 4ms, 0.25).allowed);
  EXPECT_TRUE(SlidingLog::decide(p, s, 1000ms, 0.25).allowed);
  EXPECT_DOUBLE_EQ(SlidingLog::available(p, s, 1000ms), 0);
  EXPECT_DOUBLE_EQ(SlidingLog::available(p, s, 1001ms), 0.25);
}

TEST(SlidingLog, ReconfigureKeepsEntriesAndClampsToTheNewLimit) {
  const LimitParams p = window_of<SlidingLog>(10, 1s);
  auto s = SlidingLog::fresh(p, 0s);
  ASSERT_TRUE(SlidingLog::decide(p, s, 0ms, 4).allowed);
  ASSERT_TRUE(SlidingLog::decide(p, s, 500ms, 4).allowed);
  const LimitParams q = window_of<SlidingLog>(5, 1s);
  SlidingLog::reconfigure(p, q, s, 600ms);
  EXPECT_DOUBLE_EQ(SlidingLog::available(q, s, 600ms), 0);   // clamped: full
  EXPECT_DOUBLE_EQ(SlidingLog::available(q, s, 1000ms), 1);  // the oldest 1 unit was dropped
  EXPECT_DOUBLE_EQ(SlidingLog::available(q, s, 1500ms), 5);
  // A longer window keeps counting the same entries for longer.
  auto t = SlidingLog::fresh(p, 0s);
  ASSERT_TRUE(SlidingLog::decide(p, t, 0ms, 4).allowed);
  const LimitParams longer = window_of<SlidingLog>(10, 10s);
  SlidingLog::reconfigure(p, longer, t, 100ms);
  EXPECT_DOUBLE_EQ(SlidingLog::available(longer, t, 5s), 6);
  EXPECT_DOUBLE_EQ(SlidingLog::available(longer, t, 10s), 10);
}

}  // namespace
}  // namespace limitscope
