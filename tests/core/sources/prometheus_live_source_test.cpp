// Verifies PrometheusLiveSource over a real loopback HTTP exchange (a canned API answer):
// range results become the dashboard's series, server-side alerts and inactive server rules
// appear beside the local ones marked "prometheus", the bearer token is sent and never
// shown, and an error document, malformed JSON, HTTP 500 or a silent server are logged with
// the reason while the history is kept. Also the RFC 3339 times of activeAt.
#include "core/sources/prometheus_live_source.h"

#include <gtest/gtest.h>

#include "core/sources/simulation_recorder.h"
#include "support/canned_http_server.h"

namespace limitscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using test::CannedHttpServer;

constexpr std::int64_t kWallS = 1'800'000'000;  // the clocks' wall time, seconds

// One document that answers every endpoint the source asks (query_range reads data.result,
// /api/v1/rules data.groups, /api/v1/alerts data.alerts): the canned server gives every
// request the same body.
std::string api_document(double value) {
  const std::string v = std::to_string(value);
  const std::string t0 = std::to_string(kWallS - 10), t1 = std::to_string(kWallS - 5);
  return R"J({"status":"success","data":{"resultType":"matrix","result":[)J"
         R"J({"metric":{"tier":"free","model":"gpt-4.1","api_key_hash":"ab12"},"values":[[)J" +
         t0 + R"J(,")J" + v + R"J("],[)J" + t1 + R"J(,")J" + v +
         R"J("]]}],)J"
         R"J("groups":[{"name":"gw","file":"rules.yml","interval":15,"rules":[)J"
         R"J({"name":"HighRateLimitRejection","type":"alerting","query":"rate(x[5m]) > 0.5","duration":600,)J"
         R"J("state":"firing","health":"ok","lastError":"","labels":{"severity":"warning"},"annotations":{},"alerts":[]},)J"
         R"J({"name":"QuotaBurnAnomaly","type":"alerting","query":"gateway_quota_burn_ratio > 0.8","duration":1800,)J"
         R"J("state":"inactive","health":"ok","labels":{"severity":"critical"},"alerts":[]},)J"
         R"J({"name":"job:rate","type":"recording","query":"sum(rate(x[1m]))","health":"ok"}]}],)J"
         R"J("alerts":[{"labels":{"alertname":"HighRateLimitRejection","severity":"warning","tier":"free"},)J"
         R"J("annotations":{"summary":"free tier is limited"},"state":"firing",)J"
         R"J("activeAt":"2027-01-15T08:00:00.250Z","value":"1.5e+00"}]}})J";
}

CannedHttpServer::Response json_answer(int status, std::string body) {
  return {status, "application/json", std::move(body), false, 0};
}

PrometheusLiveOptions options_for(const CannedHttpServer& server) {
  PrometheusLiveOptions o;
  o.url = *http::parse_http_url(server.url("/"));
  o.fetch.connect_timeout = milliseconds(300);
  o.fetch.read_timeout = milliseconds(300);
  o.fetch.retries = 0;
  o.fetch.bearer_token = "s3cr3t-token";
  o.backoff = {seconds(1), seconds(8), 2.0, 0.0};
  return o;
}

