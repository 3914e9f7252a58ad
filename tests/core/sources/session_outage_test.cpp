// Verifies what SessionState says during an outage: a source that stops answering keeps its
// history on the charts, each chart it feeds carries a "no data" band from then on, the alerts
// that read its series say "no data" (neither firing on frozen values nor resolving), and a
// gateway failing open (decision="degraded", circuit open) is counted as unprotected, with the
// unchecked admissions as a series on the 429 chart.

#include <gtest/gtest.h>

#include "core/metrics/metric_names.h"
#include "core/sources/session_state.h"
#include "core/sources/simulation_recorder.h"
#include "support/gateway_series.h"
#include "support/snapshot_charts.h"

namespace limitscope {
namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;  // ms since the epoch

ChartView window(std::int64_t end_ms) {
  ChartView v;
  v.start_ms = kT0;
  v.end_ms = end_ms;
  return v;
}

using test::chart;

TEST(SessionStateOutage, HistoryStaysBandAppearsAndAlertsSayNoData) {
  auto made = SessionState::create();
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& series = **made;
  const metrics::Labels level{{"__name__", std::string(dashboard_series::kKeyLevel)},
                              {"api_key", "014badae33b80a3786c4b116e54d1c66"},
                              {"tier", "gw-free"},
                              {"model", "gpt-4.1"}};
  // Two minutes of a nearly empty key, read every second: LimiterKeyNearlyEmpty (for: 1m) fires.
  series.writing_as("redis");
  std::int64_t t = kT0;
  for (; t < kT0 + 120'000; t += 1000) {
    ASSERT_TRUE(series.append(level, {t, 0.02}));
    (void)series.evaluate(t);
  }
  DashboardSnapshot before;
  series.fill(before, window(t), t);
  bool firing = false;
  for (const AlertRow& a : before.alerts)
    firing = firing || (a.rule == "LimiterKeyNearlyEmpty" && a.state == AlertState::firing);
  ASSERT_TRUE(firing) << "the test needs the alert firing before the outage";

  // Redis stops answering; three minutes pass with nothing read.
  const std::int64_t down_at = t;
  series.source_down("redis", down_at);
  series.source_down("redis", down_at + 5000);  // a repeat changes nothing
  for (; t < down_at + 180'000; t += 1000) (void)series.evaluate(t);
  DashboardSnapshot during;
  series.fill(during, window(t), t);

  const ChartData& levels = chart(during, ChartKind::bucket_levels);
  ASSERT_EQ(levels.lines.size(), 1u) << "the history left the chart";
  EXPECT_GE(levels.lines[0].points.size(), 2u);
  ASSERT_EQ(levels.no_data.size(), 1u);
  EXPECT_EQ(levels.no_data[0].source, "redis");
  EXPECT_EQ(levels.no_data[0].start_ms, down_at);
  EXPECT_TRUE(levels.no_data[0].open);
  EXPECT_TRUE(chart(during, ChartKind::quota_burn).no_data.empty())
      << "redis does not feed quota burn";

  bool no_data = false;
  for (const AlertRow& a : during.alerts) {
    if (a.rule != "LimiterKeyNearlyEmpty") continue;
    EXPECT_NE(a.state, AlertState::firing) << "fired on frozen values";
    EXPECT_NE(a.state, AlertState::resolved) << "resolved by silence";
    no_data = no_data || a.state == AlertState::no_data;
  }
  EXPECT_TRUE(no_data);
  ASSERT_EQ(during.sources.size(), 0u);  // SessionState alone: the source adds its status

  // Back: the band closes, new readings are drawn after the gap.
  series.source_up("redis", t);
  ASSERT_TRUE(series.append(level, {t, 0.9}));
  (void)series.evaluate(t);
  DashboardSnapshot after;
  series.fill(after, window(t), t);
  ASSERT_EQ(chart(after, ChartKind::bucket_levels).no_data.size(), 1u);
  EXPECT_FALSE(chart(after, ChartKind::bucket_levels).no_data[0].open);
  EXPECT_EQ(chart(after, ChartKind::bucket_levels).no_data[0].end_ms, t);
  EXPECT_EQ(series.outages("redis").size(), 1u);
}

TEST(SessionStateOutage, AGatewayFailingOpenIsUnprotectedAndCountedOnThe429Chart) {
  auto made = SessionState::create();
  ASSERT_TRUE(made.ok()) << made.error();
  SessionState& series = **made;
  series.writing_as("metrics");
  const metrics::Labels degraded = test::degraded_requests_labels();
  const metrics::Labels circuit = test::redis_circuit_labels();
  // Scrapes every second: closed and no degraded decisions, then open with 40 per second.
  double total = 0;
  std::int64_t t = kT0;
  const auto scrapes = [&](int n, double circuit_state, double per_scrape, bool with_counter) {
    for (int i = 0; i < n; ++i, t += 1000) {
      total += per_scrape;
      ASSERT_TRUE(series.append(circuit, {t, circuit_state}));
      if (with_counter) {
        ASSERT_TRUE(series.append(degraded, {t, total}));
      }
      series.refreshed(t);
    }
  };
  scrapes(5, 0, 0, false);
  DashboardSnapshot calm;
  series.fill(calm, window(t), t);
  EXPECT_FALSE(calm.protection.unprotected);

  const std::int64_t open_at = t;
  scrapes(10, 2, 40, true);
  DashboardSnapshot open;
  series.fill(open, window(t), t);
  EXPECT_TRUE(open.protection.unprotected);
  EXPECT_EQ(open.protection.since_ms, open_at);
  // The counter appeared with the first degraded decisions: all of them count (ten scrapes of 40).
  EXPECT_DOUBLE_EQ(open.protection.admitted_unchecked, 400);
  EXPECT_EQ(open.protection.circuit_state, 2);
  const ChartData& rejections = chart(open, ChartKind::rejections);
  bool unchecked_line = false;
  for (const ChartLine& l : rejections.lines) {
    if (l.name != "admitted unchecked (fail-open)") continue;
    unchecked_line = true;
    ASSERT_FALSE(l.points.empty());
    EXPECT_DOUBLE_EQ(l.points.back().y, 40);
  }
  EXPECT_TRUE(unchecked_line);

  // The circuit closes and no more degraded decisions: protected again, the interval kept.
  scrapes(2, 0, 0, true);
  DashboardSnapshot closed;
  series.fill(closed, window(t), t);
  EXPECT_FALSE(closed.protection.unprotected);
  ASSERT_EQ(closed.protection.intervals.size(), 1u);
  EXPECT_EQ(closed.protection.intervals[0].start_ms, open_at);
  ASSERT_TRUE(closed.protection.intervals[0].end_ms.has_value());
  EXPECT_DOUBLE_EQ(closed.protection.intervals[0].admitted_unchecked, 400);
}

}  // namespace
}  // namespace limitscope
