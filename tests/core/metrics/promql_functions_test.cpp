// Verifies rate/increase/irate/delta extrapolation and histogram_quantile against
// hand-computed values (Prometheus 2.42 formulas), plus the element functions.
#include "core/metrics/promql_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/metrics/promql.h"

namespace limitscope::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Appends values at 0, step, 2·step, ... seconds (NaN = skip).
void add_series(SeriesStore& store, const Labels& l, std::int64_t step_s,
                std::vector<double> values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) continue;
    ASSERT_TRUE(store.append(l, {static_cast<std::int64_t>(i) * step_s * 1000, values[i]}).ok());
  }
}

// The single value a query returns at t seconds (NaN when the vector is empty).
double value_at(const SeriesStore& store, const std::string& q, double t_s) {
  auto e = parse_promql(q);
  EXPECT_TRUE(e.ok()) << q << ": " << e.error();
  if (!e) return kNaN;
  auto v = evaluate(**e, store, static_cast<std::int64_t>(t_s * 1000));
  EXPECT_TRUE(v.ok()) << q << ": " << v.error();
  if (!v) return kNaN;
  if (v->kind == QueryValue::Kind::scalar) return v->scalar;
  EXPECT_LE(v->vector.size(), 1u) << q;
  return v->vector.empty() ? kNaN : v->vector[0].value;
}

struct RateRow {
  const char* query;
  double t_s;
  double expected;  // NaN = no result
  const char* why;
};

TEST(PromqlRateTest, ExtrapolationMatchesHandComputedValues) {
  SeriesStore store;
  // Counter growing 10 every 15 s from 0 at t=0.
  add_series(store, Labels{{"__name__", "c"}}, 15, {0, 10, 20, 30, 40, 50, 60, 70, 80});
  // Counter first seen at 15 s with value 5 (zero crossing 7.5 s before it).
  add_series(store, Labels{{"__name__", "late"}}, 15, {kNaN, 5, 15, 25, 35});
  // Counter with a reset: 20 -> 5.
  add_series(store, Labels{{"__name__", "reset"}}, 15, {0, 10, 20, 5, 15});
  // Sparse counter: samples at 40, 50, 60 s only (gap to the range start).
  add_series(store, Labels{{"__name__", "sparse"}}, 10, {kNaN, kNaN, kNaN, kNaN, 100, 110, 120});
  // Gauge going down.
  add_series(store, Labels{{"__name__", "g"}}, 15, {100, 90, 70, 40, 0});

  const RateRow rows[] = {
      {"rate(c[1m])", 60, 40.0 / 60, "5 samples exactly spanning the range"},
      {"increase(c[1m])", 60, 40, "no extrapolation needed"},
      {"increase(c[1m])", 70, 40, "30 over 45 s, extrapolated 5 s back and 10 s forward"},
      {"rate(c[1m])", 70, 30.0 / 45, "same slope"},
      {"increase(c[2m])", 120, 80, "whole series, 9 samples"},
      {"increase(c[1m])", 130, 40, "first value far above zero: zero point does not limit"},
      {"increase(late[1m])", 60, 35, "start limited by zero crossing: 30 * 52.5 / 45"},
      {"increase(reset[1m])", 60, 35, "15 - 0 + 20 lost at the reset"},
      {"rate(reset[1m])", 60, 35.0 / 60, "reset-corrected rate"},
      {"increase(sparse[1m])", 60, 25, "40 s gap > 1.1 x 10 s: extend only half an interval"},
      {"increase(c[10s])", 60, kNaN, "one sample in range: no result"},
      {"irate(c[1m])", 60, 10.0 / 15, "last two samples"},
      {"irate(reset[1m])", 60, 10.0 / 15, "15 - 5 over 15 s"},
      {"irate(reset[1m])", 45, 5.0 / 15, "reset: last value over the interval"},
      {"idelta(g[1m])", 60, -40, "plain difference"},
      {"delta(g[1m])", 60, -100, "gauge: no reset handling"},
      {"delta(g[1m])", 50, -80, "-60 over 45 s extrapolated 10 s back, 5 s forward"},
      {"increase((c[1m]))", 70, 40, "parentheses around the range (found by promql_fuzz)"},
      {"rate(((c[1m] offset 10s)))", 80, 30.0 / 45, "nested parentheses keep the offset"},
  };
  for (const RateRow& r : rows) {
    double got = value_at(store, r.query, r.t_s);
    if (std::isnan(r.expected)) {
      EXPECT_TRUE(std::isnan(got)) << r.query << " @" << r.t_s << ": " << r.why;
    } else {
      EXPECT_NEAR(got, r.expected, 1e-9) << r.query << " @" << r.t_s << ": " << r.why;
    }
  }
}