TEST(PrometheusLiveSource, SeriesAndServerAlertsBesideLocalOnes) {
  CannedHttpServer server;
  server.respond(json_answer(200, api_document(2.5)));
  ManualClock clock(Nanos{0}, Nanos{kWallS * 1'000'000'000});
  PrometheusLiveSource source(options_for(server), clock);
  EXPECT_EQ(source.advance(Nanos{0}), 1);
  ASSERT_TRUE(source.connected()) << source.last_error();
  EXPECT_NE(server.last_request().find("Authorization: Bearer s3cr3t-token"), std::string::npos);

  ChartView view;
  view.end_ms = source.now_ms();
  view.start_ms = view.end_ms - 15 * 60'000;
  const DashboardSnapshot snap = source.snapshot(view);
  EXPECT_EQ(snap.source, "prometheus: " + server.url("/").substr(0, server.url("/").size() - 1));
  EXPECT_EQ(snap.connection, "connected");
  bool tier_line = false, burn_line = false;
  for (const auto& c : snap.charts) {
    for (const auto& l : c.lines) {
      tier_line = tier_line ||
                  (c.kind == ChartKind::rejections && l.name == "free" && l.points.size() == 2);
      burn_line = burn_line || (c.kind == ChartKind::quota_burn && l.api_key == "ab12");
    }
  }
  EXPECT_TRUE(tier_line) << "range results fill the 429 chart";
  EXPECT_TRUE(burn_line) << "api_key_hash becomes the quota chart's key";
  ASSERT_EQ(snap.keys.size(), 1u);
  EXPECT_DOUBLE_EQ(snap.keys[0].rejected_per_s, 2.5);

  const AlertRow* firing = nullptr;
  const AlertRow* inactive = nullptr;
  for (const auto& a : snap.alerts) {
    if (a.origin != "prometheus") continue;
    if (a.rule == "HighRateLimitRejection") firing = &a;
    if (a.rule == "QuotaBurnAnomaly") inactive = &a;
  }
  ASSERT_NE(firing, nullptr);
  EXPECT_EQ(firing->state, AlertState::firing);
  EXPECT_EQ(firing->severity, "warning");
  EXPECT_EQ(firing->labels, "{tier=\"free\"}");
  EXPECT_EQ(firing->summary, "free tier is limited");
  EXPECT_DOUBLE_EQ(firing->value, 1.5);
  EXPECT_EQ(firing->since_ms, *parse_rfc3339_ms("2027-01-15T08:00:00.250Z"));
  ASSERT_NE(inactive, nullptr) << "inactive server rules are listed too";
  EXPECT_EQ(inactive->state, AlertState::inactive);

  for (const auto& e : source.events())
    EXPECT_EQ(e.text.find("s3cr3t"), std::string::npos) << e.text;
  EXPECT_EQ(snap.source.find("s3cr3t"), std::string::npos);
}

TEST(PrometheusLiveSource, LaterRefreshesReadOnlyNewSteps) {
  CannedHttpServer server;
  server.respond(json_answer(200, api_document(1)));
  ManualClock clock(Nanos{0}, Nanos{kWallS * 1'000'000'000});
  PrometheusLiveSource source(options_for(server), clock);
  source.advance(Nanos{0});
  const int first = server.requests();
  EXPECT_EQ(first, static_cast<int>(prometheus_panels("1m").size()) + 2);  // panels, rules, alerts
  clock.advance(seconds(5));
  source.advance(seconds(5));
  EXPECT_EQ(server.requests(), 2 * first);
  EXPECT_NE(server.last_request().find("/api/v1/alerts"), std::string::npos);
}

TEST(PrometheusLiveSource, ErrorsAreLoggedWithTheServersReason) {
  struct Fault {
    const char* what;
    CannedHttpServer::Response response;
    const char* reason;
  };
  const Fault faults[] = {
      {"error document",
       json_answer(400,
                   R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})"),
       "Prometheus error bad_data: parse error at char 5"},
      {"malformed JSON",
       json_answer(200, R"({"status":"success","data":{"resultType":"matrix","result":[{)"),
       "not JSON"},
      {"wrong shape",
       json_answer(200, R"({"status":"success","data":{"resultType":"matrix","result":{}}})"),
       "expected an array"},
      {"HTTP 500", {500, "text/html", "<h1>oops</h1>", false, 0}, "HTTP 500"},
      {"silent server", {200, "", "", true, 0}, ""},
  };
  for (const Fault& f : faults) {
    SCOPED_TRACE(f.what);
    CannedHttpServer server;
    server.respond(json_answer(200, api_document(1)));
    ManualClock clock(Nanos{0}, Nanos{kWallS * 1'000'000'000});
    PrometheusLiveSource source(options_for(server), clock);
    source.advance(Nanos{0});
    ASSERT_TRUE(source.connected());
    const std::size_t kept = source.store().sample_count();
    ASSERT_GT(kept, 0u);

    server.respond(f.response);
    clock.advance(seconds(5));
    EXPECT_EQ(source.advance(seconds(5)), 1);
    EXPECT_FALSE(source.connected());
    EXPECT_GE(source.store().sample_count(), kept) << "history kept";
    ASSERT_FALSE(source.events().empty());
    EXPECT_NE(source.events().back().text.find("refresh failed"), std::string::npos);
    EXPECT_NE(source.events().back().text.find(f.reason), std::string::npos)
        << source.events().back().text;
    EXPECT_EQ(source.snapshot(ChartView{}).connection, "reconnecting");

    EXPECT_EQ(source.advance(milliseconds(900)), 0) << "backoff of 1 s";
    server.respond(json_answer(200, api_document(1)));
    clock.advance(seconds(1));
    EXPECT_EQ(source.advance(milliseconds(100)), 1);
    EXPECT_TRUE(source.connected()) << source.last_error();
    EXPECT_NE(source.events().back().text.find("reconnected"), std::string::npos);
  }
}

TEST(PrometheusLiveSource, Rfc3339Times) {
  struct Row {
    const char* text;
    std::optional<std::int64_t> ms;
  };
  const Row rows[] = {
      {"1970-01-01T00:00:00Z", 0},
      {"2027-01-15T08:00:00.250Z", 1'800'000'000'250},
      {"2027-01-15T09:00:00.250+01:00", 1'800'000'000'250},
      {"2027-01-15T07:30:00.250123456-00:30", 1'800'000'000'250},
      {"2027-01-15 08:00:00Z", 1'800'000'000'000},
      {"2027-01-15T08:00:00", std::nullopt},
      {"2027-13-15T08:00:00Z", std::nullopt},
      {"yesterday", std::nullopt},
      {"", std::nullopt},
  };
  for (const Row& r : rows) EXPECT_EQ(parse_rfc3339_ms(r.text), r.ms) << r.text;
}

}  // namespace
}  // namespace limitscope
