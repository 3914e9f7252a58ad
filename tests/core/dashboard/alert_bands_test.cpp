// Verifies that a chart's alert bands go on the lines the alert's labels select (the firing
// tier's 429 line, a key's quota line), not over the whole plot: a pro-tier alert marks the
// pro line only, a free-tier one the free line; a "gw-<tier>" rule counts as its tier; an
// alert about a key matches its line by name in any of the key's spellings (raw, 12 or 32 hex
// digits); an alert on nothing drawn is a marker of its own, and a rule with no tier, model or
// key stays a band of the whole chart.

#include <gtest/gtest.h>

#include "core/common/sha256.h"
#include "core/dashboard/alert_view.h"
#include "core/metrics/alert_engine.h"
#include "core/metrics/rule_file.h"
#include "core/sources/simulation_recorder.h"

namespace limitscope {
namespace {

using metrics::Labels;

TEST(AlertBands, AnAlertSelectsTheLinesItsLabelsName) {
  const Labels free_line{{"__name__", "limitscope_tier_rejected_per_second"}, {"tier", "free"}};
  const Labels stream_line{{"__name__", "limitscope_tier_rejected_per_second"},
                           {"tier", "gw-free"}};
  EXPECT_TRUE(alert_selects_line(Labels{{"alertname", "A"}, {"tier", "free"}, {"model", "gpt-4.1"}},
                                 free_line));
  EXPECT_TRUE(alert_selects_line(Labels{{"tier", "free"}}, stream_line))
      << "gw-free is the free tier's rule";
  EXPECT_FALSE(alert_selects_line(Labels{{"tier", "pro"}, {"model", "gpt-4.1"}}, free_line));
  EXPECT_FALSE(alert_selects_line(Labels{{"alertname", "A"}, {"severity", "warning"}}, free_line))
      << "shares no tier, model or key: the rule as a whole, not this line";

  const std::string hash = sha256_hex("sk-acme");
  const Labels redis_key{
      {"api_key", hash.substr(0, 32)}, {"tier", "gw-free"}, {"model", "gpt-4.1"}};
  const Labels metrics_key{{"api_key", hash.substr(0, 12)}, {"model", "gpt-4.1"}};
  const Labels raw_key{{"api_key", "sk-acme"}, {"tier", "free"}, {"model", "gpt-4.1"}};
  const Labels burn_alert{{"api_key_hash", hash.substr(0, 12)}, {"model", "gpt-4.1"}};
  EXPECT_TRUE(alert_selects_line(burn_alert, redis_key));
  EXPECT_TRUE(alert_selects_line(burn_alert, metrics_key));
  EXPECT_TRUE(alert_selects_line(burn_alert, raw_key)) << "the simulation's raw key, by its hash";
  EXPECT_FALSE(alert_selects_line(Labels{{"api_key_hash", sha256_hex("sk-other").substr(0, 12)}},
                                  redis_key));
  EXPECT_FALSE(
      alert_selects_line(Labels{{"api_key_hash", hash.substr(0, 12)}, {"model", "o3"}}, redis_key));
}

class RejectionBands : public ::testing::Test {
 protected:
  // 429 counters and per-tier rates: free refused 20/s from t = 60 s, pro 0.1/s throughout.
  void SetUp() override {
    for (std::int64_t t = 0; t <= 180'000; t += 5'000) {
      const double free_rate = t >= 60'000 ? 20 : 0;
      free_total_ += free_rate * 5;
      pro_total_ += 0.1 * 5;
      store_.append(
          {{"__name__", "gateway_rate_limit_hits_total"}, {"tier", "free"}, {"model", "gpt-4.1"}},
          {t, free_total_});
      store_.append(
          {{"__name__", "gateway_rate_limit_hits_total"}, {"tier", "pro"}, {"model", "gpt-4.1"}},
          {t, pro_total_});
      store_.append(
          {{"__name__", std::string(dashboard_series::kTierRejectedRate)}, {"tier", "free"}},
          {t, free_rate});
      store_.append(
          {{"__name__", std::string(dashboard_series::kTierRejectedRate)}, {"tier", "pro"}},
          {t, 0.1});
    }
  }

  std::vector<ChartData> charts_for(std::string_view rules) {
    auto file = metrics::parse_rule_file(rules, "rules.yml");
    EXPECT_TRUE(file.ok()) << file.error();
    metrics::AlertEngine engine(store_, file->groups);
    for (std::int64_t t = 0; t <= 180'000; t += 15'000) engine.evaluate_all(t);
    std::vector<ChartData> charts{rejection_chart(store_, ChartView{0, 180'000, 400, 8, {}})};
    bind_chart_rules(charts, *engine.snapshot());
    return charts;
  }

  metrics::SeriesStore store_;
  double free_total_ = 0, pro_total_ = 0;
};

TEST_F(RejectionBands, TheFiringTiersLineCarriesTheBandNotThePlot) {
  const auto charts = charts_for(R"(groups:
  - name: g
    interval: 15s
    rules:
      - alert: Many429s
        expr: rate(gateway_rate_limit_hits_total[1m]) > 0.5
        for: 30s
)");
  const ChartData& c = charts.front();
  ASSERT_EQ(c.rules, std::vector<std::string>{"Many429s"});
  ASSERT_FALSE(c.bands.empty());
  bool pending = false, firing = false;
  for (const AlertBand& b : c.bands) {
    EXPECT_EQ(b.line, "free") << "a band off the free tier's line: " << b.about;
    EXPECT_NE(b.about.find("tier=\"free\""), std::string::npos) << b.about;
    EXPECT_GE(b.start_ms, 60'000);
    pending = pending || !b.firing;
    firing = firing || (b.firing && b.open && b.end_ms == 180'000);
  }
  EXPECT_TRUE(pending);
  EXPECT_TRUE(firing) << "the firing stretch runs on to the last evaluation";
  EXPECT_EQ(c.threshold_labels, std::vector<std::string>{"0.5/s"});
}

TEST_F(RejectionBands, AnAlertOnNoDrawnLineIsAMarkerAndARuleWithoutLabelsShadesTheChart) {
  const auto charts = charts_for(R"(groups:
  - name: g
    interval: 15s
    rules:
      - alert: ModelHot
        expr: sum by (model) (rate(gateway_rate_limit_hits_total[1m])) > 5
      - alert: TierGone
        expr: sum by (tier) (rate(gateway_rate_limit_hits_total{tier="free"}[1m])) > 5
      - alert: Any429s
        expr: sum(rate(gateway_rate_limit_hits_total[1m])) > 0.5
)");
  const ChartData& c = charts.front();
  bool tier_on_line = false, whole = false, marker = false;
  for (const AlertBand& b : c.bands) {
    if (b.rule == "TierGone") tier_on_line = tier_on_line || b.line == "free";
    if (b.rule == "ModelHot") {
      // The 429 lines are per tier: a model's alert selects none of them.
      EXPECT_TRUE(b.line.empty());
      marker = marker || b.about == "model=\"gpt-4.1\"";
    }
    if (b.rule == "Any429s") {
      whole = whole || (b.line.empty() && b.about.empty());
      EXPECT_TRUE(b.line.empty()) << "a rule without labels is on no one line";
    }
  }
  EXPECT_TRUE(marker);
  EXPECT_TRUE(tier_on_line);
  EXPECT_TRUE(whole);
}

}  // namespace
}  // namespace limitscope
