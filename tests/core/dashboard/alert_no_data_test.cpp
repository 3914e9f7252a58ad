// Verifies that "no data" is decided per alert instance, from the series its labels select:
// while Redis is down, HighRateLimitRejection for the tier a gateway's /metrics still reports
// keeps firing, and only the instance fed by Redis's decision streams reads "no data".

#include "core/dashboard/alert_no_data.h"

#include <gtest/gtest.h>

#include "core/common/clock.h"
#include "core/metrics/metric_names.h"
#include "core/sources/session_state.h"

namespace limitscope {
namespace {

constexpr std::string_view kHits = "gateway_rate_limit_hits_total";

std::int64_t now_ms(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall()).count();
}

// HighRateLimitRejection's row for one tier label, as the alerts panel would show it now.
AlertRow alert_of_tier(const SessionState& series, std::int64_t now, std::string_view tier) {
  DashboardSnapshot s;
  series.fill(s, ChartView{}, now);
  const std::string part = "tier=\"" + std::string(tier) + "\"";
  for (const AlertRow& a : s.alerts) {
    if (a.rule == "HighRateLimitRejection" && a.labels.find(part) != std::string::npos) return a;
  }
  throw std::logic_error("no alert for tier " + std::string(tier));
}

TEST(AlertNoData, OnlyTheInstanceFedByTheDownSourceSaysNoData) {
  auto made = SessionState::create();
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& series = **made;
  ManualClock clock;
  const metrics::Labels from_redis{{"__name__", std::string(kHits)}, {"tier", "gw-free"}};
  const metrics::Labels from_metrics{
      {"__name__", std::string(kHits)}, {"tier", "free"}, {"model", "gpt-4.1"}};
  // Both count 2 rejections a second, read every second: after the rule's 10m, both fire.
  double redis_count = 0;
  double metrics_count = 0;
  const auto second = [&](bool redis_answers) {
    clock.advance(std::chrono::seconds(1));
    const std::int64_t t = now_ms(clock);
    if (redis_answers) {
      series.writing_as("redis");
      ASSERT_TRUE(series.append(from_redis, {t, redis_count += 2}));
    }
    series.writing_as("metrics");
    ASSERT_TRUE(series.append(from_metrics, {t, metrics_count += 2}));
    (void)series.evaluate(t);
  };
  for (int i = 0; i < 12 * 60; ++i) second(true);
  const AlertRow free_before = alert_of_tier(series, now_ms(clock), "free");
  ASSERT_EQ(free_before.state, AlertState::firing)
      << "the test needs both firing before the outage";
  ASSERT_EQ(alert_of_tier(series, now_ms(clock), "gw-free").state, AlertState::firing);

  // Redis stops answering; /metrics keeps reporting the free tier for three minutes.
  const std::int64_t down_at = now_ms(clock);
  series.source_down("redis", down_at);
  for (int i = 0; i < 3 * 60; ++i) second(false);
  const AlertRow free_during = alert_of_tier(series, now_ms(clock), "free");
  const AlertRow gw_during = alert_of_tier(series, now_ms(clock), "gw-free");
  EXPECT_EQ(free_during.state, AlertState::firing)
      << "a tier /metrics still reports is not blinded by Redis";
  EXPECT_EQ(free_during.since_ms, free_before.since_ms);
  EXPECT_EQ(gw_during.state, AlertState::no_data) << "the tier only Redis fed";
  EXPECT_EQ(gw_during.since_ms, down_at);

  // /metrics goes down too: now the free tier's alert has no live source either.
  const std::int64_t metrics_down_at = now_ms(clock);
  series.source_down("metrics", metrics_down_at);
  clock.advance(std::chrono::seconds(1));
  const AlertRow free_blind = alert_of_tier(series, now_ms(clock), "free");
  EXPECT_EQ(free_blind.state, AlertState::no_data);
  EXPECT_EQ(free_blind.since_ms, metrics_down_at);
}

TEST(AlertNoData, BlindWhenEveryFeedingSeriesIsDownOrStale) {
  metrics::SeriesStore store;
  const metrics::Labels a{{"__name__", std::string(kHits)}, {"tier", "free"}, {"model", "m1"}};
  const metrics::Labels b{{"__name__", std::string(kHits)}, {"tier", "free"}, {"model", "m2"}};
  const metrics::Labels other{{"__name__", std::string(kHits)}, {"tier", "pro"}, {"model", "m1"}};
  for (const auto* l : {&a, &b, &other}) ASSERT_TRUE(store.append(*l, {1000, 1}).ok());
  const std::unordered_set<metrics::Labels, metrics::LabelsHash> redis_series{a};
  const std::unordered_set<metrics::Labels, metrics::LabelsHash> metrics_series{b, other};
  std::map<std::string, SourceFeed> feeds{{"redis", {&redis_series, 500}},
                                          {"metrics", {&metrics_series, std::nullopt}}};
  const std::vector<std::string> reads{std::string(kHits)};
  // `sum by (tier)`: the alert carries tier only and reads both models' series.
  const metrics::Labels by_tier{{"alertname", "X"}, {"severity", "warning"}, {"tier", "free"}};
  EXPECT_EQ(alert_blind_since(by_tier, reads, feeds, store, 2000), std::nullopt)
      << "m2 is fed live";
  // The live series goes stale (it vanished from the scrape): nothing live feeds the tier.
  ASSERT_TRUE(store.append_stale(b, 1500).ok());
  EXPECT_EQ(alert_blind_since(by_tier, reads, feeds, store, 2000),
            std::optional<std::int64_t>(500));
  // The pro tier is fed by /metrics alone, stale or not: no outage blinds it.
  const metrics::Labels pro{{"alertname", "X"}, {"tier", "pro"}};
  EXPECT_EQ(alert_blind_since(pro, reads, feeds, store, 2000), std::nullopt);
  // A rule reading another metric is not about these series.
  EXPECT_EQ(alert_blind_since(by_tier, {"gateway_quota_burn_ratio"}, feeds, store, 2000),
            std::nullopt);
  EXPECT_FALSE(alert_reads_series(by_tier, other));
  EXPECT_TRUE(alert_reads_series(by_tier, a));
}

}  // namespace
}  // namespace limitscope
