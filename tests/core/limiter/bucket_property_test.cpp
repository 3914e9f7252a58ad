// Verifies, on 100,000+ seeded random events per algorithm, that the bucket algorithms never
// admit more than C + r·(t2 − t1) over any interval, agree decision for decision with an exact
// integer oracle (and GCRA with the token bucket), and that no algorithm's rejection consumes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/limiter/algorithms.h"
#include "support/limit_params_builders.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;
using test::bucket;

struct Event {
  std::int64_t t_ns;
  double cost;
};

// Bursts at one instant, steady arrivals around the refill interval and idle gaps, with
// integral costs (occasionally above capacity). `grid_ns` rounds every gap to its multiple.
std::vector<Event> bucket_events(std::uint64_t seed, int n, std::int64_t unit_ns, double capacity,
                                 std::int64_t grid_ns = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Event> out;
  out.reserve(static_cast<std::size_t>(n));
  std::int64_t t = 1'000'000'000;
  const int max_cost = std::max(1, static_cast<int>(std::min(capacity, 4.0)));
  for (int i = 0; i < n; ++i) {
    const double kind = u(rng);
    double gap = 0;
    if (kind < 0.3) {
      gap = 0;
    } else if (kind < 0.85) {
      gap = u(rng) * 2.0 * static_cast<double>(unit_ns);
    } else {
      gap = u(rng) * capacity * static_cast<double>(unit_ns);
    }
    t += static_cast<std::int64_t>(gap) / grid_ns * grid_ns;
    double cost = 1 + static_cast<int>(u(rng) * max_cost);
    if (u(rng) < 0.01) cost = capacity + 1;
    out.push_back(Event{t, cost});
  }
  return out;
}

struct BucketSet {
  double capacity;
  double amount;
  Nanos period;
};

// Integral nanoseconds per unit, so GCRA's rounded T is the exact rate and an integer oracle
// is exact: 5/s (200 ms), 50/s (20 ms), 1/s, 100/min (600 ms).
const BucketSet kSets[] = {{10, 5, 1s}, {500, 50, 1s}, {60, 1, 1s}, {3, 100, 60s}};
constexpr int kEventsPerSet = 25'000;  // x 4 sets = 100,000 per algorithm

std::int64_t unit_ns(const BucketSet& b) {
  return b.period.count() / static_cast<std::int64_t>(b.amount);
}

// Over every interval [t_i, t_j] the admitted cost is at most C + r·(t_j − t_i). With A the
// admitted cost before event i: A_j+ − A_i− <= C + r·(t_j − t_i) for all i <= j, i.e.
// (A_j+ − r·t_j) − min_{i<=j}(A_i− − r·t_i) <= C; one pass with a running minimum.
template <class A>
void check_interval_bound(const BucketSet& b, std::uint64_t seed) {
  const LimitParams p = bucket(A::kAlgorithm, b.capacity, b.amount, b.period);
  const auto events = bucket_events(seed, kEventsPerSet, unit_ns(b), b.capacity);
  const double r = b.amount / static_cast<double>(b.period.count());  // cost per ns
  const std::int64_t t0 = events.front().t_ns;
  auto s = A::fresh(p, Nanos{t0});
  double admitted = 0;
  double running_min = 0;
  double worst = -1e300;
  int admissions = 0;
  for (const Event& e : events) {
    const double rt = r * static_cast<double>(e.t_ns - t0);
    running_min = std::min(running_min, admitted - rt);
    const Decision d = A::decide(p, s, Nanos{e.t_ns}, e.cost);
    if (e.cost > b.capacity) {
      ASSERT_EQ(d.reason, DenyReason::cost_above_capacity);
    }
    if (!d.allowed) continue;
    ++admissions;
    admitted += e.cost;
    worst = std::max(worst, admitted - rt - running_min);
  }
  EXPECT_LE(worst, b.capacity + 1e-6) << p.describe();
  EXPECT_GT(admissions, kEventsPerSet / 10) << p.describe();
  EXPECT_LT(admissions, kEventsPerSet) << p.describe();  // the limit was actually reached
}

TEST(BucketProperty, TokenBucketNeverExceedsCapacityPlusRefillOverAnyInterval) {
  std::uint64_t seed = 11;
  for (const BucketSet& b : kSets) check_interval_bound<TokenBucket>(b, seed++);
}

