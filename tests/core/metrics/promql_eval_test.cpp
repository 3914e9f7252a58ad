// Verifies PromQL evaluation: selectors, lookback and staleness, offset, aggregations with
// by/without, vector matching with on/ignoring, comparisons with and without bool, set
// operators, label-set errors and range evaluation.
#include <gtest/gtest.h>

#include <cmath>

#include "core/metrics/promql.h"

namespace limitscope::metrics {
namespace {

class PromqlEvalTest : public ::testing::Test {
 protected:
  void add(Labels l, std::int64_t t_s, double v) {
    ASSERT_TRUE(store_.append(l, {t_s * 1000, v}).ok());
  }

  // "labels => value" lines of the sorted result, or "scalar => v", or "error: ...".
  std::vector<std::string> query(const std::string& q, double t_s) {
    auto e = parse_promql(q);
    if (!e) return {"parse error: " + e.error()};
    auto v = evaluate(**e, store_, static_cast<std::int64_t>(t_s * 1000));
    if (!v) return {"error: " + v.error()};
    std::vector<std::string> out;
    auto fmt = [](double x) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", x);
      return std::string(buf);
    };
    if (v->kind == QueryValue::Kind::scalar) return {"scalar => " + fmt(v->scalar)};
    for (const InstantSample& s : v->vector) {
      out.push_back((s.labels.empty() ? "{}" : s.labels.to_string()) + " => " + fmt(s.value));
    }
    return out;
  }

