// Verifies that the embedded simulation source records gateway series, evaluates the default
// alert rules with Prometheus timing, and builds chart data and CSV exports from its store.

#include "core/sources/embedded_simulation_source.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/dashboard/chart_export.h"
#include "core/metrics/promql.h"

namespace limitscope {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<EmbeddedSimulationSource> make_source(const std::string& scenario) {
  EmbeddedSimulationOptions o;
  o.scenario = scenario;
  o.seed = 7;
  auto s = EmbeddedSimulationSource::create(default_policy(), o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
  return std::move(*s);
}

double instant(const EmbeddedSimulationSource& src, const std::string& query) {
  auto expr = metrics::parse_promql(query);
  EXPECT_TRUE(expr.ok()) << (expr.ok() ? "" : expr.error());
  auto v = metrics::evaluate(**expr, src.store(), src.now_ms());
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error());
  if (v->kind == metrics::QueryValue::Kind::scalar) return v->scalar;
  return v->vector.empty() ? 0 : v->vector.front().value;
}

TEST(EmbeddedSimulationSource, CountersAgreeWithTheSimulation) {
  auto src = make_source("steady");
  std::int64_t rejected = 0, admitted = 0;
  for (int i = 0; i < 120; ++i) {
    src->advance(1s);
  }
  // The status bar's rate counts the samples the recorder appended (the alert engine's
  // ALERTS series come on top in the store).
  const auto snap = src->snapshot(ChartView{});
  EXPECT_GT(snap.samples_per_s, 0);
  EXPECT_LE(snap.samples_per_s * 120.0, static_cast<double>(src->store().sample_count()) + 1e-6);
  // Every step's rejections were summed into gateway_rate_limit_hits_total.
  const double hits = instant(*src, "sum(gateway_rate_limit_hits_total)");
  const double allowed = instant(*src, "sum(limitscope_requests_total{decision=\"allowed\"})");
  // Recompute from the simulation totals the same run would give.
  EmbeddedSimulationOptions o;
  o.scenario = "steady";
  o.seed = 7;
  auto scenario = make_scenario("steady", o.scenario_length);
  SimulationOptions so;
  so.seed = 7;
  auto sim = Simulation::create(default_policy(), std::move(*scenario), so);
  ASSERT_TRUE(sim.ok());
  for (int i = 0; i < 120; ++i) {
    const StepSample s = (*sim)->step();
    rejected += s.rejected;
    admitted += s.admitted - s.degraded;
  }
  EXPECT_EQ(hits, static_cast<double>(rejected));
  EXPECT_EQ(allowed, static_cast<double>(admitted));
  EXPECT_GT(allowed, 0);
}

TEST(EmbeddedSimulationSource, RunawayClientFiresHighRateLimitRejectionAfterItsFor) {
  auto src = make_source("runaway");
  bool pending_seen = false;
  std::int64_t fired_at = 0, pending_since = 0;
  for (int i = 0; i < 40 * 60 && fired_at == 0; ++i) {
    src->advance(1s);
    if (i % 15 != 0) continue;
    for (const AlertRow& a : src->snapshot(ChartView{}).alerts) {
      if (a.rule != "HighRateLimitRejection") continue;
      if (a.state == AlertState::pending && !pending_seen) {
        pending_seen = true;
        pending_since = a.since_ms;
      }
      if (a.state == AlertState::firing) fired_at = a.since_ms;
    }
  }
  ASSERT_TRUE(pending_seen);
  ASSERT_GT(fired_at, 0) << "never fired";
  // `for: 10m` at a 15 s evaluation interval: firing exactly 10 minutes after pending began.
  EXPECT_EQ(fired_at - pending_since, 10 * 60 * 1000);
  // The firing band shades the chart from that moment.
  ChartView view;
  view.start_ms = src->start_ms();
  view.end_ms = src->now_ms();
  const auto snap = src->snapshot(view);
  bool band = false;
  for (const AlertInterval& iv : snap.alert_intervals) {
    if (iv.rule == "HighRateLimitRejection" && iv.firing) {
      band = true;
      EXPECT_EQ(iv.start_ms, fired_at);
    }
  }
  EXPECT_TRUE(band);
}

TEST(EmbeddedSimulationSource, ChartsPickTheLowestKeysAndDecimateToTheWidth) {
  auto src = make_source("mixed");
  src->advance(std::chrono::minutes(12));
  ChartView view;
  view.end_ms = src->now_ms();
  view.start_ms = view.end_ms - 5 * 60 * 1000;
  view.columns = 50;
  view.max_lines = 3;
  const auto snap = src->snapshot(view);
  ASSERT_EQ(snap.charts.size(), 4u);
  const ChartData& levels = snap.charts[0];
  ASSERT_EQ(levels.lines.size(), 3u);
  for (const ChartLine& l : levels.lines) {
    EXPECT_LE(l.points.size(), 4u * 50 + 2);
    EXPECT_GT(l.points.size(), 50u);  // 5 minutes of 1 s samples, decimated to 50 columns
  }
  // The chosen lines are the three series with the lowest level at the view's end.
  std::vector<std::pair<double, std::string>> latest;
  for (const auto& series : src->store().select(
           std::vector<metrics::LabelMatcher>{*metrics::LabelMatcher::make(
               "__name__", metrics::MatchOp::equal, std::string(dashboard_series::kKeyLevel))},
           view.end_ms, view.end_ms)) {
    latest.emplace_back(series.samples.back().value, series.labels.to_string());
  }
  std::sort(latest.begin(), latest.end());
  ASSERT_GE(latest.size(), 4u);
  ASSERT_LT(latest[2].first, latest[3].first) << "a tie would make the choice ambiguous";
  std::vector<std::string> expected{latest[0].second, latest[1].second, latest[2].second};
  std::vector<std::string> shown;
  for (const ChartLine& l : levels.lines) shown.push_back(l.series.to_string());
  std::sort(expected.begin(), expected.end());
  std::sort(shown.begin(), shown.end());
  EXPECT_EQ(shown, expected);
  // Selecting a key adds it, highlighted.
  view.selected_keys = {"enterprise-bank"};
  const auto sel = src->snapshot(view);
  bool highlighted = false;
  for (const ChartLine& l : sel.charts[0].lines)
    highlighted |= l.selected && l.api_key == "enterprise-bank";
  EXPECT_TRUE(highlighted);
}

// The simulation enforces the tier's token limit as the gateway does: the runaway's recent
// decisions name both limits, an llm_tokens 429 with the tokens it asked for as its cost.
TEST(EmbeddedSimulationSource, ARunawaysRefusalsNameBothLimits) {
  auto src = make_source("mixed");  // 20 minutes: free-student runs away from 11:00 for 4 minutes
  src->advance(std::chrono::minutes(11));
  ChartView view;
  view.selected_keys = {"free-student"};
  std::map<std::string, int> refusals;
  for (int second = 0; second < 60; ++second) {
    src->advance(std::chrono::seconds(1));
    view.end_ms = src->now_ms();
    view.start_ms = view.end_ms - 60'000;
    const auto snap = src->snapshot(view);
    for (const DecisionRow& d : snap.decisions.at("free-student")) {
      if (d.allowed) continue;
      ++refusals[d.limit];
      EXPECT_TRUE(d.limit == "requests" || d.limit == "llm_tokens") << d.limit;
      if (d.limit == "llm_tokens") {
        EXPECT_EQ(d.cost, static_cast<double>(d.llm_tokens))
            << "an llm_tokens 429's cost is its tokens";
        EXPECT_LT(d.remaining, d.cost);
      } else {
        EXPECT_EQ(d.cost, 2) << "gemini-2.5-flash's cost weight";
      }
      EXPECT_TRUE(d.retry_after_s.has_value());
    }
  }
  EXPECT_GT(refusals["requests"], 0);
  EXPECT_GT(refusals["llm_tokens"], 0) << "the simulation's token limit never refused";
}

TEST(EmbeddedSimulationSource, CsvExportHoldsTheStoreSamples) {
  auto src = make_source("burst");
  src->advance(std::chrono::minutes(3));
  ChartView view;
  view.end_ms = src->now_ms();
  view.start_ms = view.end_ms - 60 * 1000;
  view.columns = 20;  // decimated drawing; the export still holds every sample
  const auto snap = src->snapshot(view);
  std::ostringstream out;
  const std::size_t rows =
      write_chart_csv(out, src->store(), snap.charts, view.start_ms, view.end_ms);
  std::size_t expected = 0;
  for (const ChartData& c : snap.charts) {
    for (const ChartLine& l : c.lines) {
      for (const auto& s : src->store().select(
               std::vector<metrics::LabelMatcher>{*metrics::LabelMatcher::make(
                   "__name__", metrics::MatchOp::equal, std::string(l.series.metric_name()))},
               view.start_ms, view.end_ms)) {
        if (s.labels == l.series) expected += s.samples.size();
      }
    }
  }
  EXPECT_EQ(rows, expected);
  EXPECT_GT(rows, 60u);
  EXPECT_EQ(out.str().substr(0, 27), "chart,series,time_ms,value\n");
}

TEST(EmbeddedSimulationSource, RefusesUnknownScenarioAndBadRules) {
  EmbeddedSimulationOptions o;
  o.scenario = "nope";
  auto s = EmbeddedSimulationSource::create(default_policy(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("nope"), std::string::npos);
  o.scenario = "steady";
  o.rules_text = "groups:\n  - name: g\n    rules:\n      - alert: X\n        expr: rate(\n";
  o.rules_source = "bad.yml";
  s = EmbeddedSimulationSource::create(default_policy(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("bad.yml"), std::string::npos) << s.error();
}

TEST(QuotaProjection, ExtrapolatesARisingLine) {
  std::vector<metrics::Sample> s;
  for (int i = 0; i <= 60; ++i) s.push_back({i * 1000, 0.5 + 0.001 * i});  // +0.001/s
  auto t = project_crossing(s, 5 * 60 * 1000, 1.0);
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(static_cast<double>(*t), 500'000.0, 1.0);  // reaches 1.0 at t = 500 s
  std::vector<metrics::Sample> flat{{0, 0.5}, {1000, 0.5}};
  EXPECT_FALSE(project_crossing(flat, 60000, 1.0).has_value());
}

}  // namespace
}  // namespace limitscope
