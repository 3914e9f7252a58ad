// Verifies what open_live_source takes from a saved connection: /metrics basic and bearer auth
// sent as an Authorization header (401 without or with wrong credentials is an error naming
// the URL and the status, and no credential shows in errors, events or names), the scrape
// interval honoured on the injected clock by the /metrics and Prometheus sources, the
// Prometheus query_range step following the interval clamped to 1s..1m (read from the requests
// the server received), and intervals outside 100ms..10m refused before anything connects.
#include "core/sources/live_source_factory.h"

#include <gtest/gtest.h>

#include "core/limiter/rate.h"
#include "core/metrics/metric_names.h"
#include "core/sources/prometheus_live_source.h"
#include "support/canned_http_server.h"

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using test::CannedHttpServer;

constexpr Nanos kWall{1'800'000'000'000'000'000};

const char* const kExposition =
    "# TYPE gateway_rate_limit_hits_total counter\n"
    "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 3\n";

CannedHttpServer::Response ok_metrics() {
  return {200, "text/plain; version=0.0.4", kExposition, false, 0};
}

struct Credentials {
  std::string user, password, token;
};

// A live source on the server's /metrics, sending these credentials.
LiveSpec metrics_spec(const CannedHttpServer& server, const Credentials& c) {
  LiveSpec spec;
  spec.metrics_url = server.url();
  spec.metrics_auth = {c.token, c.user, c.password};
  return spec;
}

CannedHttpServer::Response empty_prometheus_answer() {
  return {
      200, "application/json",
      R"({"status":"success","data":{"resultType":"matrix","result":[],"groups":[],"alerts":[]}})",
      false, 0};
}

// A live source on the Prometheus server `server`, refreshed every `interval` (nullopt: the
// default).
LiveSpec prometheus_spec(const CannedHttpServer& server, std::optional<Nanos> interval) {
  LiveSpec spec;
  spec.prometheus_url = server.url("/");
  spec.prometheus_interval = interval;
  return spec;
}

std::unique_ptr<LiveSource> open_or_fail(const LiveSpec& spec, Clock& clock) {
  auto s = open_live_source(spec, clock);
  if (!s) ADD_FAILURE() << s.error();
  return s ? std::move(*s) : nullptr;
}

// Everything of the source an operator can see: its name, error, state and event log.
std::string visible(const LiveSource& s) {
  std::string out = s.name() + "\n" + s.last_error() + "\n" + s.connection() + "\n";
  for (const auto& e : s.events()) out += e.text + "\n";
  return out;
}

struct AuthRow {
  const char* name;
  std::string required;  // the Authorization header the server wants
  Credentials right;
  Credentials wrong;
};

class MetricsAuth : public ::testing::TestWithParam<AuthRow> {};

TEST_P(MetricsAuth, SentWhenGivenAndA401IsAClearError) {
  const AuthRow& row = GetParam();
  CannedHttpServer server;
  server.respond(ok_metrics());
  server.require_authorization(row.required);
  ManualClock clock(Nanos{0}, kWall);

  const std::vector<std::string> secrets = {row.right.password, row.right.token, row.wrong.password,
                                            row.wrong.token,
                                            row.required.substr(row.required.find(' ') + 1)};
  const auto no_secret_in = [&](const std::string& text) {
    for (const std::string& secret : secrets) {
      if (!secret.empty()) {
        EXPECT_EQ(text.find(secret), std::string::npos) << "'" << secret << "' shown in: " << text;
      }
    }
  };

  struct Attempt {
    const char* what;
    Credentials credentials;
    const char* reason;
  };
  for (const Attempt& a : {Attempt{"none", {}, "no credentials sent"},
                           Attempt{"wrong", row.wrong, "credentials refused"}}) {
    SCOPED_TRACE(a.what);
    auto source = open_or_fail(metrics_spec(server, a.credentials), clock);
    ASSERT_NE(source, nullptr);
    EXPECT_EQ(source->advance(Nanos{0}), 1);
    const std::string error = source->last_error();
    EXPECT_NE(error.find(server.url()), std::string::npos) << error;
    EXPECT_NE(error.find("HTTP 401"), std::string::npos) << error;
    EXPECT_NE(error.find(a.reason), std::string::npos) << error;
    EXPECT_NE(source->connection(), "connected");
    no_secret_in(visible(*source));
  }

  auto source = open_or_fail(metrics_spec(server, row.right), clock);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->advance(Nanos{0}), 1);
  EXPECT_EQ(source->last_error(), "");
  EXPECT_EQ(source->connection(), "connected");
  EXPECT_NE(server.last_request().find("Authorization: " + row.required), std::string::npos)
      << server.last_request();
  auto m = metrics::LabelMatcher::make("__name__", metrics::MatchOp::equal,
                                       std::string(metrics::names::kGatewayRateLimitHits));
  const auto found = source->store().select(std::span(&*m, 1), 0, INT64_MAX);
  ASSERT_EQ(found.size(), 1u) << "the scraped sample is recorded";
  EXPECT_DOUBLE_EQ(found[0].samples.back().value, 3.0);
  no_secret_in(visible(*source));
}

