// Verifies that the charts' threshold lines are the numbers of the rules in force: a --rules
// file comparing with 3 draws a 3/s line on the 429 chart and no 0.5/s one, a rule with no
// simple comparison with a number draws none, and a number in another unit (tokens) stays
// off a chart of fractions.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/metrics/promql.h"
#include "core/sources/session_state.h"
#include "support/snapshot_charts.h"

namespace limitscope {
namespace {

DashboardSnapshot filled(const std::string& rules_text) {
  SessionOptions o;
  o.rules_source = "test.yml";
  o.rules_text = rules_text;
  auto made = SessionState::create(o);
  if (!made.ok()) throw std::runtime_error(made.error());
  (void)(*made)->evaluate(0);
  DashboardSnapshot s;
  (*made)->fill(s, ChartView{0, 1000, 100, 8, {}}, 1000);
  return s;
}

using test::chart;

TEST(ChartThresholds, ARulesFileWithThreshold3Draws3PerSecondAndNot0Point5) {
  // The quota rule is written number first: `0.95 <= x` is `x >= 0.95`.
  const DashboardSnapshot s = filled(R"(groups:
  - name: tighter
    interval: 30s
    rules:
      - alert: Budget
        expr: 0.95 <= max by (api_key_hash) (gateway_quota_burn_ratio)
      - alert: Rejections
        expr: rate(gateway_rate_limit_hits_total[5m]) > 3
)");
  const ChartData& rejections = chart(s, ChartKind::rejections);
  EXPECT_EQ(rejections.thresholds, std::vector<double>{3.0});
  EXPECT_EQ(rejections.threshold_labels, std::vector<std::string>{"3/s"});
  const ChartData& quota = chart(s, ChartKind::quota_burn);
  EXPECT_EQ(std::count(quota.thresholds.begin(), quota.thresholds.end(), 0.8), 0)
      << "the default rule's 80%";
  EXPECT_EQ(std::count(quota.thresholds.begin(), quota.thresholds.end(), 0.95), 1);
  EXPECT_EQ(std::count(quota.threshold_labels.begin(), quota.threshold_labels.end(), "95%"), 1);
  EXPECT_EQ(std::count(quota.thresholds.begin(), quota.thresholds.end(), 1.0), 1)
      << "the quota itself stays";
}

TEST(ChartThresholds, NoSimpleComparisonNoLine) {
  const DashboardSnapshot s = filled(R"(groups:
  - name: ops
    rules:
      - alert: MoreRejectedThanAdmitted
        expr: rate(gateway_rate_limit_hits_total[5m]) > rate(gateway_requests_total[5m])
      - alert: AnyRejection
        expr: rate(gateway_rate_limit_hits_total[5m]) > bool 0
      - alert: RejectionRatio
        expr: limitscope_rejected_ratio > 0.05
      - alert: BucketsDry
        expr: histogram_quantile(0.99, sum by (le) (rate(gateway_token_bucket_usage_bucket[5m]))) < 10
)");
  const ChartData& rejections = chart(s, ChartKind::rejections);
  EXPECT_EQ(rejections.rules.size(), 3u) << "bound to the chart, with no line of their own";
  EXPECT_TRUE(rejections.thresholds.empty());
  EXPECT_TRUE(rejections.threshold_labels.empty());
  EXPECT_TRUE(chart(s, ChartKind::bucket_levels).thresholds.empty())
      << "10 tokens is not a fraction of capacity";
}

TEST(ChartThresholds, TheDefaultRulesDrawTheirNumbers) {
  const DashboardSnapshot s = filled("");
  EXPECT_EQ(chart(s, ChartKind::rejections).threshold_labels, std::vector<std::string>{"0.5/s"});
  const ChartData& quota = chart(s, ChartKind::quota_burn);
  EXPECT_EQ(std::count(quota.threshold_labels.begin(), quota.threshold_labels.end(), "80%"), 1);
  const ChartData& levels = chart(s, ChartKind::bucket_levels);
  EXPECT_EQ(levels.thresholds, std::vector<double>{0.1}) << "LimiterKeyNearlyEmpty's < 0.1";
}

TEST(ChartThresholds, ConstantComparisonReadsEitherSide) {
  const auto parsed = [](std::string_view q) {
    auto e = metrics::parse_promql(q);
    if (!e.ok()) throw std::runtime_error(e.error());
    return *e;
  };
  const auto a = metrics::constant_comparison(*parsed("(rate(x[5m]) > (-2))"));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->op, metrics::BinaryOp::gt);
  EXPECT_EQ(a->constant, -2);
  const auto b = metrics::constant_comparison(*parsed("0.1 > x"));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->op, metrics::BinaryOp::lt) << "0.1 > x is x < 0.1";
  EXPECT_EQ(b->constant, 0.1);
  EXPECT_FALSE(metrics::constant_comparison(*parsed("x == 0")).has_value());
  EXPECT_FALSE(metrics::constant_comparison(*parsed("x > scalar(y)")).has_value());
  EXPECT_FALSE(metrics::constant_comparison(*parsed("x > 1 and y")).has_value());
}

}  // namespace
}  // namespace limitscope
