// Verifies the single-key Limiter (validation, reconfigure, blocking acquire that waits for
// exactly the computed instant, cancellation, deadlines) and the composite's all-or-none rule.

#include "core/limiter/limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "support/limit_params_builders.h"
#include "support/recording_clock.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket;
using test::window;

using test::eventually;
using test::join_or_cancel;
using test::RecordingClock;

// Limiter::acquire(cost, deadline) on a thread of its own, so that the test can move the clock
// while it waits.
class AcquireThread {
 public:
  AcquireThread(Limiter& l, double cost, Nanos deadline)
      : thread_([this, &l, cost, deadline] {
          result_ = l.acquire(cost, deadline, cancel_);
          done_ = true;
        }) {}
  ~AcquireThread() {
    if (thread_.joinable()) join();
  }
  bool done() const { return done_.load(); }
  /// join_or_cancel(): true when the call returned by itself.
  bool join() { return join_or_cancel(thread_, done_, cancel_); }
  /// What acquire returned (after join()).
  const Decision& result() const { return result_; }

 private:
  CancelToken cancel_;
  Decision result_;
  std::atomic<bool> done_{false};
  std::thread thread_;  // last: it starts once the rest exists
};

std::unique_ptr<Limiter> make(const LimitParams& p, Clock& clock) {
  auto l = make_limiter(p, clock);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error());
  return std::move(*l);
}

TEST(Limiter, MakeRejectsInvalidParametersWithTheReason) {
  ManualClock clock;
  auto bad = make_limiter(bucket(Algorithm::token_bucket, -1, 5), clock);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("capacity"), std::string::npos) << bad.error();
  auto no_window = make_limiter(window(Algorithm::sliding_log, 10, 0s), clock);
  ASSERT_FALSE(no_window.ok());
  EXPECT_NE(no_window.error().find("window"), std::string::npos) << no_window.error();
}

TEST(Limiter, TryAcquireDecidesAtTheClocksTime) {
  ManualClock clock(5s);
  auto l = make(bucket(Algorithm::token_bucket, 2, 1), clock);
  EXPECT_TRUE(l->try_acquire().allowed);
  EXPECT_TRUE(l->try_acquire().allowed);
  const Decision d = l->try_acquire();
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after, Nanos{1s});
  clock.advance(999ms);
  EXPECT_FALSE(l->try_acquire().allowed);
  clock.advance(1ms);
  EXPECT_TRUE(l->try_acquire().allowed);
  EXPECT_DOUBLE_EQ(l->available(), 0);
}

TEST(Limiter, InvalidReconfigureChangesNothing) {
  ManualClock clock;
  const LimitParams p = bucket(Algorithm::token_bucket, 10, 1);
  auto l = make(p, clock);
  ASSERT_TRUE(l->try_acquire(4).allowed);
  const Status error = l->reconfigure(bucket(Algorithm::token_bucket, 10, 0));
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().find("refill"), std::string::npos) << error;
  EXPECT_EQ(l->params().describe(), p.describe());
  EXPECT_DOUBLE_EQ(l->available(), 6);
}

TEST(Limiter, ReconfigureCarriesTheStateOverOrStartsFreshForAnotherAlgorithm) {
  ManualClock clock;
  auto l = make(bucket(Algorithm::token_bucket, 10, 1), clock);
  ASSERT_TRUE(l->try_acquire(5).allowed);
  EXPECT_EQ(l->reconfigure(bucket(Algorithm::token_bucket, 40, 4)), Status{});
  EXPECT_DOUBLE_EQ(l->available(), 20);  // half full stays half full
  EXPECT_EQ(l->reconfigure(window(Algorithm::fixed_window, 3, 1s)), Status{});
  EXPECT_EQ(l->params().algorithm, Algorithm::fixed_window);
  EXPECT_DOUBLE_EQ(l->available(), 3);  // another algorithm: fresh
  EXPECT_TRUE(l->try_acquire(3).allowed);
  EXPECT_FALSE(l->try_acquire(1).allowed);
}