// With settlements (usage learned after the admission, some far above any estimate), the cost
// charged (admitted costs plus the corrections settle() applied) over any interval stays within
// C + max_debt + r·(t2 − t1), and only a correction past the debt bound is left uncharged.
TEST(BucketProperty, SettledTokenBucketChargesAtMostCapacityPlusDebtPlusRefill) {
  std::uint64_t seed = 41;
  for (const BucketSet& b : kSets) {
    const LimitParams p = bucket(Algorithm::token_bucket, b.capacity, b.amount, b.period);
    const auto events = bucket_events(seed++, kEventsPerSet, unit_ns(b), b.capacity);
    const double r = b.amount / static_cast<double>(b.period.count());
    const double debt = TokenBucket::max_debt(p);
    std::mt19937_64 rng(seed);
    const std::int64_t t0 = events.front().t_ns;
    auto s = TokenBucket::fresh(p, Nanos{t0});
    double charged = 0, running_min = 0, worst = -1e300, forgiven = 0;
    int in_debt = 0;
    for (const Event& e : events) {
      const Nanos now{e.t_ns};
      const double rt = r * static_cast<double>(e.t_ns - t0);
      running_min = std::min(running_min, charged - rt);
      if (rng() % 4 == 0) {
        // Usage above the estimate: mostly small, sometimes past the whole debt bound.
        const double delta =
            rng() % 50 == 0 ? 2 * debt + b.capacity : static_cast<double>(rng() % 8) - 2.0;
        const double before = TokenBucket::available(p, s, now);
        TokenBucket::settle(p, s, now, delta);
        const double applied = before - TokenBucket::available(p, s, now);
        if (delta > 0) forgiven += delta - applied;
        charged += applied;
        in_debt += s.tokens < 0;
      } else if (TokenBucket::decide(p, s, now, e.cost).allowed) {
        charged += e.cost;
      }
      ASSERT_GE(s.tokens, -debt - 1e-9);
      worst = std::max(worst, charged - rt - running_min);
    }
    EXPECT_LE(worst, b.capacity + debt + 1e-6) << p.describe();
    EXPECT_GT(in_debt, 100) << p.describe();
    EXPECT_GT(forgiven, 0) << p.describe() << ": some corrections reached the bound";
  }
}

TEST(BucketProperty, GcraNeverExceedsCapacityPlusRefillOverAnyInterval) {
  std::uint64_t seed = 21;
  for (const BucketSet& b : kSets) check_interval_bound<Gcra>(b, seed++);
}

TEST(BucketProperty, LeakyBucketNeverAdmitsMoreThanDepthPlusDrainOverAnyInterval) {
  std::uint64_t seed = 31;
  for (const BucketSet& b : kSets) check_interval_bound<LeakyBucket>(b, seed++);
}

// The oracle: the bucket level in ns of refill, min(C·k, level + Δt), admit iff level >= c·k,
// all in int64 (exact). k = ns per unit.
struct IntegerBucket {
  std::int64_t k, cap, level, last;
  IntegerBucket(const BucketSet& b, std::int64_t t)
      : k(unit_ns(b)), cap(static_cast<std::int64_t>(b.capacity) * k), level(cap), last(t) {}
  std::int64_t level_at(std::int64_t t) const { return std::min(cap, level + (t - last)); }
  bool decide(std::int64_t t, double cost) {
    const auto need = static_cast<std::int64_t>(cost) * k;
    if (level_at(t) < need) return false;
    level = level_at(t) - need;
    last = t;
    return true;
  }
};

// GCRA and the leaky bucket's admission are exact; the token bucket's double level may differ
// from the oracle only when the oracle sits exactly on the boundary (level == cost): then
// the bucket's rounding may go either way, and the oracle follows the bucket.
template <class A>
int oracle_mismatches(const BucketSet& b, std::uint64_t seed, int* boundary_cases) {
  const LimitParams p = bucket(A::kAlgorithm, b.capacity, b.amount, b.period);
  const auto events = bucket_events(seed, kEventsPerSet, unit_ns(b), b.capacity);
  auto s = A::fresh(p, Nanos{events.front().t_ns});
  IntegerBucket oracle(b, events.front().t_ns);
  int mismatches = 0;
  for (const Event& e : events) {
    const bool on_boundary =
        oracle.level_at(e.t_ns) == static_cast<std::int64_t>(e.cost) * oracle.k;
    IntegerBucket before = oracle;
    const bool expected = e.cost <= b.capacity && oracle.decide(e.t_ns, e.cost);
    const bool got = A::decide(p, s, Nanos{e.t_ns}, e.cost).allowed;
    if (on_boundary) ++*boundary_cases;
    if (got == expected) continue;
    if (!on_boundary) {
      ++mismatches;
      continue;
    }
    oracle = before;  // follow the implementation through a boundary tie
    if (got) oracle.decide(e.t_ns, e.cost);
  }
  return mismatches;
}

