// Verifies the Tuner's advice (core/tuner/advice.h, first_guess.h, number_text.h): a log-spaced
// grid by default with round values; a best cell on the grid's edge says to widen the range and
// which way (not below the largest cost); the spend limit excludes a cell that would otherwise
// win, and says what it would have cost; the recommendation's spend and quota burn are shown;
// the first guess is the 95th percentile of the well-behaved keys' busiest second and minute;
// numbers print at sensible precision.

#include "core/tuner/advice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/limiter/policy.h"
#include "core/tuner/candidate.h"
#include "core/tuner/first_guess.h"
#include "core/tuner/number_text.h"
#include "core/tuner/sweep.h"
#include "core/tuner/well_behaved.h"

namespace limitscope::tuner {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

// One key sending cost 1 every 100 ms for 100 s: 1,000 requests, exactly 10/s.
trace::Trace steady_trace() {
  trace::Trace t;
  for (int i = 0; i < 1000; ++i) t.add(i * kS / 10, "k", 1);
  return t;
}

GuidedSweep run(const trace::Trace& t, const SweepSpec& spec) {
  GuidedSweep g;
  auto r = sweep(t, spec);
  EXPECT_TRUE(r.ok()) << r.error();
  if (r) g.all = *r;
  return g;
}

SweepSpec bucket_spec(SweepAxis capacity, SweepAxis refill) {
  SweepSpec s;
  s.base.algorithm = Algorithm::token_bucket;
  s.x = capacity;
  s.y = refill;
  return s;
}

LimitParams bucket(double capacity, double refill_per_s) {
  LimitParams p;
  p.algorithm = Algorithm::token_bucket;
  p.capacity = capacity;
  p.refill = Rate::per_sec(refill_per_s);
  return p;
}

OperatorConstraints at_most_429(double ratio) {
  OperatorConstraints c;
  c.core.max_ratio_429 = ratio;
  return c;
}

TEST(SweepAxisSpacing, LogByDefaultWithRoundValuesAndLinearOnRequest) {
  auto log = parse_axis("15:9000:12", "capacity");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->spacing, Spacing::log);
  const auto v = log->values();
  ASSERT_EQ(v.size(), 12u);
  EXPECT_EQ(v.front(), 15);
  EXPECT_EQ(v.back(), 9000);
  EXPECT_DOUBLE_EQ(v[1], 26.8);  // 15 · 600^(1/11) = 26.83…, rounded to 3 significant digits
  for (std::size_t i = 1; i < v.size(); ++i) {
    EXPECT_GT(v[i], v[i - 1]);
    EXPECT_NEAR(v[i] / v[i - 1], std::pow(600.0, 1.0 / 11), 0.03);  // even ratios
  }
  auto lin = parse_axis("10:100:10:lin", "capacity");
  ASSERT_TRUE(lin.ok());
  EXPECT_EQ(lin->values()[1], 20);
  EXPECT_FALSE(parse_axis("10:100:10:cubic", "capacity").ok());
}

TEST(Advice, ABestCellOnTheGridsEdgeSaysWhichWayToWiden) {
  const trace::Trace t = steady_trace();
  struct Row {
    SweepAxis refill;
    int hints;
    bool low;
  };
  const Row rows[] = {
      {{10, 40, 3, Spacing::linear}, 1, true},  // refill 10 is the lowest: widen downward
      {{2, 10, 3, Spacing::linear}, 1, false},  // only 10 meets: widen upward
      {{5, 15, 3, Spacing::linear}, 0, false},  // 10 is inside
  };
  for (const Row& row : rows) {
    // Capacity 1 is the largest cost: never a "widen downward" on capacity.
    const SweepSpec spec = bucket_spec({1, 4, 3, Spacing::linear}, row.refill);
    const Advice a = advise(t, spec, run(t, spec), at_most_429(0.001), {});
    ASSERT_TRUE(a.recommendation.best.has_value());
    EXPECT_EQ(a.best->params.refill.per_second(), 10);
    ASSERT_EQ(a.edges.size(), static_cast<std::size_t>(row.hints)) << a.text();
    if (row.hints == 0) continue;
    EXPECT_EQ(a.edges[0].axis, 1);
    EXPECT_EQ(a.edges[0].low, row.low);
    EXPECT_NE(a.text().find(row.low ? "widen the range downward" : "widen the range upward"),
              std::string::npos)
        << a.text();
    EXPECT_NE(a.text().find("the refill rate is at its"), std::string::npos) << a.text();
  }
  // A capacity above the largest cost at the low end does get the hint.
  const SweepSpec spec = bucket_spec({2, 8, 3, Spacing::linear}, {5, 15, 3, Spacing::linear});
  const Advice a = advise(t, spec, run(t, spec), at_most_429(0.001), {});
  ASSERT_EQ(a.edges.size(), 1u) << a.text();
  EXPECT_EQ(a.edges[0].axis, 0);
  EXPECT_TRUE(a.edges[0].low);
}

