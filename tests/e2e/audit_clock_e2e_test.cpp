// Verifies `limitscope-cli audit clock` on real processes: a limitscope-gateway and the
// redis-server it would share, on one machine, agree within the threshold from both the time
// gauge and the Date header (exit 0); a foreign gateway whose Date header is an hour behind is
// flagged (exit 1); bad input is exit 2 with the input named.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/common/clock.h"
#include "core/common/http_date.h"
#include "e2e/e2e_policy.h"
#include "support/canned_http_server.h"
#include "support/child_process.h"
#include "support/cli_usage.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace limitscope::test {
namespace {

using nlohmann::json;

TEST(AuditClockE2E, GatewayAndRedisOnOneMachineAgree) {
  auto redis = RedisServer::start();
  ASSERT_NE(redis, nullptr);
  const std::string policy = write_temp("audit_clock_policy.json", e2e_policy_json());
  GatewayProcess gw({"--policy", policy, "--mock-upstream", "--redis", redis->url()});
  ASSERT_TRUE(gw.running());
  auto r =
      run_cli("audit clock --json --redis " + redis->url() + " --metrics " + gw.url() + "/metrics");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("skewed"), 0);
  EXPECT_EQ(j.at("threshold_s"), 1.0);
  ASSERT_FALSE(j.at("redis_vs_workstation").is_null());
  const json& g = j.at("gateways").at(0);
  EXPECT_EQ(g.at("source"), "gauge");
  EXPECT_FALSE(g.at("skewed").get<bool>());
  EXPECT_LT(std::abs(g.at("vs_redis_s").get<double>()), 1.0);
  ASSERT_FALSE(g.at("date_vs_workstation").is_null()) << "the gateway sends a Date header";
  EXPECT_LT(std::abs(g.at("date_vs_workstation").at("offset_s").get<double>()), 1.5);
}

TEST(AuditClockE2E, ForeignGatewayAnHourBehindIsFlagged) {
  CannedHttpServer foreign;
  CannedHttpServer::Response r;
  r.body = "gateway_rate_limit_hits_total{tier=\"free\",model=\"m\"} 1\n";
  const std::string date_line =
      "Date: " + format_http_date(SteadyClock::instance().wall() - std::chrono::hours(1)) + "\r\n";
  foreign.add_headers(date_line);
  foreign.respond(r);
  auto out = run_cli("audit clock --json --metrics " + foreign.url());
  ASSERT_EQ(out.exit_code, 1) << out.out << out.err;
  const json j = json::parse(out.out);
  EXPECT_EQ(j.at("skewed"), 1);
  const json& g = j.at("gateways").at(0);
  EXPECT_EQ(g.at("source"), "date");
  EXPECT_NEAR(g.at("vs_workstation").at("offset_s").get<double>(), -3600, 2);
}

TEST(AuditClockE2E, BadInputIsAUsageErrorNamingIt) {
  expect_usage_errors(
      "audit clock",
      {
          {"", "--metrics URL[,URL...] is required"},
          {"--metrics gopher://x", "--metrics: \"gopher://x\""},
          {"--metrics http://127.0.0.1:1/metrics --threshold soon", "--threshold"},
          {"--metrics http://127.0.0.1:1/metrics --redis redis://127.0.0.1:1", "--redis"},
      });
  // An unreachable gateway is a finding (its clock could not be read), not bad usage.
  auto down = run_cli("audit clock --json --metrics http://127.0.0.1:1/metrics");
  EXPECT_EQ(down.exit_code, 1) << down.err;
  EXPECT_EQ(json::parse(down.out).at("errors"), 1);
}

}  // namespace
}  // namespace limitscope::test