  SeriesStore store_;
};

using Lines = std::vector<std::string>;

TEST_F(PromqlEvalTest, MatchersSelectAndEmptyValueMatchesAbsentLabel) {
  add({{"__name__", "up"}, {"job", "api"}}, 0, 1);
  add({{"__name__", "up"}, {"job", "api"}, {"env", "prod"}}, 0, 2);
  add({{"__name__", "up"}, {"job", "db"}}, 0, 3);
  EXPECT_EQ(query("up{env=\"\"}", 1), (Lines{"up{job=\"api\"} => 1", "up{job=\"db\"} => 3"}));
  EXPECT_EQ(query("up{env!=\"\"}", 1), (Lines{"up{env=\"prod\", job=\"api\"} => 2"}));
  EXPECT_EQ(query("up{env=~\"p.*\"}", 1), (Lines{"up{env=\"prod\", job=\"api\"} => 2"}));
  EXPECT_EQ(query("up{job=~\"a\"}", 1), Lines{});  // anchored
  EXPECT_EQ(query("up{job!~\"api|db\"}", 1), Lines{});
  EXPECT_EQ(query("{__name__=~\"u.\", job=\"db\"}", 1), (Lines{"up{job=\"db\"} => 3"}));
}

TEST_F(PromqlEvalTest, LookbackIsFiveMinutesInclusiveAndStaleMarkersEndSeries) {
  Labels l{{"__name__", "g"}};
  add(l, 0, 7);
  EXPECT_EQ(query("g", 300), Lines{"g => 7"});  // t - 5m is still in range (Prometheus 2.x)
  EXPECT_EQ(query("g", 300.001), Lines{});
  ASSERT_TRUE(store_.append_stale(l, 60000).ok());
  EXPECT_EQ(query("g", 59.999), Lines{"g => 7"});
  EXPECT_EQ(query("g", 60), Lines{});
  EXPECT_EQ(query("count_over_time(g[2m])", 90), Lines{"{} => 1"});  // stale marker not counted
  add(l, 120, 8);
  EXPECT_EQ(query("g", 130), Lines{"g => 8"});
  EXPECT_EQ(query("g offset 70s", 130), Lines{});  // lands on the stale period
  EXPECT_EQ(query("g offset 2m", 130), Lines{"g => 7"});
  EXPECT_EQ(query("g offset -1m", 0), Lines{});  // looks at t=60 s: stale
}

TEST_F(PromqlEvalTest, CustomLookbackDelta) {
  add({{"__name__", "g"}}, 0, 7);
  auto e = parse_promql("g");
  ASSERT_TRUE(e.ok());
  EvalOptions opts;
  opts.lookback_delta_ms = 30000;
  EXPECT_EQ(evaluate(**e, store_, 30000, opts)->vector.size(), 1u);
  EXPECT_EQ(evaluate(**e, store_, 30001, opts)->vector.size(), 0u);
}

TEST_F(PromqlEvalTest, AggregationsWithByAndWithout) {
  add({{"__name__", "r"}, {"tier", "free"}, {"model", "a"}}, 0, 1);
  add({{"__name__", "r"}, {"tier", "free"}, {"model", "b"}}, 0, 3);
  add({{"__name__", "r"}, {"tier", "pro"}, {"model", "a"}}, 0, 10);
  EXPECT_EQ(query("sum(r)", 1), Lines{"{} => 14"});
  EXPECT_EQ(query("sum by (tier) (r)", 1), (Lines{"{tier=\"free\"} => 4", "{tier=\"pro\"} => 10"}));
  EXPECT_EQ(query("avg(r) by (tier)", 1), (Lines{"{tier=\"free\"} => 2", "{tier=\"pro\"} => 10"}));
  EXPECT_EQ(query("max without (model) (r)", 1),
            (Lines{"{tier=\"free\"} => 3", "{tier=\"pro\"} => 10"}));
  EXPECT_EQ(query("min without (tier) (r)", 1),
            (Lines{"{model=\"a\"} => 1", "{model=\"b\"} => 3"}));
  EXPECT_EQ(query("count by (model) (r)", 1), (Lines{"{model=\"a\"} => 2", "{model=\"b\"} => 1"}));
  EXPECT_EQ(query("sum by (nothere) (r)", 1), Lines{"{} => 14"});
  EXPECT_EQ(query("sum(nothing)", 1), Lines{});
  EXPECT_EQ(query("count(r > 2)", 1), Lines{"{} => 2"});
}

TEST_F(PromqlEvalTest, VectorMatchingOnAndIgnoring) {
  add({{"__name__", "hits"}, {"tier", "free"}, {"instance", "1"}}, 0, 6);
  add({{"__name__", "hits"}, {"tier", "pro"}, {"instance", "1"}}, 0, 8);
  add({{"__name__", "reqs"}, {"tier", "free"}, {"instance", "2"}}, 0, 12);
  add({{"__name__", "reqs"}, {"tier", "pro"}, {"instance", "2"}}, 0, 16);
  add({{"__name__", "reqs2"}, {"tier", "free"}, {"instance", "1"}}, 0, 3);
  EXPECT_EQ(query("hits / reqs", 1), Lines{});  // instance differs
  EXPECT_EQ(query("hits / on(tier) reqs", 1),
            (Lines{"{tier=\"free\"} => 0.5", "{tier=\"pro\"} => 0.5"}));
  EXPECT_EQ(query("hits / ignoring(instance) reqs", 1),
            (Lines{"{tier=\"free\"} => 0.5", "{tier=\"pro\"} => 0.5"}));
  EXPECT_EQ(query("hits - reqs2", 1), (Lines{"{instance=\"1\", tier=\"free\"} => 3"}));
  // Comparisons filter and keep the left side's labels and value (metric name included).
  EXPECT_EQ(query("hits > reqs2", 1), (Lines{"hits{instance=\"1\", tier=\"free\"} => 6"}));
  EXPECT_EQ(query("hits < bool reqs2", 1), (Lines{"{instance=\"1\", tier=\"free\"} => 0"}));
}

TEST_F(PromqlEvalTest, ManyToManyAndDuplicateLabelSetsAreErrors) {
  add({{"__name__", "a"}, {"x", "1"}, {"y", "1"}}, 0, 1);
  add({{"__name__", "a"}, {"x", "1"}, {"y", "2"}}, 0, 2);
  add({{"__name__", "b"}, {"x", "1"}}, 0, 3);
  auto many = query("b + on(x) a", 1);
  ASSERT_EQ(many.size(), 1u);
  EXPECT_NE(many[0].find("many-to-many matching not allowed"), std::string::npos) << many[0];
  auto multi = query("a + on(x) b", 1);
  ASSERT_EQ(multi.size(), 1u);
  EXPECT_NE(multi[0].find("many-to-one matching must be explicit"), std::string::npos) << multi[0];
  add({{"__name__", "c"}, {"x", "1"}}, 0, 4);
  auto dup = query("abs({__name__=~\"b|c\"})", 1);
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_NE(dup[0].find("same labelset"), std::string::npos) << dup[0];
  // Comparisons keep names, so no clash there.
  EXPECT_EQ(query("{__name__=~\"b|c\"} > 0", 1).size(), 2u);
}

TEST_F(PromqlEvalTest, ScalarVectorArithmeticAndComparisons) {
  add({{"__name__", "q"}, {"k", "a"}}, 0, 0.5);
  add({{"__name__", "q"}, {"k", "b"}}, 0, 0.9);
  EXPECT_EQ(query("q * 100", 1), (Lines{"{k=\"a\"} => 50", "{k=\"b\"} => 90"}));
  EXPECT_EQ(query("1 - q", 1), (Lines{"{k=\"a\"} => 0.5", "{k=\"b\"} => 0.1"}));
  EXPECT_EQ(query("q > 0.8", 1), (Lines{"q{k=\"b\"} => 0.9"}));
  EXPECT_EQ(query("0.8 < q", 1), (Lines{"q{k=\"b\"} => 0.9"}));  // keeps the vector's value
  EXPECT_EQ(query("q > bool 0.8", 1), (Lines{"{k=\"a\"} => 0", "{k=\"b\"} => 1"}));
  EXPECT_EQ(query("-q", 1), (Lines{"{k=\"a\"} => -0.5", "{k=\"b\"} => -0.9"}));
  EXPECT_EQ(query("q ^ 2 == 0.25", 1), (Lines{"{k=\"a\"} => 0.25"}));
  EXPECT_EQ(query("5 % 3 + 2 ^ 2", 1), Lines{"scalar => 6"});
  EXPECT_EQ(query("1 / 0", 1), Lines{"scalar => inf"});
  EXPECT_EQ(query("2 > bool 1", 1), Lines{"scalar => 1"});
  EXPECT_EQ(query("5m / 60", 1), Lines{"scalar => 5"});
}

TEST_F(PromqlEvalTest, SetOperators) {
  add({{"__name__", "a"}, {"k", "1"}}, 0, 1);
  add({{"__name__", "a"}, {"k", "2"}}, 0, 2);
  add({{"__name__", "b"}, {"k", "2"}}, 0, 20);
  add({{"__name__", "b"}, {"k", "3"}}, 0, 30);
  EXPECT_EQ(query("a and b", 1), (Lines{"a{k=\"2\"} => 2"}));
  EXPECT_EQ(query("a unless b", 1), (Lines{"a{k=\"1\"} => 1"}));
  EXPECT_EQ(query("a or b", 1), (Lines{"a{k=\"1\"} => 1", "a{k=\"2\"} => 2", "b{k=\"3\"} => 30"}));
  EXPECT_EQ(query("a and on() b", 1), (Lines{"a{k=\"1\"} => 1", "a{k=\"2\"} => 2"}));
  EXPECT_EQ(query("a unless ignoring(k) b", 1), Lines{});
}

TEST_F(PromqlEvalTest, RangeResultIsRefusedAtTopLevel) {
  add({{"__name__", "a"}}, 0, 1);
  auto r = query("a[1m]", 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].find("range vector"), std::string::npos) << r[0];
}