TEST(PromqlRateTest, KernelEdgeCases) {
  double out = 0;
  std::vector<Sample> one = {{0, 1}};
  EXPECT_FALSE(extrapolated_rate(one, -60000, 0, true, true, out));
  std::vector<Sample> same_time = {{0, 1}, {0, 2}};
  EXPECT_FALSE(instant_rate(same_time, true, out));
  // A counter whose first value is negative is not clamped at zero.
  std::vector<Sample> neg = {{15000, -5}, {30000, 5}, {45000, 15}, {60000, 25}};
  ASSERT_TRUE(extrapolated_rate(neg, 0, 60000, true, false, out));
  EXPECT_NEAR(out, 30 * 60.0 / 45, 1e-9);
}

struct QuantileRow {
  double q;
  std::vector<Bucket> buckets;
  double expected;
  const char* why;
};

TEST(PromqlHistogramQuantileTest, BucketInterpolationMatchesPrometheus) {
  const std::vector<Bucket> h = {{0.1, 10}, {0.5, 20}, {1, 40}, {kInf, 40}};
  const QuantileRow rows[] = {
      {0.5, h, 0.5, "rank 20 ends bucket 0.5"},
      {0.75, h, 0.75, "rank 30: halfway through (0.5, 1]"},
      {0.25, h, 0.1, "rank 10 ends the lowest bucket"},
      {0.05, h, 0.02, "lowest bucket interpolates from 0"},
      {1, {{0.1, 10}, {1, 40}, {kInf, 50}}, 1, "rank in +Inf bucket: second-highest bound"},
      {0.5, {{0.1, 10}, {1, 40}}, kNaN, "no +Inf bucket"},
      {0.5, {{kInf, 10}}, kNaN, "fewer than two buckets"},
      {0.5, {{1, 0}, {kInf, 0}}, kNaN, "no observations"},
      {-0.1, h, -kInf, "q < 0"},
      {1.1, h, kInf, "q > 1"},
      {kNaN, h, kNaN, "q NaN"},
      {0.25, {{0.1, 10}, {0.5, 8}, {1, 40}, {kInf, 40}}, 0.1, "non-monotonic count raised"},
      {0.1, {{-1, 5}, {0, 10}, {kInf, 10}}, -1, "lowest bound <= 0 is returned as is"},
      {0.75, {{kInf, 40}, {1, 40}, {0.5, 20}, {0.1, 10}}, 0.75, "unsorted input"},
      {0.75,
       {{0.1, 10}, {0.5, 10}, {0.5, 10}, {1, 40}, {kInf, 40}},
       0.75,
       "equal bounds merge (counts add)"},
  };
  for (const QuantileRow& r : rows) {
    double got = bucket_quantile(r.q, r.buckets);
    if (std::isnan(r.expected)) {
      EXPECT_TRUE(std::isnan(got)) << r.why << ": got " << got;
    } else {
      EXPECT_DOUBLE_EQ(got, r.expected) << r.why;
    }
  }
}