TEST(Limiter, LeakyBucketHandsOutDelays) {
  ManualClock clock;
  auto l = make(bucket(Algorithm::leaky_bucket, 3, 2), clock);
  EXPECT_EQ(l->try_acquire().delay, Nanos{0});
  EXPECT_EQ(l->try_acquire().delay, Nanos{500ms});
  EXPECT_EQ(l->try_acquire().delay, Nanos{1s});
  EXPECT_EQ(l->try_acquire().reason, DenyReason::queue_full);
}

TEST(LimiterAcquire, BlockedThreadWakesExactlyAtTheComputedInstant) {
  RecordingClock clock;
  auto l = make(bucket(Algorithm::token_bucket, 1, 1), clock);
  ASSERT_TRUE(l->try_acquire().allowed);
  AcquireThread waiter(*l, 1, 3600s);
  EXPECT_TRUE(eventually([&] { return clock.inner.waiters() == 1; }));
  EXPECT_EQ(clock.deadlines(), std::vector<Nanos>{Nanos{1s}});
  clock.inner.advance(999ms);
  EXPECT_FALSE(waiter.done());
  EXPECT_EQ(clock.inner.waiters(), 1);
  clock.inner.advance(1ms);
  EXPECT_TRUE(waiter.join());
  EXPECT_TRUE(waiter.result().allowed);
  EXPECT_EQ(clock.deadlines().size(), 1u);  // one wait, no polling
}

TEST(LimiterAcquire, LoserOfARaceForTheTokenWaitsAgainForTheNextOne) {
  RecordingClock clock;
  auto l = make(bucket(Algorithm::token_bucket, 1, 1), clock);
  ASSERT_TRUE(l->try_acquire().allowed);
  std::atomic<int> admitted{0};
  std::atomic<int> finished{0};
  CancelToken cancel;
  auto work = [&] {
    if (l->acquire(1, 3600s, cancel).allowed) ++admitted;
    ++finished;
  };
  std::thread a(work), b(work);
  EXPECT_TRUE(eventually([&] { return clock.inner.waiters() == 2; }));
  clock.inner.advance(1s);
  // The loser decided again at 1 s and went back to wait for 2 s.
  EXPECT_TRUE(eventually([&] { return admitted == 1 && clock.waiting_for_future() == 1; }));
  EXPECT_EQ(clock.deadlines(), (std::vector<Nanos>{1s, 1s, 2s}));
  clock.inner.advance(1s);
  const bool both = eventually([&] { return finished == 2; });
  if (!both) cancel.cancel();  // fail rather than hang
  a.join();
  b.join();
  EXPECT_TRUE(both);
  EXPECT_EQ(admitted, 2);
}

TEST(LimiterAcquire, CancellationReturnsPromptlyWithADenial) {
  ManualClock clock;
  auto l = make(bucket(Algorithm::token_bucket, 1, 1, 3600s), clock);
  ASSERT_TRUE(l->try_acquire().allowed);
  CancelToken cancel;
  Decision result;
  result.allowed = true;
  std::thread waiter([&] { result = l->acquire(1, 7200s, cancel); });
  EXPECT_TRUE(eventually([&] { return clock.waiters() == 1; }));
  cancel.cancel();
  waiter.join();
  EXPECT_FALSE(result.allowed);
  EXPECT_EQ(clock.now(), Nanos{0});
  // An already-cancelled token does not wait at all.
  EXPECT_FALSE(l->acquire(1, 7200s, cancel).allowed);
}

