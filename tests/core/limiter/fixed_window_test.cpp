// Verifies fixed windows: alignment to multiples of W, the 999 ms / 1000 ms boundary, the
// documented 2L across a boundary, reset_after, and reconfigure keeping the count.

#include "core/limiter/fixed_window.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::window_of;

TEST(FixedWindow, WindowsAreAlignedToMultiplesOfW) {
  const LimitParams p = window_of<FixedWindow>(5, 1s);
  EXPECT_EQ(FixedWindow::fresh(p, 2500ms).window_start_ns, Nanos{2s}.count());
  EXPECT_EQ(FixedWindow::fresh(p, 3s).window_start_ns, Nanos{3s}.count());
  EXPECT_EQ(FixedWindow::fresh(p, -1500ms).window_start_ns, Nanos{-2s}.count());
  EXPECT_EQ(FixedWindow::fresh(window_of<FixedWindow>(5, 60s), 119s).window_start_ns,
            Nanos{60s}.count());
}

TEST(FixedWindow, RefusesAt999msAdmitsAt1000ms) {
  const LimitParams p = window_of<FixedWindow>(5, 1s);
  auto s = FixedWindow::fresh(p, 0s);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(FixedWindow::decide(p, s, 0s, 1).allowed);
  const Decision d = FixedWindow::decide(p, s, 999ms, 1);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, Nanos{1ms});
  EXPECT_EQ(d.reset_after, Nanos{1ms});
  const Decision next = FixedWindow::decide(p, s, 1000ms, 1);
  EXPECT_TRUE(next.allowed);
  EXPECT_DOUBLE_EQ(next.remaining, 4);
  EXPECT_EQ(next.reset_after, Nanos{1s});
}

TEST(FixedWindow, AllowsTwiceTheLimitAcrossABoundaryAsDocumented) {
  const LimitParams p = window_of<FixedWindow>(5, 1s);
  auto s = FixedWindow::fresh(p, 0s);
  int admitted = 0;
  for (int i = 0; i < 10; ++i) admitted += FixedWindow::decide(p, s, 999ms, 1).allowed ? 1 : 0;
  for (int i = 0; i < 10; ++i) admitted += FixedWindow::decide(p, s, 1000ms, 1).allowed ? 1 : 0;
  EXPECT_EQ(admitted, 10);  // 2L within 1 ms
}

TEST(FixedWindow, CountInTheWindowDecidesWithFractionalCosts) {
  const LimitParams p = window_of<FixedWindow>(3, 10s);
  auto s = FixedWindow::fresh(p, 0s);
  EXPECT_TRUE(FixedWindow::decide(p, s, 1s, 1.5).allowed);
  EXPECT_TRUE(FixedWindow::decide(p, s, 2s, 1.25).allowed);
  const Decision d = FixedWindow::decide(p, s, 3s, 0.5);
  EXPECT_FALSE(d.allowed);
  EXPECT_DOUBLE_EQ(d.remaining, 0.25);
  EXPECT_EQ(d.retry_after, Nanos{7s});
  EXPECT_TRUE(FixedWindow::decide(p, s, 3s, 0.25).allowed);
  EXPECT_TRUE(FixedWindow::idle(p, s, 10s));
  EXPECT_DOUBLE_EQ(FixedWindow::available(p, s, 10s), 3);
}

TEST(FixedWindow, ReconfigureKeepsTheCountClampedAndRealigns) {
  const LimitParams p = window_of<FixedWindow>(10, 1s);
  auto s = FixedWindow::fresh(p, 0s);
  ASSERT_TRUE(FixedWindow::decide(p, s, 1500ms, 8).allowed);
  FixedWindow::reconfigure(p, window_of<FixedWindow>(20, 1s), s, 1600ms);
  EXPECT_DOUBLE_EQ(FixedWindow::available(window_of<FixedWindow>(20, 1s), s, 1600ms), 12);
  FixedWindow::reconfigure(window_of<FixedWindow>(20, 1s), window_of<FixedWindow>(5, 10s), s,
                           1700ms);
  EXPECT_DOUBLE_EQ(s.count, 5);     // clamped: full
  EXPECT_EQ(s.window_start_ns, 0);  // the 10 s window containing 1.7 s
  EXPECT_FALSE(FixedWindow::decide(window_of<FixedWindow>(5, 10s), s, 9s, 1).allowed);
  EXPECT_TRUE(FixedWindow::decide(window_of<FixedWindow>(5, 10s), s, 10s, 1).allowed);
}

}  // namespace
}  // namespace limitscope
