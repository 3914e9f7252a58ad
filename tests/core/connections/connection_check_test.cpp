// Verifies the test-connection check on HTTP kinds against a canned loopback server: a scrape
// reports its series count, Prometheus reports its targets, auth headers are sent, and an
// HTTP error, a bad body or a dead port give the right error kind; a saved /metrics
// connection with basic or bearer auth (secret from the environment or the keychain) passes
// an endpoint that requires it, and fails with a 401 naming the URL when the secret is wrong
// or the connection has none, never showing a secret. (The Redis check runs
// against a real redis-server in tests/ui/connection_dialog_test.cpp.)
#include "core/connections/connection_check.h"

#include <gtest/gtest.h>

#include "core/redis/client_options.h"
#include "support/canned_http_server.h"
#include "support/ports.h"

namespace limitscope::connections {
namespace {

ResolvedConnection http_target(ConnectionKind kind, const std::string& url) {
  SavedConnection c;
  c.name = "t";
  c.kind = kind;
  c.url = url;
  auto r = resolve_connection(c, process_env(), std::nullopt);
  EXPECT_TRUE(r.ok()) << r.error();
  return *r;
}

CheckOptions quick() {
  CheckOptions o;
  o.timeout = std::chrono::milliseconds(1000);
  return o;
}

// The check of `t` with quick() options, on a clock that stands still.
CheckResult quick_check(const ResolvedConnection& t) {
  ManualClock clock;
  return check_connection(t, quick(), clock);
}

TEST(ConnectionCheck, MetricsScrapeCountsSeries) {
  test::CannedHttpServer server;
  server.respond({200, "text/plain; version=0.0.4",
                  "# TYPE gateway_rate_limit_hits_total counter\n"
                  "gateway_rate_limit_hits_total{tier=\"free\",model=\"gpt-4.1\"} 3\n"
                  "gateway_rate_limit_hits_total{tier=\"pro\",model=\"gpt-4.1\"} 1\n"
                  "up 1\n"});
  auto t = http_target(ConnectionKind::metrics, server.url());
  t.fetch.basic_user = "scraper";
  t.fetch.basic_password = "pw";
  const CheckResult r = quick_check(t);
  ASSERT_TRUE(r.ok) << r.error_kind << ": " << r.message;
  EXPECT_EQ(r.figure("series"), "3");
  EXPECT_EQ(r.figure("metrics"), "2");
  EXPECT_NE(r.message.find("3 series in 2 metrics"), std::string::npos) << r.message;
  EXPECT_NE(server.last_request().find("Authorization: Basic c2NyYXBlcjpwdw=="), std::string::npos)
      << server.last_request();
}

TEST(ConnectionCheck, PrometheusQueriesUp) {
  test::CannedHttpServer server;
  server.respond({200, "application/json",
                  R"({"status":"success","data":{"resultType":"vector","result":[
                     {"metric":{"__name__":"up","job":"gw"},"value":[1700000000,"1"]},
                     {"metric":{"__name__":"up","job":"redis"},"value":[1700000000,"0"]}]}})"});
  auto t = http_target(ConnectionKind::prometheus, server.url(""));
  t.fetch.bearer_token = "t0k";
  const CheckResult r = quick_check(t);
  ASSERT_TRUE(r.ok) << r.error_kind << ": " << r.message;
  EXPECT_EQ(r.figure("targets"), "2");
  EXPECT_EQ(r.figure("targets_up"), "1");
  EXPECT_NE(server.last_request().find("GET /api/v1/query?query=up"), std::string::npos)
      << server.last_request();
  EXPECT_NE(server.last_request().find("Authorization: Bearer t0k"), std::string::npos)
      << server.last_request();
}

TEST(ConnectionCheck, TheTestOfARedisConnectionWaitsAsTheSharedRedisOptionsSay) {
  EXPECT_EQ(check_options(ConnectionKind::redis).timeout, redis::kDefaultTimeout);
  EXPECT_EQ(check_options(ConnectionKind::metrics).timeout, CheckOptions{}.timeout);
  EXPECT_EQ(check_options(ConnectionKind::prometheus).timeout, CheckOptions{}.timeout);
}

