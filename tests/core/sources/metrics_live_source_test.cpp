// Verifies MetricsLiveSource over a real loopback HTTP exchange (canned /metrics): rates per
// tier and model from two scrapes, a counter reset, foreign 429 counters, the default rule
// going pending on scraped data, and faults (HTTP 500, a truncated exposition, garbage, a
// silent server, a server gone) logged with their reason while the history is kept, with
// retries paced by a growing backoff on the injected clock.
#include "core/sources/metrics_live_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/metrics/metric_names.h"
#include "core/sources/simulation_recorder.h"
#include "support/canned_http_server.h"
#include "support/gateway_series.h"
#include "support/series_lookup.h"

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::CannedHttpServer;
using test::latest;

std::string exposition(double hits, double allowed, double denied, double burn) {
  return test::gateway_requests_exposition(hits, allowed, denied) +
         "# TYPE gateway_quota_burn_ratio gauge\n"
         "gateway_quota_burn_ratio{api_key_hash=\"ab12\",model=\"gpt-4.1\"} " +
         std::to_string(burn) + "\n";
}

CannedHttpServer::Response ok(std::string body) {
  return {200, "text/plain; version=0.0.4", std::move(body), false, 0};
}

MetricsLiveOptions options_for(const CannedHttpServer& server) {
  MetricsLiveOptions o;
  o.url = *http::parse_http_url(server.url());
  o.fetch.connect_timeout = milliseconds(300);
  o.fetch.read_timeout = milliseconds(300);
  o.fetch.retries = 0;
  o.backoff = {seconds(1), seconds(8), 2.0, 0.0};  // no jitter: exact delays
  return o;
}

// One scrape interval of the source and the clock together.
void tick(MetricsLiveSource& s, ManualClock& clock, Nanos d) {
  clock.advance(d);
  s.advance(d);
}

std::vector<std::string> event_texts(const LiveSource& s) {
  std::vector<std::string> out;
  for (const auto& e : s.events()) out.push_back(e.text);
  return out;
}

TEST(MetricsLiveSource, RatesFromTwoScrapesAndACounterReset) {
  CannedHttpServer server;
  server.respond(ok(exposition(10, 90, 10, 0.5)));
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  MetricsLiveSource source(options_for(server), clock);
  EXPECT_EQ(source.advance(Nanos{0}), 1) << "the first advance scrapes at once";
  ASSERT_TRUE(source.connected()) << source.last_error();

  server.respond(ok(exposition(15, 100, 15, 0.6)));
  tick(source, clock, seconds(1));
  const auto& store = source.store();
  EXPECT_DOUBLE_EQ(
      latest(store, live_series::kRejectedRate, {{"tier", "free"}, {"model", "gpt-4.1"}}), 5.0);
  EXPECT_DOUBLE_EQ(
      latest(store, live_series::kAdmittedRate, {{"tier", "free"}, {"model", "gpt-4.1"}}), 10.0);
  EXPECT_DOUBLE_EQ(latest(store, dashboard_series::kTierRejectedRate, {{"tier", "free"}}), 5.0);
  EXPECT_DOUBLE_EQ(latest(store, dashboard_series::kRejectedRatio, {}), 5.0 / 15.0);
  EXPECT_DOUBLE_EQ(latest(store, dashboard_series::kKeyQuotaBurn, {{"api_key", "ab12"}}), 0.6);
  EXPECT_DOUBLE_EQ(latest(store, metrics::names::kGatewayRateLimitHits, {{"tier", "free"}}), 15.0)
      << "raw samples kept";

  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  const DashboardSnapshot snap = source.snapshot(view);
  EXPECT_EQ(snap.connection, "connected");
  EXPECT_EQ(snap.source, "metrics: " + server.url());
  ASSERT_EQ(snap.keys.size(), 1u);
  EXPECT_EQ(snap.keys[0].tier, "free");
  EXPECT_DOUBLE_EQ(snap.keys[0].requests_per_s, 15.0);
  EXPECT_DOUBLE_EQ(snap.keys[0].rejected_per_s, 5.0);
  EXPECT_DOUBLE_EQ(snap.keys[0].quota_burn, 0.6);
  bool charted = false;
  for (const auto& c : snap.charts) {
    for (const auto& l : c.lines)
      charted = charted || (c.kind == ChartKind::rejections && l.name == "free");
  }
  EXPECT_TRUE(charted) << "the 429 chart has the free tier's line";

  // The gateway restarted: its counters start over from zero. The new value is the increase.
  server.respond(ok(exposition(3, 20, 3, 0.6)));
  tick(source, clock, seconds(1));
  EXPECT_EQ(source.counter_resets(), 3u);  // hits and both request counters
  EXPECT_DOUBLE_EQ(latest(store, live_series::kRejectedRate, {{"tier", "free"}}), 3.0);
  EXPECT_DOUBLE_EQ(source.rejected_total(), 8.0);
  bool logged = false;
  for (const auto& t : event_texts(source))
    logged = logged || t.find("counter reset") != std::string::npos;
  EXPECT_TRUE(logged);
}