TEST(LimiterAcquire, ReturnsAtOnceWhenTheDeadlineOrNeverMakesWaitingUseless) {
  RecordingClock clock;
  auto l = make(bucket(Algorithm::token_bucket, 10, 1), clock);
  ASSERT_TRUE(l->try_acquire(10).allowed);
  CancelToken cancel;
  const Decision late = l->acquire(1, 500ms, cancel);  // needs 1 s
  EXPECT_FALSE(late.allowed);
  EXPECT_EQ(late.reason, DenyReason::exhausted);
  EXPECT_EQ(late.retry_after, Nanos{1s});
  const Decision never = l->acquire(11, 3600s, cancel);
  EXPECT_FALSE(never.allowed);
  EXPECT_EQ(never.reason, DenyReason::cost_above_capacity);
  EXPECT_TRUE(clock.deadlines().empty());
}

TEST(LimiterAcquire, ADeadlineEqualToTheInstantIsWaitedFor) {
  ManualClock clock;
  auto l = make(window(Algorithm::fixed_window, 1, 1s), clock);
  ASSERT_TRUE(l->try_acquire().allowed);
  AcquireThread waiter(*l, 1, 1s);
  EXPECT_TRUE(eventually([&] { return clock.waiters() == 1; }));
  clock.advance(1s);
  EXPECT_TRUE(waiter.join());
  EXPECT_TRUE(waiter.result().allowed);
}

std::shared_ptr<Limiter> shared(const LimitParams& p, Clock& clock) {
  return make(p, clock);
}

TEST(CompositeLimiter, AdmitsOnlyWhenEveryChildAdmitsAndReportsTheMostRestrictive) {
  ManualClock clock;
  auto per_second = shared(bucket(Algorithm::token_bucket, 10, 1), clock);
  auto per_minute = shared(window(Algorithm::fixed_window, 3, 60s), clock);
  auto c = make_composite({per_second, per_minute});
  ASSERT_TRUE(c.ok()) << c.error();
  CompositeLimiter& both = **c;
  for (int i = 0; i < 3; ++i) {
    const Decision d = both.try_acquire();
    ASSERT_TRUE(d.allowed);
    EXPECT_DOUBLE_EQ(d.remaining, 2 - i);
    EXPECT_DOUBLE_EQ(d.limit, 3);
  }
  const Decision d = both.try_acquire();
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reason, DenyReason::exhausted);
  EXPECT_EQ(d.retry_after, Nanos{60s});
  EXPECT_DOUBLE_EQ(per_second->available(), 7);  // the bucket did not pay for the refusal
  EXPECT_DOUBLE_EQ(both.available(), 0);
  const Decision never = both.try_acquire(5);  // fits the bucket, never the window
  EXPECT_EQ(never.reason, DenyReason::cost_above_capacity);
  EXPECT_FALSE(never.retry_after.has_value());
  EXPECT_EQ(both.params().algorithm, Algorithm::token_bucket);
  EXPECT_FALSE(both.reconfigure(bucket(Algorithm::token_bucket, 1, 1)).ok());
}

// A refusal reports the child that refused, even when another child has fewer units left
// (a requests limit next to a token limit); when both refuse, the one with the longest wait,
// and one that can never admit before all.
TEST(CompositeLimiter, ARefusalDescribesTheChildThatRefused) {
  ManualClock clock;
  // A bucket of 10 at 1/s, a window of 11 per minute.
  auto made = make_composite(
      {bucket(Algorithm::token_bucket, 10, 1), window(Algorithm::fixed_window, 11, 60s)}, clock);
  ASSERT_TRUE(made.ok()) << made.error();
  CompositeLimiter& both = **made;
  ASSERT_TRUE(both.try_acquire(6).allowed);  // bucket 4, window 5
  clock.advance(3s);                         // bucket 7, window 5
  const Decision d = both.try_acquire(6);    // the bucket would keep 1; the window refuses
  EXPECT_FALSE(d.allowed);
  EXPECT_DOUBLE_EQ(d.remaining, 5);
  EXPECT_DOUBLE_EQ(d.limit, 11);
  EXPECT_EQ(d.retry_after, Nanos{57s});

  clock.advance(57s);                         // a new window (11); the bucket is full (10)
  ASSERT_TRUE(both.try_acquire(10).allowed);  // bucket 0, window 1
  const Decision two = both.try_acquire(2);   // both refuse: the bucket for 2 s, the window 60 s
  EXPECT_FALSE(two.allowed);
  EXPECT_DOUBLE_EQ(two.limit, 11);
  EXPECT_DOUBLE_EQ(two.remaining, 1);
  EXPECT_EQ(two.retry_after, Nanos{60s});
  const Decision never = both.try_acquire(10.5);  // the bucket can never hold it, the window waits
  EXPECT_EQ(never.reason, DenyReason::cost_above_capacity);
  EXPECT_DOUBLE_EQ(never.limit, 10);
  EXPECT_FALSE(never.retry_after.has_value());
}