// The check of a `kind` connection to a canned server that answers `response`.
CheckResult check_answered(ConnectionKind kind, const test::CannedHttpServer::Response& response) {
  test::CannedHttpServer server;
  server.respond(response);
  const std::string url = kind == ConnectionKind::prometheus ? server.url("") : server.url();
  return quick_check(http_target(kind, url));
}

TEST(ConnectionCheck, FailuresCarryTheirKind) {
  {
    const CheckResult r =
        check_answered(ConnectionKind::metrics, {401, "text/plain", "unauthorized\n"});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error_kind, "http") << r.message;
    EXPECT_NE(r.message.find("401"), std::string::npos) << r.message;
  }
  {
    const CheckResult r = check_answered(ConnectionKind::metrics,
                                         {200, "text/plain", "this is { not an exposition\n"});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error_kind, "parse") << r.message;
  }
  {
    const CheckResult r = check_answered(
        ConnectionKind::prometheus,
        {200, "application/json", R"({"status":"error","errorType":"bad_data","error":"nope"})"});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("nope"), std::string::npos) << r.message;
  }
  {
    const int port = test::free_loopback_port();
    const CheckResult r = quick_check(http_target(
        ConnectionKind::metrics, "http://127.0.0.1:" + std::to_string(port) + "/metrics"));
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error_kind, "transport") << r.message;
  }
}

struct SavedAuthRow {
  const char* name;
  HttpAuth auth;
  SecretStorage storage;
  std::string required;  // the Authorization header the endpoint wants
  std::string user, right, wrong;
};

class SavedMetricsAuth : public ::testing::TestWithParam<SavedAuthRow> {};

TEST_P(SavedMetricsAuth, PassesWithTheRightSecretAndNames401Otherwise) {
  const SavedAuthRow& row = GetParam();
  test::CannedHttpServer server;
  server.respond({200, "text/plain; version=0.0.4", "up 1\n", false, 0});
  server.require_authorization(row.required);
  SavedConnection c;
  c.name = "gw";
  c.kind = ConnectionKind::metrics;
  c.url = server.url();
  c.auth = row.auth;
  c.user = row.user;
  c.secret = row.storage;
  if (row.storage == SecretStorage::env) c.secret_env = "GW_SECRET";
  ASSERT_TRUE(validate(c).ok()) << validate(c).error();
  ManualClock clock;
  const auto check_with = [&](const SavedConnection& saved, const std::string& secret) {
    const EnvLookup env = [&](const std::string& name) -> std::optional<std::string> {
      if (name == "GW_SECRET") return secret;
      return std::nullopt;
    };
    const auto keychain =
        saved.secret == SecretStorage::keychain ? std::optional<std::string>(secret) : std::nullopt;
    auto target = resolve_connection(saved, env, keychain);
    EXPECT_TRUE(target.ok()) << target.error();
    return target ? check_connection(*target, quick(), clock) : CheckResult{};
  };

  const CheckResult good = check_with(c, row.right);
  EXPECT_TRUE(good.ok) << good.error_kind << ": " << good.message;
  EXPECT_EQ(good.figure("series"), "1");

  SavedConnection without = c;
  without.auth = HttpAuth::none;
  without.user.clear();
  without.secret = SecretStorage::none;
  without.secret_env.clear();
  for (const auto& [what, result] : {std::pair{"wrong secret", check_with(c, row.wrong)},
                                     std::pair{"no auth", check_with(without, "")}}) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error_kind, "http");
    EXPECT_NE(result.message.find("GET " + server.url() + ": HTTP 401"), std::string::npos)
        << result.message;
    EXPECT_EQ(result.message.find(row.right), std::string::npos) << result.message;
    EXPECT_EQ(result.message.find(row.wrong), std::string::npos) << result.message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BasicAndBearer, SavedMetricsAuth,
    ::testing::Values(SavedAuthRow{"basic_from_env", HttpAuth::basic, SecretStorage::env,
                                   "Basic c2NyYXBlcjpzM2NyM3QtcHc=", "scraper", "s3cr3t-pw",
                                   "n0t-the-pw"},
                      SavedAuthRow{"bearer_from_keychain", HttpAuth::bearer,
                                   SecretStorage::keychain, "Bearer t0ken-for-metrics", "",
                                   "t0ken-for-metrics", "wr0ng-t0ken"}),
    [](const auto& row) { return std::string(row.param.name); });

}  // namespace
}  // namespace limitscope::connections