TEST(Advice, TheSpendLimitExcludesACellThatWouldOtherwiseWin) {
  const trace::Trace t = steady_trace();
  const SweepSpec spec = bucket_spec({1, 1, 1}, {1, 20, 5, Spacing::linear});
  const GuidedSweep g = run(t, spec);
  AdviceOptions o;
  o.current = bucket(1, 1);  // admits 100 of 1,000 (cost 100)
  o.max_spend_increase = std::nullopt;
  const Advice open = advise(t, spec, g, at_most_429(0.001), o);
  ASSERT_TRUE(open.recommendation.best.has_value()) << open.text();
  const std::size_t winner = *open.recommendation.best;
  EXPECT_EQ(g.all.cells[winner].total.admitted_cost, 1000);
  EXPECT_NE(open.text().find("The spend limit is off."), std::string::npos);

  o.max_spend_increase = 0.10;  // at most cost 110: the winner (1,000) is excluded
  const Advice capped = advise(t, spec, g, at_most_429(0.001), o);
  EXPECT_FALSE(capped.recommendation.best.has_value());
  ASSERT_EQ(capped.excluded_by_spend, winner);
  ASSERT_TRUE(capped.spend_cap.has_value());
  EXPECT_NEAR(*capped.spend_cap, 110, 1e-9);
  EXPECT_NE(
      capped.text().find("No setting meets the constraints within the spend limit (+10% over the "
                         "current setting's 100 cost units)"),
      std::string::npos)
      << capped.text();
  EXPECT_NE(capped.text().find("admits 1,000 cost units (+900%)"), std::string::npos)
      << capped.text();

  o.max_spend_increase = 10.0;  // +1,000%: the winner is back
  const Advice wide = advise(t, spec, g, at_most_429(0.001), o);
  EXPECT_EQ(wide.recommendation.best, winner);
  EXPECT_NE(wide.text().find("(the current setting: 100 cost units, +900%; limit +1,000%)"),
            std::string::npos)
      << wide.text();
}

TEST(Advice, ShowsTheRecommendationsQuotaBurnBesideTheCurrentOne) {
  const trace::Trace t = steady_trace();  // key "k": the default tier, free, 1,000 cost units a day
  const Policy policy = default_policy();
  PricingOptions pricing;
  pricing.policy = &policy;
  SweepSpec spec = bucket_spec({1, 1, 1}, {1, 20, 5, Spacing::linear});
  spec.pricing = &pricing;
  AdviceOptions o;
  o.current = bucket(1, 1);
  o.max_spend_increase = std::nullopt;
  o.pricing = &pricing;
  const Advice a = advise(t, spec, run(t, spec), at_most_429(0.001), o);
  ASSERT_TRUE(a.best.has_value());
  EXPECT_DOUBLE_EQ(a.best->max_quota_burn, 1.0);
  EXPECT_DOUBLE_EQ(a.current->max_quota_burn, 0.1);
  EXPECT_NE(
      a.text().find(
          "Daily quota burn: the busiest key uses 100% of its quota (the current setting: 10%); "
          "1 key goes over quota."),
      std::string::npos)
      << a.text();
}

