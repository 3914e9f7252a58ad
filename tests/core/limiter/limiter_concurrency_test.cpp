// Verifies Limiter and CompositeLimiter under several threads on a ManualClock: no lost
// updates, never more than the limit allows over the elapsed time, no half-consumed
// composites with shared children, and blocked acquirers served one refill at a time.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/limiter/limiter.h"
#include "support/limit_params_builders.h"
#include "support/recording_clock.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket;
using test::window;

constexpr int kThreads = 4;
using test::eventually;
using test::RecordingClock;

struct HammerRow {
  LimitParams params;
  double start_allowance;  // admitted with time frozen: C or L
  // Most cost admissible over `elapsed` from a fresh state.
  double (*bound)(const LimitParams&, Nanos elapsed);
};

double bucket_bound(const LimitParams& p, Nanos elapsed) {
  return p.capacity + p.refill.per_second() * std::chrono::duration<double>(elapsed).count();
}

// Each algorithm admits at most L per aligned window (the counter: curr <= L; the log: at most
// L in any window), and `elapsed` from an arbitrary start touches at most elapsed/W + 2 windows.
double window_bound(const LimitParams& p, Nanos elapsed) {
  return p.limit * (static_cast<double>(elapsed.count() / p.window.count()) + 2);
}

void PrintTo(const HammerRow& row, std::ostream* os) {
  *os << row.params.describe();
}

class LimiterHammer : public ::testing::TestWithParam<HammerRow> {};

TEST_P(LimiterHammer, ThreadsNeverGetMoreThanTheLimitAllows) {
  const HammerRow& row = GetParam();
  ManualClock clock(123'456'789ns);
  auto l = std::move(make_limiter(row.params, clock).value());
  // Time frozen: exactly the initial allowance, however the threads interleave.
  std::atomic<int> frozen{0};
  std::atomic<int> ready{0};
  // Every thread starts hammering only when all are running, so their calls overlap.
  auto start_together = [&] {
    ++ready;
    EXPECT_TRUE(eventually([&] { return ready % kThreads == 0; }));
  };
  {
    std::vector<std::thread> ts;
    for (int i = 0; i < kThreads; ++i) {
      ts.emplace_back([&] {
        start_together();
        for (int k = 0; k < 300; ++k) frozen += l->try_acquire().allowed ? 1 : 0;
      });
    }
    for (auto& t : ts) t.join();
  }
  EXPECT_EQ(frozen, row.start_allowance) << row.params.describe();
  // Time moving: the first thread advances the clock 1 ms at a time (500 ms, five windows),
  // asking for a token after each step, while the others hammer as fast as they can.
  std::atomic<bool> stop{false};
  std::atomic<int> moving{0};
  const Nanos start = clock.now();
  std::vector<std::thread> ts;
  ts.emplace_back([&] {
    start_together();
    for (int step = 0; step < 500; ++step) {
      clock.advance(1ms);
      for (int k = 0; k < 10; ++k) moving += l->try_acquire().allowed ? 1 : 0;
    }
    stop = true;
  });
  for (int i = 1; i < kThreads; ++i) {
    ts.emplace_back([&] {
      start_together();
      while (!stop) moving += l->try_acquire().allowed ? 1 : 0;
    });
  }
  for (auto& t : ts) t.join();
  const Nanos elapsed = clock.now() - start;
  EXPECT_LE(frozen + moving, row.bound(row.params, elapsed) + 1e-9) << row.params.describe();
  EXPECT_GT(moving, 0);
}

INSTANTIATE_TEST_SUITE_P(
    AllAlgorithms, LimiterHammer,
    ::testing::Values(HammerRow{bucket(Algorithm::token_bucket, 100, 1000), 100, bucket_bound},
                      HammerRow{bucket(Algorithm::gcra, 100, 1000), 100, bucket_bound},
                      HammerRow{bucket(Algorithm::leaky_bucket, 100, 1000), 100, bucket_bound},
                      HammerRow{window(Algorithm::sliding_log, 100, 100ms), 100, window_bound},
                      HammerRow{window(Algorithm::sliding_counter, 100, 100ms), 100, window_bound},
                      HammerRow{window(Algorithm::fixed_window, 100, 100ms), 100, window_bound}));

// Two composites share child B: X = {A, B}, Y = {B, C}; B is also used directly. With time
// frozen, every unit a child lost must be accounted for by admissions of its users.
TEST(CompositeConcurrency, SharedChildrenAreNeverHalfConsumed) {
  ManualClock clock;
  auto leaf = [&](double capacity) -> std::shared_ptr<Limiter> {
    return std::move(
        make_limiter(bucket(Algorithm::token_bucket, capacity, 1, 86'400s), clock).value());
  };
  auto a = leaf(3000), b = leaf(4000), c = leaf(2500);
  std::shared_ptr<Limiter> x = make_composite({a, b}).value();
  std::shared_ptr<Limiter> y = make_composite({b, c}).value();
  std::atomic<long> paid_x{0}, paid_y{0}, paid_b{0};
  auto worker = [&](Limiter& l, std::atomic<long>& paid, int seed) {
    for (int k = 0; k < 3000; ++k) {
      const int cost = 1 + (k * 7 + seed) % 3;
      if (l.try_acquire(cost).allowed) paid += cost;
    }
  };
  std::vector<std::thread> ts;
  ts.emplace_back(worker, std::ref(*x), std::ref(paid_x), 1);
  ts.emplace_back(worker, std::ref(*x), std::ref(paid_x), 2);
  ts.emplace_back(worker, std::ref(*y), std::ref(paid_y), 3);
  ts.emplace_back(worker, std::ref(*y), std::ref(paid_y), 4);
  ts.emplace_back(worker, std::ref(*b), std::ref(paid_b), 5);
  for (auto& t : ts) t.join();
  EXPECT_DOUBLE_EQ(3000 - a->available(), static_cast<double>(paid_x));
  EXPECT_DOUBLE_EQ(2500 - c->available(), static_cast<double>(paid_y));
  EXPECT_DOUBLE_EQ(4000 - b->available(), static_cast<double>(paid_x + paid_y + paid_b));
  EXPECT_LT(b->available(), 3);  // B ran dry, so X and Y were refused while A and C had room
}

// Threads blocked in acquire on a bucket of one token per second get exactly one token per
// second between them: each time the clock reaches the next instant one wakes with the token
// and the others, having lost the race, wait for the following one.
TEST(CompositeConcurrency, BlockedAcquirersAreServedOneRefillAtATime) {
  RecordingClock clock;
  auto l = std::move(make_limiter(bucket(Algorithm::gcra, 1, 1), clock).value());
  constexpr int kEach = 5;
  std::atomic<int> admitted{0};
  std::atomic<int> finished{0};
  CancelToken cancel;
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i) {
    ts.emplace_back([&] {
      for (int k = 0; k < kEach; ++k) {
        if (l->acquire(1, 3600s, cancel).allowed) ++admitted;
      }
      ++finished;
    });
  }
  for (int second = 0; second < kThreads * kEach; ++second) {
    if (!eventually([&] {
          return admitted == second + 1 && clock.waiting_for_future() == kThreads - finished;
        })) {
      ADD_FAILURE() << "second " << second << ": admitted " << admitted;
      cancel.cancel();  // lets every thread return so they can be joined
      break;
    }
    if (finished == kThreads) break;
    clock.inner.advance(1s);
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(admitted, kThreads * kEach);
  EXPECT_EQ(clock.now(), Nanos{std::chrono::seconds(kThreads * kEach - 1)});
}

}  // namespace
}  // namespace limitscope
