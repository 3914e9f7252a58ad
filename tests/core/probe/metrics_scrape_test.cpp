// Verifies scraping /metrics over a real loopback HTTP exchange: a good exposition parsed and
// appended; HTTP 500, a body cut short, garbage lines, a silent server and an oversized body
// all refused with a clear error and nothing appended; credentials sent as configured; and the
// derived 429 rates (with a counter reset) and quota burn from two scrapes.
#include "core/probe/metrics_scrape.h"

#include <gtest/gtest.h>

#include "support/canned_http_server.h"
#include "support/ports.h"
#include "support/refusals.h"

namespace limitscope::probe {
namespace {

using http::FetchOptions;
using http::HttpUrl;
using http::parse_http_url;
using test::CannedHttpServer;

const char* kFirst =
    "# TYPE gateway_rate_limit_hits_total counter\n"
    "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 10\n"
    "gateway_rate_limit_hits_total{tier=\"pro\",model=\"gpt-4.1\"} 100\n"
    "# TYPE gateway_quota_burn_ratio gauge\n"
    "gateway_quota_burn_ratio{api_key_hash=\"abc\",model=\"gpt-4.1\"} 0.5\n";

const char* kSecond =
    "# TYPE gateway_rate_limit_hits_total counter\n"
    "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 30\n"
    "gateway_rate_limit_hits_total{tier=\"pro\",model=\"gpt-4.1\"} 4\n"
    "gateway_rate_limit_hits_total{tier=\"free\",model=\"deepseek-v3.2\"} 6\n"
    "# TYPE gateway_quota_burn_ratio gauge\n"
    "gateway_quota_burn_ratio{api_key_hash=\"abc\",model=\"gpt-4.1\"} 0.9\n"
    "gateway_quota_burn_ratio{api_key_hash=\"def\",model=\"gpt-4.1\"} 0.2\n";

HttpUrl url_of(const CannedHttpServer& s) {
  auto u = parse_http_url(s.url());
  EXPECT_TRUE(u.ok()) << u.error();
  return *u;
}

FetchOptions fast() {
  FetchOptions o;
  o.connect_timeout = std::chrono::milliseconds(500);
  o.read_timeout = std::chrono::milliseconds(300);
  return o;
}

TEST(MetricsScrape, GoodExpositionIsParsedAndAppended) {
  CannedHttpServer server;
  server.respond({200, "text/plain; version=0.0.4", kFirst, false, 0});
  auto s = scrape_metrics(url_of(server), fast(), 1000);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->samples.size(), 3u);
  metrics::SeriesStore store;
  EXPECT_EQ(append_scrape(store, *s), 0u);
  EXPECT_EQ(store.series_count(), 3u);
  EXPECT_EQ(store.sample_count(), 3u);
  EXPECT_NE(server.last_request().find("Accept: application/openmetrics-text"), std::string::npos);
}

struct BadRow {
  const char* what;
  CannedHttpServer::Response response;
  const char* error;
};

TEST(MetricsScrape, BadResponsesAreRefusedWithAClearError) {
  const BadRow rows[] = {
      {"http 500",
       {500, "text/plain", "backend exploded\nstack...", false, 0},
       "HTTP 500: backend exploded"},
      {"cut short",
       {200, "text/plain", "gateway_rate_limit_hits_total{tier=\"free\"", false, 5000},
       "GET http://127.0.0.1:"},
      {"garbage",
       {200, "text/plain", "gateway_up 1\nthis is not an exposition\n", false, 0},
       "scrape refused, 1 parse error(s): line 2"},
      {"truncated line",
       {200, "text/plain", "gateway_up 1\ngateway_rate_limit_hits_total{tier=\"fr", false, 0},
       "line 2"},
      {"openmetrics without # EOF",
       {200, "application/openmetrics-text; version=1.0.0", "gateway_up 1\n", false, 0},
       "EOF"},
      {"silent", {200, "text/plain", "", true, 0}, "GET http://127.0.0.1:"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.what);
    CannedHttpServer server;
    server.respond(row.response);
    metrics::SeriesStore store;
    test::expect_refused(scrape_metrics(url_of(server), fast(), 1000), row.error);
  }
}

TEST(MetricsScrape, OversizedBodiesAndDeadServers) {
  CannedHttpServer server;
  server.respond({200, "text/plain", std::string(100000, '#') + "\n", false, 0});
  FetchOptions small = fast();
  small.max_body_bytes = 1000;
  auto big = scrape_metrics(url_of(server), small, 1);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("larger than 1000 bytes"), std::string::npos) << big.error();

  auto dead =
      parse_http_url("http://127.0.0.1:" + std::to_string(test::free_loopback_port()) + "/metrics");
  ASSERT_TRUE(dead.ok());
  auto refused = scrape_metrics(*dead, fast(), 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("Connection"), std::string::npos) << refused.error();
}

TEST(MetricsScrape, CredentialsAreSent) {
  CannedHttpServer server;
  server.respond({200, "text/plain", kFirst, false, 0});
  FetchOptions bearer = fast();
  bearer.bearer_token = "t0ken";
  ASSERT_TRUE(scrape_metrics(url_of(server), bearer, 1).ok());
  EXPECT_NE(server.last_request().find("Authorization: Bearer t0ken"), std::string::npos);
  FetchOptions basic = fast();
  basic.basic_user = "prom";
  basic.basic_password = "pw";
  ASSERT_TRUE(scrape_metrics(url_of(server), basic, 1).ok());
  EXPECT_NE(server.last_request().find("Authorization: Basic cHJvbTpwdw=="), std::string::npos);
}

TEST(MetricsScrape, DerivedFiguresFromTwoScrapes) {
  auto a = parse_scrape(kFirst, "text/plain", 10'000, "test");
  auto b = parse_scrape(kSecond, "text/plain", 20'000, "test");
  ASSERT_TRUE(a.ok() && b.ok());
  auto d = derive_figures(*a, *b);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_DOUBLE_EQ(d->interval_s, 10);
  // free/gpt: +20; pro/gpt: reset, 4 counts as the increase; free/deepseek: new, +6.
  EXPECT_DOUBLE_EQ(d->rejected_per_s, 3.0);
  EXPECT_DOUBLE_EQ(d->rejected_per_s_by_tier.at("free"), 2.6);
  EXPECT_DOUBLE_EQ(d->rejected_per_s_by_tier.at("pro"), 0.4);
  EXPECT_DOUBLE_EQ(d->rejected_per_s_by_model.at("deepseek-v3.2"), 0.6);
  EXPECT_TRUE(d->counter_reset);
  EXPECT_DOUBLE_EQ(d->max_quota_burn, 0.9);
  EXPECT_NE(d->max_quota_burn_series.find("abc"), std::string::npos);
  EXPECT_FALSE(derive_figures(*b, *a).ok());
}

}  // namespace
}  // namespace limitscope::probe
