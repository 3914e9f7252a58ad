// Verifies sweep: every cell equals the plain replay of its configuration (the token bucket's
// struct-of-arrays path and the generic path of the other algorithms, on random traces), axes
// are evenly spaced and inclusive, bad axes and an empty trace are refused, a cancelled sweep
// stops, and the recommendation is the tightest cell meeting the constraints; priced sweeps
// give every cell the priced replay's spend and worst key's spend per minute exactly, and a
// spend constraint picks the cheapest cell under it (refused on a sweep without prices).
#include "core/tuner/sweep.h"

#include <gtest/gtest.h>

#include <random>

#include "support/limit_params_builders.h"
#include "support/random_arrivals.h"

namespace limitscope::tuner {
namespace {

trace::Trace random_trace(std::uint64_t seed, std::size_t events, int keys) {
  return test::random_trace(seed, events, 150.0, keys,
                            std::uniform_real_distribution<double>(0.5, 3));
}

TEST(Sweep, EveryCellEqualsThePlainReplay) {
  const trace::Trace trace = random_trace(3, 15000, 12);
  struct Case {
    Algorithm algorithm;
    SweepAxis x;
    SweepAxis y;
  };
  const Case cases[] = {
      {Algorithm::token_bucket, {1, 20, 5}, {1, 40, 6}},
      {Algorithm::gcra, {1, 20, 3}, {1, 40, 3}},
      {Algorithm::sliding_log, {0.5, 3, 3}, {5, 30, 3}},
      {Algorithm::fixed_window, {0.5, 3, 2}, {5, 30, 3}},
      {Algorithm::sliding_counter, {0.5, 3, 2}, {5, 30, 2}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(to_string(c.algorithm)));
    SweepSpec spec;
    spec.base.algorithm = c.algorithm;
    spec.x = c.x;
    spec.y = c.y;
    spec.threads = 2;
    auto result = sweep(trace, spec);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_EQ(result->fast_path, c.algorithm == Algorithm::token_bucket);
    ASSERT_EQ(result->cells.size(), static_cast<std::size_t>(c.x.steps * c.y.steps));
    for (const auto& cell : result->cells) {
      auto plain = replay(trace, cell.params);
      ASSERT_TRUE(plain.ok());
      EXPECT_EQ(cell.total.admitted, plain->total.admitted) << cell.params.describe();
      EXPECT_EQ(cell.total.rejected, plain->total.rejected) << cell.params.describe();
      EXPECT_EQ(cell.total.admitted_cost, plain->total.admitted_cost) << cell.params.describe();
      double worst = 0;
      for (const auto& k : plain->by_key) worst = std::max(worst, k.ratio_429());
      EXPECT_EQ(cell.worst_key_429, worst) << cell.params.describe();
    }
  }
}

trace::Trace priced_trace(std::uint64_t seed, std::size_t events, int keys) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(60.0);  // spans a few minutes
  std::uniform_int_distribution<int> key(0, keys - 1);
  std::uniform_real_distribution<double> cost(0.5, 3);
  std::uniform_int_distribution<std::uint32_t> tokens(50, 4000);
  const char* models[] = {"gpt-4.1", "claude-sonnet-4.5", "no-price"};
  trace::Trace t;
  double now = 0;
  for (std::size_t i = 0; i < events; ++i) {
    now += gap(rng);
    const int k = key(rng);
    t.add(static_cast<std::int64_t>(now * 1e9), "k" + std::to_string(k), cost(rng), models[i % 3],
          "", i % 7 == 0 ? std::optional<std::uint32_t>{} : tokens(rng));
  }
  return t;
}

TEST(Sweep, PricedCellsEqualThePricedReplay) {
  const trace::Trace trace = priced_trace(9, 12000, 8);
  PricingOptions pricing{&default_policy(), std::nullopt};
  ReplayOptions options;
  options.pricing = &pricing;
  for (const Algorithm a : {Algorithm::token_bucket, Algorithm::gcra, Algorithm::sliding_log}) {
    SCOPED_TRACE(std::string(to_string(a)));
    SweepSpec spec;
    spec.base.algorithm = a;
    spec.x = is_window_algorithm(a) ? SweepAxis{1, 10, 3} : SweepAxis{1, 20, 4};
    spec.y = is_window_algorithm(a) ? SweepAxis{5, 40, 3} : SweepAxis{1, 30, 4};
    spec.pricing = &pricing;
    auto result = sweep(trace, spec);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_TRUE(result->priced);
    EXPECT_NE(result->unpriced_reason.find("'no-price'"), std::string::npos);
    bool some_spend_differs = false;
    for (const auto& cell : result->cells) {
      auto plain = replay(trace, cell.params, options);
      ASSERT_TRUE(plain.ok());
      EXPECT_EQ(cell.total.admitted, plain->total.admitted) << cell.params.describe();
      EXPECT_EQ(cell.total.admitted_spend, plain->total.admitted_spend) << cell.params.describe();
      EXPECT_EQ(cell.worst_key_spend_per_min, plain->spend.worst_key_per_min)
          << cell.params.describe();
      some_spend_differs |= cell.total.admitted_spend != result->cells.front().total.admitted_spend;
    }
    EXPECT_TRUE(some_spend_differs) << "the grid should change what is admitted";
  }
}

TEST(Sweep, SpendConstraintPicksTheCheapestCellUnderIt) {
  const trace::Trace trace = priced_trace(4, 6000, 5);
  PricingOptions pricing{&default_policy(), std::nullopt};
  SweepSpec spec;
  spec.x = {1, 40, 5};
  spec.y = {0.5, 20, 5};
  spec.pricing = &pricing;
  auto result = sweep(trace, spec);
  ASSERT_TRUE(result.ok());
  double lo = 1e300, hi = 0;
  for (const auto& c : result->cells) {
    lo = std::min(lo, c.worst_key_spend_per_min);
    hi = std::max(hi, c.worst_key_spend_per_min);
  }
  ASSERT_LT(lo, hi);
  Constraints c;
  c.max_worst_key_spend_per_min = (lo + hi) / 2;
  c.max_ratio_429 = 0.9;
  EXPECT_EQ(check_constraints(*result, c), Status{});
  const auto rec = recommend(*result, c);
  ASSERT_TRUE(rec.best.has_value());
  const auto& best = result->cells[*rec.best];
  EXPECT_LE(best.worst_key_spend_per_min, *c.max_worst_key_spend_per_min);
  for (const auto& cell : result->cells) {
    if (meets(*result, cell, c)) {
      EXPECT_GE(cell.total.admitted_spend, best.total.admitted_spend);
    }
  }
  // The cheapest under a tight spend limit admits fewer dollars than under none.
  Constraints loose;
  loose.max_ratio_429 = 0.9;
  const auto free_rec = recommend(*result, loose);
  ASSERT_TRUE(free_rec.best.has_value());
  EXPECT_LE(result->cells[*free_rec.best].total.admitted_spend, best.total.admitted_spend);

  // A spend limit on a sweep without prices is refused in words, not met by nothing silently.
  spec.pricing = nullptr;
  auto unpriced = sweep(trace, spec);
  ASSERT_TRUE(unpriced.ok());
  EXPECT_FALSE(unpriced->priced);
  const Status why = check_constraints(*unpriced, c);
  ASSERT_FALSE(why.ok());
  EXPECT_NE(why.error().find("needs prices"), std::string::npos);
}

TEST(Sweep, AxesAndBadInput) {
  auto axis = parse_axis("10:100:10:lin", "capacity");
  ASSERT_TRUE(axis.ok());
  const auto v = axis->values();
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 100);
  EXPECT_EQ(v[1], 20);
  for (const char* bad : {"10:100", "a:b:c", "0:10:2", "10:5:2", "5:5:3", "1:10:0", "1:10:2.5"}) {
    EXPECT_FALSE(parse_axis(bad, "capacity").ok()) << bad;
  }
  SweepSpec spec;
  spec.x = {1, 2, 2};
  spec.y = {1, 2, 2};
  EXPECT_FALSE(sweep(trace::Trace{}, spec).ok());
  std::atomic<bool> cancel{true};
  auto cancelled = sweep(random_trace(1, 200000, 3), spec, &cancel);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().find("cancelled"), std::string::npos);
}

TEST(Sweep, RecommendsTheTightestCellMeetingTheConstraints) {
  const trace::Trace trace = random_trace(5, 5000, 5);
  SweepSpec spec;
  spec.x = {1, 30, 6};
  spec.y = {1, 60, 6};
  auto result = sweep(trace, spec);
  ASSERT_TRUE(result.ok());
  Constraints c;
  c.max_ratio_429 = 0.05;
  const auto rec = recommend(*result, c);
  ASSERT_TRUE(rec.best.has_value());
  const auto& best = result->cells[*rec.best];
  EXPECT_LE(best.total.ratio_429(), 0.05);
  for (const auto& cell : result->cells) {
    if (cell.total.ratio_429() <= 0.05) {
      EXPECT_GE(cell.total.admitted_cost, best.total.admitted_cost);
    }
  }
  EXPECT_FALSE(rec.frontier.empty());
  Constraints impossible;
  impossible.max_ratio_429 = -1;
  EXPECT_FALSE(recommend(*result, impossible).best.has_value());
}

}  // namespace
}  // namespace limitscope::tuner