TEST(BucketProperty, AllBucketsAgreeWithAnExactIntegerOracle) {
  std::uint64_t seed = 41;
  for (const BucketSet& b : kSets) {
    int boundary = 0;
    EXPECT_EQ(oracle_mismatches<Gcra>(b, seed, &boundary), 0);
    EXPECT_EQ(oracle_mismatches<LeakyBucket>(b, seed, &boundary), 0);
    EXPECT_EQ(oracle_mismatches<TokenBucket>(b, seed, &boundary), 0);
    RecordProperty("boundary_cases_" + std::to_string(seed), boundary);
    ++seed;
  }
}

// GCRA against the token bucket directly. On a grid of T/4 every refill is a multiple of a
// quarter token, exact in double, so the two must agree on every decision. On arbitrary
// nanoseconds they may differ only where the bucket's level is within 1e-9 of the cost
// (a rounding tie); both restart fresh after such a tie so later decisions stay comparable.
TEST(BucketProperty, GcraAgreesWithTheTokenBucketDecisionForDecision) {
  std::uint64_t seed = 51;
  for (const BucketSet& b : kSets) {
    for (const std::int64_t grid : {unit_ns(b) / 4, std::int64_t{1}}) {
      const LimitParams pt = bucket(Algorithm::token_bucket, b.capacity, b.amount, b.period);
      const LimitParams pg = bucket(Algorithm::gcra, b.capacity, b.amount, b.period);
      const auto events = bucket_events(seed++, kEventsPerSet, unit_ns(b), b.capacity, grid);
      auto st = TokenBucket::fresh(pt, Nanos{events.front().t_ns});
      auto sg = Gcra::fresh(pg, Nanos{events.front().t_ns});
      int ties = 0;
      for (const Event& e : events) {
        const Nanos t{e.t_ns};
        const double level = TokenBucket::available(pt, st, t);
        const bool bt = TokenBucket::decide(pt, st, t, e.cost).allowed;
        const bool bg = Gcra::decide(pg, sg, t, e.cost).allowed;
        if (bt == bg) continue;
        ASSERT_NEAR(level, e.cost, 1e-9) << pt.describe() << " at " << e.t_ns;
        ASSERT_NE(grid, unit_ns(b) / 4) << "quarter-token grid must agree exactly";
        ++ties;
        st = TokenBucket::fresh(pt, t);
        sg = Gcra::fresh(pg, t);
      }
      EXPECT_LE(ties, kEventsPerSet / 1000) << pt.describe();
      RecordProperty("ties_" + std::to_string(seed), ties);
    }
  }
}

// A rejected request consumes nothing: a twin state that only ever sees the requests the
// first one admitted must answer identically and end bit-identical.
template <class A>
void check_rejections_are_free(const LimitParams& p, const std::vector<Event>& events) {
  auto all = A::fresh(p, Nanos{events.front().t_ns});
  auto admitted_only = all;
  int rejections = 0;
  for (const Event& e : events) {
    const auto before = all;
    const Decision d = A::decide(p, all, Nanos{e.t_ns}, e.cost);
    if (!d.allowed) {
      ++rejections;
      ASSERT_TRUE(test::same_state(before, all)) << p.describe();
      continue;
    }
    const Decision twin = A::decide(p, admitted_only, Nanos{e.t_ns}, e.cost);
    ASSERT_TRUE(twin.allowed) << p.describe();
    ASSERT_EQ(twin.remaining, d.remaining);
    ASSERT_EQ(twin.delay, d.delay);
  }
  EXPECT_TRUE(test::same_state(all, admitted_only)) << p.describe();
  EXPECT_GT(rejections, static_cast<int>(events.size()) / 20) << p.describe();
}

TEST(BucketProperty, RejectionsConsumeNothingInAnyAlgorithm) {
  const auto events = bucket_events(61, 20'000, 200'000'000, 10);
  check_rejections_are_free<TokenBucket>(bucket(Algorithm::token_bucket, 10, 5), events);
  check_rejections_are_free<Gcra>(bucket(Algorithm::gcra, 10, 5), events);
  check_rejections_are_free<LeakyBucket>(bucket(Algorithm::leaky_bucket, 10, 5), events);
  for (Algorithm a :
       {Algorithm::sliding_log, Algorithm::sliding_counter, Algorithm::fixed_window}) {
    const LimitParams p = test::window(a, 10, 2s);
    visit_algorithm(a, [&](auto algo) { check_rejections_are_free<decltype(algo)>(p, events); });
  }
}

}  // namespace
}  // namespace limitscope
