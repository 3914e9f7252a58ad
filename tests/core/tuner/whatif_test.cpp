// Verifies the what-if series: for every algorithm its per-column 429s are the replay's
// decisions folded into columns and its totals equal replay(); levels stay in 0..1; bad
// parameters and column counts are refused; with prices, the columns' dollars add up to the
// replay's spend and the worst key's minute and final quota burn equal the priced replay's.
#include "core/tuner/whatif.h"

#include <gtest/gtest.h>

#include <random>

#include "support/limit_params_builders.h"
#include "support/random_arrivals.h"

namespace limitscope::tuner {
namespace {

trace::Trace random_trace(std::uint64_t seed, std::size_t events) {
  return test::random_trace(seed, events, 100.0, 8, std::uniform_int_distribution<int>(1, 3), 5);
}

TEST(WhatIf, ColumnsFoldTheReplaysDecisionsForEveryAlgorithm) {
  const trace::Trace trace = random_trace(7, 20'000);
  for (const Algorithm a :
       {Algorithm::token_bucket, Algorithm::gcra, Algorithm::leaky_bucket, Algorithm::sliding_log,
        Algorithm::sliding_counter, Algorithm::fixed_window}) {
    SCOPED_TRACE(std::string(to_string(a)));
    const LimitParams p = test::typical(a);
    const auto s = whatif_series(trace, p, 37);
    ASSERT_TRUE(s.ok()) << s.error();
    const auto decisions = replay_decisions(trace, p);
    const auto r = replay(trace, p);
    ASSERT_TRUE(decisions.ok() && r.ok());
    std::vector<std::uint32_t> rejected(37, 0), requests(37, 0);
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const auto col = static_cast<std::size_t>((trace.events[i].t_ns - s->t0_ns) / s->column_ns);
      ASSERT_LT(col, 37u);
      ++requests[col];
      if (!(*decisions)[i]) ++rejected[col];
    }
    EXPECT_EQ(s->rejected, rejected);
    EXPECT_EQ(s->requests, requests);
    EXPECT_EQ(s->total.admitted, r->total.admitted);
    EXPECT_EQ(s->total.rejected, r->total.rejected);
    EXPECT_EQ(s->total.admitted_cost, r->total.admitted_cost);
    for (std::size_t i = 0; i < 37; ++i) {
      if (requests[i] == 0)
        EXPECT_EQ(s->mean_level[i], -1);
      else
        EXPECT_TRUE(s->mean_level[i] >= 0 && s->mean_level[i] <= 1) << s->mean_level[i];
    }
  }
}

TEST(WhatIf, PricedColumnsAgreeWithThePricedReplay) {
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> gap(5.0);
  std::uniform_int_distribution<int> key(0, 3);
  std::uniform_int_distribution<std::uint32_t> tokens(100, 9000);
  trace::Trace t;
  double now = 0;
  for (int i = 0; i < 3000; ++i) {
    now += gap(rng);
    t.add(static_cast<std::int64_t>(now * 1e9), "k" + std::to_string(key(rng)), 8, "gpt-4.1",
          "free", tokens(rng));
  }
  const PricingOptions pricing{&default_policy(), std::nullopt};
  const LimitParams p = test::bucket(Algorithm::token_bucket, 24, 4);
  const auto s = whatif_series(t, p, 50, &pricing);
  ASSERT_TRUE(s.ok()) << s.error();
  ReplayOptions options;
  options.pricing = &pricing;
  const auto r = replay(t, p, options);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(s->spend.size(), 50u);
  double sum = 0;
  for (double d : s->spend) sum += d;
  EXPECT_NEAR(sum, r->total.admitted_spend, 1e-9);
  EXPECT_EQ(s->total.admitted_spend, r->total.admitted_spend);
  EXPECT_EQ(s->spend_summary.worst_key_per_min, r->spend.worst_key_per_min);
  EXPECT_EQ(s->spend_summary.worst_key, r->spend.worst_key);
  EXPECT_GT(s->spend_summary.worst_key_per_min, 0);
  // The last column's quota burn is the replay timeline's last point's (same day, same keys).
  EXPECT_DOUBLE_EQ(s->max_quota_burn.back(), r->timeline.back().max_quota_burn);
  EXPECT_GT(s->max_quota_burn.back(), 0);

  const auto unpriced = whatif_series(t, p, 50);
  ASSERT_TRUE(unpriced.ok());
  EXPECT_TRUE(unpriced->spend.empty());
  EXPECT_FALSE(unpriced->spend_summary.priced);
}

TEST(WhatIf, TheLastEventFallsInTheLastColumnAndOneColumnHoldsAll) {
  trace::Trace t;
  t.add(0, "a", 1);
  t.add(1'000'000'000, "a", 1);
  const auto many = whatif_series(t, test::bucket(Algorithm::token_bucket, 1, 0.1), 10);
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->requests.front(), 1u);
  EXPECT_EQ(many->requests.back(), 1u);
  EXPECT_EQ(many->rejected.back(), 1u);  // the bucket of 1 refills 0.1 in that second
  const auto one = whatif_series(t, test::bucket(Algorithm::token_bucket, 1, 0.1), 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->requests, std::vector<std::uint32_t>{2});
}

TEST(WhatIf, RefusesBadParametersAndColumns) {
  trace::Trace t;
  t.add(0, "a", 1);
  EXPECT_FALSE(whatif_series(t, test::bucket(Algorithm::token_bucket, 10, 0), 10).ok());
  EXPECT_FALSE(whatif_series(t, test::bucket(Algorithm::token_bucket, -1, 5), 10).ok());
  EXPECT_FALSE(whatif_series(t, test::bucket(Algorithm::token_bucket, 10, 5), 0).ok());
  const auto empty = whatif_series(trace::Trace{}, test::bucket(Algorithm::token_bucket, 10, 5), 4);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->total.admitted + empty->total.rejected, 0u);
}

}  // namespace
}  // namespace limitscope::tuner