TEST(PromqlHistogramQuantileTest, GroupsByLabelsWithoutLe) {
  SeriesStore store;
  auto bucket = [&](const char* tier, const char* le, double v) {
    Labels l{{"__name__", "u_bucket"}, {"tier", tier}, {"le", le}};
    ASSERT_TRUE(store.append(l, {0, v}).ok());
  };
  bucket("free", "5", 10);
  bucket("free", "10", 20);
  bucket("free", "+Inf", 20);
  bucket("pro", "5", 0);
  bucket("pro", "10", 10);
  bucket("pro", "+Inf", 10);
  bucket("pro", "bogus", 99);  // malformed le: skipped
  auto e = parse_promql("histogram_quantile(0.5, u_bucket)");
  ASSERT_TRUE(e.ok());
  auto v = evaluate(**e, store, 1000);
  ASSERT_TRUE(v.ok()) << v.error();
  ASSERT_EQ(v->vector.size(), 2u);
  EXPECT_EQ(v->vector[0].labels.to_string(), "{tier=\"free\"}");
  EXPECT_DOUBLE_EQ(v->vector[0].value, 5);
  EXPECT_EQ(v->vector[1].labels.to_string(), "{tier=\"pro\"}");
  EXPECT_DOUBLE_EQ(v->vector[1].value, 7.5);
}

struct ElementRow {
  const char* query;
  double expected;
};

TEST(PromqlFunctionsTest, ElementFunctionsAndScalars) {
  SeriesStore store;
  ASSERT_TRUE(store.append(Labels{{"__name__", "x"}}, {0, -2.5}).ok());
  const ElementRow rows[] = {
      {"abs(x)", 2.5},
      {"ceil(x)", -2},
      {"floor(x)", -3},
      {"round(x)", -2},
      {"round(x, 2)", -2},
      {"clamp_min(x, 0)", 0},
      {"clamp_max(x, -3)", -3},
      {"clamp(x, -1, 1)", -1},
      {"scalar(x)", -2.5},
      {"time()", 10},
      {"vector(3)", 3},
      {"sqrt(abs(x) * 10)", 5},
      {"exp(x - x)", 1},
      {"ln(abs(x) / 2.5)", 0},
      {"log2(abs(x) * 0 + 8)", 3},
      {"log10(abs(x) * 40)", 2},
      {"last_over_time(x[1m])", -2.5},
      {"count_over_time(x[1m])", 1},
  };
  for (const ElementRow& r : rows) {
    EXPECT_DOUBLE_EQ(value_at(store, r.query, 10), r.expected) << r.query;
  }
  EXPECT_TRUE(std::isnan(value_at(store, "clamp(x, 1, -1)", 10)));  // empty: max < min
  EXPECT_TRUE(std::isnan(value_at(store, "scalar(nothing)", 10)));
  EXPECT_TRUE(std::isnan(value_at(store, "clamp_min(x, NaN)", 10)));  // Go's math.Max: NaN wins
}

TEST(PromqlFunctionsTest, OverTimeAggregates) {
  SeriesStore store;
  add_series(store, Labels{{"__name__", "g"}}, 10, {4, 8, 1, 3});
  EXPECT_DOUBLE_EQ(value_at(store, "avg_over_time(g[1m])", 30), 4);
  EXPECT_DOUBLE_EQ(value_at(store, "sum_over_time(g[1m])", 30), 16);
  EXPECT_DOUBLE_EQ(value_at(store, "min_over_time(g[1m])", 30), 1);
  EXPECT_DOUBLE_EQ(value_at(store, "max_over_time(g[1m])", 30), 8);
  EXPECT_DOUBLE_EQ(value_at(store, "count_over_time(g[20s])", 30), 3);  // [10,30] inclusive
}

TEST(PromqlFunctionsTest, AbsentTakesLabelsFromEqualityMatchers) {
  SeriesStore store;
  auto e = parse_promql("absent(nothing{job=\"a\", env=~\"p.*\", x=\"1\", x=\"2\"})");
  ASSERT_TRUE(e.ok()) << e.error();
  auto v = evaluate(**e, store, 0);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->vector.size(), 1u);
  EXPECT_EQ(v->vector[0].labels.to_string(), "{job=\"a\"}");
  EXPECT_EQ(v->vector[0].value, 1);
  ASSERT_TRUE(store.append(Labels{{"__name__", "some"}}, {0, 1}).ok());
  EXPECT_TRUE(std::isnan(value_at(store, "absent(some)", 1)));
}

}  // namespace
}  // namespace limitscope::metrics