INSTANTIATE_TEST_SUITE_P(
    BasicAndBearer, MetricsAuth,
    ::testing::Values(AuthRow{"basic",
                              "Basic c2NyYXBlcjpzM2NyM3QtcHc=",  // scraper:s3cr3t-pw
                              {"scraper", "s3cr3t-pw", ""},
                              {"scraper", "n0t-the-pw", ""}},
                      AuthRow{"bearer",
                              "Bearer t0ken-for-metrics",
                              {"", "", "t0ken-for-metrics"},
                              {"", "", "wr0ng-t0ken"}}),
    [](const auto& row) { return std::string(row.param.name); });

TEST(MetricsAuth, ACredentialEchoedInAnErrorBodyIsRedacted) {
  CannedHttpServer server;
  server.respond({403, "text/plain", "token wr0ng-t0ken is not allowed here\n", false, 0});
  ManualClock clock(Nanos{0}, kWall);
  LiveSpec spec;
  spec.metrics_url = server.url();
  spec.metrics_auth.bearer_token = "wr0ng-t0ken";
  auto source = open_or_fail(spec, clock);
  ASSERT_NE(source, nullptr);
  source->advance(Nanos{0});
  EXPECT_NE(source->last_error().find("HTTP 403 (credentials refused): token *** is not allowed"),
            std::string::npos)
      << source->last_error();
  EXPECT_EQ(visible(*source).find("wr0ng-t0ken"), std::string::npos) << visible(*source);
}

// Advances the clock and the source by `step` until `total` has passed.
// @return the refreshes that ran, one entry per step (1 ran, 0 not)
std::string run(LiveSource& s, ManualClock& clock, Nanos step, Nanos total) {
  std::string out;
  for (Nanos t{0}; t < total; t += step) {
    clock.advance(step);
    out += s.advance(step) == 1 ? '1' : '0';
  }
  return out;
}

TEST(LiveInterval, MetricsScrapesAtTheSavedInterval) {
  CannedHttpServer server;
  server.respond(ok_metrics());
  ManualClock clock(Nanos{0}, kWall);
  LiveSpec spec = metrics_spec(server, {});
  spec.metrics_interval = seconds(5);
  auto source = open_or_fail(spec, clock);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->advance(Nanos{0}), 1) << "the first advance scrapes at once";
  ASSERT_EQ(source->connection(), "connected") << source->last_error();
  EXPECT_EQ(run(*source, clock, seconds(1), seconds(10)), "0000100001");
  EXPECT_EQ(server.requests(), 3);
}

TEST(LiveInterval, MetricsDefaultsToOneSecond) {
  CannedHttpServer server;
  server.respond(ok_metrics());
  ManualClock clock(Nanos{0}, kWall);
  auto source = open_or_fail(metrics_spec(server, {}), clock);
  ASSERT_NE(source, nullptr);
  source->advance(Nanos{0});
  EXPECT_EQ(run(*source, clock, milliseconds(500), seconds(2)), "0101");
}

TEST(LiveInterval, PrometheusRefreshesAtTheSavedInterval) {
  CannedHttpServer server;
  server.respond(empty_prometheus_answer());
  ManualClock clock(Nanos{0}, kWall);
  auto source = open_or_fail(prometheus_spec(server, seconds(30)), clock);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->advance(Nanos{0}), 1);
  ASSERT_EQ(source->connection(), "connected") << source->last_error();
  EXPECT_EQ(run(*source, clock, seconds(10), minutes(1)), "001001");
}

// One query parameter's value ("step", "start", "end") in a request line, or "" when absent.
std::string query_param(const std::string& request_line, const std::string& name) {
  const std::size_t q = request_line.find('?');
  if (q == std::string::npos) return {};
  const std::size_t stop = request_line.find(' ', q);
  const std::string query =
      request_line.substr(q + 1, stop == std::string::npos ? std::string::npos : stop - q - 1);
  for (std::size_t at = 0; at <= query.size();) {
    const std::size_t amp = std::min(query.find('&', at), query.size());
    const std::string pair = query.substr(at, amp - at);
    if (pair.starts_with(name + "=")) return pair.substr(name.size() + 1);
    at = amp + 1;
  }
  return {};
}

// The query_range request lines among `lines`.
std::vector<std::string> range_queries(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    if (l.find("/api/v1/query_range?") != std::string::npos) out.push_back(l);
  }
  return out;
}