// A counter of one key that starts over is logged with the key's name, as the table shows it.
TEST(MetricsLiveSource, AShadowConfigsRefusalsAreDrawnBesideItsTiersLine) {
  // The gateway's shadow counter (issue 19) for rule gw-free, whose tier is "free".
  const auto body = [](double hits, double shadow_rejected) {
    return test::gateway_requests_exposition(hits) +
           "# TYPE limitscope_shadow_decisions_total counter\n"
           "limitscope_shadow_decisions_total{rule=\"gw-free\",decision=\"allowed\"} 1000\n"
           "limitscope_shadow_decisions_total{rule=\"gw-free\",decision=\"rejected\"} " +
           std::to_string(shadow_rejected) + "\n";
  };
  CannedHttpServer server;
  server.respond(ok(body(10, 40)));
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  MetricsLiveSource source(options_for(server), clock);
  source.advance(Nanos{0});
  server.respond(ok(body(12, 70)));
  tick(source, clock, seconds(2));
  EXPECT_DOUBLE_EQ(
      latest(source.store(), dashboard_series::kTierShadowRejectedRate, {{"tier", "gw-free"}}),
      15.0);

  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 60'000;
  const ChartData c = rejection_chart(source.store(), view);
  const auto shadow = std::find_if(c.lines.begin(), c.lines.end(), [](const ChartLine& l) {
    return l.name == "free: would refuse (shadow)";
  });
  ASSERT_NE(shadow, c.lines.end());
  EXPECT_EQ(shadow->shadow_of, "free") << "beside the tier's 429 line";
  ASSERT_FALSE(shadow->points.empty());
  EXPECT_DOUBLE_EQ(shadow->points.back().y, 15.0);
}

TEST(MetricsLiveSource, ACountersResetNamesItsKey) {
  const auto body = [](int requests) {
    return "# TYPE limitscope_key_info gauge\n"
           "limitscope_key_info{api_key_hash=\"ab12cd34ef56\",name=\"acme-prod\",tier=\"free\"} 1\n"
           "# TYPE limitscope_requests_total counter\n"
           "limitscope_requests_total{api_key_hash=\"ab12cd34ef56\",decision=\"allowed\",model="
           "\"gpt-4.1\",tier=\"free\"} " +
           std::to_string(requests) + "\n";
  };
  CannedHttpServer server;
  server.respond(ok(body(50)));
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  MetricsLiveSource source(options_for(server), clock);
  source.advance(Nanos{0});
  ASSERT_TRUE(source.connected()) << source.last_error();
  server.respond(ok(body(60)));
  tick(source, clock, seconds(1));
  ASSERT_NE(source.session().names().find("ab12cd34ef56"), nullptr)
      << "limitscope_key_info was not joined";
  server.respond(ok(body(4)));
  tick(source, clock, seconds(1));
  ASSERT_EQ(source.counter_resets(), 1u);
  std::string logged;
  for (const auto& t : event_texts(source)) {
    if (t.find("counter reset") != std::string::npos) logged = t;
  }
  EXPECT_NE(logged.find("(acme-prod)"), std::string::npos) << logged;
}

TEST(MetricsLiveSource, ForeignCountersOf429sAreRead) {
  struct Row {
    const char* body;
    const char* tier;
  };
  const Row rows[] = {
      {"nginx_ingress_controller_requests{ingress=\"api\",status=\"429\"} %g\n"
       "nginx_ingress_controller_requests{ingress=\"api\",status=\"200\"} 1000\n",
       "api"},
      {"# TYPE envoy_cluster_ratelimit_over_limit counter\n"
       "envoy_cluster_ratelimit_over_limit{envoy_cluster_name=\"llm\"} %g\n",
       "llm"},
      {"http_requests_total{code=\"429\",handler=\"/v1/chat\"} %g\n", "http_requests_total"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.body);
    CannedHttpServer server;
    char body[512];
    std::snprintf(body, sizeof body, row.body, 4.0);
    server.respond(ok(body));
    ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
    MetricsLiveSource source(options_for(server), clock);
    source.advance(Nanos{0});
    std::snprintf(body, sizeof body, row.body, 10.0);
    server.respond(ok(body));
    tick(source, clock, seconds(2));
    ASSERT_TRUE(source.connected()) << source.last_error();
    EXPECT_DOUBLE_EQ(
        latest(source.store(), dashboard_series::kTierRejectedRate, {{"tier", row.tier}}), 3.0);
    EXPECT_DOUBLE_EQ(
        latest(source.store(), metrics::names::kGatewayRateLimitHits, {{"tier", row.tier}}), 6.0)
        << "recorded as the gateway counter the default rule reads";
  }
}

