// Verifies the contract all six algorithms share: every Decision field, invalid and oversized
// costs, exact retry_after, rejections that consume nothing, time going back, a year idle.

#include "core/limiter/algorithm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/limiter/algorithms.h"
#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::same_state;
using test::typical;

constexpr Nanos kT0 = 1000s;  // not 0: alignment and "last" handling must not rely on 0

template <class A>
class AlgorithmContract : public ::testing::Test {};

using AllAlgorithms =
    ::testing::Types<TokenBucket, Gcra, SlidingLog, SlidingCounter, FixedWindow, LeakyBucket>;
TYPED_TEST_SUITE(AlgorithmContract, AllAlgorithms);

template <class A>
DenyReason full_reason() {
  return A::kAlgorithm == Algorithm::leaky_bucket ? DenyReason::queue_full : DenyReason::exhausted;
}

TYPED_TEST(AlgorithmContract, FreshAdmitsTheLimitThenRefusesWithRetryAfter) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  EXPECT_TRUE(A::idle(p, s, kT0));
  EXPECT_DOUBLE_EQ(A::available(p, s, kT0), 10);
  for (int i = 0; i < 10; ++i) {
    const Decision d = A::decide(p, s, kT0, 1);
    ASSERT_TRUE(d.allowed) << i;
    EXPECT_EQ(d.reason, DenyReason::none);
    EXPECT_DOUBLE_EQ(d.limit, 10);
    EXPECT_NEAR(d.remaining, 9 - i, 1e-9);
    ASSERT_TRUE(d.retry_after.has_value());
    EXPECT_EQ(*d.retry_after, Nanos{0});
    EXPECT_GT(d.reset_after, Nanos{0});
  }
  EXPECT_FALSE(A::idle(p, s, kT0));
  const Decision d = A::decide(p, s, kT0, 1);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reason, full_reason<A>());
  EXPECT_NEAR(d.remaining, 0, 1e-9);
  ASSERT_TRUE(d.retry_after.has_value());
  EXPECT_GT(*d.retry_after, Nanos{0});
  EXPECT_GE(d.reset_after, *d.retry_after);
}

TYPED_TEST(AlgorithmContract, InvalidCostsAreRefusedAndConsumeNothing) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  A::decide(p, s, kT0, 3);
  const auto before = s;
  const double inf = std::numeric_limits<double>::infinity();
  for (double cost : {0.0, -0.0, -1.0, std::nan(""), inf, -inf}) {
    const Decision d = A::decide(p, s, kT0 + 1ms, cost);
    EXPECT_FALSE(d.allowed) << cost;
    EXPECT_EQ(d.reason, DenyReason::invalid_cost) << cost;
    EXPECT_FALSE(d.retry_after.has_value()) << cost;
    EXPECT_DOUBLE_EQ(d.limit, 10);
    EXPECT_TRUE(same_state(before, s)) << cost;
  }
}

TYPED_TEST(AlgorithmContract, CostAboveCapacityIsRefusedForeverNotAnInfiniteWait) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  const auto before = s;
  for (double cost : {10.5, 11.0, 1e12}) {
    const Decision d = A::decide(p, s, kT0, cost);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.reason, DenyReason::cost_above_capacity);
    EXPECT_FALSE(d.retry_after.has_value());
    EXPECT_DOUBLE_EQ(d.remaining, 10);
    EXPECT_TRUE(same_state(before, s));
  }
  EXPECT_TRUE(A::decide(p, s, kT0, 10).allowed);  // exactly the capacity fits when full
}

