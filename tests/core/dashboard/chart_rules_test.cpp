// Verifies that charts are bound to the alert rules that watch them from the rules'
// expressions, not their names: a --rules file with renamed rules still shades the right
// charts, and a rule reading no chart's metric shades none.

#include <gtest/gtest.h>

#include "core/sources/session_state.h"

namespace limitscope {
namespace {

TEST(ChartRules, RenamedRulesStillBindToTheChartsTheyRead) {
  SessionOptions o;
  o.rules_source = "renamed.yml";
  o.rules_text = R"(groups:
  - name: ops
    rules:
      - alert: TooMany429s
        expr: sum by (tier) (rate(gateway_rate_limit_hits_total[5m])) > 0.5
        for: 10m
      - alert: TenantOverBudget
        expr: max by (api_key_hash) (gateway_quota_burn_ratio) > 0.8
      - alert: BucketsDry
        expr: histogram_quantile(0.99, sum by (le) (gateway_token_bucket_usage_bucket)) < 10
      - alert: Unrelated
        expr: up == 0
)";
  auto made = SessionState::create(o);
  ASSERT_TRUE(made.ok()) << made.error();
  (void)(*made)->evaluate(0);
  DashboardSnapshot s;
  ChartView v;
  v.end_ms = 1000;
  (*made)->fill(s, v, 1000);
  ASSERT_EQ(s.charts.size(), 4u);
  EXPECT_EQ(s.charts[0].rules, std::vector<std::string>{"BucketsDry"});
  EXPECT_TRUE(s.charts[1].rules.empty());
  EXPECT_EQ(s.charts[2].rules, std::vector<std::string>{"TooMany429s"});
  EXPECT_EQ(s.charts[3].rules, std::vector<std::string>{"TenantOverBudget"});
}

TEST(ChartRules, TheDefaultRulesBindAsBefore) {
  auto made = SessionState::create();
  ASSERT_TRUE(made.ok()) << made.error();
  (void)(*made)->evaluate(0);
  DashboardSnapshot s;
  (*made)->fill(s, ChartView{0, 1000, 100, 8, {}}, 1000);
  ASSERT_EQ(s.charts.size(), 4u);
  const auto has = [](const ChartData& c, const std::string& r) {
    return std::find(c.rules.begin(), c.rules.end(), r) != c.rules.end();
  };
  EXPECT_TRUE(has(s.charts[0], "TokenBucketExhausted"));
  EXPECT_TRUE(has(s.charts[0], "LimiterKeyNearlyEmpty"));
  EXPECT_TRUE(has(s.charts[1], "LimiterWindowFull"));
  EXPECT_TRUE(has(s.charts[2], "HighRateLimitRejection"));
  EXPECT_TRUE(has(s.charts[3], "QuotaBurnAnomaly"));
}

}  // namespace
}  // namespace limitscope