TEST(LiveInterval, PrometheusStepFollowsTheIntervalWithinOneSecondAndOneMinute) {
  // The clocks stand 7.3 s past a whole minute, so the range end (now rounded down to whole
  // steps) shows the grid each step makes; the start is end minus the whole steps within the
  // 15-minute backfill.
  struct Row {
    std::optional<Nanos> interval;
    const char* step;   // the step= the server receives, seconds
    const char* start;  // end - 15 min
    const char* end;
  };
  const Row rows[] = {
      {milliseconds(100), "1.000", "1799999107.000", "1800000007.000"},  // not 0.100
      {milliseconds(999), "1.000", "1799999107.000", "1800000007.000"},
      {seconds(1), "1.000", "1799999107.000", "1800000007.000"},
      {milliseconds(2500), "2.500", "1799999105.000", "1800000005.000"},
      {seconds(59), "59.000", "1799999081.000", "1799999966.000"},  // 15 whole steps back
      {minutes(1), "60.000", "1799999100.000", "1800000000.000"},
      {minutes(10), "60.000", "1799999100.000", "1800000000.000"},  // not 600.000
      {std::nullopt, "5.000", "1799999105.000", "1800000005.000"},  // the default interval, 5s
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.interval ? format_duration(*r.interval) : std::string("default"));
    CannedHttpServer server;
    server.respond(empty_prometheus_answer());
    ManualClock clock(Nanos{0}, kWall);
    clock.advance(milliseconds(7300));
    auto source = open_or_fail(prometheus_spec(server, r.interval), clock);
    ASSERT_NE(source, nullptr);
    ASSERT_EQ(source->advance(Nanos{0}), 1);
    ASSERT_EQ(source->connection(), "connected") << source->last_error();
    const auto queries = range_queries(server.request_lines());
    ASSERT_EQ(queries.size(), prometheus_panels("1m").size()) << "one range query per panel";
    for (const std::string& q : queries) {
      EXPECT_EQ(query_param(q, "step"), r.step) << q;
      EXPECT_EQ(query_param(q, "start"), r.start) << q;
      EXPECT_EQ(query_param(q, "end"), r.end) << q;
    }
  }
}

TEST(LiveInterval, PrometheusRefreshesFasterThanItsOneSecondStep) {
  // Only the step is clamped: a 100ms interval still refreshes (rules and alerts) every 100ms,
  // and asks for a range again once a whole new 1 s step has passed.
  CannedHttpServer server;
  server.respond(empty_prometheus_answer());
  ManualClock clock(Nanos{0}, kWall);
  clock.advance(milliseconds(7300));
  auto source = open_or_fail(prometheus_spec(server, milliseconds(100)), clock);
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(source->advance(Nanos{0}), 1);
  const std::size_t first = range_queries(server.request_lines()).size();
  // 7.4 s .. 7.9 s: refreshes with no new step; 8.0 s: the step ending at 8 s.
  EXPECT_EQ(run(*source, clock, milliseconds(100), milliseconds(600)), "111111");
  EXPECT_EQ(range_queries(server.request_lines()).size(), first) << "no whole new step yet";
  EXPECT_EQ(run(*source, clock, milliseconds(100), milliseconds(100)), "1");
  const auto queries = range_queries(server.request_lines());
  ASSERT_EQ(queries.size(), 2 * first);
  EXPECT_EQ(query_param(queries.back(), "step"), "1.000") << queries.back();
  EXPECT_EQ(query_param(queries.back(), "start"), "1800000008.000") << queries.back();
  EXPECT_EQ(query_param(queries.back(), "end"), "1800000008.000") << queries.back();
}

TEST(LiveInterval, OutOfBoundsIsRefusedBeforeConnecting) {
  CannedHttpServer server;
  server.respond(ok_metrics());
  ManualClock clock(Nanos{0}, kWall);
  struct Row {
    bool prometheus;
    Nanos interval;
    const char* expected;
  };
  for (const Row& r :
       {Row{false, milliseconds(50), "--metrics scrape_interval 50ms: expected 100ms to 10m"},
        Row{false, minutes(11), "--metrics scrape_interval 11m: expected 100ms to 10m"},
        Row{true, milliseconds(99), "--prometheus scrape_interval 99ms: expected 100ms to 10m"},
        Row{true, minutes(20), "--prometheus scrape_interval 20m: expected 100ms to 10m"}}) {
    LiveSpec spec;
    if (r.prometheus) {
      spec.prometheus_url = server.url("/");
      spec.prometheus_interval = r.interval;
    } else {
      spec.metrics_url = server.url();
      spec.metrics_interval = r.interval;
    }
    auto source = open_live_source(spec, clock);
    ASSERT_FALSE(source) << r.expected;
    EXPECT_EQ(source.error(), r.expected);
  }
  for (const Nanos edge : {Nanos(milliseconds(100)), Nanos(minutes(10))}) {
    LiveSpec spec;
    spec.metrics_url = server.url();
    spec.metrics_interval = edge;
    EXPECT_TRUE(open_live_source(spec, clock)) << format_duration(edge) << " is inside the bounds";
  }
  EXPECT_EQ(server.requests(), 0) << "nothing connects while opening";
}

}  // namespace
}  // namespace limitscope