TEST(CompositeLimiter, RefusesToBeBuiltFromNothingNullsDuplicatesOrMixedClocks) {
  ManualClock clock, other;
  auto a = shared(bucket(Algorithm::token_bucket, 10, 1), clock);
  EXPECT_FALSE(make_composite(std::vector<std::shared_ptr<Limiter>>{}).ok());
  EXPECT_FALSE(make_composite({a, nullptr}).ok());
  EXPECT_FALSE(make_composite({a, a}).ok());
  EXPECT_FALSE(make_composite({a, shared(bucket(Algorithm::gcra, 1, 1), other)}).ok());
  std::shared_ptr<Limiter> inner = make_composite({a}).value();
  EXPECT_FALSE(make_composite({inner, a}).ok());  // a twice, once through the nested one
  auto bad = make_composite({bucket(Algorithm::gcra, 1, 1), bucket(Algorithm::gcra, 0, 1)}, clock);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("limit 1: capacity", 0), 0u) << bad.error();
}

TEST(CompositeLimiter, BlockingAcquireWaitsForTheLatestChild) {
  ManualClock clock;
  auto c =
      make_composite({bucket(Algorithm::gcra, 1, 1), window(Algorithm::sliding_log, 1, 3s)}, clock)
          .value();
  ASSERT_TRUE(c->try_acquire().allowed);
  AcquireThread waiter(*c, 1, 3600s);
  EXPECT_TRUE(eventually([&] { return clock.waiters() == 1; }));
  clock.advance(2999ms);
  EXPECT_EQ(clock.waiters(), 1);
  clock.advance(1ms);
  EXPECT_TRUE(waiter.join());
  EXPECT_TRUE(waiter.result().allowed);
}

// 100,000 random requests over a composite of three algorithms: after each one either every
// child paid exactly the cost or none paid anything.
TEST(CompositeLimiter, NeverHalfConsumesOverRandomTraffic) {
  ManualClock clock;
  std::vector<std::shared_ptr<Limiter>> children = {
      shared(bucket(Algorithm::token_bucket, 20, 10), clock),
      shared(window(Algorithm::sliding_log, 15, 1s), clock),
      shared(window(Algorithm::fixed_window, 25, 2s), clock)};
  auto c = make_composite(children).value();
  std::mt19937_64 rng(101);
  std::uniform_int_distribution<int> cost(1, 4), gap_ms(0, 60);
  int admitted = 0;
  for (int i = 0; i < 100'000; ++i) {
    if (i % 3 == 0) clock.advance(std::chrono::milliseconds(gap_ms(rng)));
    std::vector<double> before;
    for (const auto& ch : children) before.push_back(ch->available());
    const double k = cost(rng);
    const Decision d = c->try_acquire(k);
    admitted += d.allowed ? 1 : 0;
    for (std::size_t j = 0; j < children.size(); ++j) {
      const double paid = before[j] - children[j]->available();
      ASSERT_NEAR(paid, d.allowed ? k : 0.0, 1e-9) << "child " << j << " request " << i;
    }
  }
  EXPECT_GT(admitted, 5'000);  // about a tenth: the limits bind, and each child's in turn
  EXPECT_LT(admitted, 50'000);
}

}  // namespace
}  // namespace limitscope
