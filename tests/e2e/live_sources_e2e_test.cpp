// Verifies the dashboard's live sources against real processes: MetricsLiveSource scraping
// limitscope-gateway under loadgen counts exactly the 429s the load generator got and the
// gateway exported, and keeps its history with a clear event when the gateway is killed;
// PrometheusLiveSource against a real Prometheus (scraping the gateway, with the default rule
// file loaded) shows the same 429 count, the server's rules beside the local ones, the
// server's error document for a bad query, and an event when the server is gone.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/metrics/metric_names.h"
#include "core/sources/metrics_live_source.h"
#include "core/sources/prometheus_live_source.h"
#include "core/sources/simulation_recorder.h"
#include "e2e/e2e_policy.h"
#include "support/child_process.h"
#include "support/ports.h"
#include "support/process.h"
#include "support/prometheus_process.h"
#include "support/test_paths.h"

namespace limitscope::test {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The latest value of every series of `name`, summed.
double sum_latest(const metrics::SeriesStore& store, std::string_view name) {
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal, std::string(name));
  double total = 0;
  for (const auto& s : store.select(std::span(&*m, 1), 0, INT64_MAX)) {
    for (auto it = s.samples.rbegin(); it != s.samples.rend(); ++it) {
      if (!std::isnan(it->value)) {
        total += it->value;
        break;
      }
    }
  }
  return total;
}

bool has_event(const LiveSource& s, const std::string& text) {
  for (const auto& e : s.events()) {
    if (e.text.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(LiveSourcesE2E, MetricsSourceCountsTheGateways429s) {
  GatewayProcess gw = e2e_mock_gateway("e2e_live_policy.json");
  ASSERT_TRUE(gw.running());
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  MetricsLiveOptions o;
  o.url = *http::parse_http_url(gw.url() + "/metrics");
  o.fetch.retries = 0;
  MetricsLiveSource source(o, clock);
  source.advance(Nanos{0});
  ASSERT_TRUE(source.connected()) << source.last_error();

  auto load = run_cli("loadgen --target " + gw.url() +
                      " --scenario runaway --duration 2s --rate 120 --seed 5 --json");
  ASSERT_EQ(load.exit_code, 0) << load.err;
  const double limited = json::parse(load.out).at("status").value("429", 0);
  ASSERT_GT(limited, 0);

  clock.advance(seconds(2));
  EXPECT_EQ(source.advance(seconds(2)), 1);
  ASSERT_TRUE(source.connected()) << source.last_error();
  EXPECT_EQ(source.rejected_total(), limited)
      << "the dashboard's 429 count is the load generator's";
  EXPECT_EQ(sum_latest(source.store(), metrics::names::kGatewayRateLimitHits), limited)
      << "and the gateway's own counter";
  const double per_s = sum_latest(source.store(), dashboard_series::kTierRejectedRate);
  EXPECT_DOUBLE_EQ(per_s, limited / 2.0) << "429s per second over the 2 s between scrapes";

  const std::size_t kept = source.store().sample_count();
  gw.process().signal(SIGKILL);
  gw.process().wait();
  clock.advance(seconds(1));
  EXPECT_EQ(source.advance(seconds(1)), 1);
  EXPECT_FALSE(source.connected());
  EXPECT_TRUE(has_event(source, "scrape failed")) << source.last_error();
  EXPECT_GE(source.store().sample_count(), kept) << "history kept";
  EXPECT_EQ(source.snapshot(ChartView{}).connection, "reconnecting");
}

TEST(LiveSourcesE2E, PrometheusSourceAgainstARealServer) {
  GatewayProcess gw = e2e_mock_gateway("e2e_live_prom_policy.json");
  ASSERT_TRUE(gw.running());
  const double limited = e2e_runaway_load(gw.url(), "1s", 100, 3).at("status").value("429", 0);
  ASSERT_GT(limited, 0);

  const std::string rules = data_path("../../resources/alerts/default-rules.yml");
  PrometheusProcess prometheus = PrometheusProcess::start("live-prometheus", gw.port(), rules);
  auto& prom = prometheus.process;
  ASSERT_NE(prom, nullptr);
  const std::string& base = prometheus.base_url;

  PrometheusLiveOptions o;
  o.url = *http::parse_http_url(base);
  o.step = seconds(1);
  o.backoff.initial = milliseconds(1);  // retries paced by the scrape events, not the backoff
  o.backoff.max = milliseconds(1);
  PrometheusLiveSource source(o, SteadyClock::instance());
  // Wait for the event "a scrape with the final counters is queryable and the rules are
  // loaded": both are checked again after each scrape Prometheus makes.
  double seen = -1;
  bool server_rule = false;
  prometheus.recheck_on_scrapes([&] {
    source.advance(seconds(60));
    if (!source.connected()) return false;
    seen = sum_latest(source.store(), metrics::names::kGatewayRateLimitHits);
    server_rule = false;
    for (const auto& a : source.server_alerts())
      server_rule = server_rule || a.rule == "HighRateLimitRejection";
    return seen == limited && server_rule;
  });
  EXPECT_EQ(seen, limited) << source.last_error() << "\nprometheus: " << prom->stderr_text();
  EXPECT_TRUE(server_rule) << "the server's rules are listed";
  const DashboardSnapshot snap = source.snapshot(ChartView{});
  bool marked = false;
  for (const auto& a : snap.alerts)
    marked = marked || (a.rule == "QuotaBurnAnomaly" && a.origin == "prometheus");
  EXPECT_TRUE(marked);
  EXPECT_TRUE(has_event(source, "connected to " + base));

  // A query the server refuses: its error document reaches the event log.
  PrometheusLiveOptions bad = o;
  bad.rate_window = "5 minutes";
  PrometheusLiveSource refused(bad, SteadyClock::instance());
  refused.advance(Nanos{0});
  EXPECT_FALSE(refused.connected());
  EXPECT_TRUE(has_event(refused, "Prometheus error bad_data")) << refused.last_error();

  // The server goes away: an event, the history kept.
  const std::size_t kept = source.store().sample_count();
  prom.reset();
  source.advance(seconds(60));
  EXPECT_FALSE(source.connected());
  EXPECT_TRUE(has_event(source, "refresh failed")) << source.last_error();
  EXPECT_GE(source.store().sample_count(), kept);
}

}  // namespace
}  // namespace limitscope::test