TEST(Advice, NoCellMeetingTheConstraintsSaysSo) {
  const trace::Trace t = steady_trace();
  const SweepSpec spec = bucket_spec({1, 1, 1}, {1, 5, 3, Spacing::linear});
  const Advice a = advise(t, spec, run(t, spec), at_most_429(0.001), {});
  EXPECT_FALSE(a.recommendation.best.has_value());
  EXPECT_NE(a.text().find("No setting in the grid meets the constraints: widen the range upward"),
            std::string::npos);
  EXPECT_NE(a.text().find("No spend limit: no current setting"), std::string::npos);
}

TEST(FirstGuess, NinetyFifthPercentileOfTheKeysBusiestSecondAndMinute) {
  // 20 keys; key i sends i+1 requests of cost 1 within one second, once a minute for 3 minutes.
  // Busiest second of key i: i+1; busiest minute: i+1 (cost per 60 s).
  trace::Trace t;
  std::vector<std::tuple<std::int64_t, std::string, double>> events;
  for (int m = 0; m < 3; ++m) {
    for (int k = 0; k < 20; ++k) {
      for (int j = 0; j <= k; ++j)
        events.emplace_back(m * 60 * kS + k * 10'000'000 + j * 100'000, "key" + std::to_string(k),
                            1);
    }
  }
  std::sort(events.begin(), events.end());
  for (const auto& [at, key, cost] : events) t.add(at, key, cost);
  const auto peaks = key_peaks(t);
  ASSERT_EQ(peaks.size(), 20u);
  EXPECT_EQ(peaks[t.key_id("key7")].busiest_second, 8);
  EXPECT_EQ(peaks[t.key_id("key7")].busiest_minute, 8);
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 0.95), 5);
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 0.5), 3);
  // Every key is within 5 × the median's rate (median ~10.5, top 20): all 20 are well-behaved;
  // the 95th percentile of 1..20 (nearest rank 19) is 19.
  const FirstGuess g = first_guess(t, Algorithm::token_bucket);
  EXPECT_EQ(g.params.capacity, 19);
  EXPECT_NEAR(g.params.refill.per_second(), 19.0 / 60, 0.005);  // 0.32/s, 2 significant digits
  EXPECT_NE(g.basis.find("95th percentile"), std::string::npos);
  const FirstGuess w = first_guess(t, Algorithm::sliding_log);
  EXPECT_EQ(w.params.limit, 19);
  EXPECT_EQ(w.params.window, std::chrono::seconds(60));
  // The sweep's suggested axes are log-spaced and hold the guess.
  const auto [x, y] = suggest_axes(t, Algorithm::token_bucket, 9);
  EXPECT_EQ(x.spacing, Spacing::log);
  EXPECT_LE(x.min, 19);
  EXPECT_GE(x.max, 19);
  EXPECT_LE(y.min, 0.32);
  EXPECT_GE(y.max, 0.32);
}

TEST(NumberText, SensiblePrecision) {
  struct Row {
    double v;
    const char* text;
  };
  const Row rows[] = {
      {918.367, "918"}, {9183.47, "9,180"}, {0.5234, "0.523"},      {1.5, "1.5"},
      {60, "60"},       {0, "0"},           {1234567, "1,230,000"}, {0.000123456, "0.000123"}};
  for (const Row& r : rows) EXPECT_EQ(number_text(r.v), r.text) << r.v;
  EXPECT_EQ(percent_text(0.0012), "0.12%");
  EXPECT_EQ(percent_text(46.06), "4,606%");
  EXPECT_EQ(percent_change_text(0.1), "+10%");
  EXPECT_EQ(dollars_text(12.3), "$12.30");
  EXPECT_EQ(dollars_text(1234.4), "$1,234");
  EXPECT_EQ(dollars_text(490.78), "$491");
  EXPECT_EQ(setting_text(bucket(9183.47, 918.367)), "token-bucket capacity 9,180, refill 918/s");
  EXPECT_EQ(setting_text(bucket(60, 1.0 / 60)), "token-bucket capacity 60, refill 1/min");
}

}  // namespace
}  // namespace limitscope::tuner
