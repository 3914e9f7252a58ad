// Verifies GCRA's integer arithmetic: the emission interval, bursts of C, exact retry_after,
// fractional costs, and the proportional carry-over of reconfigure.

#include "core/limiter/gcra.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket_of;

struct IntervalRow {
  double amount;
  Nanos period;
  std::int64_t t_ns;
};

class GcraInterval : public ::testing::TestWithParam<IntervalRow> {};

TEST_P(GcraInterval, IsThePeriodPerUnitRoundedOnceToTheNearestNanosecond) {
  EXPECT_EQ(Gcra::emission_interval_ns(bucket_of<Gcra>(1, GetParam().amount, GetParam().period)),
            GetParam().t_ns);
}

INSTANTIATE_TEST_SUITE_P(
    Rates, GcraInterval,
    ::testing::Values(IntervalRow{5, 1s, 200'000'000}, IntervalRow{3, 1s, 333'333'333},
                      IntervalRow{2, 3s, 1'500'000'000}, IntervalRow{100, 60s, 600'000'000},
                      IntervalRow{1, 86'400s, 86'400'000'000'000},
                      IntervalRow{6, 1ns * 10, 2},  // 1.67 ns rounds to 2
                      IntervalRow{1e12, 1s, 1}));   // faster than 1/ns: clamped to 1 ns

TEST(Gcra, OnePerSecondRefusesAt999msAdmitsAt1000ms) {
  const LimitParams p = bucket_of<Gcra>(1, 1);
  auto s = Gcra::fresh(p, 0s);
  ASSERT_TRUE(Gcra::decide(p, s, 0s, 1).allowed);
  const Decision d = Gcra::decide(p, s, 999ms, 1);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, Nanos{1ms});
  EXPECT_TRUE(Gcra::decide(p, s, 1000ms, 1).allowed);
}

TEST(Gcra, BurstOfCapacityThenOneEveryEmissionInterval) {
  const LimitParams p = bucket_of<Gcra>(5, 5);  // T = 200 ms
  auto s = Gcra::fresh(p, 0s);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Gcra::decide(p, s, 0s, 1).allowed);
  EXPECT_EQ(s.tat_ns, Nanos{1s}.count());
  const Decision d = Gcra::decide(p, s, 0s, 1);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, Nanos{200ms});
  EXPECT_EQ(d.reset_after, Nanos{1s});
  EXPECT_TRUE(Gcra::decide(p, s, 200ms, 1).allowed);
  EXPECT_FALSE(Gcra::decide(p, s, 399ms, 1).allowed);
  EXPECT_TRUE(Gcra::decide(p, s, 400ms, 1).allowed);
}

TEST(Gcra, FractionalCostTakesThatManyIntervals) {
  const LimitParams p = bucket_of<Gcra>(5, 5);
  auto s = Gcra::fresh(p, 0s);
  ASSERT_TRUE(Gcra::decide(p, s, 0s, 5).allowed);
  const Decision d = Gcra::decide(p, s, 0s, 2.5);
  EXPECT_EQ(d.retry_after, Nanos{500ms});
  EXPECT_DOUBLE_EQ(Gcra::available(p, s, 300ms), 1.5);
}

TEST(Gcra, RemainingAndAvailableAreCostUnits) {
  const LimitParams p = bucket_of<Gcra>(10, 5);
  auto s = Gcra::fresh(p, 0s);
  EXPECT_DOUBLE_EQ(Gcra::decide(p, s, 0s, 4).remaining, 6);
  EXPECT_DOUBLE_EQ(Gcra::available(p, s, 0s), 6);
  EXPECT_DOUBLE_EQ(Gcra::available(p, s, 200ms), 7);
  EXPECT_DOUBLE_EQ(Gcra::available(p, s, 10s), 10);
}

TEST(Gcra, ReconfigureKeepsTheFractionOfCapacity) {
  const LimitParams p = bucket_of<Gcra>(10, 5);
  const LimitParams q = bucket_of<Gcra>(20, 10);
  auto s = Gcra::fresh(p, 0s);
  ASSERT_TRUE(Gcra::decide(p, s, 0s, 5).allowed);
  Gcra::reconfigure(p, q, s, 0s);
  EXPECT_DOUBLE_EQ(Gcra::available(q, s, 0s), 10);
  EXPECT_DOUBLE_EQ(Gcra::available(q, s, 500ms), 15);  // 10/s from now on
  // Refilled under the old rate first: 1 s at 5/s fills 10 -> full -> full under q.
  auto t = Gcra::fresh(p, 0s);
  ASSERT_TRUE(Gcra::decide(p, t, 0s, 5).allowed);
  Gcra::reconfigure(p, q, t, 1s);
  EXPECT_DOUBLE_EQ(Gcra::available(q, t, 1s), 20);
}

}  // namespace
}  // namespace limitscope