TEST_F(PromqlEvalTest, SampleLimitStopsHugeSelections) {
  for (int i = 0; i < 100; ++i) add({{"__name__", "a"}}, i, i);
  auto e = parse_promql("count_over_time(a[10m])");
  ASSERT_TRUE(e.ok());
  EvalOptions opts;
  opts.max_samples = 50;
  auto v = evaluate(**e, store_, 100000, opts);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().find("more than 50 samples"), std::string::npos) << v.error();
}

TEST_F(PromqlEvalTest, RangeEvaluationStepsThroughTime) {
  for (int i = 0; i <= 8; ++i) add({{"__name__", "c"}, {"job", "x"}}, i * 15, i * 10.0);
  auto e = parse_promql("rate(c[1m])");
  ASSERT_TRUE(e.ok());
  auto r = evaluate_range(**e, store_, 0, 120000, 30000);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->size(), 1u);
  const RangeSeries& s = (*r)[0];
  EXPECT_EQ(s.labels.to_string(), "{job=\"x\"}");
  ASSERT_EQ(s.points.size(), 4u);  // t=0 has one sample only: no rate
  EXPECT_EQ(s.points[0].t_ms, 30000);
  // At 30 s the window starts before the first sample, whose value 0 is the counter's zero
  // point: no extrapolation back, 20 over 60 s. Later windows are fully covered: 40 / 60 s.
  EXPECT_NEAR(s.points[0].value, 20.0 / 60, 1e-12);
  for (std::size_t i = 1; i < s.points.size(); ++i) {
    EXPECT_NEAR(s.points[i].value, 40.0 / 60, 1e-12) << s.points[i].t_ms;
  }
  auto scalar = parse_promql("time()");
  auto rs = evaluate_range(**scalar, store_, 0, 2000, 1000);
  ASSERT_TRUE(rs.ok());
  ASSERT_EQ((*rs)[0].points.size(), 3u);
  EXPECT_EQ((*rs)[0].points[2].value, 2);
  EXPECT_FALSE(evaluate_range(**e, store_, 0, 1000, 0).ok());
  EXPECT_FALSE(evaluate_range(**e, store_, 1000, 0, 10).ok());
  EXPECT_FALSE(evaluate_range(**e, store_, 0, 1000000, 1).ok());
}

TEST_F(PromqlEvalTest, DefaultAlertRulesEvaluate) {
  for (int i = 0; i <= 40; ++i) {
    add({{"__name__", "gateway_rate_limit_hits_total"}, {"tier", "free"}, {"model", "m"}}, i * 15,
        i * 15.0);
  }
  EXPECT_EQ(query("rate(gateway_rate_limit_hits_total[5m]) > 0.5", 600),
            (Lines{"{model=\"m\", tier=\"free\"} => 1"}));
  for (const char* le : {"0", "5", "10", "50", "+Inf"}) {
    add({{"__name__", "gateway_token_bucket_usage_bucket"}, {"tier", "free"}, {"le", le}}, 0,
        std::string(le) == "0" ? 50 : 100);
  }
  EXPECT_EQ(query("histogram_quantile(0.99, gateway_token_bucket_usage_bucket) < 10", 1),
            (Lines{"{tier=\"free\"} => 4.9"}));
}

}  // namespace
}  // namespace limitscope::metrics