// After a deterministic mix of admissions, every refusal's retry_after is exact: the same
// request is admitted at now + retry_after and refused 1 ns earlier.
TYPED_TEST(AlgorithmContract, RetryAfterIsExactToTheNanosecond) {
  using A = TypeParam;
  for (const LimitParams& p :
       {typical(A::kAlgorithm),
        is_window_algorithm(A::kAlgorithm) ? test::window(A::kAlgorithm, 7, 999ms)
                                           : test::bucket(A::kAlgorithm, 7, 3, 1s),
        is_window_algorithm(A::kAlgorithm) ? test::window(A::kAlgorithm, 100, 60s)
                                           : test::bucket(A::kAlgorithm, 100, 7, 60s)}) {
    auto s = A::fresh(p, kT0);
    const double costs[] = {1, 3, 2, 0.5, 2.5};
    int refusals = 0;
    Nanos t = kT0;
    for (int i = 0; i < 400; ++i) {
      t += Nanos{(i * 7919) % 97'000'003};
      const double cost = costs[i % 5];
      const Decision d = A::peek(p, s, t, cost);
      if (!d.allowed) {
        ++refusals;
        ASSERT_TRUE(d.retry_after.has_value());
        const Nanos at = t + *d.retry_after;
        EXPECT_TRUE(A::peek(p, s, at, cost).allowed) << p.describe() << " i=" << i;
        EXPECT_FALSE(A::peek(p, s, at - 1ns, cost).allowed) << p.describe() << " i=" << i;
      }
      A::decide(p, s, t, cost);
    }
    EXPECT_GT(refusals, 20) << p.describe();
  }
}

TYPED_TEST(AlgorithmContract, RejectionLeavesStateUntouchedAndPeekMatchesDecide) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  Nanos t = kT0;
  for (int i = 0; i < 300; ++i) {
    t += Nanos{(i * 104729) % 300'000'007};
    const double cost = 1 + i % 4;
    const auto before = s;
    const Decision peeked = A::peek(p, s, t, cost);
    const Decision d = A::decide(p, s, t, cost);
    EXPECT_EQ(peeked.allowed, d.allowed);
    EXPECT_EQ(peeked.remaining, d.remaining);
    EXPECT_EQ(peeked.retry_after, d.retry_after);
    EXPECT_EQ(peeked.reset_after, d.reset_after);
    EXPECT_EQ(peeked.delay, d.delay);
    EXPECT_EQ(peeked.reason, d.reason);
    if (!d.allowed) {
      EXPECT_TRUE(same_state(before, s)) << "i=" << i;
    }
  }
}

TYPED_TEST(AlgorithmContract, TimeGoingBackCreatesNoCapacity) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  const Nanos late = kT0 + 10s;
  while (A::decide(p, s, late, 1).allowed) {
  }
  for (Nanos back : {late - 1ns, late - 1s, late - 5s, kT0, Nanos{0}, Nanos{-1'000'000'000'000}}) {
    EXPECT_LE(A::available(p, s, back), A::available(p, s, late) + 1e-9);
    for (double cost : {0.5, 1.0, 10.0}) {
      EXPECT_FALSE(A::peek(p, s, back, cost).allowed) << back.count();
      const Decision d = A::decide(p, s, back, cost);
      EXPECT_FALSE(d.allowed);
      ASSERT_TRUE(d.retry_after.has_value());
    }
  }
  // Still consistent afterwards: capacity returns with time as before.
  EXPECT_TRUE(A::decide(p, s, late + 100s, 10).allowed);
}

TYPED_TEST(AlgorithmContract, AYearIdleIsFullAgainWithoutOverflow) {
  using A = TypeParam;
  const LimitParams p = typical(A::kAlgorithm);
  auto s = A::fresh(p, kT0);
  while (A::decide(p, s, kT0, 1).allowed) {
  }
  const Nanos year = kT0 + std::chrono::hours(24 * 365);
  EXPECT_TRUE(A::idle(p, s, year));
  EXPECT_DOUBLE_EQ(A::available(p, s, year), 10);
  const Decision d = A::decide(p, s, year, 10);
  EXPECT_TRUE(d.allowed);
  EXPECT_NEAR(d.remaining, 0, 1e-9);
  const Decision refused = A::decide(p, s, year, 1);
  ASSERT_TRUE(refused.retry_after.has_value());
  // C=10 at 5/s refills in 2 s; a window frees up within 2 W (the sliding counter's previous
  // window weighs in during the next one).
  EXPECT_LE(*refused.retry_after, is_window_algorithm(A::kAlgorithm) ? 4s : 2s);
}

}  // namespace
}  // namespace limitscope
