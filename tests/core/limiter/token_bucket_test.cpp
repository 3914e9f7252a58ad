// Verifies the token bucket's refill arithmetic at exact boundaries, its exact retry_after and
// reset_after, a year of refill, and the proportional carry-over of reconfigure.

#include "core/limiter/token_bucket.h"

#include <gtest/gtest.h>

#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket_of;

TokenBucket::State drained(const LimitParams& p, Nanos at) {
  auto s = TokenBucket::fresh(p, at);
  EXPECT_TRUE(TokenBucket::decide(p, s, at, p.capacity).allowed);
  return s;
}

TEST(TokenBucket, OneTokenPerSecondRefusesAt999msAdmitsAt1000ms) {
  const LimitParams p = bucket_of<TokenBucket>(1, 1);
  auto s = drained(p, 0s);
  const Decision early = TokenBucket::decide(p, s, 999ms, 1);
  EXPECT_FALSE(early.allowed);
  EXPECT_EQ(early.reason, DenyReason::exhausted);
  EXPECT_EQ(early.retry_after, Nanos{1ms});
  EXPECT_TRUE(TokenBucket::decide(p, s, 1000ms, 1).allowed);
}

struct RetryRow {
  double capacity;
  double amount;
  Nanos period;
  double cost;
  Nanos retry_after;  // from a drained bucket at t = 0
};

class TokenBucketRetry : public ::testing::TestWithParam<RetryRow> {};

TEST_P(TokenBucketRetry, IsTheFirstNanosecondTheCostFits) {
  const RetryRow& r = GetParam();
  const LimitParams p = bucket_of<TokenBucket>(r.capacity, r.amount, r.period);
  const auto s = drained(p, 0s);
  const Decision d = TokenBucket::peek(p, s, 0s, r.cost);
  ASSERT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, r.retry_after);
  EXPECT_TRUE(TokenBucket::peek(p, s, r.retry_after, r.cost).allowed);
  EXPECT_FALSE(TokenBucket::peek(p, s, r.retry_after - 1ns, r.cost).allowed);
}

INSTANTIATE_TEST_SUITE_P(
    Rates, TokenBucketRetry,
    ::testing::Values(RetryRow{10, 5, 1s, 1, 200ms}, RetryRow{10, 5, 1s, 10, 2s},
                      RetryRow{60, 1, 1s, 8, 8s},             // free tier, gpt-4.1 cost
                      RetryRow{1, 3, 1s, 1, 333'333'334ns},   // 1/3 s rounds up
                      RetryRow{100, 100, 60s, 1, 600ms},      // 100/min
                      RetryRow{5, 1000, 3600s, 2.5, 9s},      // 1000/h, fractional cost
                      RetryRow{1, 1, 86'400s, 1, 86'400s}));  // 1/day

TEST(TokenBucket, RefillIsCappedAtCapacityAfterAYear) {
  for (const LimitParams& p :
       {bucket_of<TokenBucket>(5000, 500), bucket_of<TokenBucket>(60, 1),
        bucket_of<TokenBucket>(1, 1, 86'400s), bucket_of<TokenBucket>(1e6, 1e9)}) {
    auto s = drained(p, 5s);
    const Nanos year = 5s + std::chrono::hours(24 * 365);
    EXPECT_DOUBLE_EQ(TokenBucket::available(p, s, year), p.capacity) << p.describe();
    EXPECT_TRUE(TokenBucket::idle(p, s, year));
    const Decision d = TokenBucket::decide(p, s, year, p.capacity);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.remaining, 0);
  }
}

TEST(TokenBucket, ResetAfterIsTheTimeUntilFull) {
  const LimitParams p = bucket_of<TokenBucket>(10, 2);
  auto s = TokenBucket::fresh(p, 0s);
  const Decision d = TokenBucket::decide(p, s, 0s, 6);
  EXPECT_EQ(d.reset_after, Nanos{3s});
  // Counted after the decision: 6 + 2 − 1 = 5 tokens at 1 s, 10 − 1 = 9 at 3 s.
  EXPECT_EQ(TokenBucket::peek(p, s, 1s, 1).reset_after, Nanos{2500ms});
  EXPECT_EQ(TokenBucket::peek(p, s, 3s, 1).reset_after, Nanos{500ms});
  EXPECT_EQ(TokenBucket::peek(p, s, 3s, 11).reset_after, Nanos{0});  // refused: already full
}

TEST(TokenBucket, TimeGoingBackIsNoElapsedTime) {
  const LimitParams p = bucket_of<TokenBucket>(10, 1);
  auto s = drained(p, 10s);
  EXPECT_EQ(TokenBucket::available(p, s, 4s), 0);
  EXPECT_FALSE(TokenBucket::decide(p, s, 4s, 1).allowed);
  EXPECT_EQ(s.last_ns, Nanos{10s}.count());
  // At 11 s exactly one second of refill has happened, not seven.
  EXPECT_DOUBLE_EQ(TokenBucket::available(p, s, 11s), 1);
}

struct ReconfigureRow {
  double capacity_p, amount_p;
  double consumed;  // at t = 0 from a full bucket
  Nanos at;         // reconfigure instant
  double capacity_q, amount_q;
  double tokens_after;
};

class TokenBucketReconfigure : public ::testing::TestWithParam<ReconfigureRow> {};

TEST_P(TokenBucketReconfigure, KeepsTheFractionOfCapacityAfterRefillingUnderTheOldRate) {
  const ReconfigureRow& r = GetParam();
  const LimitParams p = bucket_of<TokenBucket>(r.capacity_p, r.amount_p);
  const LimitParams q = bucket_of<TokenBucket>(r.capacity_q, r.amount_q);
  auto s = TokenBucket::fresh(p, 0s);
  ASSERT_TRUE(TokenBucket::decide(p, s, 0s, r.consumed).allowed);
  TokenBucket::reconfigure(p, q, s, r.at);
  EXPECT_DOUBLE_EQ(TokenBucket::available(q, s, r.at), r.tokens_after);
  // From then on the new rate applies.
  const double later = std::min(r.capacity_q, r.tokens_after + r.amount_q);
  EXPECT_DOUBLE_EQ(TokenBucket::available(q, s, r.at + 1s), later);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, TokenBucketReconfigure,
    ::testing::Values(ReconfigureRow{10, 1, 10, 2s, 100, 1, 20},      // 20% of 10 -> 20% of 100
                      ReconfigureRow{10, 1, 5, 0s, 20, 10, 10},       // half stays half
                      ReconfigureRow{10, 1, 1, 60s, 5, 1, 5},         // refilled to full first
                      ReconfigureRow{60, 1, 60, 0s, 500, 50, 0},      // empty stays empty
                      ReconfigureRow{500, 50, 250, 1s, 60, 1, 36}));  // 300/500 -> 36/60

}  // namespace
}  // namespace limitscope