TEST(MetricsLiveSource, DefaultRuleGoesPendingOnScrapedData) {
  CannedHttpServer server;
  ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
  server.respond(ok(exposition(0, 0, 0, 0.1)));
  MetricsLiveSource source(options_for(server), clock);
  source.advance(Nanos{0});
  // 2 rejections per second for two minutes: rate(...[5m]) > 0.5, pending (for: 10m).
  for (int i = 1; i <= 120; ++i) {
    server.respond(ok(exposition(2.0 * i, 10.0 * i, 2.0 * i, 0.1)));
    tick(source, clock, seconds(1));
  }
  const DashboardSnapshot snap = source.snapshot(ChartView{});
  bool pending = false;
  for (const auto& a : snap.alerts) {
    pending = pending || (a.rule == "HighRateLimitRejection" && a.state == AlertState::pending &&
                          a.origin.empty());
  }
  EXPECT_TRUE(pending) << "the local rule evaluates the scraped counter";
}

TEST(MetricsLiveSource, FaultsAreLoggedAndTheHistoryKept) {
  struct Fault {
    const char* what;
    CannedHttpServer::Response response;
    const char* reason;  // in the event text
  };
  const Fault faults[] = {
      {"HTTP 500", {500, "text/plain", "upstream exploded", false, 0}, "HTTP 500"},
      {"truncated exposition",
       {200, "text/plain; version=0.0.4", "gateway_rate_limit_hits_total{tier=\"fr", false, 0},
       "scrape refused"},
      {"body cut short",
       {200, "text/plain; version=0.0.4", "gateway_rate_limit_hits_total 1\n", false, 4096},
       ""},
      {"garbage",
       {200, "text/plain; version=0.0.4", "this is not an exposition\n", false, 0},
       "line 1"},
      {"silent server", {200, "", "", true, 0}, ""},
  };
  for (const Fault& f : faults) {
    SCOPED_TRACE(f.what);
    CannedHttpServer server;
    server.respond(ok(exposition(1, 9, 1, 0.2)));
    ManualClock clock(Nanos{0}, Nanos{1'800'000'000'000'000'000});
    MetricsLiveSource source(options_for(server), clock);
    source.advance(Nanos{0});
    server.respond(ok(exposition(2, 18, 2, 0.2)));
    tick(source, clock, seconds(1));
    ASSERT_TRUE(source.connected());
    // Values only: a failed scrape marks the source's series stale (they have no data from
    // then on), which adds a staleness marker per series and no value.
    const auto values = [&] {
      std::size_t n = 0;
      for (const auto& series : source.store().select({}, std::numeric_limits<std::int64_t>::min(),
                                                      std::numeric_limits<std::int64_t>::max())) {
        for (const auto& smp : series.samples) n += metrics::is_stale_marker(smp.value) ? 0 : 1;
      }
      return n;
    };
    const std::size_t kept = values();

    server.respond(f.response);
    tick(source, clock, seconds(1));
    EXPECT_FALSE(source.connected());
    EXPECT_EQ(values(), kept) << "nothing of a bad scrape is recorded, nothing lost";
    const DashboardSnapshot snap = source.snapshot(ChartView{});
    EXPECT_EQ(snap.connection, "reconnecting");
    EXPECT_FALSE(snap.last_error.empty());
    ASSERT_FALSE(snap.events.empty());
    EXPECT_NE(snap.events.back().text.find("scrape failed"), std::string::npos)
        << snap.events.back().text;
    EXPECT_NE(snap.events.back().text.find(f.reason), std::string::npos) << snap.events.back().text;

    // Backoff: 1 s, then 2 s. Within it, advance() does not scrape.
    EXPECT_EQ(source.advance(milliseconds(500)), 0);
    EXPECT_EQ(source.advance(milliseconds(500)), 1);  // 1 s: retried, fails again
    EXPECT_EQ(source.advance(seconds(1)), 0);
    server.respond(ok(exposition(4, 36, 4, 0.2)));
    clock.advance(seconds(3));
    EXPECT_EQ(source.advance(seconds(1)), 1);
    EXPECT_TRUE(source.connected()) << source.last_error();
    EXPECT_NE(event_texts(source).back().find("reconnected to"), std::string::npos);
    EXPECT_GT(source.store().sample_count(), kept);
  }
}

TEST(MetricsLiveSource, ServerGoneIsAnErrorNotACrash) {
  std::string url;
  {
    CannedHttpServer gone;
    url = gone.url();
  }
  MetricsLiveOptions o;
  o.url = *http::parse_http_url(url);
  o.fetch.connect_timeout = milliseconds(300);
  o.fetch.retries = 0;
  ManualClock clock;
  MetricsLiveSource source(o, clock);
  EXPECT_EQ(source.advance(Nanos{0}), 1);
  EXPECT_FALSE(source.connected());
  EXPECT_EQ(source.snapshot(ChartView{}).connection, "reconnecting");
  ASSERT_EQ(source.events().size(), 1u);
  EXPECT_NE(source.events().back().text.find("scrape failed"), std::string::npos);
  EXPECT_EQ(source.store().sample_count(), 0u);
}

}  // namespace
}  // namespace limitscope
